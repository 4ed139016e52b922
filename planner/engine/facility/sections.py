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
from planner.engine.results import CostSection, FacilitySections, TcoSection


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
    storage_w = power.storage_power_w(
        c.storage_tb,
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
    out: FacilitySections = {"network": plan.as_dict(), "power": pres.as_dict(run_time_s, grid)}
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
                storage_tb=c.storage_tb,
                it_power_w=pres.it_power_w,
                facility_power_w=pres.facility_power_w,
                run_time_s=run_time_s,
                peak_it_power_w=pres.peak_it_power_w,
            ),
            econ,
            c.cooling,
        )
        cost = result.as_dict()
        warnings.extend(result.warnings)
        assumptions.update(result.assumptions)
        out["cost"] = _cost_ranges(cost, run_time_s, time_band)
    return out


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
