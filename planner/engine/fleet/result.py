"""The fleet answer (docs/fleet-contract.md, Output) from a solution: purchases, installed nodes, placements,
utilisation, queues, per-period power and money, chargeback, unserved demand with the limit that keeps it so."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from planner.engine.fleet import queues
from planner.engine.fleet.demand import Demand
from planner.engine.fleet.model import discount, energy_usd_per_gpu_period, nodes_per_rack, residual_share
from planner.engine.fleet.solve import SHORT_TOL_GPU_H, Solution
from planner.engine.fleet.spec import FleetSpec
from planner.engine.inputs.units import HOURS_PER_YEAR, KW

EPS = 1e-6


def _installed(spec: FleetSpec, sol: Solution) -> np.ndarray:
    T, P = spec.horizon.periods, len(spec.pools)
    nodes = np.array([[float(pool.existing_nodes) for pool in spec.pools] for _ in range(T)])
    for k, v in enumerate(sol.model.vars):
        if v.kind == "buy":
            nodes[v.t :, v.p] += round(sol.x[k])
    return nodes.reshape(T, P)


def _ranges(periods: list[int]) -> str:
    if not periods:
        return ""
    parts, lo = [], periods[0]
    for a, b in zip(periods, periods[1:] + [None], strict=False):
        if b != a + 1:
            parts.append(f"{lo}" if lo == a else f"{lo}-{a}")
            lo = b
    return ", ".join(parts)


def _by_value(values: list[tuple[int, float]]) -> str:
    """'1 in periods 0-1, 2 in periods 2-3' from (period, value) pairs."""
    groups: dict[float, list[int]] = {}
    for t, v in values:
        groups.setdefault(v, []).append(t)
    parts = []
    for v, ts in groups.items():
        word = "period" if len(ts) == 1 else "periods"
        parts.append(f"{v:g} in {word} {_ranges(ts)}")
    return ", ".join(parts)


def _limit_text(spec: FleetSpec, limit: str, last: int) -> str:
    """The limit as the input names it, with its values in the periods up to `last` (when the work was due)."""
    span = range(last + 1)
    if limit == "power":
        vals = [(t, spec.facility.power_w[t] / 1e6) for t in span if spec.facility.power_w[t] is not None]
        return f"facility power_mw {_by_value(vals)}"
    if limit == "racks":
        vals = [(t, float(spec.facility.racks[t])) for t in span if spec.facility.racks[t] is not None]
        return f"facility racks {_by_value(vals)}"
    if limit == "budget":
        vals = [(t, spec.economics.budget_usd[t]) for t in span if spec.economics.budget_usd[t] is not None]
        return f"economics budget_usd {_by_value(vals)}"
    if limit == "max_nodes":
        capped = [f"{p.id} {p.max_nodes}" for p in spec.pools if p.max_nodes is not None]
        return f"pool max_nodes ({', '.join(capped)})"
    quotas = [t.id for t in spec.teams if t.max_share is not None or t.max_gpus]
    return f"team quota ({', '.join(quotas)})"


def _why(spec: FleetSpec, demand: Demand, w_i: int, t: int, limits: list[str]) -> str:
    w = spec.workloads[w_i]
    if limits:
        last = w.deadline_period if w.kind == "training" else t
        return "; ".join(_limit_text(spec, lim, last) for lim in limits)
    fails = demand.failures.get(w.id, {})
    if not demand.by_pool.get(w.id):
        if fails:
            return "no pool can run it: " + "; ".join(f"{p}: {why}" for p, why in fails.items())
        return "no pool may run it"
    if w.kind == "training":
        return (
            f"not enough GPU-hours between periods {w.start_period} and {w.deadline_period} on any pool it may use, "
            "and no limit's relaxation alone helps"
        )
    return "no capacity it may use, and no limit's relaxation alone helps"


def build_result(
    spec: FleetSpec, demand: Demand, sol: Solution, limits: dict[int, list[str]]
) -> dict[str, Any]:
    T, P, h = spec.horizon.periods, len(spec.pools), spec.horizon.period_h
    m, x = sol.model, sol.x
    installed = _installed(spec, sol)
    occupied = np.zeros((T, P))
    busy = np.zeros((T, P))
    placements: list[dict[str, Any]] = []
    cloud_usd = np.zeros(T)
    team_own_gh: dict[tuple[str, int, int], float] = {}
    team_cloud: dict[str, tuple[float, float]] = {}
    jobs_on: dict[tuple[int, int], list[tuple[int, float]]] = {}
    unserved: list[dict[str, Any]] = []
    for k, v in enumerate(m.vars):
        val = float(x[k])
        if v.kind in ("x", "f", "cloud") and val > EPS:
            w = spec.workloads[v.w]
            d = demand.by_pool[w.id][spec.pools[v.p].id]
            team = w.team or "(no team)"
            if w.kind == "training":
                gpus = val * d.gpu_hours / h
                busy_gpus = gpus
            else:
                gpus = val * d.gpus[v.t]
                busy_gpus = val * d.busy_gpus[v.t]
            if v.kind == "cloud":
                price = spec.pools[v.p].cloud_usd_per_gpu_hour or 0.0
                cloud_gh = gpus * h
                cloud_usd[v.t] += cloud_gh * price
                gh0, usd0 = team_cloud.get(team, (0.0, 0.0))
                team_cloud[team] = (gh0 + cloud_gh, usd0 + cloud_gh * price)
                placements.append(_placement(spec, w, v, 0.0, None, 0, cloud_gh, val))
                continue
            occupied[v.t, v.p] += gpus
            busy[v.t, v.p] += busy_gpus
            team_own_gh[(team, v.t, v.p)] = team_own_gh.get((team, v.t, v.p), 0.0) + gpus * h
            if w.kind == "jobs":
                jobs_on.setdefault((v.t, v.p), []).append((v.w, val))
            pack = d.packing[v.t] if d.packing else None
            equivalents = val * pack.gpu_equivalents if pack is not None and pack.mode == "mig" else gpus
            profile = pack.profile if pack is not None and pack.mode == "mig" else None
            slices = round(val * pack.slices) if pack is not None and pack.mode == "mig" else 0
            placements.append(
                _placement(spec, w, v, equivalents, profile, slices, 0.0, val, occupied_gpus=gpus)
            )
        elif v.kind == "unserved" and val * m.short[k] > SHORT_TOL_GPU_H:
            w = spec.workloads[v.w]
            unserved.append(
                {
                    "workload": w.id,
                    "period": v.t,
                    "share": val,
                    "gpu_hours": val * m.short[k],
                    "why": _why(spec, demand, v.w, v.t, limits.get(v.w, [])),
                }
            )
    per_period, pool_cost = _money(spec, installed, occupied, sol, cloud_usd)
    utilisation = [
        {
            "period": t,
            "pool": spec.pools[p].id,
            "busy_share": float(busy[t, p] / (installed[t, p] * spec.pools[p].gpus_per_node))
            if installed[t, p]
            else 0.0,
            "allocated_share": float(occupied[t, p] / (installed[t, p] * spec.pools[p].gpus_per_node))
            if installed[t, p]
            else 0.0,
            "gpus": int(installed[t, p] * spec.pools[p].gpus_per_node),
            "allocated_gpus": float(occupied[t, p]),
            "busy_gpus": float(busy[t, p]),
        }
        for t in range(T)
        for p in range(P)
    ]
    chargeback = _chargeback(spec, team_own_gh, team_cloud, occupied, pool_cost)
    return {
        "purchases": _purchases(spec, sol),
        "installed": [
            {
                "period": t,
                "pool": spec.pools[p].id,
                "nodes": int(installed[t, p]),
                "gpus": int(installed[t, p]) * spec.pools[p].gpus_per_node,
            }
            for t in range(T)
            for p in range(P)
        ],
        "placements": placements,
        "utilisation": utilisation,
        "queues": _queues(spec, demand, installed, occupied, jobs_on),
        "per_period": per_period,
        "chargeback": chargeback,
        "unserved": unserved,
        "sharing": _sharing(spec, demand, sol),
    }


def _placement(
    spec: FleetSpec,
    w: Any,
    v: Any,
    gpus: float,
    profile: str | None,
    slices: int,
    cloud_gh: float,
    share: float,
    occupied_gpus: float | None = None,
) -> dict[str, Any]:
    return {
        "period": v.t,
        "workload": w.id,
        "pool": spec.pools[v.p].id,
        "gpus": gpus,
        "mig_profile": profile,
        "slices": slices,
        "cloud_gpu_hours": cloud_gh,
        "kind": w.kind,
        "team": w.team,
        "share": share,
        "occupied_gpus": gpus if occupied_gpus is None else occupied_gpus,
        "where": "cloud" if cloud_gh > 0 else "owned",
    }


def _purchases(spec: FleetSpec, sol: Solution) -> list[dict[str, Any]]:
    out = []
    for k, v in enumerate(sol.model.vars):
        if v.kind == "buy" and round(sol.x[k]) > 0:
            pool = spec.pools[v.p]
            n = int(round(sol.x[k]))
            out.append(
                {
                    "period": v.t,
                    "pool": pool.id,
                    "nodes": n,
                    "gpus": n * pool.gpus_per_node,
                    "capex_usd": n * (pool.node_usd or 0.0),
                    "gpu": pool.gpu.name,
                    "node_usd": pool.node_usd,
                }
            )
    return sorted(out, key=lambda r: (r["period"], r["pool"]))


def _money(
    spec: FleetSpec, installed: np.ndarray, occupied: np.ndarray, sol: Solution, cloud_usd: np.ndarray
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Per period IT and facility power, racks, capex, opex (energy + maintenance) and cloud; and per (t, p) the
    owning cost of the period (capex spread straight-line over life_years, energy, maintenance)."""
    T, P, h = spec.horizon.periods, len(spec.pools), spec.horizon.period_h
    e = spec.economics
    per_period = []
    pool_cost = np.zeros((T, P))
    bought = np.zeros((T, P))
    for k, v in enumerate(sol.model.vars):
        if v.kind == "buy":
            bought[v.t, v.p] = round(sol.x[k])
    for t in range(T):
        it_w = peak_w = racks = capex = energy = maint = 0.0
        for p, pool in enumerate(spec.pools):
            n = installed[t, p]
            idle_usd, busy_usd = energy_usd_per_gpu_period(spec, p)
            run_w = pool.node_running_w
            it = n * run_w * e.idle_power_fraction + occupied[t, p] * run_w / pool.gpus_per_node * (
                1 - e.idle_power_fraction
            )
            it_w += it
            peak_w += n * pool.node_peak_w
            racks += n / nodes_per_rack(spec, p)
            price = pool.node_usd or 0.0
            capex += bought[t, p] * price
            en = n * idle_usd + occupied[t, p] * busy_usd
            mt = n * price * e.maintenance_fraction_per_year * h / HOURS_PER_YEAR
            energy += en
            maint += mt
            depreciation = n * price * h / HOURS_PER_YEAR / e.life_years
            pool_cost[t, p] = depreciation + en + mt
        per_period.append(
            {
                "period": t,
                "label": spec.horizon.labels[t],
                "it_kw": it_w / KW,
                "facility_kw": it_w * spec.facility.pue / KW,
                "peak_facility_kw": peak_w * spec.facility.pue / KW,
                "power_limit_kw": None if spec.facility.power_w[t] is None else spec.facility.power_w[t] / KW,
                "racks": int(math.ceil(racks - 1e-9)),
                "capex_usd": capex,
                "opex_usd": energy + maint,
                "energy_usd": energy,
                "maintenance_usd": maint,
                "cloud_usd": float(cloud_usd[t]),
                "energy_mwh": it_w * spec.facility.pue * h / 1e6,
            }
        )
    return per_period, pool_cost


def _chargeback(
    spec: FleetSpec,
    own_gh: dict[tuple[str, int, int], float],
    cloud: dict[str, tuple[float, float]],
    occupied: np.ndarray,
    pool_cost: np.ndarray,
) -> list[dict[str, Any]]:
    """Per team: GPU-hours held (owned and rented) and dollars; a pool's period cost (depreciation, energy,
    maintenance) is split over the GPU-hours held on it, so idle capacity is paid by those who use the pool."""
    h = spec.horizon.period_h
    teams: dict[str, dict[str, float]] = {}
    for (team, t, p), gh in own_gh.items():
        held = occupied[t, p] * h
        usd = pool_cost[t, p] * gh / held if held > 0 else 0.0
        row = teams.setdefault(team, {"gpu_hours": 0.0, "usd": 0.0, "cloud_gpu_hours": 0.0, "cloud_usd": 0.0})
        row["gpu_hours"] += gh
        row["usd"] += usd
    for team, (gh, usd) in cloud.items():
        row = teams.setdefault(team, {"gpu_hours": 0.0, "usd": 0.0, "cloud_gpu_hours": 0.0, "cloud_usd": 0.0})
        row["gpu_hours"] += gh
        row["usd"] += usd
        row["cloud_gpu_hours"] += gh
        row["cloud_usd"] += usd
    return [{"team": team, **vals} for team, vals in sorted(teams.items())]


def _queues(
    spec: FleetSpec,
    demand: Demand,
    installed: np.ndarray,
    occupied: np.ndarray,
    jobs_on: dict[tuple[int, int], list[tuple[int, float]]],
) -> list[dict[str, Any]]:
    """Per period and jobs workload: the wait of its jobs simulated on the pool's GPUs not held by other work."""
    out = []
    rng = np.random.default_rng(spec.seed)
    h = spec.horizon.period_h
    for (t, p), entries in sorted(jobs_on.items()):
        pool = spec.pools[p]
        jobs_gpus = sum(share * demand.by_pool[spec.workloads[w].id][pool.id].gpus[t] for w, share in entries)
        capacity = int(math.floor(installed[t, p] * pool.gpus_per_node - (occupied[t, p] - jobs_gpus) + 1e-6))
        arrivals, widths, runtimes, owner = [], [], [], []
        for w_i, share in entries:
            w = spec.workloads[w_i]
            count = int(round(share * w.jobs_per_period[t]))
            speedup = demand.by_pool[w.id][pool.id].detail["speedup"]
            arrivals.append(queues.poisson_arrivals(count, h, rng))
            widths.append(np.full(count, w.gpus_per_job))
            runtimes.append(np.full(count, w.single_gpu_hours / speedup))
            owner.append(np.full(count, w_i))
        arr = np.concatenate(arrivals)
        order = np.argsort(arr, kind="stable")
        arr, wid, rt, own = (
            arr[order],
            np.concatenate(widths)[order],
            np.concatenate(runtimes)[order],
            np.concatenate(owner)[order],
        )
        start = queues.simulate(arr, wid, rt, max(capacity, 0))
        wait = start - arr
        busy = float(np.sum(wid * rt))
        for w_i, _ in entries:
            mine = own == w_i
            wv = wait[mine]
            ok = bool(np.isfinite(wv).all()) and len(wv) > 0
            out.append(
                {
                    "period": t,
                    "workload": spec.workloads[w_i].id,
                    "pool": pool.id,
                    "jobs": int(mine.sum()),
                    "mean_wait_h": float(np.mean(wv)) if ok else None,
                    "p90_wait_h": float(np.percentile(wv, 90)) if ok else None,
                    "capacity_gpus": max(capacity, 0),
                    "utilisation": busy / (max(capacity, 1) * h),
                }
            )
    return out


def _sharing(spec: FleetSpec, demand: Demand, sol: Solution) -> list[dict[str, Any]]:
    """Per service and pool with MIG or time-slicing: GPUs and busy share with sharing against whole GPUs, at
    the period of most replicas (the utilisation gained)."""
    out = []
    for w in spec.workloads:
        if w.kind != "service":
            continue
        for pid, d in demand.by_pool.get(w.id, {}).items():
            pool = next(p for p in spec.pools if p.id == pid)
            if pool.sharing == "whole" or not w.replicas:
                continue
            t = int(np.argmax(w.replicas))
            pack = d.packing[t]
            if pack is None or not d.whole_gpus[t]:
                continue
            used = w.replicas[t] * w.gpu_share
            out.append(
                {
                    "workload": w.id,
                    "pool": pid,
                    "mode": pack.mode,
                    "mig_profile": pack.profile,
                    "replicas": w.replicas[t],
                    "gpus": pack.gpus,
                    "whole_gpus": d.whole_gpus[t],
                    "busy_share": used / pack.gpus if pack.gpus else 0.0,
                    "whole_busy_share": used / d.whole_gpus[t],
                }
            )
    return out


def cost_summary(spec: FleetSpec, per_period: list[dict[str, Any]], sol: Solution) -> dict[str, Any]:
    """Undiscounted totals and the NPV (capex at the start of its period, opex and cloud at mid-period, minus the
    book value left at the horizon's end, straight-line over life_years)."""
    T = spec.horizon.periods
    capex = sum(r["capex_usd"] for r in per_period)
    opex = sum(r["opex_usd"] for r in per_period)
    cloud = sum(r["cloud_usd"] for r in per_period)
    npv = sum(
        r["capex_usd"] * discount(spec, t) + (r["opex_usd"] + r["cloud_usd"]) * discount(spec, t + 0.5)
        for t, r in enumerate(per_period)
    )
    residual = 0.0

    for k, v in enumerate(sol.model.vars):
        if v.kind == "buy" and round(sol.x[k]) > 0:
            residual += round(sol.x[k]) * (spec.pools[v.p].node_usd or 0.0) * residual_share(spec, v.t)
    return {
        "tco_usd": float(capex + opex + cloud),
        "npv_usd": float(npv - residual * discount(spec, T)),
        "capex_usd": float(capex),
        "opex_usd": float(opex),
        "cloud_usd": float(cloud),
        "residual_value_usd": float(residual),
    }
