"""Sweep views, each thin: login + an owner-filtering selector -> form -> one service or selector call -> render
or redirect. Another user's sweep (or scenario) is a 404."""

from __future__ import annotations

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
from planner.reports import services as report_services
from planner.sweeps import columns, selectors, services, serving, serving_services
from planner.sweeps.forms import SweepForm
from planner.sweeps.models import SweepKind


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
    if scenario.workload_kind == WorkloadKind.INFERENCE:
        return redirect("sweeps:serving", scenario_pk=scenario.pk)
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
@require_http_methods(["GET", "POST"])
@ratelimit.limited("create", "new sweeps")
def serving_sweep(request: HttpRequest, scenario_pk: int) -> HttpResponse:
    """An inference scenario's sweep over GPU models, node counts, TP and request rates (planner/sweeps/serving.py):
    the form; a valid POST stores the sweep and queues it like a training sweep (serving_services), then shows
    its page. An old link with the sweep in its query (`run=1`, when sweeps answered in the request) fills the
    form from it without running anything."""
    scenario = planner_selectors.scenario_get(user=request.user, pk=scenario_pk)
    if scenario.workload_kind != WorkloadKind.INFERENCE:
        return redirect("sweeps:create", scenario_pk=scenario.pk)
    data = request.POST if request.method == "POST" else (request.GET if "run" in request.GET else None)
    form = serving.ServingSweepForm(data, scenario=scenario)
    status = 200
    if data is not None and not form.is_valid():
        status = 400
    elif request.method == "POST":
        try:
            run = serving_services.serving_sweep_create(
                owner=request.user, scenario=scenario, inputs=form.inputs()
            )
        except SpecError as err:
            form.add_error(None, "; ".join(p.message for p in err.problems))
            status = 400
        except services.QueueUnavailable as err:
            form.add_error(None, err.message)
            status = 503
        except services.SweepRefused as err:
            form.add_error(err.field, err.message)
            status = 400
        else:
            return redirect(run)
    context = {"form": form, "scenario": scenario, "max_configs": serving.MAX_CONFIGS}
    return render(request, "sweeps/serving_sweep.html", context, status=status)


@login_required
@require_GET
def sweep_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.sweep_get(user=request.user, pk=pk)
    page = selectors.sweep_page(run=run)
    report_services.sweep_report_prerender(
        owner=request.user, run=run
    )  # a finished sweep's PDF, ahead of the click
    if run.kind == SweepKind.SERVING:
        context = {"page": page, "columns": columns.SERVING_SWEEP_PAGE_COLUMNS}
        return render(request, "sweeps/serving_sweep_detail.html", context)
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
    opener = (
        serving_services.serving_open_scenario
        if run.kind == SweepKind.SERVING
        else services.sweep_open_scenario
    )
    try:
        scenario = opener(
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
