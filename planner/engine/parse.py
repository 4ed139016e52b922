"""The contract's JSON input -> a validated Scenario in SI units, with every problem collected at once.

Units convert here and only here: GB (vendor label, treated as GiB per the contract) -> bytes, TB/s -> bytes/s,
TFLOPS -> FLOP/s, Gb/s -> bytes/s, GB/s -> bytes/s, kW -> W, µs -> s, minutes -> s, hours -> s, billions -> count.
Unknown keys are rejected with their path and a "did you mean" hint; cross-field rules (tp·pp·dp·cp = GPUs,
divisibility of heads, layers, experts and batch) name the field to change.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, replace
from typing import Any

from planner.engine import catalog, goodput, job, network, power, tco
from planner.engine.errors import Problem, SpecError
from planner.engine.fields import Fields, join
from planner.engine.inference import ServingSpec
from planner.engine.parse_model import MODEL_PATH, parse_model
from planner.engine.scenario import ClusterSpec, Scenario
from planner.engine.specs import PRECISIONS, GpuSpec, ModelSpec, ParallelismSpec
from planner.engine.units import BITS_PER_BYTE, BITS_PER_GBIT, GB, KW, MICROSECOND, MINUTE, TB, TERA, GiB, HOUR

TOP_KEYS = ("cluster", "workload", "economics", "search")
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
WORKLOAD_KEYS = (
    "kind",
    "model",
    "tokens_b",
    "precision",
    "optimizer",
    "parallelism",
    "goodput",
    "serving",
    "job",
)
PARALLELISM_KEYS = (
    "tp",
    "pp",
    "dp",
    "cp",
    "ep",
    "virtual_stages",
    "sequence_parallel",
    "zero_stage",
    "recompute",
    "micro_batch",
    "global_batch",
    "flash_attention",
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
GOODPUT_KEYS = ("mtbf_gpu_hours", "checkpoint_interval_min", "checkpoint_write_s", "restart_min", "fraction")
SERVING_KEYS = ("batch", "context_len", "output_len", "target_tokens_per_s", "max_ttft_s", "max_tpot_s", "kv_precision")
JOB_KEYS = ("single_gpu_hours", "parallel_fraction", "measured_speedup", "measured_gpus", "scaling")
ECONOMICS_KEYS = tuple(f.name for f in fields(tco.EconomicsSpec))
SEARCH_KEYS = ("gpus", "nodes", "objective", "max_results", "max_configs")
KINDS = ("training", "inference", "job")
OPTIMIZERS = ("adam", "adamw", "sgd_momentum", "adam_8bit")
RECOMPUTE = ("none", "selective", "full")
SEARCHABLE = ("tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch", "zero_stage", "recompute")

#: Defaults of optional inputs (echoed under `assumptions` when used).
GPUS_PER_NODE_DEFAULT = 8
SCALEOUT_GBPS_PER_GPU_DEFAULT = 400.0  # one 400 Gb/s NDR InfiniBand NIC per GPU (DGX H100 design)
PRECISION_DEFAULT = "bf16"
OPTIMIZER_DEFAULT = "adam"
ZERO_STAGE_DEFAULT = 1  # Megatron-LM distributed optimizer / DeepSpeed ZeRO-1, the common LLM default
RECOMPUTE_DEFAULT = "selective"


def parse(payload: Any, *, allow_search: bool = False) -> Scenario:
    """Validate `payload` (the contract's input as a dict) and build a Scenario; SpecError lists every problem."""
    problems: list[Problem] = []
    assumptions: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    top = Fields(payload, "", problems, TOP_KEYS)
    if not top.ok:
        raise SpecError(problems)
    if top.has("search") and not allow_search:
        top.problem("search", "only the search command takes a 'search' object")
    cluster = _cluster(top, problems, assumptions)
    workload = top.child("workload", WORKLOAD_KEYS, required=True)
    economics = _economics(top.child("economics", ECONOMICS_KEYS), problems, assumptions)
    if workload is None or not workload.ok:
        raise SpecError(problems)
    kind = workload.string("kind", default="training", choices=KINDS)
    gp = _goodput(workload.child("goodput", GOODPUT_KEYS), problems)
    search = _search(top, problems) if allow_search else None
    scenario = Scenario(
        kind=kind or "training",
        cluster=cluster or _PLACEHOLDER_CLUSTER,  # an invalid cluster: keep checking the workload
        precision=PRECISION_DEFAULT,
        goodput=gp,
        economics=economics,
        search=search,
    )
    if kind == "training":
        scenario = _training(workload, scenario, problems, assumptions, warnings, searching=search is not None)
    elif kind == "inference":
        scenario = _inference(workload, scenario, problems, assumptions)
    elif kind == "job":
        scenario = replace(scenario, job=_job(workload.child("job", JOB_KEYS, required=True), problems))
    if problems:
        raise SpecError(problems)
    return replace(scenario, assumptions=assumptions, warnings=tuple(warnings))


# --- cluster --------------------------------------------------------------------------------------------------


#: Stands in for an invalid cluster so that the workload is still checked; GPU-dependent checks are skipped.
_PLACEHOLDER_CLUSTER = ClusterSpec(
    gpu=GpuSpec("(invalid)", 1.0, 1.0, {}, 1.0, 1.0),
    gpus_per_node=0,
    nodes=0,
    scaleout_bytes_per_s_per_gpu=1.0,
    network=network.NetworkSpec(),
    cooling=power.CoolingSpec(),
)


def _cluster_valid(sc: Scenario) -> bool:
    return sc.cluster is not _PLACEHOLDER_CLUSTER


def _cluster(top: Fields, problems: list[Problem], assumptions: dict[str, Any]) -> ClusterSpec | None:
    c = top.child("cluster", CLUSTER_KEYS, required=True)
    if c is None or not c.ok:
        return None
    gpu = _gpu(c, problems, assumptions)
    gpn = c.number("gpus_per_node", integer=True, minimum=1, maximum=1024, default=GPUS_PER_NODE_DEFAULT)
    if not c.has("gpus_per_node"):
        _assume(assumptions, "cluster.gpus_per_node", GPUS_PER_NODE_DEFAULT, "GPUs", "HGX/DGX 8-GPU node")
    nodes = c.number("nodes", required=True, integer=True, minimum=1, maximum=1_000_000)
    gbps = c.number("scaleout_gbps_per_gpu", above=0, default=SCALEOUT_GBPS_PER_GPU_DEFAULT)
    if not c.has("scaleout_gbps_per_gpu"):
        _assume(assumptions, "cluster.scaleout_gbps_per_gpu", gbps, "Gb/s", "one 400G NDR NIC per GPU (DGX H100)")
    node_max_kw = c.number("node_max_power_kw", above=0)
    pue = c.number("pue", minimum=1.0, maximum=5.0)
    host_kw = c.number("host_power_kw", minimum=0)
    load = c.number("gpu_load_factor", above=0, maximum=1.0)
    storage_tb = c.number("storage_tb", minimum=0, default=0.0)
    storage_w_per_tb = c.number("storage_power_w_per_tb", minimum=0)
    storage_usd_per_tb = c.number("storage_usd_per_tb", minimum=0)
    net = _network(c.child("network", NETWORK_KEYS), problems)
    cooling = _cooling(c.child("cooling", COOLING_KEYS), problems)
    if gpu is None or gpn is None or nodes is None or gbps is None or net is None or cooling is None:
        return None
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
        storage_tb=storage_tb or 0.0,
        storage_power_w_per_tb=storage_w_per_tb,
        storage_usd_per_tb=storage_usd_per_tb,
    )


def gpu_spec_from_object(obj: Any, path: str, problems: list[Problem], catalog_id: str | None = None) -> GpuSpec | None:
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
            problems.append(Problem(t.path, "needs at least one dense peak (e.g. \"bf16\": 989)"))
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


def resolve_gpu(value: Any, path: str, problems: list[Problem], assumptions: dict[str, Any]) -> GpuSpec | None:
    """A catalog id (string) or a contract `gpu` object -> GpuSpec."""
    if isinstance(value, str):
        rows = catalog.gpu_rows()
        if value not in rows:
            import difflib

            hint = difflib.get_close_matches(value, list(rows), n=1, cutoff=0.5)
            extra = f"; did you mean '{hint[0]}'?" if hint else ""
            problems.append(Problem(path, f"unknown catalog GPU id '{value}'{extra}"))
            return None
        row = rows[value]
        if catalog.uses_pcie_fallback(row):
            _assume(
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
        c.problem("gpu", "is required (a catalog id such as \"nvidia_h100_sxm5_80gb\" or an object)")
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
    pue = c.number("pue", minimum=1.0, maximum=5.0)
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

_ECONOMICS_RANGES: dict[str, dict[str, float]] = {
    "years": {"above": 0, "maximum": 50},
    "utilization": {"above": 0, "maximum": 1.0},
    "discount_rate": {"minimum": 0, "below": 1.0},
    "maintenance_fraction_per_year": {"minimum": 0, "maximum": 1.0},
    "idle_power_fraction": {"minimum": 0, "maximum": 1.0},
}


#: Economics fields tco.py gives a sourced default for (the rest of the required ones must be given).
_ECONOMICS_DEFAULTS: dict[str, tuple[float, str, str]] = {
    "electricity_usd_per_kwh": (tco.ELECTRICITY_USD_PER_KWH_DEFAULT, "USD per kWh", tco.ELECTRICITY_SOURCE),
    "years": (tco.YEARS_DEFAULT, "years", tco.YEARS_SOURCE),
    "utilization": (tco.UTILIZATION_DEFAULT, "fraction", tco.NOT_SOURCED),
}


def _economics(e: Fields | None, problems: list[Problem], assumptions: dict[str, Any]) -> tco.EconomicsSpec | None:
    if e is None or not e.ok:
        return None
    kwargs: dict[str, Any] = {}
    missing = False
    for f in fields(tco.EconomicsSpec):
        checks = _ECONOMICS_RANGES.get(f.name, {"minimum": 0})
        required = f.default is MISSING and f.default_factory is MISSING and f.name not in _ECONOMICS_DEFAULTS
        value = e.number(f.name, required=required, **checks)
        if value is None:
            missing = missing or required or e.has(f.name)
            if f.name in _ECONOMICS_DEFAULTS and not e.has(f.name):
                default, unit, source = _ECONOMICS_DEFAULTS[f.name]
                kwargs[f.name] = default
                _assume(assumptions, f"economics.{f.name}", default, unit, source)
            continue
        kwargs[f.name] = value
    if missing:
        return None
    return tco.EconomicsSpec(**kwargs)


def _goodput(g: Fields | None, problems: list[Problem]) -> goodput.GoodputSpec:
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
    return goodput.GoodputSpec(**kwargs)


def _search(top: Fields, problems: list[Problem]) -> dict[str, Any]:
    s = top.child("search", SEARCH_KEYS)
    out: dict[str, Any] = {"objective": "min_time", "max_results": 20, "gpus": None, "nodes": None, "max_configs": None}
    if s is None or not s.ok:
        return out
    out["objective"] = s.string("objective", default="min_time", choices=("min_time", "min_cost")) or "min_time"
    out["max_results"] = s.number("max_results", integer=True, minimum=1, maximum=1000, default=20) or 20
    out["max_configs"] = s.number("max_configs", integer=True, minimum=1)
    if s.has("nodes"):
        nodes = s.raw("nodes")
        if not isinstance(nodes, list) or not nodes or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in nodes
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


# --- workload -----------------------------------------------------------------------------------------------------


def _precision(w: Fields, gpu: GpuSpec, assumptions: dict[str, Any]) -> str | None:
    precision = w.string("precision", default=PRECISION_DEFAULT, choices=PRECISIONS)
    if not w.has("precision"):
        _assume(assumptions, "workload.precision", PRECISION_DEFAULT, "", "mixed-precision BF16 training default")
    if precision is not None and gpu.peak_flop_per_s and gpu.peak_for(precision) is None:
        have = ", ".join(gpu.peak_flop_per_s) or "none"
        w.problem("precision", f"the {gpu.name} has no {precision} peak in its datasheet (it has: {have})")
        return None
    return precision


def _training(
    w: Fields,
    sc: Scenario,
    problems: list[Problem],
    assumptions: dict[str, Any],
    warnings: list[str],
    *,
    searching: bool,
) -> Scenario:
    model = parse_model(w, problems, assumptions)
    tokens_b = w.number("tokens_b", required=True, above=0)
    precision = _precision(w, sc.cluster.gpu, assumptions)
    optimizer = w.string("optimizer", default=OPTIMIZER_DEFAULT, choices=OPTIMIZERS)
    if not w.has("optimizer"):
        _assume(assumptions, "workload.optimizer", OPTIMIZER_DEFAULT, "", "AdamW, mixed precision (16 B/param)")
    p = w.child("parallelism", PARALLELISM_KEYS)
    if searching:
        par, space = _search_space(p, problems)
        sc = replace(sc, search={**(sc.search or {}), "space": space})
    else:
        par = _parallelism(p, sc, model, problems, assumptions, warnings)
    if w.has("serving"):
        w.problem("serving", "only for kind 'inference'")
    if w.has("job"):
        w.problem("job", "only for kind 'job'")
    return replace(
        sc,
        model=model,
        tokens=None if tokens_b is None else tokens_b * 1e9,
        precision=precision or PRECISION_DEFAULT,
        optimizer=optimizer or OPTIMIZER_DEFAULT,
        parallelism=par or ParallelismSpec(),
    )


_DEGREE_CHECKS: tuple[tuple[str, dict[str, int]], ...] = (
    ("tp", {"minimum": 1}),
    ("pp", {"minimum": 1}),
    ("dp", {"minimum": 1}),
    ("cp", {"minimum": 1}),
    ("ep", {"minimum": 1}),
    ("virtual_stages", {"minimum": 1}),
    ("micro_batch", {"minimum": 1}),
    ("zero_stage", {"minimum": 0, "maximum": 3}),
)


def _degrees(p: Fields, *, searching: bool) -> dict[str, Any]:
    """The parallel degrees and recompute mode: values, or (search only) lists of values; None when absent."""
    values = {key: _list_or_int(p, key, searching, **checks) for key, checks in _DEGREE_CHECKS}
    if searching and isinstance(p.raw("recompute"), list):
        rec = p.raw("recompute")
        if not rec or any(r not in RECOMPUTE for r in rec):
            p.problem("recompute", f"must be a list of {', '.join(RECOMPUTE)}")
        values["recompute"] = sorted(set(rec), key=RECOMPUTE.index)
    else:
        values["recompute"] = p.string("recompute", default=None, choices=RECOMPUTE)
    return values


def _search_space(p: Fields | None, problems: list[Problem]) -> tuple[ParallelismSpec, dict[str, Any]]:
    """Search: each degree fixed (a number), listed (a list) or free (absent); cross-checks are applied per
    configuration by the enumeration (search.py) instead of here."""
    p = p or Fields({}, "workload.parallelism", problems, PARALLELISM_KEYS)
    values = _degrees(p, searching=True) if p.ok else {}
    global_batch = p.number("global_batch", required=True, integer=True, minimum=1) if p.ok else None
    sp = p.boolean("sequence_parallel", default=True) if p.ok else True
    flash = p.boolean("flash_attention", default=True) if p.ok else True
    par = ParallelismSpec(global_batch=global_batch or 1, sequence_parallel=sp is not False, flash_attention=flash is not False)
    return par, values


def _list_or_int(p: Fields, key: str, searching: bool, **checks: Any) -> Any:
    """A parallelism degree: an integer, or (search only) a list of integers."""
    if searching and isinstance(p.raw(key), list):
        values = p.raw(key)
        if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= checks.get("minimum", 0) for v in values):
            p.problem(key, f"must be a non-empty list of whole numbers of at least {checks.get('minimum', 0)}")
            return None
        return sorted(set(values))
    return p.number(key, integer=True, **checks)


def _parallelism(
    p: Fields | None,
    sc: Scenario,
    model: ModelSpec | None,
    problems: list[Problem],
    assumptions: dict[str, Any],
    warnings: list[str],
) -> ParallelismSpec | None:
    """Read and cross-check one fixed layout."""
    path = join("workload", "parallelism")
    p = p or Fields({}, path, problems, PARALLELISM_KEYS)
    if not p.ok:
        return None
    gpus = sc.cluster.gpus
    values = _degrees(p, searching=False)
    global_batch = p.number("global_batch", required=True, integer=True, minimum=1)
    sp = p.boolean("sequence_parallel", default=True)
    flash = p.boolean("flash_attention", default=True)
    if any(values[k] is None and p.has(k) for k in values) or global_batch is None or sp is None or flash is None:
        return None
    tp = values["tp"] or 1
    pp = values["pp"] or 1
    cp = values["cp"] or 1
    ep = values["ep"] or 1
    v = values["virtual_stages"] or 1
    mb = values["micro_batch"] or 1
    zero = ZERO_STAGE_DEFAULT if values["zero_stage"] is None else values["zero_stage"]
    recompute = values["recompute"] or RECOMPUTE_DEFAULT
    for key, value, default, source in (
        ("zero_stage", values["zero_stage"], ZERO_STAGE_DEFAULT, "Megatron-LM distributed optimizer (ZeRO-1)"),
        ("recompute", values["recompute"], RECOMPUTE_DEFAULT, "Korthikanti et al. 2022 selective recompute"),
    ):
        if value is None:
            _assume(assumptions, f"workload.parallelism.{key}", default, "", source)
    problems_before = len(problems)
    dp = layout_problems(
        tp=tp, pp=pp, dp=values["dp"], cp=cp, ep=ep, v=v, mb=mb, global_batch=global_batch,
        gpus=gpus if _cluster_valid(sc) else None, model=model, path=path, problems=problems,
    )
    if len(problems) > problems_before:
        return None
    if values["dp"] is None:
        _assume(assumptions, "workload.parallelism.dp", dp, "", "derived: gpus / (tp·pp·cp)")
    if _cluster_valid(sc) and tp > sc.cluster.gpus_per_node:
        warnings.append(
            f"tp {tp} is larger than a node ({sc.cluster.gpus_per_node} GPUs): tensor-parallel collectives cross "
            "the scale-out network every layer, which is slow"
        )
    if model is not None and tp > model.kv_heads and model.mla is None:
        _assume(assumptions, "workload.parallelism.kv_heads_replicated", tp // model.kv_heads, "copies",
                "tp > kv_heads: each KV head is replicated on tp/kv_heads ranks (Megatron-Core GQA)")
    return ParallelismSpec(
        tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, virtual_stages=v, sequence_parallel=sp, zero_stage=zero,
        recompute=recompute, flash_attention=flash, micro_batch=mb, global_batch=global_batch,
    )


def layout_problems(
    *,
    tp: int,
    pp: int,
    dp: int | None,
    cp: int,
    ep: int,
    v: int,
    mb: int,
    global_batch: int,
    gpus: int | None,
    model: ModelSpec | None,
    path: str,
    problems: list[Problem],
) -> int:
    """Cross-field rules of a training layout; returns dp (derived when None). Problems name the field to change.
    `gpus=None` (the cluster itself is invalid) skips the rules that need the GPU count."""

    def bad(key: str, message: str) -> None:
        problems.append(Problem(f"{path}.{key}", message))

    if gpus is None:
        gpus = tp * pp * cp * (dp or 1)

    for key, value in (("tp", tp), ("pp", pp), ("cp", cp)):
        if gpus % value:
            bad(key, f"must divide gpus (got {value} for {gpus} GPUs)")
    model_parallel = tp * pp * cp
    if dp is None:
        dp = max(gpus // model_parallel, 1)
        if gpus % model_parallel and not any(gpus % x for x in (tp, pp, cp)):
            bad("tp", f"tp·pp·cp = {model_parallel} must divide gpus ({gpus})")
    elif model_parallel * dp != gpus:
        bad("dp", f"tp·pp·dp·cp = {model_parallel * dp} but the cluster has {gpus} GPUs")
    if model is not None:
        if pp > model.layers:
            bad("pp", f"must not exceed the model's layers (got pp {pp} for {model.layers} layers)")
        elif v > 1 and model.layers % (pp * v):
            bad("virtual_stages", f"pp·virtual_stages = {pp * v} must divide layers ({model.layers})")
        if v > 1 and pp == 1:
            bad("virtual_stages", "the interleaved schedule needs pp > 1")
        if model.heads % tp:
            bad("tp", f"must divide the attention heads (got tp {tp} for {model.heads} heads)")
        elif model.mla is None and tp > model.kv_heads and tp % model.kv_heads:
            bad("tp", f"with tp > kv_heads ({model.kv_heads}), kv_heads must divide tp (got tp {tp})")
        elif model.mla is None and tp <= model.kv_heads and model.kv_heads % tp:
            bad("tp", f"must divide kv_heads (got tp {tp} for {model.kv_heads} KV heads)")
        if model.seq_len % cp:
            bad("cp", f"must divide seq_len (got cp {cp} for {model.seq_len})")
        if ep > 1 and model.moe is None:
            bad("ep", "expert parallelism needs a mixture-of-experts model (model.moe)")
        elif model.moe is not None and model.moe.experts % ep:
            bad("ep", f"must divide the experts (got ep {ep} for {model.moe.experts} experts)")
        if ep > 1 and (dp * cp) % ep:
            bad("ep", f"must divide dp·cp = {dp * cp} (expert parallelism is carved from data parallelism)")
    if global_batch % (mb * dp):
        bad("global_batch", f"must be a multiple of micro_batch·dp = {mb * dp} (got {global_batch})")
    return dp


def _inference(w: Fields, sc: Scenario, problems: list[Problem], assumptions: dict[str, Any]) -> Scenario:
    model = parse_model(w, problems, assumptions)
    precision = _precision(w, sc.cluster.gpu, assumptions)
    p = w.child("parallelism", PARALLELISM_KEYS)
    tp = pp = 1
    if p is not None and p.ok:
        tp = p.number("tp", integer=True, minimum=1, default=1) or 1
        pp = p.number("pp", integer=True, minimum=1, default=1) or 1
        for key in PARALLELISM_KEYS:
            if key not in ("tp", "pp") and p.has(key):
                p.problem(key, "inference takes only tp and pp")
    gpus = sc.cluster.gpus
    if _cluster_valid(sc) and gpus % (tp * pp):
        problems.append(Problem("workload.parallelism.tp", f"tp·pp = {tp * pp} must divide gpus ({gpus})"))
    if model is not None and pp > model.layers:
        problems.append(Problem("workload.parallelism.pp", f"must not exceed the model's layers ({model.layers})"))
    if model is not None and model.heads % tp:
        problems.append(Problem("workload.parallelism.tp", f"must divide the attention heads ({model.heads})"))
    s = w.child("serving", SERVING_KEYS, required=True)
    serving = None
    if s is not None and s.ok:
        batch = s.number("batch", required=True, integer=True, minimum=1)
        context = s.number("context_len", required=True, integer=True, minimum=1)
        output = s.number("output_len", required=True, integer=True, minimum=1)
        target = s.number("target_tokens_per_s", above=0)
        ttft = s.number("max_ttft_s", above=0)
        tpot = s.number("max_tpot_s", above=0)
        kv_precision = s.string("kv_precision", choices=PRECISIONS)
        if None not in (batch, context, output):
            serving = ServingSpec(batch, context, output, target, ttft, tpot, kv_precision)
    for key in ("tokens_b", "optimizer", "job"):
        if w.has(key):
            w.problem(key, "not used by kind 'inference'")
    par = ParallelismSpec(tp=tp, pp=pp, dp=max(gpus // (tp * pp), 1))
    return replace(sc, model=model, precision=precision or PRECISION_DEFAULT, serving=serving, parallelism=par)


def _job(j: Fields | None, problems: list[Problem]) -> job.JobSpec | None:
    if j is None or not j.ok:
        return None
    hours = j.number("single_gpu_hours", required=True, above=0)
    fraction = j.number("parallel_fraction", minimum=0, maximum=1.0)
    speedup = j.number("measured_speedup", minimum=1.0)
    measured = j.number("measured_gpus", integer=True, minimum=2)
    scaling = j.string("scaling", default="amdahl", choices=job.SCALINGS)
    if fraction is None and (speedup is None or measured is None) and not any(
        j.has(k) for k in ("parallel_fraction", "measured_speedup", "measured_gpus")
    ):
        j.problem("parallel_fraction", "give parallel_fraction, or measured_speedup together with measured_gpus")
    if speedup is not None and measured is not None and speedup > measured:
        j.problem("measured_speedup", f"must not exceed measured_gpus ({measured}); got {speedup}")
    if hours is None or scaling is None:
        return None
    return job.JobSpec(
        single_gpu_time_s=hours * HOUR,
        parallel_fraction=fraction,
        measured_speedup=speedup,
        measured_gpus=measured,
        scaling=scaling,
    )


def _assume(assumptions: dict[str, Any], key: str, value: Any, unit: str, source: str) -> None:
    assumptions[key] = {"value": value, "unit": unit, "source": source}


__all__ = ["parse", "layout_problems", "resolve_gpu", "gpu_spec_from_object", "MODEL_PATH"]
