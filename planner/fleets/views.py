"""Fleet plan pages, each thin: login + an owner-filtering selector -> forms -> one service call -> render or
redirect. Another user's plan is a 404."""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from planner.engine.inputs.errors import SpecError
from planner.fleets import exports, selectors, services
from planner.fleets.forms import FleetForms
from planner.middleware import mark_private

STARTER = json.loads((Path(__file__).parent / "starter.json").read_text())


@login_required
@require_GET
def plan_list(request: HttpRequest) -> HttpResponse:
    return render(request, "fleets/plan_list.html", {"plans": selectors.plan_list(user=request.user)})


def _save(request: HttpRequest, plan: object | None) -> HttpResponse:
    payload = getattr(plan, "payload", None) or STARTER
    name = getattr(plan, "name", "") or "Fleet plan"
    forms = FleetForms(request.POST or None, payload=payload, name=name)
    status = 200
    if request.method == "POST":
        status = 400
        if forms.is_valid():
            try:
                if plan is None:
                    saved = services.plan_create(owner=request.user, name=forms.name, payload=forms.payload())
                else:
                    saved = services.plan_update(plan=plan, name=forms.name, payload=forms.payload())  # type: ignore[arg-type]
            except SpecError as err:
                forms.add_spec_errors(err)
            else:
                if "solve" in request.POST:
                    return _solve(request, saved)
                return redirect(saved)
    return render(request, "fleets/plan_form.html", {"forms": forms, "plan": plan}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def plan_create(request: HttpRequest) -> HttpResponse:
    return _save(request, None)


@login_required
@require_http_methods(["GET", "POST"])
def plan_edit(request: HttpRequest, pk: int) -> HttpResponse:
    return _save(request, selectors.plan_get(user=request.user, pk=pk))


def _solve(request: HttpRequest, plan: object) -> HttpResponse:
    try:
        services.plan_solve(plan=plan)  # type: ignore[arg-type]
    except services.QueueUnavailable as err:
        messages.error(request, err.message)
    return redirect(plan)


@login_required
@require_POST
def plan_solve(request: HttpRequest, pk: int) -> HttpResponse:
    return _solve(request, selectors.plan_get(user=request.user, pk=pk))


@login_required
@require_GET
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    plan = selectors.plan_get(user=request.user, pk=pk)
    link = selectors.active_share_link(plan=plan)
    share_url = request.build_absolute_uri(link.get_absolute_url()) if link else ""
    return render(
        request, "fleets/plan_detail.html", {"plan": plan, "page": exports.page(plan), "share_url": share_url}
    )


@login_required
@require_POST
def share_create(request: HttpRequest, pk: int) -> HttpResponse:
    plan = selectors.plan_get(user=request.user, pk=pk)
    link = services.share_link_create(plan=plan)
    messages.success(request, f"Read-only link: {request.build_absolute_uri(link.get_absolute_url())}")
    return redirect(plan)


@login_required
@require_POST
def share_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    services.share_link_revoke(plan=selectors.plan_get(user=request.user, pk=pk))
    messages.success(request, "The share link is revoked; it now answers “not found”.")
    return redirect("fleets:detail", pk=pk)


@require_GET
def shared(request: HttpRequest, token: str) -> HttpResponse:
    plan = selectors.share_link_get(token=token).plan
    response = render(
        request, "fleets/plan_detail.html", {"plan": plan, "page": exports.page(plan), "shared": True}
    )
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    return mark_private(response)


@login_required
@require_GET
def plan_compare(request: HttpRequest) -> HttpResponse:
    """Solved plans side by side (?ids=1&ids=2); without ids, the choice of the user's solved plans."""
    ids = [int(v) for v in request.GET.getlist("ids") if v.isdigit()][:6]
    plans = [p for p in selectors.plans_get(user=request.user, pks=ids) if p.result]
    choices = [p for p in selectors.plan_list(user=request.user) if p.status == "done"]
    return render(
        request, "fleets/plan_compare.html", {"plans": plans, "choices": choices, **exports.comparison(plans)}
    )


@login_required
@require_GET
def plan_status(request: HttpRequest, pk: int) -> JsonResponse:
    plan = selectors.plan_get(user=request.user, pk=pk)
    response = JsonResponse(selectors.plan_status(plan=plan))
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def plan_delete(request: HttpRequest, pk: int) -> HttpResponse:
    services.plan_delete(plan=selectors.plan_get(user=request.user, pk=pk))
    messages.success(request, "Fleet plan deleted.")
    return redirect("fleets:list")


@login_required
@require_GET
def plan_csv(request: HttpRequest, pk: int, table: str) -> HttpResponse:
    plan = selectors.plan_get(user=request.user, pk=pk)
    if table not in exports.CSV_TABLES or not plan.result:
        return HttpResponse(
            "No such table, or the plan is not solved yet.", status=404, content_type="text/plain"
        )
    return exports.csv_response(plan, table)


@login_required
@require_GET
def plan_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    plan = selectors.plan_get(user=request.user, pk=pk)
    if not plan.result:
        return HttpResponse("The plan is not solved yet.", status=404, content_type="text/plain")
    return exports.pdf_response(plan)
