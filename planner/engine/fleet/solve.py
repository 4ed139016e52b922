"""Solving the fleet programme with HiGHS (scipy.optimize.milp), lexicographically: first serve as much demand
as the limits allow (fewest unserved GPU-hours), then, holding that, the lowest discounted cost. When demand is
left unserved, each limit is relaxed in turn and the first solve re-run: a limit whose relaxation serves more of
a workload is the limit named for it. If HiGHS returns no solution within the time limit the greedy fallback
rounds the LP relaxation's purchases up and re-solves the placements as an LP (said in `solver.fallback`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from time import perf_counter

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from planner.engine.fleet.demand import Demand
from planner.engine.fleet.model import LIMITS, Model, build
from planner.engine.fleet.spec import FleetSpec

SOLVER_NAME = "HiGHS via scipy.optimize.milp"
#: Relative MIP gap at which HiGHS stops (0.1%).
MIP_REL_GAP = 1e-3
#: Unserved GPU-hours below this count as served (numerical noise).
SHORT_TOL_GPU_H = 1e-3
#: Objective scale (USD -> millions of USD) to keep HiGHS' coefficients near 1.
USD_SCALE = 1e-6


@dataclass
class Solution:
    model: Model
    x: np.ndarray
    status: str
    gap: float | None
    elapsed_s: float
    fallback: str | None
    short_gpu_h: float


def _milp(m: Model, c: np.ndarray, extra: list[LinearConstraint], limit_s: float, integral: bool = True):  # type: ignore[no-untyped-def]
    cons = [LinearConstraint(m.matrix(), np.array(m.row_lb), np.array(m.row_ub))] if m.row_lb else []
    cons += extra
    integrality = np.array(m.integer) if integral else np.zeros(len(m.vars))
    return milp(
        c,
        constraints=cons,
        integrality=integrality,
        bounds=Bounds(np.array(m.lb), np.array(m.ub)),
        options={"time_limit": max(limit_s, 0.5), "mip_rel_gap": MIP_REL_GAP, "disp": False},
    )


def _lexicographic(m: Model, limit_s: float) -> tuple[object, float, str | None]:
    """Phase 1: fewest unserved GPU-hours; phase 2: cheapest plan serving that much. (result, shortfall, fallback)"""
    short = np.array(m.short)
    cost = np.array(m.cost) * USD_SCALE
    start = perf_counter()
    first = _milp(m, short, [], limit_s / 2)
    if first.x is None:
        return first, math.inf, None
    best_short = float(short @ first.x)
    hold = LinearConstraint(short[None, :], -np.inf, best_short * (1 + 1e-7) + SHORT_TOL_GPU_H)
    second = _milp(m, cost, [hold], max(limit_s - (perf_counter() - start), 0.5))
    if second.x is None:
        return first, best_short, "the cost phase found no solution in time: the plan is the first phase's"
    return second, best_short, None


def _greedy(m: Model, limit_s: float) -> tuple[object, float, str]:
    """Fallback: the LP relaxation, purchases rounded up (within their bounds), placements re-solved as an LP."""
    short = np.array(m.short)
    relaxed = _milp(m, short + np.array(m.cost) * USD_SCALE * 1e-3, [], limit_s, integral=False)
    if relaxed.x is None:
        return relaxed, math.inf, "greedy fallback: the LP relaxation has no solution"
    ub = np.array(m.ub)
    for k, v in enumerate(m.vars):
        if v.kind == "buy":
            ub[k] = min(ub[k], math.ceil(relaxed.x[k] - 1e-6))
            m.lb[k] = ub[k]
        elif v.kind == "y":
            ub[k] = 1.0 if relaxed.x[k] > 1e-6 else 0.0
    m.ub = list(ub)
    res = _milp(m, short + np.array(m.cost) * USD_SCALE * 1e-3, [], limit_s, integral=False)
    note = "greedy fallback: HiGHS found no integer solution in time; purchases are the LP relaxation's rounded up"
    return res, float(short @ res.x) if res.x is not None else math.inf, note


def solve(
    spec: FleetSpec, demand: Demand, relaxed: frozenset[str] = frozenset(), limit_s: float | None = None
) -> Solution:
    m = build(spec, demand, relaxed)
    limit = spec.time_limit_s if limit_s is None else limit_s
    start = perf_counter()
    res, short, fallback = _lexicographic(m, limit)
    if getattr(res, "x", None) is None:
        res, short, fallback = _greedy(m, limit)
    elapsed = perf_counter() - start
    x = getattr(res, "x", None)
    if x is None:
        raise RuntimeError(f"HiGHS found no solution: {getattr(res, 'message', '')}")
    gap = getattr(res, "mip_gap", None)
    status = {0: "optimal", 1: "time_limit", 2: "infeasible", 3: "unbounded", 4: "error"}.get(
        getattr(res, "status", 4), "error"
    )
    return Solution(m, np.asarray(x), status, None if gap is None else float(gap), elapsed, fallback, short)


def unserved_by_workload(sol: Solution) -> dict[int, float]:
    out: dict[int, float] = {}
    for k, v in enumerate(sol.model.vars):
        if v.kind == "unserved":
            gh = sol.x[k] * sol.model.short[k]
            if gh > SHORT_TOL_GPU_H:
                out[v.w] = out.get(v.w, 0.0) + gh
    return out


def blocking_limits(spec: FleetSpec, demand: Demand, sol: Solution) -> dict[int, list[str]]:
    """Per workload left short, the limits whose relaxation alone serves more of it (module docstring)."""
    short = unserved_by_workload(sol)
    if not short:
        return {}
    present = {tag[0] for tag in sol.model.row_tag} | (
        {"max_nodes"} if any(p.max_nodes is not None for p in spec.pools) else set()
    )
    out: dict[int, list[str]] = {w: [] for w in short}
    for limit in LIMITS:
        if limit not in present:
            continue
        again = solve(spec, demand, frozenset({limit}), limit_s=max(spec.time_limit_s / 4, 1.0))
        after = unserved_by_workload(again)
        for w, gh in short.items():
            if after.get(w, 0.0) < gh - max(SHORT_TOL_GPU_H, 1e-6 * gh):
                out[w].append(limit)
    return out
