"""The facility sections of every result: the scale-out network, power (IT and facility, through PUE) and, when
the input has economics, the cost of owning the cluster and of the run, with the run cost's low/high range.

`estimate` adds them after the workload's own sections; `search` and sweeps call `facility_sections` once per
cluster (with no run time) to cost every layout of that cluster.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.engine.facility import network, power, tco
from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.units import DAY, TB, YEAR
from planner.engine.results import CostSection, FacilitySections, StorageSection, TcoSection
from planner.engine.transformer.shape import shape_of

#: Bytes per parameter in a training checkpoint: BF16 weights (2) + FP32 master weights, Adam momentum and
#: variance (4 + 4 + 4). Mixed-precision Adam holds 16 bytes per parameter, 2 of them gradients that are not
#: saved (Rajbhandari et al., ZeRO, arXiv:1910.02054, section 3.1).
CHECKPOINT_BYTES_PER_PARAM = 14.0
#: Checkpoints kept on shared storage: the latest three. Planning assumption, not sourced.
CHECKPOINTS_KEPT = 3
#: Tokenised dataset bytes per token: int32 token ids (vocabularies above 65,536 do not fit uint16).
DATASET_BYTES_PER_TOKEN = 4.0
STORAGE_SIZING_SOURCE = (
    "checkpoint = parameters x 14 bytes (BF16 weights + FP32 master, Adam moments; ZeRO, arXiv:1910.02054) x 3 "
    "kept (planning assumption) + dataset = tokens x 4 bytes (int32 ids); write rate = one checkpoint in the "
    "goodput model's checkpoint write time"
)


def storage_plan(sc: Scenario) -> StorageSection:
    """Shared storage: the typed size, else sized from a training workload, else none."""
    c = sc.cluster
    if c.storage_tb is not None:
        return {
            "tb": c.storage_tb,
            "sized_from": "input",
            "checkpoint_tb": None,
            "checkpoints_kept": None,
            "dataset_tb": None,
            "write_gbs": None,
            "source": "input",
        }
    if sc.kind != "training" or sc.model is None:
        return {
            "tb": 0.0,
            "sized_from": "none",
            "checkpoint_tb": None,
            "checkpoints_kept": None,
            "dataset_tb": None,
            "write_gbs": None,
            "source": "no training checkpoints to keep; type cluster.storage_tb for datasets or models",
        }
    checkpoint_bytes = shape_of(sc.model).total_params * CHECKPOINT_BYTES_PER_PARAM  # cached per model
    dataset_bytes = (sc.tokens or 0.0) * DATASET_BYTES_PER_TOKEN
    write_s = sc.goodput.checkpoint_write_s
    return {
        "tb": (checkpoint_bytes * CHECKPOINTS_KEPT + dataset_bytes) / TB,
        "sized_from": "workload",
        "checkpoint_tb": checkpoint_bytes / TB,
        "checkpoints_kept": CHECKPOINTS_KEPT,
        "dataset_tb": dataset_bytes / TB,
        "write_gbs": checkpoint_bytes / write_s / 1e9 if write_s > 0 else None,
        "source": STORAGE_SIZING_SOURCE,
    }


def facility_sections(
    sc: Scenario,
    run_time_s: float | None,
    time_band: tuple[float, float] | None,
    warnings: list[str],
    assumptions: dict[str, Any],
) -> FacilitySections:
    """The `network`, `power` and (when the scenario has economics) `cost` sections of one cluster; their
    warnings and assumptions are appended to `warnings` and `assumptions`. `run_time_s` (None: no run) sizes
    the run's energy and cost, `time_band` (low, high run time) their range."""
    c = sc.cluster
    plan = network.plan_network(endpoints=c.gpus, gpus_per_node=c.gpus_per_node, spec=c.network)
    storage = storage_plan(sc)
    storage_tb = storage["tb"]
    storage_w = power.storage_power_w(
        storage_tb,
        c.storage_power_w_per_tb
        if c.storage_power_w_per_tb is not None
        else power.STORAGE_POWER_W_PER_TB_DEFAULT,
    )
    inputs = power.PowerInputs(
        nodes=c.nodes,
        gpus_per_node=c.gpus_per_node,
        gpu_tdp_w=c.gpu.tdp_w,
        gpu_load_factor=c.gpu_load_factor if c.gpu_load_factor is not None else power.GPU_LOAD_FACTOR_DEFAULT,
        host_power_w_per_node=c.host_power_w_per_node,
        node_max_power_w=c.node_max_power_w,
        network_power_w=plan.power_w,  # switches and their optics; NICs are in the host power
        storage_power_w=storage_w,
        pue=c.pue,
        node_nameplate_w=c.node_nameplate_w,
        nameplate_source=c.nameplate_source,
        redundancy=c.power_redundancy,
    )
    pres = power.estimate_power(inputs, c.cooling)
    econ = sc.economics
    if econ is not None and c.storage_usd_per_tb is not None:
        econ = replace(econ, storage_usd_per_tb=c.storage_usd_per_tb)
    grid = econ.grid_kgco2_per_kwh if econ is not None else None
    out: FacilitySections = {
        "network": plan.as_dict(),
        "power": pres.as_dict(run_time_s, grid),
        "storage": storage,
    }
    if c.gpu_power_limit_w is not None and c.gpu_tdp_uncapped_w is not None:
        cap = power.power_cap_section(c.gpu_power_limit_w, c.gpu_tdp_uncapped_w, c.gpus)
        out["power"]["gpu_power_cap"] = cap  # type: ignore[typeddict-item]
    warnings.extend(plan.warnings)
    warnings.extend(pres.warnings)
    assumptions.update(plan.assumptions)
    assumptions.update(pres.assumptions)
    if econ is not None:
        result = tco.estimate_tco(
            tco.TcoInputs(
                nodes=c.nodes,
                gpus=c.gpus,
                network_capex_usd=plan.capex_usd,
                storage_tb=storage_tb,
                it_power_w=pres.it_power_w,
                facility_power_w=pres.facility_power_w,
                run_time_s=run_time_s,
                peak_it_power_w=pres.peak_it_power_w,
                gpu_vendor=c.gpu.vendor or c.gpu.name,
            ),
            econ,
            c.cooling,
        )
        cost = result.as_dict()
        warnings.extend(result.warnings)
        warnings.extend(outlasts_life_warnings(run_time_s, econ.years))
        assumptions.update(result.assumptions)
        out["cost"] = _cost_ranges(cost, run_time_s, time_band)
    return out


def outlasts_life_warnings(run_time_s: float | None, years: float) -> list[str]:
    """A run longer than the hardware's costed life: the plan is costed over `years`, the run needs more."""
    if run_time_s is None or run_time_s <= years * YEAR:
        return []
    return [
        f"the run takes {run_time_s / DAY:,.0f} days, longer than the hardware's {years:g}-year life it is costed "
        "over: the TCO covers those years only, and the cluster would need replacing or extending mid-run"
    ]


def _cost_ranges(
    cost: TcoSection, run_time_s: float | None, time_band: tuple[float, float] | None
) -> CostSection:
    """Low/high of the run's cost from the time band. Owning the cluster costs the same whatever the model's
    time error, so the TCO range is the point value (documented under assumptions)."""
    tco_usd = cost["tco_usd"]
    run, cloud = cost["run_cost_usd"], cost["cloud_run_cost_usd"]
    if run is None or cloud is None or run_time_s is None or time_band is None:
        return {
            **cost,
            "tco_usd_low": tco_usd,
            "tco_usd_high": tco_usd,
            "run_cost_usd_low": run,
            "run_cost_usd_high": run,
        }
    low, high = time_band
    return {
        **cost,
        "tco_usd_low": tco_usd,
        "tco_usd_high": tco_usd,
        "run_cost_usd_low": run * low / run_time_s,
        "run_cost_usd_high": run * high / run_time_s,
        "cloud_run_cost_usd_low": cloud * low / run_time_s,
        "cloud_run_cost_usd_high": cloud * high / run_time_s,
    }
