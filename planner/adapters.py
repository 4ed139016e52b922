"""The one boundary between the ORM and the engine: catalog rows + a Scenario -> the engine's JSON payload.

Units convert here on the way in (form fractions stay fractions; catalog columns already carry the contract's
units: GB, TB/s, TFLOPS, Gb/s, kW, USD). Which catalog rows and values fed the payload is recorded beside it
(planner/snapshot.py), so a stored result can say later that the catalog changed since it was computed.

The adapter never computes a figure: every number it sends is a catalog value (a range read by the catalog's
documented convention: midpoint or upper end) or a user input.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from catalog import rows as catalog_rows
from catalog import seed_schema
from catalog.models import PriceKind, System
from catalog.price_models import CloudPrice, CloudTerm
from planner.engine.facility import power
from planner.engine.inputs.catalog import (
    PCIE_FALLBACK_SOURCE,
    TFLOPS_COLUMNS,
    pcie_fallback_scaleup_gbs,
    pcie_generation,
)
from planner.engine.inputs.parse import PARALLELISM_KEYS
from planner.engine.inputs.prices import (  # noqa: F401 (re-exported: their home moved to the engine)
    HOST_BOM_GPU_SLOTS,
    HOST_BOM_SOURCE,
    HOST_BOM_USD_PER_8_GPU_SERVER,
)
from planner.engine.inputs.units import KW
from planner.models import FacilityKind, ParallelismMode, Scenario, WorkloadKind

#: Objective used for "automatic" parallelism: the fastest layout that fits (engine search objective).
AUTOMATIC_OBJECTIVE = "min_time"
#: How many ranked layouts the automatic search returns (the best one is used, the rest are shown).
AUTOMATIC_MAX_RESULTS = 5

#: Contract `tflops` key -> catalog Gpu column (all dense peaks; INT8 is TOPS, keyed like the precision): the
#: engine's one map to the seed file's columns (engine/inputs/catalog.py TFLOPS_COLUMNS), each column followed
#: to the model field it loads into (catalog/seed_schema.py).
_GPU_FIELD_BY_SEED_COLUMN = {column.seed: column.field for column in seed_schema.GPUS.columns}
GPU_TFLOPS_KEYS: dict[str, str] = {
    key: _GPU_FIELD_BY_SEED_COLUMN[column] for key, column in TFLOPS_COLUMNS.items()
}
#: The Scenario's layout fields: the contract's parallelism keys a scenario stores (engine/inputs/parallelism.py
#: PARALLELISM_KEYS, in its order).
LAYOUT_FIELDS: tuple[str, ...] = tuple(
    key for key in PARALLELISM_KEYS if key in {f.name for f in Scenario._meta.concrete_fields}
)


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


# --------------------------------------------------------------------------------------------- payload


def scaleup_bandwidth_gbs(gpu: Any) -> float:
    """A catalog GPU's scale-up bandwidth (GB/s both directions): its fabric's, else its PCIe x16 host link
    (engine/catalog.py `pcie_fallback_scaleup_gbs`, the same rule as the engine's seed resolution and the API)."""
    if gpu.scaleup_bw_gbs is not None:
        return gpu.scaleup_bw_gbs
    return pcie_fallback_scaleup_gbs(gpu.pcie_gen)


def gpu_payload(gpu: Any) -> dict[str, Any]:
    """A catalog Gpu row -> the contract's `cluster.gpu` object (dense TFLOPS; memory as labelled). A GPU
    without a scale-up fabric gets its PCIe host link (`scaleup_bandwidth_gbs`; `pcie_fallback_note` says so)."""
    tflops = _drop_none({key: getattr(gpu, column) for key, column in GPU_TFLOPS_KEYS.items()})
    return _drop_none(
        {
            "name": gpu.model,
            "vendor": gpu.vendor or None,
            "memory_gb": gpu.memory_gb,
            "memory_bandwidth_tbs": gpu.mem_bandwidth_tbs,
            "tflops": tflops,
            "tdp_w": gpu.tdp_w,
            "scaleup_bandwidth_gbs": scaleup_bandwidth_gbs(gpu),
            "price_usd": gpu.price_usd,
        }
    )


def _network_payload(scenario: Scenario) -> dict[str, Any]:
    network: dict[str, Any] = {"topology": scenario.topology, "oversubscription": scenario.oversubscription}
    if scenario.network_tiers:
        network["tiers"] = scenario.network_tiers
    if scenario.switch_id is not None:
        sw = scenario.switch
        network["switch"] = _drop_none(
            {
                "name": f"{sw.vendor} {sw.model}".strip(),
                "ports": sw.ports,
                "port_gbps": sw.port_speed_gbps,
                "power_w": sw.power_w,
                "usd": sw.price_usd,
            }
        )
    return network


#: Engine `cluster.cooling` key -> unit, for the planner-input notes of catalog overrides.
COOLING_UNITS = {
    "rack_density_kw": "kW per rack",
    "capex_usd_per_kw": "USD per kW of IT",
    "wue_l_per_kwh": "L per IT kWh",
}


def cooling_overrides(row: Any) -> dict[str, tuple[float, str]]:
    """A catalog cooling row's numbers, derived by the conventions power.py's COOLING_PRESETS document, kept
    only where they differ from that technology's preset: engine key -> (value, how it was derived). Empty for
    every row as shipped, so only an edited row changes results; a blank catalog value never overrides.

    - rack_density_kw: upper end of the typical range, else the one typical figure (immersion_1p's 40 kW);
    - capex_usd_per_kw: midpoint of the low-high range (one end alone: that figure);
    - wue_l_per_kwh: the row's figure, for a preset that carries one (the immersion presets report no water
      use rather than the catalog's vendor-claimed ~0).

    PUE is not read from the row: the catalog gives a range, and the engine's one figure per technology says
    where it comes from (an industry average, the range's conservative end, or a planning assumption). A plan
    states another PUE on the scenario itself.
    """
    preset = power.COOLING_PRESETS.get(row.pk)
    if preset is None:
        return {}  # not a technology the engine knows: the engine names the problem
    density = row.rack_density_kw_typical_high
    density = density if density is not None else row.rack_density_kw_typical
    capex_ends = [v for v in (row.capex_usd_per_kw_low, row.capex_usd_per_kw_high) if v is not None]
    derived = {
        "rack_density_kw": (density, preset.rack_density_w / KW, "upper end of the typical rack density"),
        "capex_usd_per_kw": (
            sum(capex_ends) / len(capex_ends) if capex_ends else None,
            preset.capex_usd_per_w * KW,
            "midpoint of the capex range",
        ),
        "wue_l_per_kwh": (
            row.wue_l_per_kwh if preset.wue_l_per_kwh is not None else None,
            preset.wue_l_per_kwh,
            "WUE",
        ),
    }
    return {
        key: (value, how)
        for key, (value, preset_value, how) in derived.items()
        if value is not None and (preset_value is None or not math.isclose(value, preset_value, rel_tol=1e-9))
    }


def _cooling_overrides(scenario: Scenario) -> dict[str, tuple[float, str]]:
    """The catalog overrides this scenario sends (`cooling_overrides`)."""
    return {} if scenario.cooling_id is None else cooling_overrides(scenario.cooling)


def _cooling_payload(scenario: Scenario) -> dict[str, Any] | None:
    """The cooling technology by its catalog id: the engine holds one documented preset per technology (PUE,
    rack density, fit-out capex, water, each with its source or "planning assumption"), derived from the same
    catalog rows. A catalog row edited since sends its rack density, capex and water figures
    (`cooling_overrides`); a PUE the user types overrides the preset's."""
    if scenario.cooling_id is None:
        return None
    cooling = {key: value for key, (value, _how) in _cooling_overrides(scenario).items()}
    return _drop_none({"name": scenario.cooling_id, **cooling, "pue": scenario.pue})


def cluster_payload(scenario: Scenario) -> dict[str, Any]:
    gpu = scenario.catalog_gpu
    cluster: dict[str, Any] = {
        "gpu": dict(scenario.custom_gpu) if scenario.custom_gpu else (gpu_payload(gpu) if gpu else None),
        "gpus_per_node": scenario.gpus_per_node,
        "nodes": scenario.nodes,
    }
    if scenario.network_id is not None and scenario.network.port_rate_gbps is not None:
        cluster["scaleout_gbps_per_gpu"] = scenario.network.port_rate_gbps
    if scenario.system_id is not None and scenario.system.system_max_power_kw is not None:
        cluster["node_max_power_kw"] = scenario.system.system_max_power_kw
    elif gpu is not None and not scenario.custom_gpu and (carrier := nameplate_system(gpu.pk)) is not None:
        # Provision as the catalog system that carries this GPU does (same racks as its template).
        cluster["node_nameplate_kw"] = carrier.system_max_power_kw / carrier.gpus * scenario.gpus_per_node
    if scenario.pue is not None and scenario.cooling_id is None:
        cluster["pue"] = scenario.pue
    cluster["network"] = _network_payload(scenario)
    cooling = _cooling_payload(scenario)
    if cooling:
        cluster["cooling"] = cooling
    if scenario.gpu_power_limit_w is not None:
        cluster["gpu_power_limit_w"] = scenario.gpu_power_limit_w
    if scenario.storage_tb:
        cluster["storage_tb"] = scenario.storage_tb
    return cluster


def nameplate_system(gpu_id: str) -> Any:
    """The catalog system that carries `gpu_id` and gives a maximum input power (first by id), or None: the
    engine then provisions by its fit (facility/power.py NAMEPLATE_PER_TDP). Same rule as the engine's seed
    lookup (inputs/catalog.py system_nameplate_per_slot)."""
    for system in sorted(catalog_rows.current().all(System), key=lambda row: row.pk):
        if system.gpu_id == gpu_id and system.system_max_power_kw and system.gpus:
            return system
    return None


def model_payload(scenario: Scenario) -> str | dict[str, Any]:
    if scenario.custom_model:
        return dict(scenario.custom_model)
    return scenario.model_preset


def parallelism_payload(scenario: Scenario) -> dict[str, Any]:
    """Manual layout; dp and global_batch are left out when blank (the engine derives dp, defaults the batch)."""
    return _drop_none({key: getattr(scenario, key) for key in LAYOUT_FIELDS})


def workload_payload(scenario: Scenario) -> dict[str, Any]:
    workload: dict[str, Any] = {"kind": scenario.workload_kind}
    if scenario.workload_kind == WorkloadKind.JOB:
        workload["job"] = _drop_none(
            {
                "single_gpu_hours": scenario.job_single_gpu_hours,
                "parallel_fraction": scenario.job_parallel_fraction,
                "scaling": scenario.job_scaling,
            }
        )
        return workload
    workload["model"] = model_payload(scenario)
    workload["precision"] = scenario.precision
    if scenario.workload_kind == WorkloadKind.INFERENCE:
        workload["parallelism"] = {"tp": scenario.tp, "pp": scenario.pp}
        workload["serving"] = _drop_none(
            {
                "batching": scenario.batching,
                "batch": scenario.serving_batch,
                "context_len": scenario.context_len,
                "output_len": scenario.output_len,
                "requests_per_s": scenario.requests_per_s,
                "target_tokens_per_s": scenario.target_tokens_per_s,
                "max_ttft_s": scenario.max_ttft_s,
                "max_tpot_s": scenario.max_tpot_s,
                "kernel_efficiency": scenario.kernel_efficiency,
            }
        )
        return workload
    workload["tokens_b"] = scenario.tokens_b
    workload["optimizer"] = scenario.optimizer
    workload["parallelism"] = parallelism_payload(scenario)
    return workload


@dataclass(frozen=True)
class PlanningInput:
    """An engine input the planner filled in because the scenario left it blank (shown with the assumptions)."""

    name: str
    value: float
    unit: str
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "unit": self.unit, "source": self.source}


def price_kind_text(row: Any) -> str:
    """'street price, 2026 article' / 'estimate (ratio ...), ...': what a catalog price is, for result notes."""
    kind = PriceKind(row.price_kind).label if getattr(row, "price_kind", "") else "price of unstated kind"
    if row.price_kind == PriceKind.ESTIMATE and row.price_basis:
        kind = f"ESTIMATE ({row.price_basis})"
    date = getattr(row, "price_date", "")
    return f"{kind}, {date}" if date else kind


def _gpu_price(scenario: Scenario) -> tuple[float | None, str]:
    """(price per GPU, what it is) for the scenario's GPU: a typed custom price or the catalog row's."""
    if scenario.custom_gpu:
        return scenario.custom_gpu.get("price_usd"), "typed"
    gpu = scenario.catalog_gpu
    if gpu is None:
        return None, ""
    return gpu.price_usd, price_kind_text(gpu)


def node_price_from_gpus(gpus_per_node: int, gpu_usd: float, gpu_price_kind: str = "") -> PlanningInput:
    """A node priced as its GPUs at their catalog price plus the host parts of a DGX H100 per GPU slot
    (HOST_BOM_*): the planning default when no system or typed node price is known (page and API alike)."""
    host_usd_per_slot = HOST_BOM_USD_PER_8_GPU_SERVER / HOST_BOM_GPU_SLOTS
    kind = f" ({gpu_price_kind})" if gpu_price_kind else ""
    return PlanningInput(
        "economics.gpu_server_usd",
        gpus_per_node * (gpu_usd + host_usd_per_slot),
        "USD per node",
        f"{gpus_per_node} × (catalog GPU price ${gpu_usd:,.0f}{kind} + host parts ${host_usd_per_slot:,.0f} "
        f"per GPU slot); host parts: {HOST_BOM_SOURCE}",
    )


def system_price_note(system: Any) -> PlanningInput:
    """The catalog system's price with what it is (list, street, estimate) and its date."""
    return PlanningInput(
        "economics.gpu_server_usd",
        system.price_usd,
        "USD per node",
        f"catalog system price of the {system.name}: {price_kind_text(system)}",
    )


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def cloud_prices_for(gpu_id: str | None) -> list[CloudPrice]:
    """The catalog's cloud price rows of one GPU (catalog copy, no query of its own beyond the generation)."""
    if not gpu_id:
        return []
    return [row for row in catalog_rows.current().all(CloudPrice) if row.gpu_id == gpu_id]


def cloud_price_reference(gpu_id: str | None) -> PlanningInput | None:
    """The planning rental price of a catalog GPU: the median of its on-demand prices in the catalog's cloud
    price table (several providers), the note naming each provider and the cheapest 1- and 3-year commitments.
    None when the catalog has no priced on-demand row for it (only a "no public cloud offering" row, or none)."""
    rows = cloud_prices_for(gpu_id)
    on_demand = [row for row in rows if row.term == CloudTerm.ON_DEMAND and row.usd_per_gpu_hour is not None]
    if not on_demand:
        return None
    prices = [row.usd_per_gpu_hour for row in on_demand]
    listed = "; ".join(
        f"{row.provider} ${row.usd_per_gpu_hour:.2f} ({row.price_date})"
        for row in sorted(on_demand, key=lambda r: r.usd_per_gpu_hour)
    )
    commitments = []
    for term in (CloudTerm.COMMIT_1Y, CloudTerm.COMMIT_3Y):
        committed = [row for row in rows if row.term == term and row.usd_per_gpu_hour is not None]
        if committed:
            best = min(committed, key=lambda r: r.usd_per_gpu_hour)
            commitments.append(f"{CloudTerm(term).label} from ${best.usd_per_gpu_hour:.2f} ({best.provider})")
    extra = f"; {', '.join(commitments)}" if commitments else ""
    return PlanningInput(
        "economics.cloud_usd_per_gpu_hour",
        _median(prices),
        "USD per GPU-hour",
        f"median of {len(prices)} on-demand prices in the catalog's cloud prices: {listed}{extra}",
    )


def server_price(scenario: Scenario) -> tuple[float | None, PlanningInput | None]:
    """Price of one node: the typed override, else the catalog system's price, else `node_price_from_gpus`.
    None when no price is known. The note says what the price is (list, street, estimate) where it came from
    the catalog."""
    if scenario.server_price_usd is not None:
        return scenario.server_price_usd, None
    if scenario.system_id is not None and scenario.system.price_usd is not None:
        note = system_price_note(scenario.system)
        return note.value, note
    gpu_usd, kind = _gpu_price(scenario)
    if gpu_usd is None:
        return None, None
    note = node_price_from_gpus(scenario.gpus_per_node, gpu_usd, kind)
    return note.value, note


def cloud_price(scenario: Scenario) -> tuple[float | None, PlanningInput | None]:
    """Rental price per GPU-hour: the typed one, else the catalog's cloud prices for the GPU (median on demand)."""
    if scenario.cloud_usd_per_gpu_hour is not None:
        return scenario.cloud_usd_per_gpu_hour, None
    note = cloud_price_reference(scenario.catalog_gpu_id)
    return (note.value, note) if note is not None else (None, None)


def pcie_fallback_note(gpu: Any) -> PlanningInput | None:
    """The assumption shown when a catalog GPU has no scale-up fabric and its PCIe host link stands in."""
    if gpu is None or gpu.scaleup_bw_gbs is not None:
        return None
    generation = pcie_generation(gpu.pcie_gen)
    known = "" if gpu.pcie_gen is not None else " (the catalog gives no PCIe generation)"
    return PlanningInput(
        "cluster.gpu.scaleup_bandwidth_gbs",
        pcie_fallback_scaleup_gbs(gpu.pcie_gen),
        "GB/s both directions",
        f"{gpu.model}: PCIe Gen{generation} x16{known}; {PCIE_FALLBACK_SOURCE}",
    )


def cooling_notes(scenario: Scenario) -> list[PlanningInput]:
    """Where the scenario's cooling numbers come from when its catalog row overrides the engine's preset."""
    overrides = _cooling_overrides(scenario)
    if not overrides:
        return []
    row = scenario.cooling
    return [
        PlanningInput(
            f"cluster.cooling.{key}",
            value,
            COOLING_UNITS[key],
            f"catalog cooling option {row.name} ({row.pk}), {how}; {row.source}",
        )
        for key, (value, how) in overrides.items()
    ]


def planning_inputs(scenario: Scenario) -> list[dict[str, Any]]:
    """The engine inputs this scenario leaves to the planner's documented defaults or takes from an edited
    catalog cooling row."""
    notes = [
        pcie_fallback_note(scenario.catalog_gpu),
        server_price(scenario)[1],
        cloud_price(scenario)[1],
        *cooling_notes(scenario),
    ]
    return [note.as_dict() for note in notes if note is not None]


def economics_payload(scenario: Scenario) -> dict[str, Any]:
    electricity = scenario.electricity_usd_per_kwh
    if electricity is None and scenario.electricity_id is not None:
        electricity = scenario.electricity.value
    economics: dict[str, Any] = _drop_none(
        {
            "electricity_usd_per_kwh": electricity,
            "years": scenario.years,
            "utilization": scenario.utilization,
            "discount_rate": scenario.discount_rate,
            "gpu_server_usd": server_price(scenario)[0],
            "cloud_usd_per_gpu_hour": cloud_price(scenario)[0],
            "grid_kgco2_per_kwh": scenario.grid_carbon.value if scenario.grid_carbon_id else None,
        }
    )
    if scenario.facility == FacilityKind.COLOCATION and scenario.colocation_id is not None:
        economics["colocation_usd_per_kw_month"] = scenario.colocation.value
    # Own facility: the key stays out (the engine's default, None, means fit-out capex instead of rent).
    return economics


def scenario_payload(scenario: Scenario) -> dict[str, Any]:
    """The engine's `estimate` input for a scenario (contract JSON plus the agreed optional extensions)."""
    return {
        "cluster": cluster_payload(scenario),
        "workload": workload_payload(scenario),
        "economics": economics_payload(scenario),
    }


def uses_search(scenario: Scenario) -> bool:
    return (
        scenario.workload_kind == WorkloadKind.TRAINING
        and scenario.parallelism_mode == ParallelismMode.AUTOMATIC
    )


def search_payload(scenario: Scenario) -> dict[str, Any]:
    """The engine's `search` input restricted to this scenario's GPU and node count: every parallelism field
    is searched except the global batch, which stays the scenario's. Economics stay out: the fastest layout
    does not depend on prices, so a change of price reuses the search (services caches it)."""
    payload = scenario_payload(scenario)
    del payload["economics"]
    parallelism = payload["workload"].pop("parallelism")
    if "global_batch" in parallelism:
        payload["workload"]["parallelism"] = {"global_batch": parallelism["global_batch"]}
    payload["search"] = {
        "gpus": [payload["cluster"]["gpu"]],
        "nodes": [scenario.nodes],
        "objective": AUTOMATIC_OBJECTIVE,
        "max_results": AUTOMATIC_MAX_RESULTS,
    }
    return payload


def with_parallelism(payload: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """`payload` with the layout a search chose (only the contract's parallelism keys are taken over)."""
    chosen = {k: v for k, v in config.items() if k in PARALLELISM_KEYS}
    out = json.loads(json.dumps(payload))
    out["workload"]["parallelism"] = {**out["workload"].get("parallelism", {}), **chosen}
    return out


# ------------------------------------------------------------------------------- engine paths -> form fields

#: Engine problem path prefix -> form field. The longest matching prefix wins; unknown paths go to the form.
PATH_TO_FIELD: dict[str, str] = {
    "cluster.gpu": "custom_gpu_name",
    "cluster.gpu.memory_gb": "custom_gpu_memory_gb",
    "cluster.gpu.memory_bandwidth_tbs": "custom_gpu_bandwidth_tbs",
    "cluster.gpu.tflops": "custom_gpu_bf16_tflops",
    "cluster.gpu.tdp_w": "custom_gpu_tdp_w",
    "cluster.gpu.scaleup_bandwidth_gbs": "custom_gpu_scaleup_gbs",
    "cluster.nodes": "nodes",
    "cluster.gpus_per_node": "gpus_per_node",
    "cluster.scaleout_gbps_per_gpu": "network",
    "cluster.node_max_power_kw": "system",
    "cluster.pue": "pue",
    "cluster.network": "switch",
    "cluster.network.topology": "topology",
    "cluster.network.tiers": "network_tiers",
    "cluster.network.oversubscription": "oversubscription",
    "cluster.cooling": "cooling",
    "cluster.storage_tb": "storage_tb",
    "cluster.gpu_power_limit_w": "gpu_power_limit_w",
    "workload.kind": "workload_kind",
    "workload.model": "model_preset",
    "workload.tokens_b": "tokens_b",
    "workload.precision": "precision",
    "workload.optimizer": "optimizer",
    "workload.parallelism": "parallelism_mode",
    "workload.parallelism.tp": "tp",
    "workload.parallelism.pp": "pp",
    "workload.parallelism.dp": "dp",
    "workload.parallelism.cp": "cp",
    "workload.parallelism.ep": "ep",
    "workload.parallelism.zero_stage": "zero_stage",
    "workload.parallelism.recompute": "recompute",
    "workload.parallelism.micro_batch": "micro_batch",
    "workload.parallelism.global_batch": "global_batch",
    "workload.serving": "serving_batch",
    "workload.serving.batch": "serving_batch",
    "workload.serving.context_len": "context_len",
    "workload.serving.output_len": "output_len",
    "workload.serving.target_tokens_per_s": "target_tokens_per_s",
    "workload.serving.requests_per_s": "requests_per_s",
    "workload.serving.batching": "batching",
    "workload.serving.max_ttft_s": "max_ttft_s",
    "workload.serving.max_tpot_s": "max_tpot_s",
    "workload.serving.kernel_efficiency": "kernel_efficiency",
    "workload.job": "job_single_gpu_hours",
    "workload.job.single_gpu_hours": "job_single_gpu_hours",
    "workload.job.parallel_fraction": "job_parallel_fraction",
    "workload.job.scaling": "job_scaling",
    "economics.electricity_usd_per_kwh": "electricity",
    "economics.years": "years",
    "economics.utilization": "utilization_pct",
    "economics.discount_rate": "discount_rate_pct",
    "economics.gpu_server_usd": "server_price_usd",
    "economics.cloud_usd_per_gpu_hour": "cloud_usd_per_gpu_hour",
    "economics.colocation_usd_per_kw_month": "colocation",
    "economics.grid_kgco2_per_kwh": "grid_carbon",
}


def field_for_path(path: str, *, custom_gpu: bool = False, custom_model: bool = False) -> str | None:
    """The form field an engine problem path concerns (None: a problem with the scenario as a whole)."""
    parts = path.split(".")
    if parts[:2] == ["cluster", "gpu"] and not custom_gpu:
        return "gpu"  # a catalog GPU's numbers are not form fields: the problem is the choice of GPU
    if parts[:2] == ["workload", "model"]:
        if not custom_model:
            return "model_preset"
        return f"custom_model_{parts[2]}" if len(parts) > 2 else "custom_model_layers"
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in PATH_TO_FIELD:
            return PATH_TO_FIELD[prefix]
    return None
