"""PDF documents (WeasyPrint) built from HTML templates under templates/reports/.

Each `*_document` function gathers what one report shows (stored results, the shared column declarations, chart
specs rendered to vector SVG by `svg_charts`), and `render_pdf` turns a template into PDF bytes. Nothing is fetched
from the network: every chart is an inline `data:` URI and the fetcher refuses any other scheme.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from planner import selectors, serving_size
from planner.engine.inputs.units import DAY, YEAR
from planner.engine.results import EstimateResult
from planner.models import Scenario, ScenarioResult
from planner.reports import charts as chart_specs
from planner.reports import columns as cols
from planner.reports import formatting as f
from planner.reports.formatting import dig
from planner.reports.procurement import bom_total_usd, procurement_bom
from planner.reports.sizing_columns import SIZING_COLUMNS
from planner.reports.svg_charts import charts_svg
from planner.sensitivity import sensitivity_table

#: The only URL scheme a report may load (inline charts); http, https and file are refused.
ALLOWED_URL_SCHEMES = frozenset({"data"})
NOT_SHARED = "not shared"
#: Inputs the summary page repeats next to the budget (PAYLOAD_INPUT_ROWS keys): the prices and rates behind it.
KEY_INPUT_KEYS = (
    "gpu_price_usd",
    "server_usd",
    "electricity",
    "colocation",
    "cloud_usd",
    "years",
    "utilization",
)


@dataclass(frozen=True)
class RenderedPdf:
    content: bytes
    render_ms: float
    pages: int
    filename: str


def _url_fetcher() -> Any:
    from weasyprint.urls import URLFetcher

    return URLFetcher(allowed_protocols=ALLOWED_URL_SCHEMES, fail_on_errors=True)


def render_pdf(template: str, context: dict[str, Any], *, filename: str) -> RenderedPdf:
    """Render a report template to PDF bytes, timing the whole render (HTML, layout, PDF)."""
    from weasyprint import HTML

    started = time.perf_counter()
    html = render_to_string(template, context)
    document = HTML(string=html, url_fetcher=_url_fetcher()).render()
    content = document.write_pdf()
    elapsed_ms = (time.perf_counter() - started) * 1000
    return RenderedPdf(content=content, render_ms=elapsed_ms, pages=len(document.pages), filename=filename)


def _with_images(charts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chart specs with their SVG as a data: URI for an <img> (vector in the PDF, nothing to escape)."""
    return [
        {**chart, "data_uri": "data:image/svg+xml;base64," + base64.b64encode(chart["svg"].encode()).decode()}
        for chart in charts_svg(charts)
    ]


def _parts(values: dict[str, Any] | None, labels: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """A breakdown (memory, step time, power, cost) as rows of label, value and share of the total."""
    values = values or {}
    total = sum(v for v in values.values() if isinstance(v, int | float))
    rows = []
    for key, label in labels:
        value = values.get(key)
        if isinstance(value, int | float) and value:
            rows.append({"label": label, "value": value, "share": value / total if total else None})
    return rows


def _filename(stem: str, suffix: str = "pdf") -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in stem).strip("-")
    while "--" in safe:
        safe = safe.replace("--", "-")
    return f"{safe[:80] or 'report'}.{suffix}"


def _metric_sections(output: dict[str, Any], kind: str) -> dict[str, list[cols.Column]]:
    sections: dict[str, list[cols.Column]] = {}
    for column in cols.report_metrics_for(kind):
        if column.value(output) is not None:
            sections.setdefault(column.group, []).append(column)
    return sections


def _inputs(result: ScenarioResult) -> list[tuple[str, list[tuple[cols.Column, str]]]]:
    row = {"payload": result.input_payload, "output": result.output}
    groups: dict[str, list[tuple[cols.Column, str]]] = {}
    for column in cols.PAYLOAD_INPUT_ROWS:
        text = column.display(row)
        if text != "—":
            groups.setdefault(column.group, []).append((column, text))
    return list(groups.items())


def _assumptions(result: ScenarioResult) -> list[dict[str, str]]:
    """Prices the planner filled in, then every engine default, each with its unit and source."""
    rows = [
        {
            "name": a["name"],
            "value": f.assumption_value(a.get("value")),
            "unit": a.get("unit", ""),
            "source": a.get("source", ""),
            "planner": True,
        }
        for a in result.input_assumptions
    ]
    for name, a in (result.output.get("assumptions") or {}).items():
        rows.append(
            {
                "name": name,
                "value": f.assumption_value(a.get("value")),
                "unit": a.get("unit", ""),
                "source": str(a.get("source", "")),
                "planner": False,
            }
        )
    return rows


def share_url_for(scenario: Scenario, *, base_url: str) -> str:
    """The absolute URL of the scenario's active share link, or "not shared"."""
    link = scenario.share_links.filter(revoked_at__isnull=True).order_by("-created_at").first()
    return share_url_from([link] if link else [], base_url=base_url)


def share_url_from(active_links: Sequence[Any], *, base_url: str) -> str:
    """share_url_for from the scenario's active links already read, newest first (the results page has them)."""
    return base_url.rstrip("/") + active_links[0].get_absolute_url() if active_links else NOT_SHARED


def scenario_document(
    *, scenario: Scenario, result_id: int | None = None, share_url: str, generated_at: datetime | None = None
) -> dict[str, Any]:
    """Everything the scenario PDF shows for the scenario's latest (or a given) stored result."""
    page = selectors.result_page(scenario=scenario, result_id=result_id, with_history=False)
    result = page.result
    context: dict[str, Any] = {
        "scenario": scenario,
        "page": page,
        "result": result,
        "share_url": share_url,
        "generated_at": generated_at or timezone.now(),
        "not_shared": share_url == NOT_SHARED,
    }
    if result is None:
        return context
    output: EstimateResult = result.output
    kind = output.get("kind") or scenario.workload_kind
    bom = procurement_bom(result=result, scenario=scenario)
    days = output.get("time", {}).get("days") if f.runs(output) else None
    years = dig(result.input_payload, "economics", "years")
    context.update(
        outlasts_life=bool(days and years and days * DAY > years * YEAR),
        output=output,
        kind=kind,
        charts={chart["key"]: chart for chart in _with_images(page.charts)},
        sections=_metric_sections(output, kind),
        inputs=(inputs := _inputs(result)),
        key_inputs=[(c, t) for _, rows in inputs for c, t in rows if c.key in KEY_INPUT_KEYS],
        assumptions=_assumptions(result),
        memory_parts=_parts(output.get("memory", {}).get("breakdown_gib"), chart_specs.MEMORY_PARTS),
        step_parts=_parts(output.get("time", {}).get("breakdown_s"), chart_specs.STEP_PARTS),
        run_parts=[p for p in chart_specs.whole_run_parts(output) if p["value"]],
        power_parts=_parts(output.get("power", {}).get("breakdown_kw"), chart_specs.POWER_PARTS),
        capex_parts=_parts(output.get("cost", {}).get("capex_breakdown_usd"), chart_specs.CAPEX_PARTS),
        opex_parts=_parts(output.get("cost", {}).get("opex_breakdown_usd_per_year"), chart_specs.OPEX_PARTS),
        bom=bom,
        bom_total_usd=bom_total_usd(bom),
        bom_opex_total_usd=bom_total_usd(bom, "opex per year"),
        bom_columns=cols.PROCUREMENT_BOM_COLUMNS,
        yearly_columns=cols.YEARLY_COLUMNS,
        sensitivity=sensitivity_table(payload=result.input_payload, output=output),
        sensitivity_columns=cols.SENSITIVITY_COLUMNS,
    )
    if kind == "inference":
        context.update(_sizing(scenario))
    return context


def _sizing(scenario: Scenario) -> dict[str, Any]:
    """The "size it for me" answer of an inference scenario (planner/serving_size.py), with its curves as SVG."""
    sizing = serving_size.size_scenario(scenario)
    return {
        "sizing": sizing,
        "sizing_columns": SIZING_COLUMNS,
        "sizing_charts": _with_images(list(sizing.charts)),
    }


def scenario_pdf(*, scenario: Scenario, share_url: str, result_id: int | None = None) -> RenderedPdf:
    context = scenario_document(scenario=scenario, result_id=result_id, share_url=share_url)
    return render_pdf("reports/scenario_pdf.html", context, filename=_filename(f"{scenario.name}-plan"))


def comparison_document(*, scenarios: list[Scenario], generated_at: datetime | None = None) -> dict[str, Any]:
    """2-4 scenarios side by side: the comparison page's rows and charts, each scenario's capex and sources."""
    outputs = [s.latest_result.output if s.latest_result else {} for s in scenarios]
    charts = chart_specs.comparison_charts([s.name for s in scenarios], outputs)
    return {
        "scenarios": scenarios,
        "groups": selectors.comparison_rows(scenarios),
        "charts": _with_images(charts),
        "generated_at": generated_at or timezone.now(),
        "engine_versions": sorted({s.latest_result.engine_version for s in scenarios if s.latest_result}),
    }


def comparison_pdf(*, scenarios: list[Scenario]) -> RenderedPdf:
    context = comparison_document(scenarios=scenarios)
    stem = "comparison-" + "-vs-".join(s.name[:24] for s in scenarios)
    return render_pdf("reports/comparison_pdf.html", context, filename=_filename(stem))


#: Ranked configurations a sweep report lists: all of the primary objective's, the first few of the others.
SWEEP_PRIMARY_ROWS = 20
SWEEP_OTHER_ROWS = 5
#: Figures of a ranked configuration the sweep report prints (keys of planner.sweeps.columns.TABLE_COLUMNS);
#: the layout degrees are printed as one "TP · PP · DP …" column to fit a portrait page.
SWEEP_FIGURE_KEYS = (
    "per_gpu_gib",
    "mfu",
    "days",
    "tco_usd",
    "capex_usd",
    "run_cost_usd",
    "facility_mw",
    "racks",
)


def _layout_of(row: dict[str, Any]) -> str:
    parts = [f"TP {row['tp']}", f"PP {row['pp']}", f"DP {row['dp']}"]
    parts += [f"{k.upper()} {row[k]}" for k in ("cp", "ep") if row.get(k, 1) != 1]
    if row.get("virtual_stages", 1) != 1:
        parts.append(f"VS {row['virtual_stages']}")
    parts += [f"MB {row['micro_batch']}", f"ZeRO {row['zero_stage']}", str(row["recompute"])]
    return " · ".join(parts)


def sweep_document(*, run: Any, generated_at: datetime | None = None) -> dict[str, Any]:
    """A finished (or cancelled) sweep: constraints, the Pareto chart, the top configurations, per-GPU bests."""
    from planner.sweeps import columns as sweep_cols
    from planner.sweeps import selectors as sweep_selectors

    page = sweep_selectors.sweep_page(run=run)
    figures = [c for c in sweep_cols.TABLE_COLUMNS if c.key in SWEEP_FIGURE_KEYS]
    tables = []
    for table in page.objective_tables:
        limit = SWEEP_PRIMARY_ROWS if table["primary"] else SWEEP_OTHER_ROWS
        rows = [{**row, "layout": _layout_of(row)} for row in table["rows"][:limit]]
        tables.append({**table, "rows": rows})
    from planner.engine.search.sweep import CONSTRAINTS

    constraints = [
        (CONSTRAINTS[key][1], f.sig(value, 4))
        for key, value in (run.spec.get("constraints") or {}).items()
        if value is not None and key in CONSTRAINTS
    ]
    return {
        "run": run,
        "page": page,
        "constraints": constraints,
        "spec": run.spec,
        "result": run.result or {},
        "tables": tables,
        "figure_columns": figures,
        "chart": _with_images([page.chart])[0] if page.chart else None,
        "generated_at": generated_at or timezone.now(),
    }


#: Rows of a serving sweep in its PDF (the CSV has them all) and the columns shown (the page has p50 and p99 too).
SERVING_SWEEP_PDF_ROWS = 40
SERVING_SWEEP_PDF_KEYS = (
    "gpu_label",
    "nodes",
    "gpus",
    "tp",
    "requests_per_s",
    "ttft_s_p90",
    "tpot_s_p90",
    "tokens_per_s_per_gpu",
    "usd_per_million_tokens_own",
    "usd_per_million_tokens_cloud",
    "serving_verdict",
)


def serving_sweep_document(*, run: Any, generated_at: datetime | None = None) -> dict[str, Any]:
    """A finished (or cancelled) serving sweep: what was swept and its best-ranked configurations."""
    from planner.sweeps import columns as sweep_cols
    from planner.sweeps import selectors as sweep_selectors

    page = sweep_selectors.serving_sweep_page(run=run)
    by_key = {c.key: c for c in sweep_cols.SERVING_SWEEP_COLUMNS}
    return {
        "run": run,
        "page": page,
        "spec": run.spec,
        "result": run.result or {},
        "rows": page.serving_rows[:SERVING_SWEEP_PDF_ROWS],
        "columns": [by_key[k] for k in SERVING_SWEEP_PDF_KEYS],
        "generated_at": generated_at or timezone.now(),
    }


def sweep_pdf(*, run: Any) -> RenderedPdf:
    if run.kind == "serving":
        return render_pdf(
            "reports/serving_sweep_pdf.html",
            serving_sweep_document(run=run),
            filename=_filename(f"sweep-{run.name}"),
        )
    return render_pdf(
        "reports/sweep_pdf.html", sweep_document(run=run), filename=_filename(f"sweep-{run.name}")
    )
