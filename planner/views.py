"""Planning views, each thin: access check (login + an owner-filtering selector) -> form -> one service or
selector call -> render or redirect."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from planner import gpu_compare, hpc, ratelimit, selectors, services, serving_size, showcase
from planner.accuracy import accuracy_page
from planner.engine.inputs.errors import SpecError
from planner.forms import (
    FIELDSETS,
    CloneForm,
    CompareForm,
    GpuCompareForm,
    ScenarioForm,
    ScenarioSearchForm,
    SignupForm,
    initial_from_scenario,
)
from planner.forms.hpc import HpcPresetForm, query_with_defaults
from planner.middleware import mark_private
from planner.reports import charts as chart_specs
from planner.reports import gpu_table
from planner.reports import services as report_services
from planner.reports.columns import (
    HARDWARE_BOM_COLUMNS,
    NETWORK_BOM_COLUMNS,
    SCENARIO_LIST_COLUMNS,
    YEARLY_COLUMNS,
    metrics_for,
)
from planner.reports.sizing_columns import SIZING_COLUMNS
from planner.starters import DEFAULT_INITIAL, STARTERS, STARTERS_BY_KEY

#: Column sets the results page renders (declared once in planner/reports/columns.py).
RESULT_TABLES = {
    "hardware_columns": HARDWARE_BOM_COLUMNS,
    "network_columns": NETWORK_BOM_COLUMNS,
    "yearly_columns": YEARLY_COLUMNS,
}


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """`/favicon.ico`, which browsers and bookmarks ask for whatever the page links: the static icon (a temporary
    redirect, as the static file's name carries its hash in production)."""
    return redirect(static("favicon.ico"))


@require_GET
def engine_accuracy(request: HttpRequest) -> HttpResponse:
    """Public: published figures and the engine's error on each (no user data)."""
    return render(request, "planner/accuracy.html", {"page": accuracy_page()})


@login_required
@require_GET
def hpc_presets(request: HttpRequest) -> HttpResponse:
    """Read-only, no user data (signed in like the catalog pages): an HPC or rendering preset's jobs (frames, ns) per day on a chosen cluster and the GPUs a
    target needs (planner/hpc.py). Bad input is a 400 with the form's field messages."""
    form = HpcPresetForm(query_with_defaults(request.GET))
    if not form.is_valid():
        return render(request, "planner/hpc_presets.html", {"form": form}, status=400)
    return render(
        request, "planner/hpc_presets.html", {"form": form, "page": hpc.hpc_page(form.cleaned_data)}
    )


def home(request: HttpRequest) -> HttpResponse:
    """Signed in: presets and recent scenarios. Signed out: what the product does, with sign-in beside it."""
    if not request.user.is_authenticated:
        return landing(request)
    recent = selectors.scenario_recent(user=request.user)
    return render(request, "home.html", {"recent": recent, "starters": STARTERS})


def landing(request: HttpRequest) -> HttpResponse:
    """The public front page: a worked example computed by the engine (cached), the accuracy summary and what
    can be planned."""
    context = {
        "example": showcase.worked_example(),
        "accuracy": accuracy_page().report,
        "form": AuthenticationForm(request),
        "show_demo_account": settings.DEBUG,
    }
    return render(request, "landing.html", context)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    # Accounts made per client address (planner.ratelimit "signup"); only successful sign-ups count.
    address = ratelimit.user_identity(request)
    if request.method == "POST" and not (made := ratelimit.count("signup", address)).allowed:
        message = ratelimit.too_many_message("new accounts from your network", made.retry_after_s)
        return ratelimit.refused(request, message, made.retry_after_s)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.user_signup(form=form)
        ratelimit.hit("signup", address)
        login(request, user, backend="planner.accounts.backends.LockoutModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}. Plan your first cluster below.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


# ------------------------------------------------------------------------------------------------ list


@login_required
@require_GET
def scenario_list(request: HttpRequest) -> HttpResponse:
    search = ScenarioSearchForm(request.GET or None)
    scenarios = selectors.scenario_list(user=request.user, query=search.query(), ordering=search.ordering())
    return render(
        request,
        "planner/scenario_list.html",
        {"scenarios": scenarios, "search": search, "columns": SCENARIO_LIST_COLUMNS},
    )


# ------------------------------------------------------------------------------------------------ create / edit


def _form_context(form: ScenarioForm, **extra: Any) -> dict[str, Any]:
    return {
        "form": form,
        "fieldsets": FIELDSETS,
        **extra,
    }


def _save_scenario(
    request: HttpRequest, form: ScenarioForm, *, scenario: Any = None, version: int | None = None
) -> Any:
    """Run the create/update service; engine problems go back onto the form's fields (nothing saved).
    An edit that another save overtook raises services.ScenarioChanged."""
    try:
        if scenario is None:
            return services.scenario_create(owner=request.user, inputs=form.scenario_inputs())
        return services.scenario_update(
            scenario=scenario, inputs=form.scenario_inputs(), expected_version=version
        )
    except SpecError as error:
        form.add_engine_problems(error.problems)
    return None


def _posted_version(request: HttpRequest) -> int | None:
    """The scenario version the edit form was opened at (its hidden `version` field)."""
    value = request.POST.get("version", "")
    return int(value) if value.isdigit() else None


@login_required
@require_http_methods(["GET", "POST"])
@ratelimit.limited("create", "new scenarios")
def scenario_create(request: HttpRequest) -> HttpResponse:
    starter = STARTERS_BY_KEY.get(request.GET.get("starter", ""))
    initial = starter.initial if starter else {**DEFAULT_INITIAL, "name": "New cluster plan"}
    form = ScenarioForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        scenario = _save_scenario(request, form)
        if scenario is not None:
            messages.success(request, f"Saved “{scenario.name}”.")
            return redirect(scenario)
    context = _form_context(form, preview_url=reverse("scenario_preview_new"), starter=starter)
    return render(request, "planner/scenario_form.html", context, status=200)


@login_required
@require_http_methods(["GET", "POST"])
@ratelimit.limited("evaluate", "evaluations")
def scenario_edit(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    form = ScenarioForm(request.POST or None, initial=initial_from_scenario(scenario))
    version = _posted_version(request) if request.method == "POST" else scenario.version
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            saved = _save_scenario(request, form, scenario=scenario, version=version)
        except services.ScenarioChanged as changed:
            form.add_error(None, str(changed))
            status = 409
        else:
            if saved is not None:
                messages.success(request, f"Saved “{saved.name}” and evaluated it again.")
                return redirect(saved)
    context = _form_context(
        form,
        scenario=scenario,
        version=version,
        preview_url=reverse("scenario_preview", args=[scenario.pk]),
    )
    return render(request, "planner/scenario_form.html", context, status=status)


def _preview_response(request: HttpRequest) -> JsonResponse:
    """Validate the posted form and evaluate it without saving: headline HTML, chart specs, field errors."""
    started = time.perf_counter()
    form = ScenarioForm(request.POST)
    engine_ms = 0.0
    body: dict[str, Any] = {"ok": False, "errors": {}, "headline_html": "", "charts": []}
    costly = services.preview_cost_problems(form.scenario_inputs()) if form.is_valid() else {}
    for field, message in costly.items():
        form.add_error(field, message)
    if form.is_valid():
        try:
            evaluation = services.scenario_preview(owner=request.user, inputs=form.scenario_inputs())
        except SpecError as error:
            form.add_engine_problems(error.problems)
        else:
            engine_ms = evaluation.elapsed_ms
            kind = evaluation.output.get("kind") or form.cleaned_data["workload_kind"]
            body["ok"] = True
            body["headline_html"] = render_to_string(
                "planner/_headline.html",
                {
                    "output": evaluation.output,
                    "metrics": metrics_for(kind),
                    "search": evaluation.search_summary,
                    "kind": kind,
                },
                request=request,
            )
            body["charts"] = chart_specs.result_charts(evaluation.output, kind=kind)
    body["errors"] = {name: [str(m) for m in errs] for name, errs in form.errors.items()}
    total_ms = (time.perf_counter() - started) * 1000
    body["server_ms"] = round(total_ms, 1)
    response = JsonResponse(body, status=200)
    response["Server-Timing"] = f"engine;dur={engine_ms:.1f}, total;dur={total_ms:.1f}"
    return response


@login_required
@require_POST
@ratelimit.limited("preview", "live previews", as_json=True)
def scenario_preview_new(request: HttpRequest) -> JsonResponse:
    return _preview_response(request)


@login_required
@require_POST
@ratelimit.limited("preview", "live previews", as_json=True)
def scenario_preview(request: HttpRequest, pk: int) -> JsonResponse:
    selectors.scenario_get(user=request.user, pk=pk)
    return _preview_response(request)


# ------------------------------------------------------------------------------------------------ results


@login_required
@require_GET
def scenario_detail(request: HttpRequest, pk: int, result_id: int | None = None) -> HttpResponse:
    """The results page: the latest result, or an earlier one by id. The first visit to a new latest result
    starts its PDF on a worker, so the page's "PDF report" is usually ready when clicked."""
    page = selectors.results_page(user=request.user, pk=pk, result_id=result_id)
    if page.is_latest:
        report_services.scenario_report_prerender(
            owner=request.user,
            scenario=page.scenario,
            active_share_links=page.share_links,
            base_url=request.build_absolute_uri("/"),
        )
    return render(request, "planner/scenario_detail.html", {"page": page, **RESULT_TABLES})


@login_required
@require_POST
@ratelimit.limited("evaluate", "evaluations")
def scenario_reevaluate(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    try:
        services.scenario_reevaluate(scenario=scenario)
    except SpecError as error:
        messages.error(
            request, f"The scenario can no longer be evaluated: {error}. Edit it to fix the inputs."
        )
    else:
        messages.success(
            request, "Evaluated again with today's catalog and engine; earlier results are kept."
        )
    return redirect(scenario)


@login_required
@require_GET
@ratelimit.limited("evaluate", "sizings", methods=("GET",))
def scenario_size(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Size it for me": the scenario's service sized on several GPU types (planner/serving_size.py)."""
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    return render(
        request,
        "planner/scenario_size.html",
        {"page": serving_size.size_scenario(scenario), "columns": SIZING_COLUMNS},
    )


@login_required
@require_GET
@ratelimit.limited("evaluate", "GPU comparisons", methods=("GET",))
def scenario_compare_gpus(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Compare GPUs": the scenario's workload on 2-4 catalog GPUs side by side (planner/gpu_compare.py);
    `?format=csv` downloads the table. Nothing is saved."""
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    form = GpuCompareForm(request.GET if "gpus" in request.GET else gpu_compare.default_query(scenario))
    if not form.is_valid():
        context = {"scenario": scenario, "form": form, "page": None}
        return render(request, "planner/scenario_compare_gpus.html", context, status=400)
    page = gpu_compare.compare_gpus(scenario, form.cleaned_data["gpus"], form.cleaned_data["mode"])
    if request.GET.get("format") == "csv":
        return gpu_table.csv_download(page)
    context = {
        "scenario": scenario,
        "form": form,
        "page": page,
        "groups": gpu_table.comparison_rows(page),
        "charts": gpu_table.comparison_charts(page),
    }
    return render(request, "planner/scenario_compare_gpus.html", context)


# ------------------------------------------------------------------------------------------------ clone / delete


@login_required
@require_http_methods(["GET", "POST"])
@ratelimit.limited("create", "new scenarios")
def scenario_clone(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    form = CloneForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            copy = services.scenario_clone(
                scenario=scenario,
                owner=request.user,
                name=form.cleaned_data["name"],
                gpu=form.cleaned_data["gpu"],
            )
        except SpecError as error:
            form.add_error("gpu", f"The copy cannot be evaluated: {error}")
        else:
            messages.success(request, f"Created “{copy.name}”.")
            if request.POST.get("compare"):
                return redirect(f"{reverse('scenario_compare')}?ids={scenario.pk}&ids={copy.pk}")
            return redirect(copy)
    return render(request, "planner/scenario_clone.html", {"scenario": scenario, "form": form})


@login_required
@require_http_methods(["GET", "POST"])
def scenario_delete(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    if request.method == "POST":
        name = scenario.name
        services.scenario_delete(scenario=scenario)
        messages.success(request, f"Deleted “{name}”.")
        return redirect("scenario_list")
    return render(request, "planner/scenario_confirm_delete.html", {"scenario": scenario})


# ------------------------------------------------------------------------------------------------ compare


@login_required
@require_GET
def scenario_compare(request: HttpRequest) -> HttpResponse:
    form = CompareForm(request.GET or None)
    if not form.is_valid():
        scenarios = selectors.scenario_list(user=request.user)
        picked = form["ids"].value() or []
        context = {"form": form, "scenarios": scenarios, "picked": {str(v) for v in picked}}
        return render(request, "planner/scenario_compare_pick.html", context)
    scenarios = selectors.scenarios_for_compare(user=request.user, ids=form.cleaned_data["ids"])
    outputs = [s.latest_result.output if s.latest_result else {} for s in scenarios]
    context = {
        "scenarios": scenarios,
        "groups": selectors.comparison_rows(scenarios),
        "charts": chart_specs.comparison_charts([s.name for s in scenarios], outputs),
    }
    return render(request, "planner/scenario_compare.html", context)


# ------------------------------------------------------------------------------------------------ sharing


@login_required
@require_POST
def share_create(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    link = services.share_link_create(scenario=scenario)
    messages.success(request, f"Read-only link: {request.build_absolute_uri(link.get_absolute_url())}")
    return redirect(scenario)


@login_required
@require_POST
def share_revoke(request: HttpRequest, pk: int, link_id: int) -> HttpResponse:
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    link = selectors.share_link_for_scenario(scenario=scenario, link_id=link_id)
    services.share_link_revoke(link=link)
    messages.success(request, "The share link is revoked; it now answers “not found”.")
    return redirect(scenario)


@require_GET
def share_view(request: HttpRequest, token: str) -> HttpResponse:
    link = selectors.share_link_get(token=token)
    page = selectors.result_page(scenario=link.scenario, with_history=False)
    response = render(
        request, "planner/scenario_detail.html", {"page": page, "shared": True, **RESULT_TABLES}
    )
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    return mark_private(response)
