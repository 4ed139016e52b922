""" "Compare GPUs": one saved scenario's workload moved onto 2-4 catalog GPUs (services.scenario_on_gpu) and
evaluated by the engine on each, side by side. Read-only, like planner/serving_size.py: nothing is stored.

The cluster of each column has the scenario's GPU count (`same_gpus`: nodes and GPUs per node kept) or the most
nodes whose capex stays within the scenario's own (`same_budget`). Each GPU is shown at its best layout, chosen
by the engine: training takes the automatic layout (the fastest that fits, the search the planning page uses);
inference takes the layout the engine's sizer picks for the scenario's request rate and latency targets
(engine.size_service, the "Size it for me" page), else the scenario's own layout when it gives no rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict

from catalog.models import Gpu
from planner import adapters, services, serving_size
from planner.engine import api as engine
from planner.engine.inputs.errors import SpecError
from planner.engine.results import EstimateResult
from planner.engine.search import budget as budget_search
from planner.engine.search.budget import Budget
from planner.models import ParallelismMode, Scenario, WorkloadKind
from planner.reports import formatting as f

#: How each GPU's cluster is sized (the page's labels: planner.forms.pages.GpuCompareForm.MODES): the scenario's
#: GPU count, or what the scenario's own capex or facility nameplate power buys (the engine's reverse sizing).
SAME_GPUS = "same_gpus"
SAME_BUDGET = "same_budget"
SAME_POWER = "same_power"


@dataclass(frozen=True)
class GpuColumn:
    """One GPU of the comparison: the moved (unsaved) scenario and what the engine said of it."""

    gpu: Gpu
    scenario: Scenario
    output: EstimateResult | None
    problem: str | None  # why there are no figures (the engine refused the copy) or why it cannot run
    layout: str  # the layout shown, with who chose it
    price_notes: tuple[str, ...] = ()

    @property
    def runs(self) -> bool:
        return self.output is not None and self.problem is None


@dataclass(frozen=True)
class GpuComparison:
    scenario: Scenario
    mode: str
    columns: list[GpuColumn]
    budget: Budget | None = None

    @property
    def budget_text(self) -> str:
        """What each GPU's cluster had to stay within ("capex of $10.6 M", "facility nameplate of 480 kW")."""
        if self.budget is None:
            return ""
        if self.budget.money_usd is not None:
            return f"capex of {f.usd_compact(self.budget.money_usd)}"
        return f"facility nameplate power of {f.power_kw(self.budget.power_kw)} (IT nameplate × PUE)"

    @property
    def csv_query(self) -> str:
        """The page's query string with `format=csv` (the CSV download of this table)."""
        pairs = [("gpus", c.gpu.pk) for c in self.columns] + [("mode", self.mode), ("format", "csv")]
        return urlencode(pairs)


# ------------------------------------------------------------------------------------------------ moving


def has_rate(scenario: Scenario) -> bool:
    """Whether an inference scenario states a rate to serve (requests/s, or output tokens/s over an output
    length), which the sizer needs to choose a layout."""
    return scenario.requests_per_s is not None or bool(scenario.target_tokens_per_s and scenario.output_len)


def _inference_layouts(scenario: Scenario, gpus: Sequence[Gpu]) -> dict[str, tuple[int, int, str]]:
    """GPU id -> (tp, pp, who chose it): the sizer's cheapest colocated layout for the scenario's rate and
    targets on each GPU (engine.size_service); absent where the sizer has none or cannot run."""
    if not has_rate(scenario):
        return {}
    try:
        answer = engine.size_service(serving_size.sizing_payload(scenario, [g.pk for g in gpus]))
    except SpecError:
        return {}
    chosen: dict[str, tuple[int, int, str]] = {}
    for entry in answer.get("answers", []):
        colocated = entry.get("colocated") or {}
        layout = colocated.get("layout") or {}
        if entry.get("feasible") and layout and layout.get("ep", 1) == 1 and not layout.get("dp_attention"):
            chosen[entry["gpu_id"]] = (
                layout["tp"],
                layout["pp"],
                "chosen by the engine's sizer for the target rate and latencies",
            )
    return chosen


def moved_scenario(scenario: Scenario, gpu: Gpu, *, nodes: int | None = None, layout: Any = None) -> Scenario:
    """The scenario on `gpu` (services.scenario_on_gpu) with `nodes` nodes, at the engine's automatic layout
    (training) or at `layout` = (tp, pp, ...) (inference)."""
    copy = services.scenario_on_gpu(scenario, gpu)
    if nodes is not None:
        copy.nodes = nodes
    if copy.workload_kind == WorkloadKind.TRAINING:
        copy.parallelism_mode = ParallelismMode.AUTOMATIC
    elif copy.workload_kind == WorkloadKind.INFERENCE and layout is not None:
        copy.tp, copy.pp = layout[0], layout[1]
    return copy


def _training_layout(output: EstimateResult | None) -> str:
    """ "TP8 · PP2 · DP16 · ZeRO-1" from the engine's parallelism section."""
    p = f.dig(output, "parallelism") or {}
    if not p.get("tp"):
        return ""
    parts = [f"TP{p['tp']}", f"PP{p.get('pp', 1)}", f"DP{p.get('dp', 1)}"]
    parts += [f"{k.upper()}{p[k]}" for k in ("cp", "ep") if (p.get(k) or 1) > 1]
    if p.get("zero_stage") is not None:
        parts.append(f"ZeRO-{p['zero_stage']}")
    return " · ".join(parts)


def _layout_text(copy: Scenario, output: EstimateResult | None, inference_choice: Any) -> str:
    """The layout shown; the page says the engine chose it, so only an exception is spelt out."""
    if copy.workload_kind == WorkloadKind.TRAINING:
        chosen = _training_layout(output) or "—"
        if f.dig(output, "memory", "fits") is False:
            return f"{chosen} (none fits: the one needing the least memory)"
        return chosen
    if copy.workload_kind == WorkloadKind.INFERENCE:
        label = f"TP{copy.tp}" + (f" · PP{copy.pp}" if copy.pp > 1 else "")
        if inference_choice is not None:
            return label
        if not has_rate(copy):
            return f"{label} (the scenario's own: give a target rate for the engine to choose)"
        return f"{label} (the scenario's own: no layout meets the targets on this GPU)"
    return "—"


def _problem(output: EstimateResult) -> str | None:
    """Why a valid copy cannot run: the model does not fit (the engine's memory message says by how much)."""
    if f.dig(output, "memory", "fits") is False:
        message = f.dig(output, "memory", "message")
        if not message:
            needed, capacity = f.dig(output, "memory", "per_gpu_gib"), f.dig(output, "memory", "capacity_gib")
            message = f"needs {f.sig(needed)} GiB per GPU, {f.sig(capacity)} GiB available"
        return f"Does not fit in GPU memory: {message}"
    return None


def price_notes(copy: Scenario, gpu: Gpu) -> tuple[str, ...]:
    """What each price of the column is: the GPU's catalog price (list, street, quote or ESTIMATE, with date),
    the node price, the rental price."""
    notes = []
    if gpu.price_usd is None:
        notes.append(f"GPU: no catalog price for the {gpu.model}")
    else:
        notes.append(f"GPU: {f.usd(gpu.price_usd)}, {adapters.price_kind_text(gpu)}")
    server_usd, server_note = adapters.server_price(copy)
    if server_note is not None:
        notes.append(f"node: {f.usd(server_usd)} per node, {server_note.source}")
    cloud_usd, cloud_note = adapters.cloud_price(copy)
    if cloud_note is not None:
        notes.append(f"rent: {f.usd(cloud_usd)} per GPU-hour, {cloud_note.source}")
    elif cloud_usd is not None:
        notes.append(f"rent: {f.usd(cloud_usd)} per GPU-hour, typed on the scenario (kept for every GPU)")
    else:
        notes.append("rent: no public cloud price in the catalog")
    return tuple(notes)


def _evaluate(copy: Scenario) -> tuple[EstimateResult | None, str | None]:
    try:
        output = services.scenario_evaluation_run(scenario=copy).output
    except SpecError as error:
        return None, f"The engine cannot evaluate the {copy.total_gpus:,} GPUs: {error}"
    return output, _problem(output)


def scenario_budget(scenario: Scenario, mode: str) -> Budget | None:
    """The budget of a `same_budget` / `same_power` comparison: the scenario's own capex or facility nameplate
    power (its stored result, else a fresh evaluation); None for `same_gpus`."""
    if mode not in (SAME_BUDGET, SAME_POWER):
        return None
    keys = (
        ("cost", "capex_usd") if mode == SAME_BUDGET else ("power", "provisioning", "facility_nameplate_kw")
    )
    own = scenario.latest_result.output if scenario.latest_result else None
    value = f.dig(own, *keys)
    if value is None:
        value = f.dig(services.scenario_evaluation_run(scenario=scenario).output, *keys)
    if not value:
        return None
    if mode == SAME_BUDGET:
        return Budget(money_usd=value, money_basis="capex")
    return Budget(power_kw=value, power_basis="facility")


def _within_budget(
    scenario: Scenario, gpu: Gpu, budget: Budget, layout: Any
) -> tuple[Scenario, EstimateResult | None, str | None]:
    """The cluster of `gpu` that `budget` buys: the engine's reverse sizing (engine/search/budget.py fit_budget:
    the largest node count within the budget, then of the counts at or below it the one delivering the most
    work), each count evaluated as the page evaluates a scenario (the engine's layout)."""
    evaluated: dict[int, tuple[Scenario, EstimateResult]] = {}

    def evaluate(nodes: int) -> dict[str, Any]:
        copy = moved_scenario(scenario, gpu, nodes=nodes, layout=layout)
        evaluated[nodes] = (copy, services.scenario_evaluation_run(scenario=copy).output)
        return dict(evaluated[nodes][1])

    first = moved_scenario(scenario, gpu, layout=layout)
    try:
        fit = budget_search.fit_budget(adapters.scenario_payload(first), budget, evaluate=evaluate)
    except SpecError as error:
        return first, None, f"The engine cannot size this GPU within the budget: {error}"
    if fit.nodes == 0:
        return first, None, f"Nothing within the budget: {fit.reason}"
    copy, output = evaluated[fit.nodes]
    return copy, output, _problem(output)


def gpu_column(
    scenario: Scenario, gpu: Gpu, *, inference_choice: Any = None, budget: Budget | None = None
) -> GpuColumn:
    """One column: the scenario moved onto `gpu` (its nodes, or what `budget` buys), at the engine's layout."""
    layout = inference_choice[:2] if inference_choice else None
    if budget is None:
        copy = moved_scenario(scenario, gpu, layout=layout)
        output, problem = _evaluate(copy)
    else:
        copy, output, problem = _within_budget(scenario, gpu, budget, layout)
    return GpuColumn(
        gpu, copy, output, problem, _layout_text(copy, output, inference_choice), price_notes(copy, gpu)
    )


def compare_gpus(scenario: Scenario, gpus: Sequence[Gpu], mode: str = SAME_GPUS) -> GpuComparison:
    """The scenario's workload on each GPU, side by side (planner/reports/gpu_table.py presents it)."""
    choices = _inference_layouts(scenario, gpus) if scenario.workload_kind == WorkloadKind.INFERENCE else {}
    budget = scenario_budget(scenario, mode)
    columns = [gpu_column(scenario, gpu, inference_choice=choices.get(gpu.pk), budget=budget) for gpu in gpus]
    return GpuComparison(scenario, mode, columns, budget)


# ------------------------------------------------------------------------------------------------ page helpers


def default_query(scenario: Scenario) -> QueryDict:
    """The first visit's picks: the scenario's own GPU, then the common data-centre GPUs, four in all."""
    ids = [scenario.catalog_gpu_id] if scenario.catalog_gpu_id else []
    ids += [i for i in serving_size.SIZING_GPU_IDS if i not in ids]
    query = QueryDict(mutable=True)
    query.setlist("gpus", ids[:4])
    query["mode"] = SAME_GPUS
    return query
