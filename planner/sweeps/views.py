"""Sweep views, each thin: login + an owner-filtering selector -> form -> one service or selector call -> render
or redirect. Another user's sweep (or scenario) is a 404."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from planner import ratelimit
from planner import selectors as planner_selectors
from planner.engine.inputs.errors import SpecError
from planner.models import WorkloadKind
from planner.reports import csv_exports, pdf
from planner.reports import services as report_services
from planner.sweeps import columns, selectors, services, serving
from planner.sweeps.forms import SweepForm


class OpenRowForm(forms.Form):
    chunk = forms.IntegerField(min_value=0)
    row = forms.IntegerField(min_value=0)


@login_required
@require_GET
def sweep_list(request: HttpRequest) -> HttpResponse:
    runs = selectors.sweep_list(user=request.user)
    return render(request, "sweeps/sweep_list.html", {"runs": runs})


@login_required
@require_http_methods(["GET", "POST"])
def sweep_create(request: HttpRequest, scenario_pk: int) -> HttpResponse:
    scenario = planner_selectors.scenario_get(user=request.user, pk=scenario_pk)
    form = SweepForm(request.POST or None, scenario=scenario)
    status = 400 if request.method == "POST" else 200
    if request.method == "POST" and form.is_valid():
        try:
            run = services.sweep_create_from_scenario(
                owner=request.user, scenario=scenario, inputs=form.inputs()
            )
        except SpecError as err:
            form.add_spec_errors(err)
        except services.QueueUnavailable as err:
            form.add_error(None, err.message)
            status = 503
        except services.SweepRefused as err:
            form.add_error(err.field, err.message)
        else:
            return redirect(run)
    return render(request, "sweeps/sweep_form.html", {"form": form, "scenario": scenario}, status=status)


@login_required
@require_GET
@ratelimit.limited("evaluate", "sizings", methods=("GET",))
def serving_sweep(request: HttpRequest, scenario_pk: int) -> HttpResponse:
    """An inference scenario swept over GPU models, node counts, TP and request rates (planner/sweeps/serving.py):
    the form alone, or with `run=1` every configuration evaluated and ranked (400 with field messages when bad)."""
    scenario = planner_selectors.scenario_get(user=request.user, pk=scenario_pk)
    if scenario.workload_kind != WorkloadKind.INFERENCE:
        return redirect("sweeps:create", scenario_pk=scenario.pk)
    ran = "run" in request.GET
    form = serving.ServingSweepForm(request.GET if ran else None, scenario=scenario)
    context: dict[str, Any] = {
        "form": form,
        "scenario": scenario,
        "columns": columns.SERVING_SWEEP_COLUMNS,
        "max_configs": serving.MAX_CONFIGS,
    }
    if not ran:
        return render(request, "sweeps/serving_sweep.html", context)
    if not form.is_valid():
        return render(request, "sweeps/serving_sweep.html", context, status=400)
    sweep = serving.sweep_serving(scenario=scenario, inputs=form.inputs())
    if request.GET.get("format") == "csv":
        lines = csv_exports.table_lines(columns.SERVING_SWEEP_COLUMNS, sweep.rows)
        return csv_exports.csv_response(pdf._filename(f"{scenario.name}-serving-sweep", "csv"), lines)
    query = request.GET.copy()
    query["format"] = "csv"
    context.update(sweep=sweep, csv_url=f"{request.path}?{query.urlencode()}")
    return render(request, "sweeps/serving_sweep.html", context)


@login_required
@require_GET
def sweep_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.sweep_get(user=request.user, pk=pk)
    page = selectors.sweep_page(run=run)
    report_services.sweep_report_prerender(
        owner=request.user, run=run
    )  # a finished sweep's PDF, ahead of the click
    return render(request, "sweeps/sweep_detail.html", {"page": page, "columns": columns.TABLE_COLUMNS})


@login_required
@require_GET
def sweep_status(request: HttpRequest, pk: int) -> JsonResponse:
    run = selectors.sweep_get_light(user=request.user, pk=pk)
    response = JsonResponse(selectors.sweep_status(run=run))
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def sweep_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.sweep_get(user=request.user, pk=pk)
    if services.sweep_cancel(run=run):
        messages.success(request, "Sweep cancelled; the chunks that had finished are kept below.")
    else:
        messages.info(request, f"The sweep had already stopped ({run.get_status_display().lower()}).")
    return redirect(run)


@login_required
@require_POST
@ratelimit.limited("resume", "re-queue requests")
def sweep_resume(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.sweep_get_light(user=request.user, pk=pk)
    try:
        resumed = services.sweep_resume(run=run)
    except services.SweepRefused as refused:  # still making progress, or the queue is down
        messages.info(request, refused.message)
        return redirect(run)
    if resumed:
        messages.success(request, "The unfinished chunks are queued again; finished ones are kept.")
    else:
        messages.info(request, f"The sweep had already stopped ({run.get_status_display().lower()}).")
    return redirect(run)


@login_required
@require_POST
@ratelimit.limited("create", "new scenarios")
def sweep_open(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.sweep_get(user=request.user, pk=pk)
    form = OpenRowForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick a configuration from the tables to open it as a scenario.")
        return redirect(run)
    try:
        scenario = services.sweep_open_scenario(
            run=run, owner=request.user, chunk=form.cleaned_data["chunk"], row=form.cleaned_data["row"]
        )
    except SpecError as err:
        messages.error(request, f"The engine refused this configuration: {err}")
        return redirect(run)
    except services.SweepRefused as err:
        messages.error(request, err.message)
        return redirect(run)
    if run.scenario is not None and run.scenario.updated_at > run.created_at:
        messages.info(
            request,
            "The sweep's scenario changed after the sweep ran, so these figures may differ from the row.",
        )
    return redirect(scenario)
