"""Parsing of the cluster, economics, goodput and search objects (parse.py parses the workload and the whole,
model.py the model, parallelism.py the parallelism).

Units convert here and only here: GB (vendor label, treated as GiB per the contract) -> bytes, TB/s -> bytes/s,
TFLOPS -> FLOP/s, Gb/s -> bytes/s, GB/s -> bytes/s, kW -> W, µs -> s, minutes -> s.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, replace
from functools import lru_cache
from typing import Any

from planner.engine.facility import network, power, tco
from planner.engine.inputs import catalog
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.fields import Fields, join
from planner.engine.inputs.scenario import ClusterSpec, Scenario
from planner.engine.inputs.specs import PRECISIONS, GpuSpec
from planner.engine.inputs.suggest import did_you_mean
from planner.engine.inputs.units import (
    BILLION,
    BITS_PER_BYTE,
    BITS_PER_GBIT,
    GB,
    KW,
    MICROSECOND,
    MINUTE,
    TB,
    TERA,
    GiB,
)
from planner.engine.training import goodput

CLUSTER_KEYS = (
    "gpu",
    "gpus_per_node",
    "nodes",
    "scaleout_gbps_per_gpu",
    "node_max_power_kw",
    "pue",
    "host_power_kw",
    "gpu_load_factor",
    "network",
    "cooling",
    "storage_tb",
    "storage_power_w_per_tb",
    "storage_usd_per_tb",
    "node_nameplate_kw",
    "power_redundancy",
    "gpu_power_limit_w",
)
GPU_KEYS = (
    "name",
    "memory_gb",
    "memory_bandwidth_tbs",
    "tflops",
    "tdp_w",
    "scaleup_bandwidth_gbs",
    "price_usd",
    "vendor",
    "id",
)
NETWORK_KEYS = (
    "topology",
    "tiers",
    "oversubscription",
    "switch",
    "nic_power_w",
    "nic_usd",
    "transceiver_power_w",
    "transceiver_usd",
    "cable_usd",
    "latency_us",
    "efficiency",
)
SWITCH_KEYS = ("name", "ports", "port_gbps", "power_w", "usd")
COOLING_KEYS = ("name", "pue", "rack_density_kw", "capex_usd_per_kw", "wue_l_per_kwh")
GOODPUT_KEYS = (
    "mtbf_gpu_hours",
    "checkpoint_interval_min",
    "checkpoint_write_s",
    "restart_min",
    "fraction",
    "eval_interval_steps",
    "eval_steps",
    "straggler_fraction",
    "straggler_per_doubling",
    "data_stall_fraction",
    "ramp_up_tokens_b",
    "long_context_tokens_b",
    "long_context_seq_len",
)
ECONOMICS_KEYS = tuple(f.name for f in fields(tco.EconomicsSpec))
SEARCH_KEYS = ("gpus", "nodes", "objective", "max_results", "max_configs")

#: Defaults of optional cluster inputs (echoed under `assumptions` when used).
GPUS_PER_NODE_DEFAULT = 8
SCALEOUT_GBPS_PER_GPU_DEFAULT = 400.0  # one 400 Gb/s NDR InfiniBand NIC per GPU (DGX H100 design)
#: PUE is facility energy over IT energy (The Green Grid, "PUE: a comprehensive examination of the metric",
#: White Paper #49, 2012), so never below 1; above 5 is a typo, not a data centre.
PUE_MIN = 1.0
PUE_MAX = 5.0


# --------------------------------------------------------------------------------------------------


#: Stands in for an invalid cluster so that the workload is still checked; GPU-dependent checks are skipped.
PLACEHOLDER_CLUSTER = ClusterSpec(
    gpu=GpuSpec("(invalid)", 1.0, 1.0, {}, 1.0, 1.0),
    gpus_per_node=0,
    nodes=0,
    scaleout_bytes_per_s_per_gpu=1.0,
    network=network.NetworkSpec(),
    cooling=power.CoolingSpec(),
)


def cluster_valid(sc: Scenario) -> bool:
    return sc.cluster is not PLACEHOLDER_CLUSTER


def parse_cluster(top: Fields, problems: list[Problem], assumptions: dict[str, Any]) -> ClusterSpec | None:
    c = top.child("cluster", CLUSTER_KEYS, required=True)
    if c is None or not c.ok:
        return None
    gpu = _gpu(c, problems, assumptions)
    gpn = c.number("gpus_per_node", integer=True, minimum=1, maximum=1024, default=GPUS_PER_NODE_DEFAULT)
    if not c.has("gpus_per_node"):
        assume(assumptions, "cluster.gpus_per_node", GPUS_PER_NODE_DEFAULT, "GPUs", "HGX/DGX 8-GPU node")
    nodes = c.number("nodes", required=True, integer=True, minimum=1, maximum=1_000_000)
    gbps = c.number("scaleout_gbps_per_gpu", minimum=0, default=SCALEOUT_GBPS_PER_GPU_DEFAULT)
    if gbps == 0 and nodes is not None and nodes > 1:
        c.problem(
            "scaleout_gbps_per_gpu",
            f"must be greater than 0 for {nodes} nodes (0 means no scale-out network: a single node)",
        )
        gbps = None
    if not c.has("scaleout_gbps_per_gpu"):
        assume(
            assumptions, "cluster.scaleout_gbps_per_gpu", gbps, "Gb/s", "one 400G NDR NIC per GPU (DGX H100)"
        )
    node_max_kw = c.number("node_max_power_kw", above=0)
    pue = c.number("pue", minimum=PUE_MIN, maximum=PUE_MAX)
    host_kw = c.number("host_power_kw", minimum=0)
    load = c.number("gpu_load_factor", above=0, maximum=1.0)
    storage_tb = c.number("storage_tb", minimum=0)  # None: sized from the workload (facility/sections.py)
    storage_w_per_tb = c.number("storage_power_w_per_tb", minimum=0)
    storage_usd_per_tb = c.number("storage_usd_per_tb", minimum=0)
    nameplate_kw = c.number("node_nameplate_kw", above=0)
    redundancy = c.string("power_redundancy", default=power.REDUNDANCY_DEFAULT, choices=power.REDUNDANCIES)
    limit_w = c.number("gpu_power_limit_w", above=0)
    net = _network(c.child("network", NETWORK_KEYS), problems)
    cooling = _cooling(c.child("cooling", COOLING_KEYS), problems)
    if gpu is None or gpn is None or nodes is None or gbps is None or net is None or cooling is None:
        return None
    nameplate_w, nameplate_source = _nameplate(gpu, gpn, nameplate_kw, node_max_kw)
    uncapped_tdp_w = gpu.tdp_w
    if limit_w is not None:
        capped = _power_cap(gpu, gpn, limit_w, problems, assumptions)
        if capped is None:
            return None
        gpu, cut_w = capped
        if node_max_kw is not None:
            node_max_kw -= cut_w / KW
        if nameplate_w is not None:
            nameplate_w -= cut_w
            nameplate_source += f", less {cut_w:,.0f} W of GPU power cap"
    return ClusterSpec(
        gpu=gpu,
        gpus_per_node=gpn,
        nodes=nodes,
        scaleout_bytes_per_s_per_gpu=gbps * BITS_PER_GBIT / BITS_PER_BYTE,
        network=net,
        cooling=cooling,
        node_max_power_w=None if node_max_kw is None else node_max_kw * KW,
        pue=pue,
        host_power_w_per_node=None if host_kw is None else host_kw * KW,
        gpu_load_factor=load,
        storage_tb=storage_tb,
        storage_power_w_per_tb=storage_w_per_tb,
        storage_usd_per_tb=storage_usd_per_tb,
        node_nameplate_w=nameplate_w,
        nameplate_source=nameplate_source,
        power_redundancy=redundancy or power.REDUNDANCY_DEFAULT,
        gpu_power_limit_w=limit_w,
        gpu_tdp_uncapped_w=uncapped_tdp_w,
    )


def _nameplate(
    gpu: GpuSpec, gpus_per_node: int, nameplate_kw: float | None, node_max_kw: float | None
) -> tuple[float | None, str]:
    """A node's nameplate: typed, else the node's rated maximum (left to power.py), else per GPU slot of the
    catalog system that carries this catalog GPU (DGX H100 for the H100 SXM), else None (power.py's fit)."""
    if nameplate_kw is not None:
        return nameplate_kw * KW, "input"
    if node_max_kw is not None:
        return None, ""
    per_slot = catalog.system_nameplate_per_slot(gpu.catalog_id)
    if per_slot is None:
        return None, ""
    watts, source = per_slot
    return watts * gpus_per_node, f"{gpus_per_node} GPU slots x {watts:,.1f} W: {source}"


def _power_cap(
    gpu: GpuSpec, gpus_per_node: int, limit_w: float, problems: list[Problem], assumptions: dict[str, Any]
) -> tuple[GpuSpec, float] | None:
    """The GPU capped at `limit_w`: TDP becomes the cap and every dense peak shrinks by
    power.power_cap_throughput_fraction; returns it with the node's power cut (W)."""
    path = "cluster.gpu_power_limit_w"
    if limit_w > gpu.tdp_w:
        problems.append(
            Problem(path, f"must not exceed the GPU's TDP ({gpu.tdp_w:,.0f} W); got {limit_w:,.0f}")
        )
        return None
    if limit_w < power.POWER_CAP_MIN_FRACTION * gpu.tdp_w:
        floor_w = power.POWER_CAP_MIN_FRACTION * gpu.tdp_w
        problems.append(
            Problem(
                path, f"below {floor_w:,.0f} W (half the TDP) the effect is not known; got {limit_w:,.0f}"
            )
        )
        return None
    cap = power.power_cap_section(limit_w, gpu.tdp_w, gpus_per_node)
    fraction = cap["throughput_fraction"]
    assume(
        assumptions,
        "cluster.gpu_power_cap_throughput",
        fraction,
        "fraction of uncapped throughput",
        cap["source"],
    )
    capped = replace(
        gpu,
        tdp_w=limit_w,
        peak_flop_per_s={precision: peak * fraction for precision, peak in gpu.peak_flop_per_s.items()},
    )
    return capped, gpus_per_node * (gpu.tdp_w - limit_w)


def gpu_spec_from_object(
    obj: Any, path: str, problems: list[Problem], catalog_id: str | None = None
) -> GpuSpec | None:
    """A contract `gpu` object -> GpuSpec (GB -> bytes as GiB, TB/s -> bytes/s, TFLOPS -> FLOP/s, GB/s -> bytes/s)."""
    g = Fields(obj, path, problems, GPU_KEYS)
    if not g.ok:
        return None
    name = g.string("name", required=True)
    memory_gb = g.number("memory_gb", required=True, above=0)
    bandwidth = g.number("memory_bandwidth_tbs", required=True, above=0)
    tdp = g.number("tdp_w", required=True, above=0)
    scaleup = g.number("scaleup_bandwidth_gbs", required=True, above=0)
    price = g.number("price_usd", minimum=0)
    vendor = g.string("vendor", default="")
    g.string("id")
    peaks: dict[str, float] = {}
    t = g.child("tflops", PRECISIONS, required=True)
    if t is not None and t.ok:
        for precision in PRECISIONS:
            value = t.number(precision, above=0)
            if value is not None:
                peaks[precision] = value * TERA
        if not peaks and not [p for p in problems if p.path.startswith(t.path)]:
            problems.append(Problem(t.path, 'needs at least one dense peak (e.g. "bf16": 989)'))
    if None in (name, memory_gb, bandwidth, tdp, scaleup) or not peaks:
        return None
    return GpuSpec(
        name=name,
        hbm_bytes=memory_gb * GiB,  # contract: memory as the vendor labels it, treated as GiB
        hbm_bandwidth_bytes_per_s=bandwidth * TB,
        peak_flop_per_s=peaks,
        tdp_w=tdp,
        scaleup_bandwidth_bytes_per_s=scaleup * GB,
        catalog_id=catalog_id or g.raw("id"),
        vendor=vendor or "",
        price_usd=price,
    )


def resolve_gpu(
    value: Any, path: str, problems: list[Problem], assumptions: dict[str, Any]
) -> GpuSpec | None:
    """A catalog id (string) or a contract `gpu` object -> GpuSpec."""
    if isinstance(value, str):
        rows = catalog.gpu_rows()
        if value not in rows:
            extra = did_you_mean(value, list(rows), list_known=True)
            problems.append(Problem(path, f"unknown catalog GPU id '{value}'{extra}"))
            return None
        row = rows[value]
        if catalog.uses_pcie_fallback(row):
            assume(
                assumptions,
                "cluster.gpu.scaleup_bandwidth_gbs",
                catalog.gpu_object(row)["scaleup_bandwidth_gbs"],
                "GB/s both directions",
                "no scale-up fabric in the catalog: PCIe x16 host link of the catalog's PCIe generation",
            )
        before = len(problems)
        spec = gpu_spec_from_object(catalog.gpu_object(row), path, problems, catalog_id=value)
        for i in range(before, len(problems)):
            problems[i] = Problem(problems[i].path, f"{problems[i].message} (catalog GPU '{value}' lacks it)")
        return spec
    return gpu_spec_from_object(value, path, problems)


def _gpu(c: Fields, problems: list[Problem], assumptions: dict[str, Any]) -> GpuSpec | None:
    if not c.has("gpu"):
        c.problem("gpu", 'is required (a catalog id such as "nvidia_h100_sxm5_80gb" or an object)')
        return None
    return resolve_gpu(c.obj["gpu"], join(c.path, "gpu"), problems, assumptions)


def _network(n: Fields | None, problems: list[Problem]) -> network.NetworkSpec | None:
    if n is None:
        return network.NetworkSpec()
    if not n.ok:
        return None
    kwargs: dict[str, Any] = {}
    topology = n.string("topology", choices=network.TOPOLOGIES)
    if topology:
        kwargs["topology"] = topology
    if n.has("tiers"):
        kwargs["tiers"] = n.number("tiers", integer=True, minimum=1, maximum=network.MAX_TIERS)
    for key, unit_scale, checks in (
        ("oversubscription", 1.0, {"minimum": 1.0}),
        ("nic_power_w", 1.0, {"minimum": 0}),
        ("nic_usd", 1.0, {"minimum": 0}),
        ("transceiver_power_w", 1.0, {"minimum": 0}),
        ("transceiver_usd", 1.0, {"minimum": 0}),
        ("cable_usd", 1.0, {"minimum": 0}),
        ("efficiency", 1.0, {"above": 0, "maximum": 1.0}),
    ):
        value = n.number(key, **checks)
        if value is not None:
            kwargs[key] = value * unit_scale
    latency = n.number("latency_us", minimum=0)
    if latency is not None:
        kwargs["latency_s"] = latency * MICROSECOND
    s = n.child("switch", SWITCH_KEYS)
    if s is not None and s.ok:
        skw: dict[str, Any] = {}
        name = s.string("name")
        if name:
            skw["name"] = name
        ports = s.number("ports", integer=True, minimum=2)
        if ports is not None:
            skw["ports"] = ports
        port_gbps = s.number("port_gbps", above=0)
        if port_gbps is not None:
            skw["port_bandwidth_bits_per_s"] = port_gbps * BITS_PER_GBIT
        for key in ("power_w", "usd"):
            value = s.number(key, minimum=0)
            if value is not None:
                skw[key] = value
        kwargs["switch"] = network.SwitchSpec(**skw)
    if any(v is None for v in kwargs.values()):
        return None
    return network.NetworkSpec(**kwargs)


def _cooling(c: Fields | None, problems: list[Problem]) -> power.CoolingSpec | None:
    if c is None:
        return power.cooling_preset("air_crac_crah")
    if not c.ok:
        return None
    known = (*power.COOLING_PRESETS, *power.COOLING_ALIASES)
    name = c.string("name", default="air_crac_crah", choices=known)
    pue = c.number("pue", minimum=PUE_MIN, maximum=PUE_MAX)
    density = c.number("rack_density_kw", above=0)
    capex = c.number("capex_usd_per_kw", minimum=0)
    wue = c.number("wue_l_per_kwh", minimum=0)
    if name is None:
        return None
    try:
        return power.cooling_from(
            name,
            pue=pue,
            rack_density_w=None if density is None else density * KW,
            capex_usd_per_w=None if capex is None else capex / KW,
            wue_l_per_kwh=wue,
        )
    except SpecError as err:
        problems.extend(err.problems)
        return None


# --- economics, goodput, search ---------------------------------------------------------------------------------

#: Utilisation is the share of hours the cluster is busy: above 0, at most all of them.
UTILIZATION_MAX = 1.0
_ECONOMICS_RANGES: dict[str, dict[str, float]] = {
    "years": {"above": 0, "maximum": 50},
    "utilization": {"above": 0, "maximum": UTILIZATION_MAX},
    "discount_rate": {"minimum": 0, "below": 1.0},
    "maintenance_fraction_per_year": {"minimum": 0, "maximum": 1.0},
    "idle_power_fraction": {"minimum": 0, "maximum": 1.0},
    "energy_escalation_per_year": {"above": -1.0, "maximum": 1.0},
    "price_escalation_per_year": {"above": -1.0, "maximum": 1.0},
    "residual_value_fraction": {"minimum": 0, "maximum": 1.0},
    "installation_fraction": {"minimum": 0, "maximum": 1.0},
}


#: Economics fields facility/tco.py gives a sourced default for (the rest of the required ones must be given).
_ECONOMICS_DEFAULTS: dict[str, tuple[float, str, str]] = {
    "electricity_usd_per_kwh": (tco.ELECTRICITY_USD_PER_KWH_DEFAULT, "USD per kWh", tco.ELECTRICITY_SOURCE),
    "years": (tco.YEARS_DEFAULT, "years", tco.YEARS_SOURCE),
    "utilization": (tco.UTILIZATION_DEFAULT, "fraction", tco.NOT_SOURCED),
}


@lru_cache(maxsize=1)
def _economics_fields() -> tuple[tuple[str, bool, dict[str, float]], ...]:
    """(name, required, range checks) of every EconomicsSpec field, in declaration order (read once)."""
    return tuple(
        (
            f.name,
            f.default is MISSING and f.default_factory is MISSING and f.name not in _ECONOMICS_DEFAULTS,
            _ECONOMICS_RANGES.get(f.name, {"minimum": 0}),
        )
        for f in fields(tco.EconomicsSpec)
    )


def parse_economics(
    e: Fields | None, problems: list[Problem], assumptions: dict[str, Any]
) -> tco.EconomicsSpec | None:
    if e is None or not e.ok:
        return None
    kwargs: dict[str, Any] = {}
    missing = False
    for name, required, checks in _economics_fields():
        value = e.number(name, required=required, **checks)
        if value is None:
            missing = missing or required or e.has(name)
            if name in _ECONOMICS_DEFAULTS and not e.has(name):
                default, unit, source = _ECONOMICS_DEFAULTS[name]
                kwargs[name] = default
                assume(assumptions, f"economics.{name}", default, unit, source)
            continue
        kwargs[name] = value
    if missing:
        return None
    return tco.EconomicsSpec(**kwargs)


def parse_goodput(g: Fields | None, problems: list[Problem]) -> goodput.GoodputSpec:
    if g is None or not g.ok:
        return goodput.GoodputSpec()
    kwargs: dict[str, Any] = {}
    mtbf = g.number("mtbf_gpu_hours", above=0)
    interval = g.number("checkpoint_interval_min", above=0)
    write = g.number("checkpoint_write_s", minimum=0)
    restart = g.number("restart_min", minimum=0)
    fraction = g.number("fraction", above=0, maximum=1.0)
    if mtbf is not None:
        kwargs["mtbf_gpu_hours"] = mtbf
    if interval is not None:
        kwargs["checkpoint_interval_s"] = interval * MINUTE
    if write is not None:
        kwargs["checkpoint_write_s"] = write
    if restart is not None:
        kwargs["restart_s"] = restart * MINUTE
    if fraction is not None:
        kwargs["fraction"] = fraction
    kwargs.update(_whole_run_parts(g, problems))
    return goodput.GoodputSpec(**kwargs)


def _whole_run_parts(g: Fields, problems: list[Problem]) -> dict[str, Any]:
    """The whole-run inputs beside failures (training/goodput.py): evaluation, stragglers, stalls, ramp-up and
    long-context stages."""
    out: dict[str, Any] = {}
    values = {
        "eval_interval_steps": g.number("eval_interval_steps", above=0),
        "eval_steps": g.number("eval_steps", minimum=0),
        "straggler_fraction": g.number("straggler_fraction", minimum=0, maximum=10.0),
        "straggler_per_doubling": g.number("straggler_per_doubling", minimum=0, maximum=1.0),
        "data_stall_fraction": g.number("data_stall_fraction", minimum=0, maximum=10.0),
    }
    out.update({k: v for k, v in values.items() if v is not None})
    ramp = g.number("ramp_up_tokens_b", minimum=0)
    if ramp is not None:
        out["ramp_up_tokens"] = ramp * BILLION
    long_tokens = g.number("long_context_tokens_b", minimum=0)
    long_seq = g.number("long_context_seq_len", integer=True, minimum=1)
    if long_tokens:
        if long_seq is None:
            problems.append(
                Problem(join(g.path, "long_context_seq_len"), "required with long_context_tokens_b (tokens)")
            )
        out["long_context_tokens"] = long_tokens * BILLION
    if long_seq is not None:
        out["long_context_seq_len"] = int(long_seq)
    return out


def parse_search(top: Fields, problems: list[Problem]) -> dict[str, Any]:
    s = top.child("search", SEARCH_KEYS)
    out: dict[str, Any] = {
        "objective": "min_time",
        "max_results": 20,
        "gpus": None,
        "nodes": None,
        "max_configs": None,
    }
    if s is None or not s.ok:
        return out
    out["objective"] = (
        s.string("objective", default="min_time", choices=("min_time", "min_cost")) or "min_time"
    )
    out["max_results"] = s.number("max_results", integer=True, minimum=1, maximum=1000, default=20) or 20
    out["max_configs"] = s.number("max_configs", integer=True, minimum=1)
    if s.has("nodes"):
        nodes = s.raw("nodes")
        if (
            not isinstance(nodes, list)
            or not nodes
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in nodes)
        ):
            s.problem("nodes", "must be a non-empty list of whole numbers of at least 1")
        else:
            out["nodes"] = sorted(set(nodes))
    if s.has("gpus"):
        gpus = s.raw("gpus")
        if not isinstance(gpus, list) or not gpus:
            s.problem("gpus", "must be a non-empty list of catalog ids or GPU objects")
        else:
            out["gpus"] = [resolve_gpu(g, f"{s.path}.gpus[{i}]", problems, {}) for i, g in enumerate(gpus)]
    return out


def assume(assumptions: dict[str, Any], key: str, value: Any, unit: str, source: str) -> None:
    assumptions[key] = {"value": value, "unit": unit, "source": source}
