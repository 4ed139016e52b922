""" "What fits in this power and budget?" pages: the answer for one of the user's scenarios, and the entry page
of the main menu that picks the scenario. Thin: access check -> form -> one service call -> render."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from planner import ratelimit, reverse_sizing, selectors
from planner.forms.budget import BudgetFitForm


@login_required
@require_GET
@ratelimit.limited("evaluate", "sizings", methods=("GET",))
def scenario_fit(request: HttpRequest, pk: int) -> HttpResponse:
    """The scenario's workload on each priced GPU type within the budget (planner/reverse_sizing.py); bad
    budgets answer 400 with the field's message."""
    scenario = selectors.scenario_get(user=request.user, pk=pk)
    form = BudgetFitForm(request.GET or None, default_gpus=reverse_sizing.default_gpu_ids(scenario))
    valid = form.is_valid()
    page = reverse_sizing.fit_scenario(scenario, form.fit_inputs() if valid else None)
    status = 400 if form.is_bound and not valid else 200
    return render(request, "planner/scenario_fit.html", {"page": page, "form": form}, status=status)


@login_required
@require_GET
def fit_pick(request: HttpRequest) -> HttpResponse:
    """Entry page: pick one of your scenarios (and the budgets) and go to its answer; someone else's is a 404."""
    chosen = request.GET.get("scenario", "").strip()
    if chosen:
        if not chosen.isdigit():
            raise Http404("No such scenario.")
        scenario = selectors.scenario_get(user=request.user, pk=int(chosen))
        rest = [(k, v) for k, values in request.GET.lists() if k != "scenario" for v in values]
        query = f"?{urlencode(rest)}" if rest else ""
        return redirect(reverse("scenario_fit", args=[scenario.pk]) + query)
    scenarios = selectors.scenario_list(user=request.user)
    form = BudgetFitForm(default_gpus=list(reverse_sizing.DEFAULT_GPU_IDS))
    return render(request, "planner/fit_pick.html", {"scenarios": scenarios, "form": form})
