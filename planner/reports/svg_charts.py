"""Vector SVG charts for the PDF reports, drawn server-side with matplotlib (Agg backend, no network).

The charts themselves are declared once, as Plotly figure specs, in `planner.reports.charts` (the results page draws
the same specs with plotly.js). This module renders that subset of the Plotly spec the planner uses (bar traces,
vertical or horizontal, grouped or stacked, with error bars; scatter traces with lines and markers; line shapes and
text annotations) with matplotlib, so the PDF shows the same figures without a browser. Text stays text in the SVG
(`svg.fonttype: none`), so the PDF's chart labels are selectable and searchable.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from typing import Any

import matplotlib

from planner.reports.formatting import dig

matplotlib.use("Agg")

from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import Formatter, FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

#: Chart size in the PDF: the A4 text block is 180 mm wide; matplotlib measures in inches (25.4 mm).
MM_PER_INCH = 25.4
CHART_WIDTH_MM = 170.0
CHART_HEIGHT_MM = 70.0
FONT_FAMILY = ["DejaVu Sans", "Liberation Sans", "sans-serif"]
FONT_SIZE_PT = 8.5
GRID_COLOR = "#e4e7ec"
AXIS_COLOR = "#667085"
TEXT_COLOR = "#101828"
#: Legend layout: an average DejaVu Sans character at FONT_SIZE_PT is about 1.7 mm wide; the colour patch and
#: the gap to the next entry take about six characters.
CHAR_WIDTH_MM = 1.7
LEGEND_HANDLE_CHARS = 6
#: Horizontal bar charts: axes and margins, plus this much per bar.
HBAR_BASE_MM = 22.0
HBAR_MM_PER_BAR = 9.0
#: Bar widths as a fraction of one category slot (Plotly's default gap leaves about 20 % free).
BAR_SLOT_FRACTION = 0.8
#: Plotly dash names -> matplotlib line styles.
DASHES = {"dash": "--", "dot": ":", "dashdot": "-.", "solid": "-"}
RC_PARAMS: dict[str, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "gpu-cluster-planner",
    "font.family": FONT_FAMILY,
    "font.size": FONT_SIZE_PT,
    "axes.edgecolor": AXIS_COLOR,
    "axes.labelcolor": TEXT_COLOR,
    "xtick.color": AXIS_COLOR,
    "ytick.color": AXIS_COLOR,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_RGBA = re.compile(r"rgba?\((\d+),(\d+),(\d+)(?:,([\d.]+))?\)")


def _plain(text: Any) -> str:
    """Plotly label text -> plain text for matplotlib ("<br>" becomes a line break, "$" is not math)."""
    return _TAG.sub("", _BREAK.sub("\n", str(text or ""))).replace("$", r"\$")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _numbers(values: Sequence[Any] | None) -> list[float]:
    return [float(v) if _is_number(v) else 0.0 for v in (values or [])]


class _AxisTicks(Formatter):
    """Ticks in one scale and one precision per axis: $0, $1.5M, $3.0M (never "$800,000" beside "$1.6M"),
    and 0, 20, 40 or 0.5, 1.0, 1.5 for plain numbers (decimals from the tick step)."""

    def __init__(self, *, money: bool) -> None:
        self.money = money
        self.ticks: list[float] = []

    def set_locs(self, locs: Any) -> None:
        self.ticks = [float(t) for t in locs if math.isfinite(t)]

    def __call__(self, value: float, pos: Any = None) -> str:
        ticks = self.ticks or [value]
        top = max((abs(t) for t in ticks), default=abs(value))
        scale, suffix = 1.0, ""
        if self.money:
            for threshold, letter in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
                if top >= threshold:
                    scale, suffix = threshold, letter
                    break
        steps = [abs(b - a) for a, b in zip(ticks, ticks[1:], strict=False) if b != a]
        step = min(steps) / scale if steps else 1.0
        decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
        text = f"{value / scale:,.{decimals}f}"
        if text.startswith("-") and float(text.replace(",", "")) == 0:
            text = text[1:]
        return f"${text}{suffix}" if self.money else text


class _Categories:
    """The category axis of a chart: labels in order of first appearance across traces (as Plotly does)."""

    def __init__(self) -> None:
        self.labels: list[str] = []

    def positions(self, values: Sequence[Any]) -> list[float]:
        out = []
        for value in values:
            label = str(value)
            if label not in self.labels:
                self.labels.append(label)
            out.append(float(self.labels.index(label)))
        return out


def _category_axis(traces: list[dict[str, Any]], axis: str) -> bool:
    """True when the traces' values on `axis` are labels rather than numbers."""
    values = [v for t in traces for v in (t.get(axis) or [])]
    return bool(values) and not all(_is_number(v) for v in values)


def _bars(ax: Axes, traces: list[dict[str, Any]], layout: dict[str, Any]) -> tuple[bool, _Categories]:
    """Draw the bar traces; returns (horizontal, category axis)."""
    bars = [t for t in traces if t.get("type") == "bar"]
    categories = _Categories()
    horizontal = any(t.get("orientation") == "h" for t in bars)
    if not bars:
        return horizontal, categories
    stacked = layout.get("barmode") == "stack"
    groups = 1 if stacked else len(bars)
    width = BAR_SLOT_FRACTION / groups
    stack_base: dict[float, float] = {}
    for index, trace in enumerate(bars):
        cat_key, val_key = ("y", "x") if horizontal else ("x", "y")
        raw_cats = trace.get(cat_key) or []
        numeric = not _category_axis(bars, cat_key)
        positions = [float(v) for v in raw_cats] if numeric else categories.positions(raw_cats)
        values = _numbers(trace.get(val_key))
        offset = 0.0 if stacked else (index - (groups - 1) / 2) * width
        where = [p + offset for p in positions]
        base = [stack_base.get(p, 0.0) for p in positions] if stacked else [0.0] * len(positions)
        color = dig(trace, "marker", "color")
        error = _error(trace, values)
        common = {
            "color": color,
            "label": _plain(trace.get("name", "")),
            "edgecolor": "white",
            "linewidth": 0.4,
        }
        if horizontal:
            ax.barh(where, values, height=width, left=base, xerr=error, capsize=3, **common)
        else:
            ax.bar(where, values, width=width, bottom=base, yerr=error, capsize=3, **common)
        if stacked:
            for p, b, v in zip(positions, base, values, strict=False):
                stack_base[p] = b + v
    return horizontal, categories


def _error(trace: dict[str, Any], values: list[float]) -> list[list[float]] | None:
    spec = trace.get("error_y") or {}
    plus = spec.get("array")
    if not plus:
        return None
    minus = plus if spec.get("symmetric", True) else spec.get("arrayminus") or plus
    return [_numbers(minus), _numbers(plus)]


def _color(value: Any) -> Any:
    """A Plotly colour for matplotlib: "#1f5fbf" and names pass, "rgba(r,g,b,a)" becomes a tuple."""
    if not isinstance(value, str):
        return None
    match = _RGBA.fullmatch(value.replace(" ", ""))
    if match is None:
        return value
    r, g, b = (int(match[i]) / 255 for i in (1, 2, 3))
    return (r, g, b, float(match[4]) if match[4] is not None else 1.0)


def _scatters(ax: Axes, traces: list[dict[str, Any]], categories: _Categories, horizontal: bool) -> None:
    for trace in traces:
        if trace.get("type") != "scatter":
            continue
        mode = trace.get("mode", "lines+markers")
        xs, ys = trace.get("x") or [], _numbers(trace.get("y"))
        x_pos = [float(v) for v in xs] if all(_is_number(v) for v in xs) else categories.positions(xs)
        line = trace.get("line") or {}
        marker = trace.get("marker") or {}
        color = _color(line.get("color")) or _color(marker.get("color"))
        face = _color(marker.get("color")) or color
        edge = _color(dig(marker, "line", "color")) or face
        ax.plot(
            x_pos,
            ys,
            linestyle=DASHES.get(line.get("dash", "solid"), "-") if "lines" in mode else "none",
            drawstyle="steps-post" if line.get("shape") == "hv" else "default",
            linewidth=float(line.get("width", 2)) * 0.75,
            marker="o" if "markers" in mode else None,
            markersize=float(marker.get("size", 6)) * 0.6,
            markerfacecolor=face,
            markeredgecolor=edge,
            alpha=float(marker.get("opacity", 1.0)) if "lines" not in mode else None,
            color=color,
            label=_plain(trace.get("name", "")),
        )


def _shapes(ax: Axes, layout: dict[str, Any]) -> None:
    """Plotly line shapes: horizontal when x spans the paper, vertical when y does."""
    for shape in layout.get("shapes") or []:
        if shape.get("type") != "line":
            continue
        line = shape.get("line") or {}
        style = {
            "color": line.get("color", TEXT_COLOR),
            "linewidth": float(line.get("width", 2)) * 0.75,
            "linestyle": DASHES.get(line.get("dash", "solid"), "-"),
        }
        if shape.get("xref") == "paper":
            ax.axhline(float(shape.get("y0", 0)), **style)
        elif shape.get("yref") == "paper":
            ax.axvline(float(shape.get("x0", 0)), **style)
        else:
            ax.plot([shape["x0"], shape["x1"]], [shape["y0"], shape["y1"]], **style)


def _annotations(ax: Axes, layout: dict[str, Any]) -> None:
    for note in layout.get("annotations") or []:
        x_paper, y_paper = note.get("xref") == "paper", note.get("yref") == "paper"
        transform = ax.get_xaxis_transform() if y_paper and not x_paper else ax.transData
        if x_paper and not y_paper:
            transform = ax.get_yaxis_transform()
        if x_paper and y_paper:
            transform = ax.transAxes
        ax.text(
            float(note.get("x", 0)),
            float(note.get("y", 0)),
            _plain(note.get("text", "")),
            transform=transform,
            ha={"left": "left", "right": "right"}.get(note.get("xanchor", ""), "center"),
            va={"top": "top", "bottom": "bottom"}.get(note.get("yanchor", ""), "center"),
            color=dig(note, "font", "color") or TEXT_COLOR,
            fontsize=FONT_SIZE_PT - 0.5,
        )


def _axes_style(ax: Axes, layout: dict[str, Any], categories: _Categories, horizontal: bool) -> None:
    x_title = _plain(dig(layout, "xaxis", "title", "text"))
    y_title = _plain(dig(layout, "yaxis", "title", "text"))
    ax.set_xlabel(x_title)
    ax.set_ylabel(y_title)
    value_axis, value_title = (ax.xaxis, x_title) if horizontal else (ax.yaxis, y_title)
    if not horizontal and dig(layout, "yaxis", "type") == "log":
        ax.set_yscale("log")  # latencies spanning decades (throughput-latency curves)
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(
            FuncFormatter(lambda value, _pos: f"{value:g}")
        )  # 0.2, 1, 50: not 2 × 10^-1
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.grid(True, axis="y", color=GRID_COLOR, linewidth=0.6)
        ax.set_axisbelow(True)
        return
    money = "USD" in value_title
    value_axis.set_major_formatter(_AxisTicks(money=money))
    value_axis.set_major_locator(MaxNLocator(nbins=6))
    ax.grid(True, axis="x" if horizontal else "y", color=GRID_COLOR, linewidth=0.6)
    ax.set_axisbelow(True)
    if categories.labels:
        ticks = range(len(categories.labels))
        if horizontal:
            ax.set_yticks(list(ticks), [_plain(c) for c in categories.labels])
        else:
            ax.set_xticks(list(ticks), [_plain(c) for c in categories.labels])
    elif dig(layout, "xaxis", "dtick") == 1:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    y_range = dig(layout, "yaxis", "range")
    if y_range and not horizontal:
        ax.set_ylim(float(y_range[0]), float(y_range[1]))
    elif not horizontal:
        ax.set_ylim(bottom=0)


def _legend_columns(labels: list[str], width_mm: float) -> int:
    """As many legend columns as fit across the chart for the longest label."""
    widest_mm = (max(len(label) for label in labels) + LEGEND_HANDLE_CHARS) * CHAR_WIDTH_MM
    return max(1, min(len(labels), int(width_mm // widest_mm)))


def chart_height_mm(chart: dict[str, Any]) -> float:
    """Horizontal bar charts grow with their number of bars; the rest share one height."""
    traces = dig(chart, "figure", "data") or []
    if any(t.get("orientation") == "h" for t in traces):
        bars = max(len(t.get("y") or []) for t in traces)
        return HBAR_BASE_MM + HBAR_MM_PER_BAR * bars
    return CHART_HEIGHT_MM


def chart_svg(
    chart: dict[str, Any], *, width_mm: float = CHART_WIDTH_MM, height_mm: float = CHART_HEIGHT_MM
) -> str:
    """One chart spec from `planner.reports.charts` (key, title, figure) as a standalone SVG document.

    The title is left to the HTML caption (it wraps there and stays searchable); legends go under the plot.
    """
    figure_spec = chart.get("figure") or {}
    traces: list[dict[str, Any]] = list(figure_spec.get("data") or [])
    layout: dict[str, Any] = figure_spec.get("layout") or {}
    with matplotlib.rc_context(RC_PARAMS):
        fig = Figure(figsize=(width_mm / MM_PER_INCH, height_mm / MM_PER_INCH), layout="constrained")
        ax = fig.add_subplot()
        horizontal, categories = _bars(ax, traces, layout)
        _scatters(ax, traces, categories, horizontal)
        _shapes(ax, layout)
        _annotations(ax, layout)
        _axes_style(ax, layout, categories, horizontal)
        named = [_plain(t["name"]) for t in traces if t.get("name")]
        if layout.get("showlegend", True) and len(named) > 1:
            columns = _legend_columns(named, width_mm)
            fig.legend(loc="outside lower center", ncols=columns, frameon=False)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]


def charts_svg(charts: list[dict[str, Any]], *, width_mm: float = CHART_WIDTH_MM) -> list[dict[str, Any]]:
    """Chart specs with their rendered SVG added under "svg" (key, title and figure kept)."""
    return [
        {**chart, "svg": chart_svg(chart, width_mm=width_mm, height_mm=chart_height_mm(chart))}
        for chart in charts
    ]
