"""Plotly figure specs (plain dicts: data + layout) built from the engine's output (planner/engine/results.py).

The same specs feed the results page (plotly.js reads them from a json_script block), the live preview (JSON) and,
later, the PDF (plotly can render the dicts to SVG server-side). Charts only re-shape engine figures: titles,
axis labels with units, one trace per engine key; no figure is computed here.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from planner.engine.results import EstimateResult
from planner.reports import formatting as f

PALETTE = ["#1f5fbf", "#0f8a6a", "#d97706", "#7c3aed", "#db2777", "#0891b2", "#65a30d", "#64748b"]
CAPACITY_COLOR = "#b42318"
OWN_COLOR = "#1f5fbf"
RENT_COLOR = "#d97706"

MEMORY_PARTS = (
    ("weights", "Weights"),
    ("gradients", "Gradients"),
    ("optimizer", "Optimizer states"),
    ("activations", "Activations"),
    ("kv_cache", "KV cache"),
    ("other", "Framework overhead"),
)
STEP_PARTS = (
    ("compute", "Compute"),
    ("recompute", "Recompute"),
    ("tp_comm", "Tensor-parallel comm."),
    ("cp_comm", "Context-parallel comm."),
    ("ep_comm", "Expert all-to-all"),
    ("pp_bubble", "Pipeline bubble"),
    ("pp_p2p", "Pipeline send/recv"),
    ("dp_comm", "Data-parallel comm. (exposed)"),
    ("zero_comm", "ZeRO-3/FSDP gathers and reduce-scatters (exposed)"),
    ("optimizer", "Optimizer step"),
    ("host", "Kernel launches (host-bound)"),
    ("ceiling", "Held to the best published MFU"),
)
#: The whole run (time.steady_state_days and time.overheads, training/goodput.py PARTS) in the order shown.
WHOLE_RUN_PARTS = (
    ("steady_state", "Steady-state training"),
    ("batch_ramp_up", "Batch ramp-up"),
    ("long_context", "Long-context stages"),
    ("evaluation", "Evaluation passes"),
    ("stragglers", "Stragglers and other run losses"),
    ("data_stalls", "Data-pipeline stalls"),
    ("checkpoints", "Checkpoint writes"),
    ("failures_restarts", "Failures and restarts"),
)
POWER_PARTS = (
    ("gpus", "GPUs"),
    ("hosts", "Hosts (CPU, RAM, NICs, fans)"),
    ("network", "Network switches"),
    ("storage", "Storage"),
    ("cooling_overhead", "Cooling and facility overhead"),
)
CAPEX_PARTS = (
    ("servers", "Servers"),
    ("network", "Scale-out network"),
    ("storage", "Storage"),
    ("facility", "Facility fit-out"),
    ("frontend_network", "Front-end / storage network"),
    ("management_network", "Management network"),
    ("spares", "Spare servers"),
    ("installation", "Installation"),
)
OPEX_PARTS = (
    ("energy", "Energy"),
    ("colocation", "Colocation"),
    ("maintenance", "Maintenance"),
    ("staff", "Staff"),
    ("software", "Software licences"),
)


def _layout(title: str, x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 16}},
        "xaxis": {"title": {"text": x_title}, "automargin": True},
        "yaxis": {"title": {"text": y_title}, "automargin": True, "separatethousands": True},
        "margin": {"l": 70, "r": 20, "t": 60, "b": 70},
        "legend": {"orientation": "v", "x": 1.02, "y": 1, "xanchor": "left", "yanchor": "top"},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 13},
        "separators": ".,",
        "hovermode": "closest",
    }
    layout.update(extra)
    return layout


def _chart(key: str, title: str, data: list[dict[str, Any]], layout: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "title": title, "figure": {"data": data, "layout": layout}}


def memory_chart(output: EstimateResult) -> dict[str, Any] | None:
    """Stacked memory per GPU by part against the GPU's capacity line."""
    memory = output.get("memory", {})
    breakdown: Mapping[str, Any] = memory.get("breakdown_gib") or {
        key: memory.get(f"{key}_gib") for key, _ in MEMORY_PARTS
    }
    capacity = memory.get("capacity_gib")
    if not any(breakdown.get(key) for key, _ in MEMORY_PARTS):
        return None
    label = "Most loaded GPU"
    data = [
        {
            "type": "bar",
            "name": name,
            "x": [label],
            "y": [breakdown.get(key) or 0.0],
            "marker": {"color": PALETTE[i]},
            "hovertemplate": f"{name}: %{{y:,.1f}} GiB<extra></extra>",
        }
        for i, (key, name) in enumerate(MEMORY_PARTS)
        if breakdown.get(key)
    ]
    per_gpu = memory.get("per_gpu_gib")
    fits = memory.get("fits")
    verdict = "fits" if fits else "does not fit"
    title = f"Memory per GPU: {f.quantity(per_gpu, 'GiB')} of {f.quantity(capacity, 'GiB')} ({verdict})"
    layout = _layout(title, "", "GiB per GPU", barmode="stack")
    if capacity:
        layout["shapes"] = [
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": capacity,
                "y1": capacity,
                "line": {"color": CAPACITY_COLOR, "width": 2, "dash": "dash"},
            }
        ]
        layout["annotations"] = [
            {
                "xref": "paper",
                "x": 1,
                "y": capacity,
                "xanchor": "right",
                "yanchor": "bottom",
                "text": f"GPU capacity {f.quantity(capacity, 'GiB')}",
                "showarrow": False,
                "font": {"color": CAPACITY_COLOR},
            }
        ]
        top = max(capacity, per_gpu or 0.0)
        layout["yaxis"]["range"] = [0, top * 1.15]
    return _chart("memory", title, data, layout)


def step_time_chart(output: EstimateResult) -> dict[str, Any] | None:
    """Horizontal bars: seconds per optimizer step by component (none for a model that does not fit)."""
    if not f.runs(output):
        return None
    time = output.get("time", {})
    breakdown: Mapping[str, Any] = time.get("breakdown_s") or {}
    parts = [(name, breakdown.get(key)) for key, name in STEP_PARTS if breakdown.get(key)]
    if not parts:
        return None
    step_s = time.get("step_s")
    title = f"Step time by component (one step: {f.quantity(step_s, 's')})"
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "y": [name for name, _ in parts][::-1],
            "x": [value for _, value in parts][::-1],
            "marker": {"color": PALETTE[0]},
            "hovertemplate": "%{y}: %{x:,.3f} s<extra></extra>",
            "name": "seconds",
        }
    ]
    layout = _layout(title, "Seconds per step", "", showlegend=False)
    layout["margin"]["l"] = 190
    return _chart("step_time", title, data, layout)


def power_chart(output: EstimateResult) -> dict[str, Any] | None:
    """Stacked bars: IT power by part, and facility power (IT plus cooling overhead through PUE)."""
    power = output.get("power", {})
    breakdown: Mapping[str, Any] = power.get("breakdown_kw") or {}
    if not breakdown:
        return None
    pue = power.get("pue")
    facility_kw = power.get("facility_kw")
    columns = ["IT load", f"Facility (PUE {f.sig(pue)})"]
    data = []
    for i, (key, name) in enumerate(POWER_PARTS):
        value = breakdown.get(key)
        if not value:
            continue
        y = [0.0, value] if key == "cooling_overhead" else [value, value]
        data.append(
            {
                "type": "bar",
                "name": name,
                "x": columns,
                "y": y,
                "marker": {"color": PALETTE[i]},
                "hovertemplate": f"{name}: %{{y:,.1f}} kW<extra></extra>",
            }
        )
    title = f"Power draw: facility {f.power_kw(facility_kw)}, IT {f.power_kw(power.get('it_kw'))}"
    return _chart("power", title, data, _layout(title, "", "kW (average while running)", barmode="stack"))


def tco_category_chart(output: EstimateResult) -> dict[str, Any] | None:
    """Stacked bars: the one-off capex by category and the yearly opex by category."""
    cost = output.get("cost", {})
    capex: Mapping[str, Any] = cost.get("capex_breakdown_usd") or {}
    opex: Mapping[str, Any] = cost.get("opex_breakdown_usd_per_year") or {}
    if not capex and not opex:
        return None
    data = []
    for i, (key, name) in enumerate(CAPEX_PARTS):
        if capex.get(key):
            data.append(_money_bar(name, ["Capex (once)"], [capex[key]], PALETTE[i % len(PALETTE)]))
    for i, (key, name) in enumerate(OPEX_PARTS):
        if opex.get(key):
            data.append(
                _money_bar(
                    name, ["Opex (per year)"], [opex[key]], PALETTE[(len(CAPEX_PARTS) + i) % len(PALETTE)]
                )
            )
    tco = cost.get("tco_usd")
    years = cost.get("yearly")
    life = f" over {len(years)} years" if isinstance(years, list) and years else ""
    title = f"Cost by category: TCO {f.usd_compact(tco)}{life}"
    return _chart("tco_category", title, data, _layout(title, "", "USD", barmode="stack"))


def _money_bar(name: str, x: list[Any], y: list[Any], color: str) -> dict[str, Any]:
    return {
        "type": "bar",
        "name": name,
        "x": x,
        "y": y,
        "marker": {"color": color},
        "hovertemplate": f"{name}: $%{{y:,.0f}}<extra></extra>",
    }


def tco_year_chart(output: EstimateResult) -> dict[str, Any] | None:
    """Stacked capex and opex per year with the cumulative cost as a line."""
    yearly = output.get("cost", {}).get("yearly") or []
    if not yearly:
        return None
    years = [row.get("year") for row in yearly]
    data = [
        _money_bar("Capex", years, [row.get("capex_usd") for row in yearly], PALETTE[0]),
        _money_bar("Opex", years, [row.get("opex_usd") for row in yearly], PALETTE[4]),
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "Cumulative",
            "x": years,
            "y": [row.get("cumulative_usd") for row in yearly],
            "line": {"color": "#101828"},
            "hovertemplate": "Cumulative: $%{y:,.0f}<extra></extra>",
        },
    ]
    title = "Total cost of ownership by year"
    layout = _layout(title, "Year", "USD", barmode="stack")
    layout["xaxis"]["dtick"] = 1
    return _chart("tco_year", title, data, layout)


def own_vs_rent_chart(output: EstimateResult) -> dict[str, Any] | None:
    """Cumulative cost of owning against renting the same GPU-hours, with the break-even month marked."""
    cost = output.get("cost", {})
    monthly: Mapping[str, Any] = cost.get("monthly_own_vs_rent") or {}
    months = monthly.get("month") or []
    if not months:
        return None
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "Own (cumulative)",
            "x": months,
            "y": monthly.get("own_cumulative_usd"),
            "line": {"color": OWN_COLOR, "width": 3},
            "hovertemplate": "Month %{x}: own $%{y:,.0f}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": "Rent (cumulative)",
            "x": months,
            "y": monthly.get("rent_cumulative_usd"),
            "line": {"color": RENT_COLOR, "width": 3},
            "hovertemplate": "Month %{x}: rent $%{y:,.0f}<extra></extra>",
        },
    ]
    breakeven = cost.get("breakeven_month")
    if breakeven is None:
        title = "Own against rent: renting stays cheaper over the life"
    else:
        title = f"Own against rent: owning is cheaper from month {f.number(breakeven)}"
    layout = _layout(title, "Month", "Cumulative USD")
    if breakeven is not None:
        layout["shapes"] = [
            {
                "type": "line",
                "x0": breakeven,
                "x1": breakeven,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"color": "#067647", "width": 2, "dash": "dot"},
            }
        ]
        layout["annotations"] = [
            {
                "x": breakeven,
                "yref": "paper",
                "y": 1,
                "text": f"break-even: month {f.number(breakeven)}",
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "top",
                "font": {"color": "#067647"},
            }
        ]
    return _chart("own_vs_rent", title, data, layout)


def result_charts(output: EstimateResult, *, kind: str) -> list[dict[str, Any]]:
    """Every chart that applies to a result, in page order."""
    builders = [
        memory_chart,
        step_time_chart,
        power_chart,
        tco_category_chart,
        tco_year_chart,
        own_vs_rent_chart,
    ]
    if kind != "training":
        builders.remove(step_time_chart)
    if kind == "job":
        builders.remove(memory_chart)
    charts = [build(output) for build in builders]
    return [chart for chart in charts if chart is not None]


# ------------------------------------------------------------------------------------------- comparison


#: Axis labels of compared scenarios wrap at this many characters, over at most this many lines.
LABEL_WRAP_CHARS = 24
LABEL_MAX_LINES = 3


def axis_label(name: str) -> str:
    """A scenario name wrapped for a category axis ("<br>" between lines, an ellipsis when cut)."""
    lines = textwrap.wrap(name, LABEL_WRAP_CHARS) or [name]
    if len(lines) > LABEL_MAX_LINES:
        lines = lines[:LABEL_MAX_LINES]
        lines[-1] = lines[-1][: LABEL_WRAP_CHARS - 1] + "…"
    return "<br>".join(lines)


def comparison_charts(names: list[str], outputs: list[EstimateResult]) -> list[dict[str, Any]]:
    """Grouped charts for 2-4 scenarios: time with its range, memory against capacity, power, cost by category."""
    charts: list[dict[str, Any]] = []
    names = [axis_label(name) for name in names]
    days = [
        (o.get("time", {}).get("days") or o.get("job", {}).get("days")) if f.runs(o) else None
        for o in outputs
    ]
    if any(d is not None for d in days):
        low = [o.get("time", {}).get("days_low") for o in outputs]
        high = [o.get("time", {}).get("days_high") for o in outputs]
        bar: dict[str, Any] = {
            "type": "bar",
            "x": names,
            "y": days,
            "marker": {"color": PALETTE[0]},
            "name": "days",
            "hovertemplate": "%{x}: %{y:,.1f} days<extra></extra>",
        }
        if all(v is not None for v in low + high + days):
            bar["error_y"] = {
                "type": "data",
                "symmetric": False,
                "array": [h - d for h, d in zip(high, days, strict=True)],
                "arrayminus": [d - lo for d, lo in zip(days, low, strict=True)],
            }
        title = "Time to finish (bars: estimate; whiskers: low–high range)"
        charts.append(_chart("cmp_days", title, [bar], _layout(title, "", "Days", showlegend=False)))
    need = [o.get("memory", {}).get("per_gpu_gib") for o in outputs]
    if any(n is not None for n in need):
        title = "Memory per GPU against capacity"
        data = [
            {"type": "bar", "name": "Needed", "x": names, "y": need, "marker": {"color": PALETTE[0]}},
            {
                "type": "bar",
                "name": "GPU capacity",
                "x": names,
                "y": [o.get("memory", {}).get("capacity_gib") for o in outputs],
                "marker": {"color": "#cbd5e1"},
            },
        ]
        charts.append(_chart("cmp_memory", title, data, _layout(title, "", "GiB per GPU", barmode="group")))
    title = "Power draw"
    data = [
        {
            "type": "bar",
            "name": "IT",
            "x": names,
            "y": [o.get("power", {}).get("it_kw") for o in outputs],
            "marker": {"color": PALETTE[0]},
        },
        {
            "type": "bar",
            "name": "Facility (IT × PUE)",
            "x": names,
            "y": [o.get("power", {}).get("facility_kw") for o in outputs],
            "marker": {"color": PALETTE[2]},
        },
    ]
    charts.append(_chart("cmp_power", title, data, _layout(title, "", "kW", barmode="group")))
    capex: list[Mapping[str, Any]] = [o.get("cost", {}).get("capex_breakdown_usd") or {} for o in outputs]
    if any(capex):
        title = "Capex by category"
        data = [
            _money_bar(name, names, [c.get(key) for c in capex], PALETTE[i % len(PALETTE)])
            for i, (key, name) in enumerate(CAPEX_PARTS)
            if any(c.get(key) for c in capex)
        ]
        charts.append(_chart("cmp_capex", title, data, _layout(title, "", "USD", barmode="stack")))
    tco = [o.get("cost", {}).get("tco_usd") for o in outputs]
    if any(t is not None for t in tco):
        title = "Total cost of ownership"
        data = [_money_bar("TCO", names, tco, PALETTE[3])]
        charts.append(_chart("cmp_tco", title, data, _layout(title, "", "USD", showlegend=False)))
    return charts


def whole_run_parts(output: dict[str, Any]) -> list[dict[str, Any]]:
    """The whole run as rows of key, label, days and share of the whole run's days: the steady state, then each
    overhead the engine reports (time.overheads), zero parts included so that the split is complete."""
    time = output.get("time") or {}
    overheads = time.get("overheads")
    steady = time.get("steady_state_days", time.get("steady_days"))
    days = time.get("days")
    if not isinstance(overheads, dict) or not isinstance(steady, int | float) or not days:
        return []
    values = {
        "steady_state": steady,
        **{k: v.get("days", 0.0) for k, v in overheads.items() if isinstance(v, dict)},
    }
    return [
        {"key": key, "label": label, "value": values[key], "share": values[key] / days}
        for key, label in WHOLE_RUN_PARTS
        if key in values
    ]
