"""Reverse sizing: the cluster of one GPU type that a power and/or money budget buys, and the work it delivers.

"I have 2 MW and USD 50 M: what do I buy?" For one GPU type (a contract `estimate` payload), `fit_budget` finds
the largest node count whose provisioned power and cost stay within the budget, then the work the cluster
delivers there. The engine is the one judge of every figure: each node count is priced and powered by
`estimate`, never by a formula of this module.

- Power is what a facility provisions (facility/power.py): the IT nameplate (`power.provisioning.
  it_nameplate_kw`, racks counted from it) or the facility nameplate (IT nameplate x PUE, `facility_nameplate_kw`),
  which is what the utility connection must deliver. Redundant feeds (2N) double the feed and UPS capacity, not
  the power drawn from the grid, so they do not count against the budget.
- Money is the capex (`cost.capex_usd`) or the total cost of ownership over the scenario's life
  (`cost.tco_usd`: capex + opex x years).

Both grow with the node count (more nodes never cost or draw less), so the largest count within the budget is
found by bisection over node counts. Each step is a *facility probe*: the payload on that node count with a
plain data-parallel layout that is valid for any GPU count. The network, power and cost sections do not depend
on the training layout (the engine's GPU load factor is a constant and storage follows the model and tokens),
so a probe gives the same power and cost as the real layout (tests/engine/test_budget.py checks it) at a
fraction of the time (about 1.5 ms against about 30 ms with a layout search).

Delivered work is not monotone in the node count: a count whose GPUs divide badly into the batch and the layers
can be slower than a smaller one (Llama 3.1 70B: 300 nodes of 8 H100 train at 1.32 M tokens/s, 256 nodes at
1.98 M; 118 MI300X nodes at 0.62 M, 96 at 0.78 M), and a fixed global batch spread over more GPUs than it can use
trains slower than on fewer. So the work is evaluated on the candidate counts at or below the largest one (the
largest itself and the counts m x 2^k, m = 4..7, down to the largest power of two), then on the powers of two
below while the work rises, then around the best of those; the count that delivers the most is chosen (ties:
fewer nodes). A bigger budget can always buy what a smaller one bought, so it should never deliver less; the
tests check that over budgets from one node to the node cap. The power-of-two candidate is what keeps "a bigger budget never delivers less work" true: doubling
the budget at least doubles that candidate.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from planner.engine.inputs.errors import Problem, SpecError

#: Power bases: the budget covers the IT nameplate or the facility nameplate (IT x PUE); key in
#: `power.provisioning`.
POWER_BASES: dict[str, str] = {"facility": "facility_nameplate_kw", "it": "it_nameplate_kw"}
#: Money bases: the budget covers the capex or the TCO over the economics' `years`; key in `cost`.
MONEY_BASES: dict[str, str] = {"capex": "capex_usd", "tco": "tco_usd"}
#: The largest cluster a reverse sizing considers: 131,072 nodes (1,048,576 GPUs at 8 per node), the planner's
#: live-preview bound (planner/services.py PREVIEW_MAX_GPUS); beyond it the "node cap" binds, not a budget.
MAX_NODES = 131_072

Evaluate = Callable[[int], dict[str, Any]]


@dataclass(frozen=True)
class Budget:
    """A power budget (kW, on `power_basis`) and/or a money budget (USD, on `money_basis`); at least one."""

    power_kw: float | None = None
    money_usd: float | None = None
    power_basis: str = "facility"
    money_basis: str = "capex"

    def __post_init__(self) -> None:
        problems = []
        if self.power_kw is None and self.money_usd is None:
            problems.append(Problem("budget", "give a power budget, a money budget or both"))
        for name, value in (("power_kw", self.power_kw), ("money_usd", self.money_usd)):
            if value is not None and not (value > 0 and math.isfinite(value)):
                problems.append(Problem(name, "must be a finite number greater than 0"))
        if self.power_basis not in POWER_BASES:
            problems.append(Problem("power_basis", f"must be one of {', '.join(POWER_BASES)}"))
        if self.money_basis not in MONEY_BASES:
            problems.append(Problem("money_basis", f"must be one of {', '.join(MONEY_BASES)}"))
        if problems:
            raise SpecError(problems)


@dataclass(frozen=True)
class Spend:
    """What one cluster uses of the budget's two kinds."""

    power_kw: float
    money_usd: float | None  # None: the payload has no economics


def spend(output: dict[str, Any], budget: Budget) -> Spend:
    """The provisioned power and the money of an `estimate` output, on the budget's bases."""
    provisioning = output["power"]["provisioning"]
    cost = output.get("cost")
    return Spend(
        power_kw=float(provisioning[POWER_BASES[budget.power_basis]]),
        money_usd=float(cost[MONEY_BASES[budget.money_basis]]) if cost else None,
    )


def exceeded(used: Spend, budget: Budget) -> list[str]:
    """Which budgets `used` exceeds: "power", "money" (empty: within both)."""
    over = []
    if budget.power_kw is not None and used.power_kw > budget.power_kw:
        over.append("power")
    if budget.money_usd is not None and used.money_usd is not None and used.money_usd > budget.money_usd:
        over.append("money")
    return over


def with_nodes(payload: dict[str, Any], nodes: int) -> dict[str, Any]:
    """A copy of `payload` on `nodes` nodes; a training layout's data-parallel degree follows the GPU count."""
    out = copy.deepcopy(payload)
    out["cluster"]["nodes"] = nodes
    if out["workload"].get("kind", "training") == "training":
        (out["workload"].get("parallelism") or {}).pop("dp", None)
    return out


def probe_payload(payload: dict[str, Any], nodes: int) -> dict[str, Any]:
    """`payload` on `nodes` nodes with a layout valid for any GPU count (training: pure data parallelism, one
    sequence per GPU; inference: one GPU per replica). Only its network, power and cost sections are used."""
    out = with_nodes(payload, nodes)
    workload = out["workload"]
    gpus = nodes * int(out["cluster"].get("gpus_per_node", 8))
    if workload.get("kind", "training") == "training":
        workload["parallelism"] = {
            "tp": 1,
            "pp": 1,
            "cp": 1,
            "ep": 1,
            "dp": gpus,
            "zero_stage": 0,
            "recompute": "none",
            "micro_batch": 1,
            "global_batch": gpus,
        }
    elif workload.get("kind") == "inference":
        workload["parallelism"] = {"tp": 1, "pp": 1, "ep": 1}
    return out


def facility_probe(payload: dict[str, Any], estimate: Evaluate | None = None) -> Evaluate:
    """nodes -> the `estimate` output of the probe payload (power and cost sections are what count)."""
    if estimate is None:
        from planner.engine.api import estimate as engine_estimate

        def estimate_at(nodes: int) -> dict[str, Any]:
            return dict(engine_estimate(probe_payload(payload, nodes)))

        return estimate_at
    return lambda nodes: estimate(nodes)


@dataclass(frozen=True)
class Limit:
    """The largest node count within the budget and what stops one more node."""

    nodes: int  # 0: not even one node fits
    binding: tuple[str, ...]  # "power", "money" or "node cap"
    spend_at_one: Spend | None = None


def largest_within(probe: Evaluate, budget: Budget, max_nodes: int = MAX_NODES) -> Limit:
    """Bisection over 1..max_nodes: the largest n with probe(n) within the budget (probe figures grow with n)."""
    one = spend(probe(1), budget)
    if exceeded(one, budget):
        return Limit(0, tuple(exceeded(one, budget)), one)
    top = spend(probe(max_nodes), budget)
    if not exceeded(top, budget):
        return Limit(max_nodes, ("node cap",), one)
    low, high = 1, max_nodes  # within at low, over at high
    over_high = exceeded(top, budget)
    while high - low > 1:
        middle = (low + high) // 2
        over = exceeded(spend(probe(middle), budget), budget)
        if over:
            high, over_high = middle, over
        else:
            low = middle
    return Limit(low, tuple(over_high), one)


def candidate_counts(nodes: int) -> list[int]:
    """Node counts whose work is compared (descending): `nodes` itself and every count of the form m x 2^k
    (m = 4, 5, 6, 7: two significant bits, the counts whose GPUs divide into power-of-two batches and the usual
    layer counts) from the largest power of two at or below `nodes` up to `nodes`; at most five counts."""
    if nodes < 1:
        return []
    power = 1 << (nodes.bit_length() - 1)
    if power < 4:
        return list(range(nodes, power - 1, -1))
    step = power // 4
    return sorted({nodes, *(m * step for m in (4, 5, 6, 7) if m * step <= nodes)}, reverse=True)


@dataclass(frozen=True)
class Work:
    """The work a cluster delivers, in the workload's own unit."""

    value: float  # per `unit`
    unit: str
    detail: dict[str, Any] = field(default_factory=dict)


def delivered_work(output: dict[str, Any]) -> Work | None:
    """Training: tokens/s over the whole run (run tokens / run days, goodput and overheads included); inference:
    output tokens/s of the cluster at the scenario's batch; job: jobs per day. None when the cluster cannot run
    the workload (training: the layout does not fit in GPU memory)."""
    kind = output.get("kind", "training")
    if kind == "training":
        timing = output.get("time")
        if not timing or not timing.get("days"):
            return None
        tokens_per_s = float(timing["tokens"]) / (float(timing["days"]) * 86_400)
        return Work(
            tokens_per_s,
            "tokens/s",
            {"days": timing["days"], "steady_tokens_per_s": timing["tokens_per_s"], "mfu": timing["mfu"]},
        )
    if kind == "inference":
        inference = output.get("inference") or {}
        if not output.get("memory", {}).get("fits", True) or not inference.get("tokens_per_s"):
            return None
        return Work(
            float(inference["tokens_per_s"]),
            "output tokens/s",
            {"tpot_s": inference.get("tpot_s"), "ttft_s": inference.get("ttft_s")},
        )
    job = output.get("job") or {}
    if not job.get("days"):
        return None
    return Work(1.0 / float(job["days"]), "jobs/day", {"days": job["days"]})


def why_not(output: dict[str, Any]) -> str:
    """Why a cluster delivers no work (the memory section's sentence when it does not fit)."""
    memory = output.get("memory") or {}
    if memory and not memory.get("fits", True):
        detail = memory.get("message")
        return f"does not fit in GPU memory ({detail})" if detail else "does not fit in GPU memory"
    return "the engine gives no throughput for this cluster"


@dataclass(frozen=True)
class Fit:
    """One GPU type's answer: the node count chosen, its output, the work, and what binds."""

    nodes: int  # 0: nothing fits
    limit: Limit
    output: dict[str, Any] | None
    work: Work | None
    reason: str | None  # why there is no answer (nothing within the budget, no layout, does not fit)
    tried: tuple[tuple[int, float | None], ...] = ()  # (nodes, work) of each candidate evaluated


def fit_budget(
    payload: dict[str, Any],
    budget: Budget,
    *,
    evaluate: Evaluate | None = None,
    probe: Evaluate | None = None,
    max_nodes: int = MAX_NODES,
) -> Fit:
    """The cluster of `payload`'s GPU type that the budget buys and delivers the most work (module docstring).
    `evaluate(nodes)`: the full estimate on that node count (default: `estimate` of the payload as given; the
    planner passes its search-then-estimate). `probe(nodes)`: power and cost only (default: `probe_payload`).
    A SpecError of `evaluate` at one count (no valid layout there) drops that count."""
    if evaluate is None:
        from planner.engine.api import estimate as engine_estimate

        def evaluate_at(nodes: int) -> dict[str, Any]:
            return dict(engine_estimate(with_nodes(payload, nodes)))

        evaluate = evaluate_at
    if budget.money_usd is not None and not payload.get("economics"):
        raise SpecError.at(
            "economics", "a money budget needs the economics (node price) to price each cluster"
        )
    limit = largest_within(probe or facility_probe(payload), budget, max_nodes)
    if limit.nodes == 0:
        one = limit.spend_at_one
        assert one is not None
        return Fit(0, limit, None, None, _nothing_fits(one, budget))
    trials = _Trials(evaluate, budget)
    for nodes in candidate_counts(limit.nodes):
        trials.run(nodes)
    peak = _walk_down(trials, 1 << (limit.nodes.bit_length() - 1))
    if peak is not None:  # the work peaks below the top octave: compare the counts around that power of two
        around = {m * peak // d for m in (5, 6, 7) for d in (4, 8)}  # in (peak / 2, 2 x peak)
        for nodes in sorted((n for n in around if n >= 1), reverse=True):
            trials.run(nodes)
    best = trials.best()
    tried = tuple(trials.tried)
    if best is None:
        return Fit(0, limit, None, None, trials.reason(), tried)
    nodes, output, work = best
    return Fit(nodes, limit, output, work, None, tried)


#: Octaves without more work the walk down tolerates before it stops: past the peak the work can dip and rise
#: again by one octave (at 65,536 H100 nodes Llama 3.1 70B with 1,024 sequences trains slower than at 131,072, where
#: the layout changes and NCCL's tree and PAT collectives keep the data-parallel traffic flat, while 16,384 are
#: faster than both), so one octave that does not rise does not end the walk.
WALK_PATIENCE = 2


def _walk_down(trials: _Trials, power: int) -> int | None:
    """Past the work's peak (a fixed global batch spread over more GPUs than it can use: Llama 3.1 70B with 1,024
    sequences trains at 132 B tokens/day on 80 GB200 nodes and 30 B on 131,072), or where the top octave has no
    layout at all, smaller counts deliver more: evaluate the powers of two below `power` until WALK_PATIENCE of
    them in a row bring no more work than the best so far (or while no count has worked yet). Returns the power
    of two with the most work when it is below `power`."""
    best_work = trials.work(power)
    best_power: int | None = None
    misses = 0
    nodes = power // 2
    while nodes >= 1:
        work = trials.run(nodes)
        if work is not None and (best_work is None or work > best_work):
            best_power, best_work, misses = nodes, work, 0
        elif best_work is not None:
            misses += 1
            if misses >= WALK_PATIENCE:
                break
        nodes //= 2
    return best_power


class _Trials:
    """The work of each node count evaluated once (SpecError: no layout there; over the budget with the real
    layout: dropped), in the order tried, with the reason of each count that gives none."""

    def __init__(self, evaluate: Evaluate, budget: Budget) -> None:
        self.evaluate = evaluate
        self.budget = budget
        self.tried: list[tuple[int, float | None]] = []
        self.results: dict[int, tuple[dict[str, Any], Work] | None] = {}
        self.reasons: list[str] = []

    def run(self, nodes: int) -> float | None:
        if nodes not in self.results:
            self.results[nodes] = self._evaluate(nodes)
            found = self.results[nodes]
            self.tried.append((nodes, found[1].value if found else None))
        return self.work(nodes)

    def work(self, nodes: int) -> float | None:
        found = self.results.get(nodes)
        return found[1].value if found else None

    def _evaluate(self, nodes: int) -> tuple[dict[str, Any], Work] | None:
        try:
            output = self.evaluate(nodes)
        except SpecError as error:
            self.reasons.append(f"{nodes:,} nodes: {error}")
            return None
        if exceeded(spend(output, self.budget), self.budget):  # the engine judges the real layout too
            self.reasons.append(f"{nodes:,} nodes: over the budget with the chosen layout")
            return None
        work = delivered_work(output)
        if work is None:
            self.reasons.insert(0, f"{nodes:,} nodes: {why_not(output)}")  # the workload's own reason first
            return None
        return output, work

    def best(self) -> tuple[int, dict[str, Any], Work] | None:
        """The count with the most work (ties: the fewer nodes)."""
        found = [(n, r) for n, r in self.results.items() if r is not None]
        if not found:
            return None
        nodes, (output, work) = max(found, key=lambda item: (item[1][1].value, -item[0]))
        return nodes, output, work

    def reason(self) -> str:
        return self.reasons[0] if self.reasons else "no node count works"


def _nothing_fits(one: Spend, budget: Budget) -> str:
    parts = []
    if budget.power_kw is not None and one.power_kw > budget.power_kw:
        parts.append(f"{one.power_kw:,.1f} kW {budget.power_basis} power (budget {budget.power_kw:,.1f} kW)")
    if budget.money_usd is not None and one.money_usd is not None and one.money_usd > budget.money_usd:
        parts.append(f"${one.money_usd:,.0f} {budget.money_basis} (budget ${budget.money_usd:,.0f})")
    return "one node already needs " + " and ".join(parts)
