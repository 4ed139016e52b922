"""The fleet page's charts as Plotly figure specs (drawn by static/js/planner_charts.js on the page and by
planner.reports.svg_charts in the PDF): purchases per period, stacked GPUs held per pool, cost and power per
period."""

from __future__ import annotations

from typing import Any

from planner.reports.charts import _chart, _layout

PALETTE = ("#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#4d7c0f", "#be185d", "#64748b")


def _labels(result: dict[str, Any]) -> list[str]:
    return [p["label"] for p in result.get("periods") or []] or [
        str(r["period"]) for r in result["per_period"]
    ]


def purchase_chart(result: dict[str, Any]) -> dict[str, Any]:
    labels = _labels(result)
    pools = sorted({r["pool"] for r in result["installed"]})
    data = []
    for i, pool in enumerate(pools):
        nodes = [0] * len(labels)
        for p in result["purchases"]:
            if p["pool"] == pool:
                nodes[p["period"]] += p["nodes"]
        if any(nodes):
            data.append(
                {"type": "bar", "name": pool, "x": labels, "y": nodes, "marker": {"color": PALETTE[i % 9]}}
            )
    return _chart(
        "purchases",
        "Nodes bought per period",
        data,
        _layout("Nodes bought per period", "period", "nodes", barmode="stack"),
    )


def pool_charts(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Per pool, GPUs held by each workload per period (stacked) against the GPUs installed."""
    labels = _labels(result)
    charts = []
    for pool in sorted({r["pool"] for r in result["installed"]}):
        installed = [r["gpus"] for r in result["installed"] if r["pool"] == pool]
        if not any(installed):
            continue
        held: dict[str, list[float]] = {}
        for p in result["placements"]:
            if p["pool"] == pool and p["where"] == "owned":
                held.setdefault(p["workload"], [0.0] * len(labels))[p["period"]] += p["occupied_gpus"]
        data: list[dict[str, Any]] = [
            {"type": "bar", "name": w, "x": labels, "y": ys, "marker": {"color": PALETTE[i % 9]}}
            for i, (w, ys) in enumerate(sorted(held.items()))
        ]
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "installed GPUs",
                "x": labels,
                "y": installed,
                "line": {"color": "#111827", "dash": "dash"},
            }
        )
        title = f"GPUs held on {pool}"
        charts.append(_chart(f"pool-{pool}", title, data, _layout(title, "period", "GPUs", barmode="stack")))
    return charts


def cost_chart(result: dict[str, Any]) -> dict[str, Any]:
    labels = _labels(result)
    rows = result["per_period"]
    parts = (
        ("capex_usd", "capex", PALETTE[0]),
        ("energy_usd", "energy", PALETTE[2]),
        ("maintenance_usd", "maintenance", PALETTE[1]),
        ("cloud_usd", "cloud", PALETTE[3]),
    )
    data = [
        {"type": "bar", "name": name, "x": labels, "y": [r[key] for r in rows], "marker": {"color": color}}
        for key, name, color in parts
        if any(r[key] for r in rows)
    ]
    return _chart(
        "cost",
        "Cost per period (USD)",
        data,
        _layout("Cost per period (USD)", "period", "USD", barmode="stack"),
    )


def power_chart(result: dict[str, Any]) -> dict[str, Any]:
    labels = _labels(result)
    rows = result["per_period"]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "name": "average facility kW",
            "x": labels,
            "y": [r["facility_kw"] for r in rows],
            "marker": {"color": PALETTE[5]},
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "provisioned facility kW",
            "x": labels,
            "y": [r["peak_facility_kw"] for r in rows],
            "line": {"color": PALETTE[4]},
        },
    ]
    if any(r["power_limit_kw"] is not None for r in rows):
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "limit",
                "x": labels,
                "y": [r["power_limit_kw"] for r in rows],
                "line": {"color": "#111827", "dash": "dot"},
            }
        )
    return _chart("power", "Power per period (kW)", data, _layout("Power per period (kW)", "period", "kW"))


def fleet_charts(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [purchase_chart(result), *pool_charts(result), cost_chart(result), power_chart(result)]


def comparison_charts(names: list[str], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Totals per plan (capex, opex, cloud, NPV) and the cost per period of each plan."""
    parts = (
        ("capex_usd", "capex"),
        ("opex_usd", "opex"),
        ("cloud_usd", "cloud"),
        ("npv_usd", "discounted (NPV)"),
    )
    totals = [
        {
            "type": "bar",
            "name": label,
            "x": names,
            "y": [r["cost"][key] for r in results],
            "marker": {"color": PALETTE[i]},
        }
        for i, (key, label) in enumerate(parts)
    ]
    lines = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": name,
            "x": _labels(r),
            "y": [p["capex_usd"] + p["opex_usd"] + p["cloud_usd"] for p in r["per_period"]],
            "line": {"color": PALETTE[i % 9]},
        }
        for i, (name, r) in enumerate(zip(names, results, strict=True))
    ]
    return [
        _chart(
            "totals",
            "Cost over the horizon (USD)",
            totals,
            _layout("Cost over the horizon (USD)", "plan", "USD", barmode="group"),
        ),
        _chart(
            "per-period", "Cost per period (USD)", lines, _layout("Cost per period (USD)", "period", "USD")
        ),
    ]
