"""Export views, each thin: login + an owner-filtering selector (another user's scenario, sweep or report is a
404) -> one service or export call -> a PDF, a "preparing…" page or a streamed CSV."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from catalog.tables import CATALOG_TABLES
from planner import queueing, ratelimit, selectors, serving_size
from planner.forms import CompareForm
from planner.reports import columns as cols
from planner.reports import csv_exports, pdf, services
from planner.reports.models import Report, ReportKind
from planner.reports.procurement import procurement_bom
from planner.reports.selectors import report_get, report_state, report_summary
from planner.reports.sizing_columns import SIZING_COLUMNS
from planner.sensitivity import result_sensitivity

#: Seconds between reloads of the "preparing…" page without JavaScript (with it, report_status.js polls the
#: status endpoint about once a second).
PREPARING_REFRESH_S = 2
#: Query of the report page after a click on "PDF report": the page starts the download by itself when ready.
DOWNLOAD_WHEN_READY = "download=1"


def _pdf_response(report: Report) -> HttpResponse:
    response = HttpResponse(bytes(report.pdf), content_type="application/pdf")
    csv_exports.attach(response, report.filename)
    if report.render_ms is not None:
        response["Server-Timing"] = f"render;dur={report.render_ms:.1f}"
    return response


#: What a report request may be refused for (the user's pending limit: 429; the queue is down: 503).
REFUSALS = (services.ReportRefused, services.ReportQueueUnavailable)


def _refusal(request: HttpRequest, error: Exception) -> HttpResponse:
    if isinstance(error, services.ReportRefused):
        return ratelimit.refused(request, str(error), PREPARING_REFRESH_S * 5)
    response = render(
        request, "too_many_requests.html", {"message": str(error), "heading": "Try again soon"}, status=503
    )
    response["Retry-After"] = str(queueing.QUEUE_RETRY_AFTER_S)
    return response


def _requested(request: HttpRequest, **kwargs: Any) -> Report | HttpResponse:
    """services.report_request, or the refusal page."""
    try:
        return services.report_request(owner=request.user, **kwargs)
    except REFUSALS as error:
        return _refusal(request, error)


def _ready_or_preparing(request: HttpRequest, report: Report | HttpResponse) -> HttpResponse:
    """The PDF when it is ready (rendered in this request or earlier), else the report's status page (or the
    refusal of _requested)."""
    if isinstance(report, HttpResponse):
        return report
    if report.is_ready:
        return _pdf_response(report_get(user=request.user, pk=report.pk, with_pdf=True))
    return redirect(report.get_absolute_url() + "?" + DOWNLOAD_WHEN_READY)


# ------------------------------------------------------------------------------------------------ PDFs


@login_required
@require_GET
@ratelimit.limited("report", "PDF reports", methods=("GET",))
def scenario_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    params = services.scenario_report_params(scenario=scenario, base_url=request.build_absolute_uri("/"))
    report = _requested(
        request, kind=ReportKind.SCENARIO, params=params, title=f"{scenario.name}: scenario report"
    )
    return _ready_or_preparing(request, report)


@login_required
@require_GET
@ratelimit.limited("report", "PDF reports", methods=("GET",))
def comparison_pdf(request: HttpRequest) -> HttpResponse:
    form = CompareForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            f"Choose 2 to 4 scenarios: {form.errors.as_text()}", status=400, content_type="text/plain"
        )
    scenarios = selectors.scenarios_for_compare(user=request.user, ids=form.cleaned_data["ids"])
    report = _requested(
        request,
        kind=ReportKind.COMPARISON,
        params=services.comparison_report_params(scenarios=scenarios),
        title="Comparison: " + " vs ".join(s.name for s in scenarios),
    )
    return _ready_or_preparing(request, report)


@login_required
@require_GET
@ratelimit.limited("report", "PDF reports", methods=("GET",))
def sweep_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    from planner.sweeps import selectors as sweep_selectors

    run = sweep_selectors.sweep_get(user=request.user, pk=pk)
    if not run.result:
        messages.info(request, "The sweep has no results yet; its report can be made when it has finished.")
        return redirect(run)
    report = _requested(
        request,
        kind=ReportKind.SWEEP,
        params=services.sweep_report_params(run=run),
        title=f"{run.name}: sweep report",
    )
    return _ready_or_preparing(request, report)


@login_required
@require_GET
def report_detail(request: HttpRequest, pk: int) -> HttpResponse:
    report = report_get(user=request.user, pk=pk)
    overdue = services.report_overdue(report)
    context = {
        "report": report,
        "overdue": overdue,
        "refresh_s": PREPARING_REFRESH_S if report.is_active and not overdue else None,
        "download_when_ready": request.GET.get("download") == "1",
        "summary": report_summary(report),
    }
    return render(request, "reports/report_detail.html", context)


@login_required
@require_GET
def report_status(request: HttpRequest, pk: int) -> JsonResponse:
    """The report's state for the report page's polling (report_status.js); not rate-limited (one indexed
    read, no work), like a sweep's status."""
    report = report_get(user=request.user, pk=pk)
    response = JsonResponse(report_state(report))
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_GET
def report_download(request: HttpRequest, pk: int) -> HttpResponse:
    report = report_get(user=request.user, pk=pk, with_pdf=True)
    if not report.is_ready:
        return redirect(report)
    return _pdf_response(report)


@login_required
@require_POST
@ratelimit.limited("report", "PDF reports")
def report_retry(request: HttpRequest, pk: int) -> HttpResponse:
    report = report_get(user=request.user, pk=pk)
    try:
        return _ready_or_preparing(request, services.report_retry(report=report))
    except REFUSALS as error:
        return _refusal(request, error)


# ------------------------------------------------------------------------------------------------ CSVs


def _scenario_result(request: HttpRequest, pk: int) -> tuple[object, object]:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    if scenario.latest_result is None:
        raise Http404("This scenario has no result yet.")
    return scenario, scenario.latest_result


def _stem(name: str, what: str) -> str:
    return pdf._filename(f"{name}-{what}", "csv")


@login_required
@require_GET
def scenario_metrics_csv(request: HttpRequest, pk: int) -> HttpResponse:
    scenario, result = _scenario_result(request, pk)
    kind = result.output.get("kind") or scenario.workload_kind
    lines = csv_exports.metrics_lines(output=result.output, kind=kind)
    return csv_exports.csv_response(_stem(scenario.name, "results"), lines)


@login_required
@require_GET
def scenario_bom_csv(request: HttpRequest, pk: int) -> HttpResponse:
    scenario, result = _scenario_result(request, pk)
    lines = csv_exports.table_lines(
        cols.PROCUREMENT_BOM_COLUMNS, procurement_bom(result=result, scenario=scenario)
    )
    return csv_exports.csv_response(_stem(scenario.name, "bill-of-materials"), lines)


@login_required
@require_GET
def scenario_tco_csv(request: HttpRequest, pk: int) -> HttpResponse:
    scenario, result = _scenario_result(request, pk)
    yearly = (result.output.get("cost") or {}).get("yearly") or []
    return csv_exports.csv_response(
        _stem(scenario.name, "tco-by-year"), csv_exports.table_lines(cols.YEARLY_COLUMNS, yearly)
    )


@login_required
@require_GET
@ratelimit.limited("evaluate", "sizings", methods=("GET",))
def scenario_sizing_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Size it for me" per GPU type (planner/serving_size.py): 400 with the reason when it cannot be sized."""
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    sizing = serving_size.size_scenario(scenario)
    if sizing.answer is None:
        return HttpResponse(sizing.problem, status=400, content_type="text/plain; charset=utf-8")
    lines = csv_exports.table_lines(SIZING_COLUMNS, sizing.answer["answers"])
    return csv_exports.csv_response(_stem(scenario.name, "sizing"), lines)


@login_required
@require_GET
def scenario_sensitivity_csv(request: HttpRequest, pk: int) -> HttpResponse:
    scenario, result = _scenario_result(request, pk)
    table = result_sensitivity(result=result)
    lines = csv_exports.table_lines(cols.SENSITIVITY_COLUMNS, table.all_rows)
    return csv_exports.csv_response(_stem(scenario.name, "sensitivity"), lines)


@login_required
@require_GET
def comparison_csv(request: HttpRequest) -> HttpResponse:
    form = CompareForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            f"Choose 2 to 4 scenarios: {form.errors.as_text()}", status=400, content_type="text/plain"
        )
    scenarios = selectors.scenarios_for_compare(user=request.user, ids=form.cleaned_data["ids"])
    return csv_exports.csv_response("comparison.csv", csv_exports.comparison_lines(scenarios))


@login_required
@require_GET
def sweep_csv(request: HttpRequest, pk: int) -> HttpResponse:
    from planner.sweeps import selectors as sweep_selectors

    run = sweep_selectors.sweep_get(user=request.user, pk=pk)
    return csv_exports.csv_response(_stem(run.name, "configurations"), csv_exports.sweep_lines(run))


@login_required
@require_GET
def catalog_csv(request: HttpRequest, table: str) -> HttpResponse:
    model = CATALOG_TABLES.get(table)
    if model is None:
        raise Http404("No such catalog table.")
    return csv_exports.csv_response(f"catalog-{table}.csv", csv_exports.catalog_lines(model))
