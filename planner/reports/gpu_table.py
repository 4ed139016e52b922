"""The "Compare GPUs" table (planner/gpu_compare.py): rows declared once (a results-page metric where one exists,
planner/reports/columns.py METRICS), the best value of each row starred as on the scenario comparison, the CSV
download and the chart. Presenters only: every figure is read from the engine output of a column."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.http import StreamingHttpResponse

from catalog.model_base import PriceKind
from catalog.models import Gpu
from planner.models import WorkloadKind
from planner.reports import csv_exports
from planner.reports import formatting as f
from planner.reports.columns import METRICS_BY_KEY, Column, best_index
from planner.selectors import ComparisonRow

if TYPE_CHECKING:
    from planner.gpu_compare import GpuColumn, GpuComparison

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
    RowSpec(
        _m("inf_tokens_per_s", header="Output tokens/s at the scenario's batch", group="Serving"),
        _range_cell(
            _metric("inf_tokens_per_s"),
            _out("inference", "tokens_per_s_low"),
            _out("inference", "tokens_per_s_high"),
            f.number,
        ),
    ),
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
        ),
        _range_cell(
            _out("inference", "output_tokens_per_s_at_rate"),
            _out("inference", "output_tokens_per_s_at_rate_low"),
            _out("inference", "output_tokens_per_s_at_rate_high"),
            f.number,
        ),
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


def comparison_rows(comparison: GpuComparison) -> list[tuple[str, list[ComparisonRow]]]:
    """The table: rows for this workload kind that have a value somewhere, best value starred."""
    columns, kind = comparison.columns, comparison.scenario.workload_kind
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
    for _, group in comparison_rows(comparison):
        for row in group:
            values = [row.column.value(c) for c in comparison.columns]
            rows.append([row.column.key, row.column.header, row.column.unit, *values])
    rows.append(["price_notes", "Price notes", "", *(" | ".join(c.price_notes) for c in comparison.columns)])
    return header, rows


# ------------------------------------------------------------------------------------------------ chart


def chart_label(gpu: Gpu) -> str:
    """A GPU's model name without its bracketed detail: "B200 (HGX/DGX B200, 1000 W)" -> "B200"."""
    return gpu.model.split(" (")[0]


def comparison_charts(comparison: GpuComparison) -> list[dict[str, Any]]:
    """One small bar chart: the run's days with their range (training), else $ per million output tokens
    (inference), else job days; plus TCO. GPUs that cannot run are left out of the bars."""
    columns = comparison.columns
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


def csv_download(comparison: GpuComparison) -> StreamingHttpResponse:
    """The table as CSV (raw values, one column per GPU), through the reports' CSV machinery."""
    header, rows = csv_rows(comparison)
    name = f"compare-gpus-{comparison.scenario.pk}.csv"
    return csv_exports.csv_response(name, csv_exports.csv_lines(header, rows))
