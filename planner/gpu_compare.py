""" "Compare GPUs": one saved scenario's workload moved onto 2-4 catalog GPUs (services.scenario_on_gpu) and
evaluated by the engine on each, side by side. Read-only, like planner/serving_size.py: nothing is stored.

The cluster of each column has the scenario's GPU count (`same_gpus`: nodes and GPUs per node kept) or the most
nodes whose capex stays within the scenario's own (`same_budget`). Each GPU is shown at its best layout, chosen
by the engine: training takes the automatic layout (the fastest that fits, the search the planning page uses);
inference takes the layout the engine's sizer picks for the scenario's request rate and latency targets
(engine.size_service, the "Size it for me" page), else the scenario's own layout when it gives no rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict, StreamingHttpResponse

from catalog.model_base import PriceKind
from catalog.models import Gpu
from planner import adapters, services, serving_size
from planner.engine import api as engine
from planner.engine.inputs.errors import SpecError
from planner.engine.results import EstimateResult
from planner.engine.search import budget as budget_search
from planner.engine.search.budget import Budget
from planner.models import ParallelismMode, Scenario, WorkloadKind
from planner.reports import formatting as f
from planner.reports.columns import METRICS_BY_KEY, Column, best_index
from planner.selectors import ComparisonRow

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
    groups: list[tuple[str, list[ComparisonRow]]] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)
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


def _inference_layouts(scenario: Scenario, gpus: Sequence[Gpu]) -> dict[str, tuple[int, int, str]]:
    """GPU id -> (tp, pp, who chose it): the sizer's cheapest colocated layout for the scenario's rate and
    targets on each GPU (engine.size_service); absent where the sizer has none or cannot run."""
    if not scenario.target_tokens_per_s or not scenario.output_len:
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
        if not copy.target_tokens_per_s or not copy.output_len:
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
    """The scenario's workload on each GPU, side by side (rows and a chart for the page and the CSV)."""
    choices = _inference_layouts(scenario, gpus) if scenario.workload_kind == WorkloadKind.INFERENCE else {}
    budget = scenario_budget(scenario, mode)
    columns = [gpu_column(scenario, gpu, inference_choice=choices.get(gpu.pk), budget=budget) for gpu in gpus]
    groups = comparison_rows(columns, scenario.workload_kind)
    return GpuComparison(scenario, mode, columns, groups, comparison_charts(columns), budget)


# ------------------------------------------------------------------------------------------------ rows


def _metric(key: str) -> Callable[[GpuColumn], Any]:
    """A results-page metric of the column's output (its own rule hides a run's figures when it cannot run;
    the cluster's price, power and racks stay)."""
    column = METRICS_BY_KEY[key]

    def get(c: GpuColumn) -> Any:
        return column.value(c.output) if c.output is not None else None

    return get


def _out(*keys: str, needs_run: bool = True) -> Callable[[GpuColumn], Any]:
    """A figure of the column's output; with `needs_run`, none when the model cannot run on the GPU."""

    def get(c: GpuColumn) -> Any:
        return f.dig(c.output, *keys) if (c.runs or not needs_run) and c.output is not None else None

    return get


def _range_cell(
    central: Callable[[GpuColumn], Any],
    low: Callable[[GpuColumn], Any],
    high: Callable[[GpuColumn], Any],
    fmt: Callable[[Any], str] = f.sig,
) -> Callable[[GpuColumn], str]:
    """A central value followed by its low–high range: "31.2 (27.0–38.1)"."""

    def cell(c: GpuColumn) -> str:
        value, lo, hi = central(c), low(c), high(c)
        text = fmt(value)
        if value is not None and lo is not None and hi is not None:
            text += f" ({fmt(lo)}–{fmt(hi)})"
        return text

    return cell


def _provisioned(c: GpuColumn) -> str:
    kw = _out("power", "peak_it_kw", needs_run=False)(c)
    if kw is None:
        return f.MISSING
    redundancy = _out("power", "provisioning", "redundancy", needs_run=False)(c)
    feeds = _out("power", "provisioning", "feed_capacity_kw", needs_run=False)(c)
    text = f.quantity(kw, "kW")
    if redundancy:
        text += f" IT nameplate; feeds and UPS at {redundancy}"
        if feeds is not None:
            text += f": {f.quantity(feeds, 'kW')}"
    return text


def _latency_cell(key: str) -> Callable[[GpuColumn], str]:
    """A p90 latency in seconds, or why there is none: the target rate exceeds what the cluster serves."""

    def cell(c: GpuColumn) -> str:
        value = _out("inference", key)(c)
        if value is None and _out("inference", "saturated")(c):
            return "saturated: the rate exceeds what these GPUs serve"
        return f.sig(value, 3)

    return cell


def _life_warning(c: GpuColumn) -> str | None:
    """The engine's warning when the run outlasts the hardware's costed life (facility/sections.py)."""
    if not c.runs:
        return None
    found = [w for w in (c.output or {}).get("warnings", []) if "longer than the hardware" in w]
    return found[0] if found else None


def _price_flags(c: GpuColumn) -> str:
    kind = c.gpu.price_kind
    label = PriceKind(kind).label if kind else ("no price" if c.gpu.price_usd is None else "unstated")
    flag = "ESTIMATE" if kind == PriceKind.ESTIMATE else label
    rent = next((n for n in c.price_notes if n.startswith("rent:")), "")
    rented = (
        "no cloud price"
        if "no public cloud" in rent
        else ("typed rent" if "typed" in rent else "cloud median")
    )
    date = f", {c.gpu.price_date}" if c.gpu.price_date else ""
    return f"GPU {flag}{date}; {rented}"


@dataclass(frozen=True)
class RowSpec:
    """A row: the numeric value (for the ★ and the CSV) and the cell text (defaults to the column's format);
    `missing` is the text of a column that runs but has no value (shown only if another column has one)."""

    column: Column
    cell: Callable[[GpuColumn], str] | None = None
    missing: str = f.MISSING


def _col(key: str, header: str, getter: Callable[[GpuColumn], Any], *args: Any, **kwargs: Any) -> Column:
    return Column(key, header, getter, *args, **kwargs)


_TRAINING = frozenset({"training"})
_INFERENCE = frozenset({"inference"})
_JOB = frozenset({"job"})


def _m(key: str, **changes: Any) -> Column:
    """A results-page metric (planner/reports/columns.py METRICS) read from a GPU column."""
    base = METRICS_BY_KEY[key]
    return Column(
        changes.get("key", base.key),
        changes.get("header", base.header),
        _metric(key),
        changes.get("formatter", base.formatter),
        changes.get("unit", base.unit),
        base.better,
        changes.get("group", base.group),
        base.kinds,
        base.unit_in_value,
    )


ROWS: tuple[RowSpec, ...] = (
    RowSpec(_col("gpus", "GPUs", lambda c: c.scenario.total_gpus, lambda v: f.number(v), group="Cluster")),
    RowSpec(_col("nodes", "Nodes", lambda c: c.scenario.nodes, lambda v: f.number(v), group="Cluster")),
    RowSpec(_col("layout", "Layout", lambda c: c.layout, group="Cluster")),
    RowSpec(_col("problem", "Can it run?", lambda c: c.problem or "yes", group="Cluster")),
    RowSpec(
        _m("days", header="Training time", group="Time"),
        _range_cell(_metric("days"), _metric("days_low"), _metric("days_high")),
    ),
    RowSpec(
        _m("gpu_hours", header="GPU-hours", group="Time"),
        _range_cell(_metric("gpu_hours"), _out("time", "gpu_hours_low"), _out("time", "gpu_hours_high")),
    ),
    RowSpec(_m("tokens_per_s", group="Time")),
    RowSpec(_m("mfu", group="Time")),
    RowSpec(_m("job_days", group="Time")),
    RowSpec(_m("job_gpu_hours", group="Time")),
    RowSpec(_m("inf_tokens_per_s", header="Output tokens/s at the scenario's batch", group="Serving")),
    RowSpec(
        _col(
            "output_tokens_per_s_at_rate",
            "Output tokens/s served of the target",
            _out("inference", "output_tokens_per_s_at_rate"),
            lambda v: f.number(v),
            "tokens/s",
            "max",
            "Serving",
            _INFERENCE,
        )
    ),
    RowSpec(
        _col(
            "ttft_s_p90",
            "Time to first token, p90",
            _out("inference", "ttft_s_p90"),
            lambda v: f.sig(v, 3),
            "s",
            "min",
            "Serving",
            _INFERENCE,
        ),
        _latency_cell("ttft_s_p90"),
    ),
    RowSpec(
        _col(
            "tpot_s_p90",
            "Time per output token, p90",
            _out("inference", "tpot_s_p90"),
            lambda v: f.sig(v, 3),
            "s",
            "min",
            "Serving",
            _INFERENCE,
        ),
        _latency_cell("tpot_s_p90"),
    ),
    RowSpec(_m("gpus_needed", group="Serving")),
    RowSpec(
        _m("run_cost_usd", header="Cost of the run, owned", group="Money"),
        _range_cell(
            _metric("run_cost_usd"),
            _out("cost", "run_cost_usd_low"),
            _out("cost", "run_cost_usd_high"),
            f.usd,
        ),
    ),
    RowSpec(_m("cloud_run_cost_usd", group="Money")),
    RowSpec(
        _col(
            "usd_per_m_tokens_own",
            "Cost per million output tokens, owned",
            _out("inference", "usd_per_million_tokens", "own"),
            f.usd,
            "USD",
            "min",
            "Money",
            _INFERENCE,
        )
    ),
    RowSpec(
        _col(
            "usd_per_m_tokens_cloud",
            "Cost per million output tokens, rented",
            _out("inference", "usd_per_million_tokens", "cloud"),
            f.usd,
            "USD",
            "min",
            "Money",
            _INFERENCE,
        )
    ),
    RowSpec(
        _col(
            "outlasts_life",
            "Outlasts the hardware's life",
            _life_warning,
            group="Money",
            kinds=frozenset({"training", "job"}),
        ),
        missing="no",
    ),
    RowSpec(_m("capex_usd", group="Money")),
    RowSpec(_m("tco_usd", group="Money")),
    RowSpec(_m("usd_per_gpu_hour", group="Money")),
    RowSpec(
        _col(
            "peak_it_kw",
            "Provisioned power",
            _out("power", "peak_it_kw", needs_run=False),
            lambda v: f.sig(v, 3),
            "kW",
            "min",
            "Power and space",
            unit_in_value=True,
        ),
        _provisioned,
    ),
    RowSpec(_m("it_kw", header="Average IT draw", group="Power and space")),
    RowSpec(_m("racks", group="Power and space")),
    RowSpec(_col("price_basis", "Price basis", _price_flags, group="Prices")),
)


def comparison_rows(columns: Sequence[GpuColumn], kind: str) -> list[tuple[str, list[ComparisonRow]]]:
    """The table: rows for this workload kind that have a value somewhere, best value starred."""
    groups: dict[str, list[ComparisonRow]] = {}
    for spec in ROWS:
        column = spec.column
        if kind not in column.kinds:
            continue
        values = [column.value(c) for c in columns]
        cells = [
            spec.cell(c) if spec.cell else column.formatter(v) for c, v in zip(columns, values, strict=True)
        ]
        if all(v is None for v in values) and all(cell == f.MISSING for cell in cells):
            continue
        cells = [
            spec.missing if v is None and cell == f.MISSING and c.runs else cell
            for c, v, cell in zip(columns, values, cells, strict=True)
        ]
        groups.setdefault(column.group, []).append(
            ComparisonRow(column, cells, best_index(values, column.better), len(set(cells)) > 1)
        )
    return list(groups.items())


def csv_rows(comparison: GpuComparison) -> tuple[list[str], list[list[Any]]]:
    """Header and rows for the CSV download: key, figure, unit, then each GPU's raw value."""
    header = ["key", "figure", "unit", *(c.gpu.model for c in comparison.columns)]
    rows = []
    for _, group in comparison.groups:
        for row in group:
            values = [row.column.value(c) for c in comparison.columns]
            rows.append([row.column.key, row.column.header, row.column.unit, *values])
    rows.append(["price_notes", "Price notes", "", *(" | ".join(c.price_notes) for c in comparison.columns)])
    return header, rows


# ------------------------------------------------------------------------------------------------ chart


def chart_label(gpu: Gpu) -> str:
    """A GPU's model name without its bracketed detail: "B200 (HGX/DGX B200, 1000 W)" -> "B200"."""
    return gpu.model.split(" (")[0]


def comparison_charts(columns: Sequence[GpuColumn]) -> list[dict[str, Any]]:
    """One small bar chart: the run's days with their range (training), else $ per million output tokens
    (inference), else job days; plus TCO. GPUs that cannot run are left out of the bars."""
    names = [chart_label(c.gpu) + ("" if c.runs else " (cannot run)") for c in columns]
    kind = columns[0].scenario.workload_kind if columns else ""
    if kind == WorkloadKind.TRAINING:
        key, title, axis = "days", "Training time (whiskers: low–high range)", "days"
        values = [_metric("days")(c) for c in columns]
        low = [_metric("days_low")(c) for c in columns]
        high = [_metric("days_high")(c) for c in columns]
    elif kind == WorkloadKind.INFERENCE:
        key, title, axis = "usd_per_m", "Cost per million output tokens (owned)", "USD per M tokens"
        values = [_out("inference", "usd_per_million_tokens", "own")(c) for c in columns]
        low = high = [None] * len(columns)
    else:
        key, title, axis = "job_days", "Job time", "days"
        values = [_metric("job_days")(c) for c in columns]
        low = high = [None] * len(columns)
    bar: dict[str, Any] = {
        "type": "bar",
        "name": axis,
        "x": names,
        "y": values,
        "hovertemplate": "%{x}: %{y:,.3g}<extra></extra>",
    }
    ranged = [
        v is not None and lo is not None and h is not None for v, lo, h in zip(values, low, high, strict=True)
    ]
    if any(ranged):  # whiskers on the GPUs that can run (none on an empty bar)
        bar["error_y"] = {
            "type": "data",
            "symmetric": False,
            "array": [h - v if r else 0 for h, v, r in zip(high, values, ranged, strict=True)],
            "arrayminus": [v - lo if r else 0 for v, lo, r in zip(values, low, ranged, strict=True)],
        }
    tco = {
        "type": "bar",
        "name": "TCO (USD)",
        "x": names,
        "y": [_metric("tco_usd")(c) for c in columns],
        "hovertemplate": "%{x}: $%{y:,.0f}<extra></extra>",
    }
    small = {"height": 380, "margin": {"t": 50, "r": 10, "b": 60, "l": 70}, "showlegend": False}
    return [
        {
            "key": f"gpu-{key}",
            "title": title,
            "figure": {
                "data": [bar],
                "layout": {"title": {"text": title}, "yaxis": {"title": {"text": axis}}, **small},
            },
        },
        {
            "key": "gpu-tco",
            "title": "Total cost of ownership",
            "figure": {
                "data": [tco],
                "layout": {
                    "title": {"text": "Total cost of ownership"},
                    "yaxis": {"title": {"text": "USD"}},
                    **small,
                },
            },
        },
    ]


# ------------------------------------------------------------------------------------------------ page helpers


def default_query(scenario: Scenario) -> QueryDict:
    """The first visit's picks: the scenario's own GPU, then the common data-centre GPUs, four in all."""
    ids = [scenario.catalog_gpu_id] if scenario.catalog_gpu_id else []
    ids += [i for i in serving_size.SIZING_GPU_IDS if i not in ids]
    query = QueryDict(mutable=True)
    query.setlist("gpus", ids[:4])
    query["mode"] = SAME_GPUS
    return query


def csv_download(comparison: GpuComparison) -> StreamingHttpResponse:
    """The table as CSV (raw values, one column per GPU), through the reports' CSV machinery."""
    from planner.reports import csv_exports

    header, rows = csv_rows(comparison)
    name = f"compare-gpus-{comparison.scenario.pk}.csv"
    return csv_exports.csv_response(name, csv_exports.csv_lines(header, rows))
