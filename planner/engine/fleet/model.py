"""The fleet plan as a mixed-integer linear programme (docs/fleet-model.md), built as sparse matrices for
scipy.optimize.milp (HiGHS).

Variables (all per period t; p a pool, w a workload):
  buy[t,p]     integer >= 0  nodes bought at the start of t
  x[w,t,p]     in [0,1]      share of a rate workload's period-t demand served on pool p (service, inference, jobs)
  f[w,t,p]     in [0,1]      share of a training run done in period t on pool p (t in its window)
  y[w,p]       binary        the pool a training run uses (only when it may use more than one)
  cx[w,t,p]    in [0,1]      share rented in the cloud on p's GPU type (cloud_burst, a cloud price)
  u[w,t]/u[w]  in [0,1]      share not served
installed[t,p] = existing_nodes + sum of buy up to t (an expression, not a variable).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from planner.engine.fleet.demand import Demand
from planner.engine.fleet.spec import FleetSpec
from planner.engine.inputs.units import HOURS_PER_YEAR, KW

#: Nodes per rack when a node's peak is unknown or above the rack density: one.
LIMITS = ("power", "racks", "budget", "max_nodes", "quota")


@dataclass
class Var:
    kind: str
    w: int = -1
    t: int = -1
    p: int = -1


@dataclass
class Model:
    """The programme: variables, objective (cost and unserved), rows, and the index maps to read a solution."""

    spec: FleetSpec
    demand: Demand
    relaxed: frozenset[str] = frozenset()
    vars: list[Var] = field(default_factory=list)
    lb: list[float] = field(default_factory=list)
    ub: list[float] = field(default_factory=list)
    integer: list[int] = field(default_factory=list)
    cost: list[float] = field(default_factory=list)  # discounted USD
    short: list[float] = field(default_factory=list)  # unserved GPU-hours
    rows: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    vals: list[float] = field(default_factory=list)
    row_lb: list[float] = field(default_factory=list)
    row_ub: list[float] = field(default_factory=list)
    row_tag: list[tuple[str, int, int]] = field(default_factory=list)  # (limit, t, p/team)
    index: dict[tuple[str, int, int, int], int] = field(default_factory=dict)

    def add(
        self,
        kind: str,
        w: int,
        t: int,
        p: int,
        *,
        ub: float,
        integer: bool = False,
        cost: float = 0.0,
        short: float = 0.0,
    ) -> int:
        k = len(self.vars)
        self.vars.append(Var(kind, w, t, p))
        self.lb.append(0.0)
        self.ub.append(ub)
        self.integer.append(1 if integer else 0)
        self.cost.append(cost)
        self.short.append(short)
        self.index[(kind, w, t, p)] = k
        return k

    def row(self, coeffs: dict[int, float], lo: float, hi: float, tag: tuple[str, int, int]) -> None:
        r = len(self.row_lb)
        for c, v in coeffs.items():
            if v:
                self.rows.append(r)
                self.cols.append(c)
                self.vals.append(v)
        self.row_lb.append(lo)
        self.row_ub.append(hi)
        self.row_tag.append(tag)

    def matrix(self) -> sparse.csr_array:
        return sparse.csr_array((self.vals, (self.rows, self.cols)), shape=(len(self.row_lb), len(self.vars)))


def years_at(spec: FleetSpec, t: float) -> float:
    return t * spec.horizon.period_h / HOURS_PER_YEAR


def discount(spec: FleetSpec, t: float) -> float:
    """Present-value factor of a cash flow at period time t (periods from the start): (1 + r)^-years."""
    return float((1.0 + spec.economics.discount_rate) ** -years_at(spec, t))


def residual_share(spec: FleetSpec, t: int) -> float:
    """Book value left at the horizon's end of a node bought at the start of t: straight line over life_years."""
    age = years_at(spec, spec.horizon.periods - t)
    return max(0.0, 1.0 - age / spec.economics.life_years)


def nodes_per_rack(spec: FleetSpec, p: int) -> int:
    pool = spec.pools[p]
    return max(1, int(spec.facility.rack_density_w // pool.node_peak_w))


def energy_usd_per_gpu_period(spec: FleetSpec, p: int) -> tuple[float, float]:
    """(USD per installed node per period at idle, extra USD per busy GPU per period): facility energy = IT x PUE,
    idle hours at idle_power_fraction of the running draw (facility/tco.py conventions)."""
    pool, e, h = spec.pools[p], spec.economics, spec.horizon.period_h
    usd_per_w_period = spec.facility.pue * e.electricity_usd_per_kwh * h / KW
    idle = pool.node_running_w * e.idle_power_fraction * usd_per_w_period
    busy = pool.node_running_w / pool.gpus_per_node * (1.0 - e.idle_power_fraction) * usd_per_w_period
    return idle, busy


def build(spec: FleetSpec, demand: Demand, relaxed: frozenset[str] = frozenset()) -> Model:
    """The programme for `spec` (module docstring); limits named in `relaxed` are left out (to find which one
    keeps demand unserved)."""
    m = Model(spec, demand, relaxed)
    T, P = spec.horizon.periods, len(spec.pools)
    h = spec.horizon.period_h
    econ = spec.economics
    pool_index = {pool.id: j for j, pool in enumerate(spec.pools)}
    # purchases
    for t in range(T):
        for p, pool in enumerate(spec.pools):
            cap = 0.0 if pool.node_usd is None else np.inf
            if pool.max_nodes is not None and "max_nodes" not in relaxed:
                cap = min(cap, max(0, pool.max_nodes - pool.existing_nodes))
            price = pool.node_usd or 0.0
            idle, _ = energy_usd_per_gpu_period(spec, p)
            # capex net of the book value left at the end, plus each remaining period's idle energy and maintenance
            later = sum(
                discount(spec, s + 0.5)
                * (idle + price * econ.maintenance_fraction_per_year * h / HOURS_PER_YEAR)
                for s in range(t, T)
            )
            net = price * (discount(spec, t) - residual_share(spec, t) * discount(spec, T))
            m.add("buy", -1, t, p, ub=cap, integer=True, cost=net + later)
    # usage expressions per (t, p): {var: gpus}
    usage: dict[tuple[int, int], dict[int, float]] = {(t, p): {} for t in range(T) for p in range(P)}
    team_usage: dict[tuple[str, int, int], dict[int, float]] = {}
    for w_i, w in enumerate(spec.workloads):
        pools = demand.by_pool.get(w.id, {})
        if w.kind == "training":
            _training(m, spec, w_i, pools, pool_index, usage, team_usage)
        else:
            _rate(m, spec, w_i, pools, pool_index, usage, team_usage)
    # capacity: occupied GPUs <= installed GPUs
    for (t, p), coeffs in usage.items():
        pool = spec.pools[p]
        row = dict(coeffs)
        for s in range(t + 1):
            row[m.index[("buy", -1, s, p)]] = row.get(m.index[("buy", -1, s, p)], 0.0) - pool.gpus_per_node
        m.row(row, -np.inf, pool.existing_nodes * pool.gpus_per_node, ("capacity", t, p))
    _facility_rows(m, spec, relaxed)
    _team_rows(m, spec, team_usage, relaxed)
    return m


def _busy_cost(spec: FleetSpec, p: int, t: int) -> float:
    _, busy = energy_usd_per_gpu_period(spec, p)
    return busy * discount(spec, t + 0.5)


def _add_team(
    team_usage: dict[tuple[str, int, int], dict[int, float]],
    team: str | None,
    t: int,
    p: int,
    k: int,
    gpus: float,
) -> None:
    if team is not None:
        team_usage.setdefault((team, t, p), {})[k] = gpus


def _cloud_ok(spec: FleetSpec, p: int) -> bool:
    return spec.economics.cloud_burst and spec.pools[p].cloud_usd_per_gpu_hour is not None


def _rate(
    m: Model,
    spec: FleetSpec,
    w_i: int,
    pools: dict,
    pool_index: dict[str, int],
    usage: dict,
    team_usage: dict,
) -> None:
    w = spec.workloads[w_i]
    h = spec.horizon.period_h
    for t in range(spec.horizon.periods):
        needs = {pool_index[pid]: d.gpus[t] for pid, d in pools.items()}
        if not _has_demand(w, t):
            continue
        row: dict[int, float] = {}
        reference = min((g for g in needs.values() if g > 0), default=1.0)
        for p, gpus in needs.items():
            if gpus <= 0:
                continue
            k = m.add("x", w_i, t, p, ub=1.0, cost=gpus * _busy_cost(spec, p, t))
            row[k] = 1.0
            usage[(t, p)][k] = gpus
            _add_team(team_usage, w.team, t, p, k, gpus)
            if _cloud_ok(spec, p):
                price = spec.pools[p].cloud_usd_per_gpu_hour or 0.0
                kc = m.add("cloud", w_i, t, p, ub=1.0, cost=gpus * h * price * discount(spec, t + 0.5))
                row[kc] = 1.0
        ku = m.add("unserved", w_i, t, -1, ub=1.0, short=reference * h)
        row[ku] = 1.0
        m.row(row, 1.0, 1.0, ("demand", t, w_i))


def _has_demand(w, t: int) -> bool:  # type: ignore[no-untyped-def]
    if w.kind == "service":
        return w.replicas[t] > 0
    if w.kind == "inference":
        return w.requests_per_s[t] > 0
    return w.jobs_per_period[t] > 0


def _training(
    m: Model,
    spec: FleetSpec,
    w_i: int,
    pools: dict,
    pool_index: dict[str, int],
    usage: dict,
    team_usage: dict,
) -> None:
    w = spec.workloads[w_i]
    h = spec.horizon.period_h
    row: dict[int, float] = {}
    choose: dict[int, float] = {}
    multi = len(pools) > 1
    for pid, d in pools.items():
        p = pool_index[pid]
        gh = d.gpu_hours
        ky = m.add("y", w_i, -1, p, ub=1.0, integer=True) if multi else -1
        if multi:
            choose[ky] = 1.0
        for t in range(w.start_period, w.deadline_period + 1):
            gpus = gh / h  # average GPUs over a period if the whole run were done in it
            k = m.add("f", w_i, t, p, ub=1.0, cost=gpus * _busy_cost(spec, p, t))
            row[k] = 1.0
            usage[(t, p)][k] = gpus
            _add_team(team_usage, w.team, t, p, k, gpus)
            if multi:
                m.row({k: 1.0, ky: -1.0}, -np.inf, 0.0, ("pool_choice", t, w_i))
            if _cloud_ok(spec, p):
                price = spec.pools[p].cloud_usd_per_gpu_hour or 0.0
                row[m.add("cloud", w_i, t, p, ub=1.0, cost=gh * price * discount(spec, t + 0.5))] = 1.0
    if choose:
        m.row(choose, 1.0, 1.0, ("pool_choice", -1, w_i))
    reference = min((d.gpu_hours for d in pools.values()), default=1.0)
    row[m.add("unserved", w_i, w.deadline_period, -1, ub=1.0, short=reference)] = 1.0
    m.row(row, 1.0, 1.0, ("demand", -1, w_i))


def _installed(m: Model, t: int, p: int, scale: float) -> dict[int, float]:
    return {m.index[("buy", -1, s, p)]: scale for s in range(t + 1)}


def _facility_rows(m: Model, spec: FleetSpec, relaxed: frozenset[str]) -> None:
    fac, econ = spec.facility, spec.economics
    for t in range(spec.horizon.periods):
        limit = fac.power_w[t]
        if limit is not None and "power" not in relaxed:
            row: dict[int, float] = {}
            base = 0.0
            for p, pool in enumerate(spec.pools):
                w_node = pool.node_peak_w * fac.pue
                row.update(_installed(m, t, p, w_node))
                base += pool.existing_nodes * w_node
            m.row(row, -np.inf, max(limit - base, 0.0), ("power", t, -1))
        racks = fac.racks[t]
        if racks is not None and "racks" not in relaxed:
            row, base = {}, 0.0
            for p, pool in enumerate(spec.pools):
                per = 1.0 / nodes_per_rack(spec, p)
                row.update(_installed(m, t, p, per))
                base += pool.existing_nodes * per
            m.row(row, -np.inf, max(racks - base, 0.0), ("racks", t, -1))
        budget = econ.budget_usd[t]
        if budget is not None and "budget" not in relaxed:
            row = {m.index[("buy", -1, t, p)]: pool.node_usd or 0.0 for p, pool in enumerate(spec.pools)}
            m.row(row, -np.inf, budget, ("budget", t, -1))


def _team_rows(m: Model, spec: FleetSpec, team_usage: dict, relaxed: frozenset[str]) -> None:
    if "quota" in relaxed:
        return
    for ti, team in enumerate(spec.teams):
        for t in range(spec.horizon.periods):
            if team.max_share is not None:
                row: dict[int, float] = {}
                base = 0.0
                for p, pool in enumerate(spec.pools):
                    for k, g in team_usage.get((team.id, t, p), {}).items():
                        row[k] = row.get(k, 0.0) + g
                    for k, v in _installed(m, t, p, -team.max_share * pool.gpus_per_node).items():
                        row[k] = row.get(k, 0.0) + v
                    base += team.max_share * pool.existing_nodes * pool.gpus_per_node
                m.row(row, -np.inf, base, ("quota", t, ti))
            for pid, cap in team.max_gpus.items():
                p = next(j for j, pool in enumerate(spec.pools) if pool.id == pid)
                coeffs = team_usage.get((team.id, t, p), {})
                if coeffs:
                    m.row(dict(coeffs), -np.inf, float(cap), ("quota", t, ti))
