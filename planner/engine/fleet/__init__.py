"""Fleet plans: many workloads on mixed GPU pools over time (docs/fleet-contract.md, docs/fleet-model.md).

`plan(payload)` parses the input (parse.py), sizes every workload on every pool with the engine's own models
(demand.py), solves what to buy and where each workload runs with HiGHS (model.py, solve.py) and returns the
contract's answer (result.py), queues simulated under FIFO with backfill (queues.py) and MIG packing (mig.py).
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Any

from planner.engine.fleet.demand import workload_demand
from planner.engine.fleet.mig import MIG_SOURCE, TIME_SLICING_OVERHEAD
from planner.engine.fleet.parse import parse_fleet
from planner.engine.fleet.result import build_result, cost_summary
from planner.engine.fleet.solve import SOLVER_NAME, blocking_limits, solve
from planner.engine.version import ENGINE_VERSION

__all__ = ["plan"]


#: A progress callback: (phase, fraction of the whole plan done, 0-1).
Progress = Callable[[str, float], None]
#: Share of the whole plan's time each phase is reported at (sizing dominates when models are sized).
SIZING_SHARE, SOLVE_SHARE, LIMITS_SHARE = 0.5, 0.3, 0.15


def _quiet(phase: str, done: float) -> None:
    return None


def plan(payload: Any, progress: Progress | None = None) -> dict[str, Any]:
    """The contract's `fleet` answer; SpecError (every problem with its field path) on bad input. `progress`, when
    given, is called with the phase and the share done (sizing, solving, limits, done)."""
    report = progress or _quiet
    started = perf_counter()
    spec = parse_fleet(payload)
    demand = workload_demand(spec, lambda share: report("sizing", SIZING_SHARE * share))
    sized = perf_counter()
    report("solving", SIZING_SHARE)
    sol = solve(spec, demand)
    report("limits", SIZING_SHARE + SOLVE_SHARE)
    limits = blocking_limits(spec, demand, sol)
    report("results", SIZING_SHARE + SOLVE_SHARE + LIMITS_SHARE)
    body = build_result(spec, demand, sol, limits)
    report("done", 1.0)
    warnings = list(spec.warnings) + demand.warnings
    if sol.fallback:
        warnings.append(sol.fallback)
    for w_id, fails in demand.failures.items():
        for pool, why in fails.items():
            warnings.append(f"{w_id} cannot run on {pool}: {why}")
    assumptions = {
        **spec.assumptions,
        **demand.assumptions,
        "facility.power_mw": {
            "value": "facility power (IT at peak x PUE) of every installed node",
            "unit": "MW",
            "source": "the limit applies to provisioned power, as a utility feed or colocation contract does",
        },
        "mig.profiles": {"value": "NVIDIA MIG geometry", "unit": "", "source": MIG_SOURCE},
        "time_slicing.overhead": {
            "value": TIME_SLICING_OVERHEAD,
            "unit": "fraction of a GPU's compute",
            "source": "planning assumption, not sourced (interference between time-sliced tenants)",
        },
    }
    return {
        "engine_version": ENGINE_VERSION,
        "feasible": not body["unserved"],
        **body,
        "periods": [{"period": t, "label": label} for t, label in enumerate(spec.horizon.labels)],
        "cost": cost_summary(spec, body["per_period"], sol),
        "solver": {
            "name": SOLVER_NAME,
            "status": sol.status,
            "elapsed_s": sol.elapsed_s,
            "gap": sol.gap,
            "fallback": sol.fallback,
            "variables": len(sol.model.vars),
            "constraints": len(sol.model.row_lb),
            "sizing_s": sized - started,
            "total_s": perf_counter() - started,
        },
        "assumptions": assumptions,
        "warnings": list(dict.fromkeys(warnings)),
    }
