"""What the fleet page, its CSV exports and its PDF show, read from a plan's stored answer (nothing computed but
sums and joins for display)."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.http import HttpResponse
from django.utils import timezone

from planner.fleets.charts import comparison_charts, fleet_charts
from planner.fleets.models import FleetPlan

CSV_TABLES = ("purchases", "placements", "chargeback")


def _pool_gpu(plan: FleetPlan) -> dict[str, str]:
    return {
        p.get("id"): p.get("gpu") if isinstance(p.get("gpu"), str) else "custom"
        for p in plan.payload.get("pools", [])
    }


def purchase_rows(plan: FleetPlan) -> list[dict[str, Any]]:
    """The purchase plan per period with its bill of materials (nodes, GPUs, GPU model, node price, capex)."""
    result = plan.result or {}
    labels = {p["period"]: p["label"] for p in result.get("periods", [])}
    gpu_ids = _pool_gpu(plan)
    payload_pools = {p.get("id"): p for p in plan.payload.get("pools", [])}
    return [
        {
            "period": p["period"],
            "label": labels.get(p["period"], ""),
            "pool": p["pool"],
            "catalog_gpu": gpu_ids.get(p["pool"], ""),
            "gpu": p.get("gpu", ""),
            "nodes": p["nodes"],
            "gpus_per_node": payload_pools.get(p["pool"], {}).get("gpus_per_node", 8),
            "gpus": p["gpus"],
            "node_usd": p.get("node_usd"),
            "capex_usd": p["capex_usd"],
        }
        for p in result.get("purchases", [])
    ]


def placement_rows(plan: FleetPlan) -> list[dict[str, Any]]:
    return [
        {
            k: p.get(k)
            for k in (
                "period",
                "workload",
                "team",
                "kind",
                "pool",
                "where",
                "gpus",
                "occupied_gpus",
                "mig_profile",
                "slices",
                "share",
                "cloud_gpu_hours",
            )
        }
        for p in (plan.result or {}).get("placements", [])
    ]


#: Chargeback columns in a fixed order: PostgreSQL's jsonb keeps an object's keys in its own order (shortest
#: first), so the stored rows cannot name the columns.
CHARGEBACK_COLUMNS = ("team", "gpu_hours", "usd", "cloud_gpu_hours", "cloud_usd")


def chargeback_rows(plan: FleetPlan) -> list[dict[str, Any]]:
    rows = (plan.result or {}).get("chargeback", [])
    extra = [k for row in rows[:1] for k in row if k not in CHARGEBACK_COLUMNS]
    return [{k: row.get(k) for k in (*CHARGEBACK_COLUMNS, *extra)} for row in rows]


ROWS = {"purchases": purchase_rows, "placements": placement_rows, "chargeback": chargeback_rows}


def page(plan: FleetPlan) -> dict[str, Any]:
    result = plan.result
    if not result:
        return {"solved": False}
    return {
        "solved": True,
        "result": result,
        "charts": fleet_charts(result),
        "purchases": purchase_rows(plan),
        "placements": placement_rows(plan),
        "chargeback": chargeback_rows(plan),
        "unserved": result.get("unserved", []),
        "queues": [{**q, "label": _label(result, q["period"])} for q in result.get("queues", [])],
        "sharing": result.get("sharing", []),
        "per_period": result.get("per_period", []),
        "cost": result.get("cost", {}),
        "solver": result.get("solver", {}),
        "warnings": result.get("warnings", []),
        "assumptions": result.get("assumptions", {}),
        "total_nodes": sum(p["nodes"] for p in result.get("purchases", [])),
    }


COMPARE_ROWS = (
    ("Serves all demand", lambda r: "yes" if r["feasible"] else f"no ({len(r['unserved'])} unserved)"),
    ("Nodes bought", lambda r: f"{sum(p['nodes'] for p in r['purchases']):,}"),
    ("GPUs bought", lambda r: f"{sum(p['gpus'] for p in r['purchases']):,}"),
    ("Capex USD", lambda r: f"{r['cost']['capex_usd']:,.0f}"),
    ("Opex USD", lambda r: f"{r['cost']['opex_usd']:,.0f}"),
    ("Cloud USD", lambda r: f"{r['cost']['cloud_usd']:,.0f}"),
    ("Discounted cost (NPV) USD", lambda r: f"{r['cost']['npv_usd']:,.0f}"),
    ("Peak facility kW", lambda r: f"{max(p['peak_facility_kw'] for p in r['per_period']):,.0f}"),
    ("Solver", lambda r: r["solver"]["status"]),
)


def comparison(plans: list[FleetPlan]) -> dict[str, Any]:
    results = [p.result for p in plans if p.result]
    if not results:
        return {"rows": [], "charts": []}
    rows = [{"label": label, "values": [fn(r) for r in results]} for label, fn in COMPARE_ROWS]
    return {"rows": rows, "charts": comparison_charts([p.name for p in plans], results)}


def _label(result: dict[str, Any], period: int) -> str:
    labels = {p["period"]: p["label"] for p in result.get("periods", [])}
    return labels.get(period, str(period))


def _safe(stem: str) -> str:
    keep = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in stem).strip("-")
    return keep[:80] or "fleet-plan"


def csv_response(plan: FleetPlan, table: str) -> HttpResponse:
    rows = ROWS[table](plan)
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: ("'" + v if isinstance(v, str) and v[:1] in "=+-@" else v) for k, v in row.items()}
            )
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_safe(plan.name)}-{table}.csv"'
    return response


def pdf_response(plan: FleetPlan) -> HttpResponse:
    from planner.reports.pdf import _with_images, render_pdf

    context = {"plan": plan, "page": page(plan), "generated": timezone.now()}
    context["charts"] = _with_images(context["page"]["charts"])
    rendered = render_pdf("fleets/plan_pdf.html", context, filename=f"{_safe(plan.name)}.pdf")
    response = HttpResponse(rendered.content, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{rendered.filename}"'
    return response
