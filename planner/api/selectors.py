"""Read side of the scenario API: the user's own rows only (another user's id is a 404, like the pages).

Lighter than planner.selectors.scenario_get, which joins every catalog row a results page shows: the API
answers with ids, so one narrow query per object is enough (this halves the cost of a result request).
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.shortcuts import get_object_or_404

from planner.models import Scenario, ScenarioResult

#: Large JSON columns of the latest result that a scenario answer does not show.
LATEST_RESULT_HEAVY = (
    "latest_result__input_payload",
    "latest_result__output",
    "latest_result__catalog_snapshot",
    "latest_result__search_summary",
)


def owned_scenario(*, user: AbstractBaseUser, pk: int) -> Scenario:
    """One of the user's scenarios with its latest result's headline, or 404."""
    queryset = Scenario.objects.select_related("latest_result").defer(*LATEST_RESULT_HEAVY)
    return get_object_or_404(queryset, pk=pk, owner=user)


def owned_result(*, user: AbstractBaseUser, scenario_pk: int, result_id: int) -> ScenarioResult:
    """One stored result of one of the user's scenarios, or 404 (one query)."""
    return get_object_or_404(ScenarioResult, pk=result_id, scenario_id=scenario_pk, scenario__owner=user)
