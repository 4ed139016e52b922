"""Query counts of the list and comparison pages stay constant in the number of scenarios."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from planner.models import Scenario, ScenarioResult
from tests.planner.conftest import make_scenario

pytestmark = pytest.mark.django_db

#: Session, user, scenarios (one query with their GPU, system and latest result); messages need no query.
LIST_MAX_QUERIES = 6
#: Session, user, the compared scenarios (one query).
COMPARE_MAX_QUERIES = 6


def _copies(original: Scenario, count: int) -> list[Scenario]:
    """Cheap copies of an evaluated scenario (rows copied; the engine was run once for the original)."""
    copies = []
    for i in range(count):
        result = original.latest_result
        copy = Scenario.objects.get(pk=original.pk)
        copy.pk = None
        copy.latest_result = None
        copy.name = f"{original.name} #{i}"
        copy.save()
        stored = ScenarioResult.objects.create(
            scenario=copy,
            engine_version=result.engine_version,
            input_payload=result.input_payload,
            output=result.output,
            summary=result.summary,
            catalog_snapshot=result.catalog_snapshot,
            catalog_hash=result.catalog_hash,
        )
        Scenario.objects.filter(pk=copy.pk).update(latest_result=stored)
        copies.append(copy)
    return copies


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries)


def test_scenario_list_query_count_does_not_grow_with_scenarios(
    client, alice, catalog, django_assert_max_num_queries
):
    client.force_login(alice)
    original = make_scenario(alice)
    _copies(original, 1)
    few = _queries(client, reverse("scenario_list"))
    _copies(original, 10)
    with django_assert_max_num_queries(LIST_MAX_QUERIES):
        response = client.get(reverse("scenario_list") + "?sort=-gpus")
    assert response.content.decode().count('name="ids"') == 12
    assert _queries(client, reverse("scenario_list")) == few
    assert _queries(client, reverse("home")) <= LIST_MAX_QUERIES


def test_comparison_query_count_does_not_grow_with_scenarios(
    client, alice, catalog, django_assert_max_num_queries
):
    client.force_login(alice)
    original = make_scenario(alice)
    copies = _copies(original, 3)
    two = reverse("scenario_compare") + f"?ids={original.pk}&ids={copies[0].pk}"
    four = reverse("scenario_compare") + "?" + "&".join(f"ids={s.pk}" for s in [original, *copies])
    with django_assert_max_num_queries(COMPARE_MAX_QUERIES):
        client.get(four)
    assert _queries(client, two) == _queries(client, four)


def test_list_search_and_sort(client, alice, catalog):
    client.force_login(alice)
    original = make_scenario(alice, name="Zeta plan")
    _copies(original, 2)
    make_scenario(alice, name="Alpha plan", nodes=16)
    page = client.get(reverse("scenario_list") + "?q=alpha").content.decode()
    assert "Alpha plan" in page and "Zeta plan" not in page
    page = client.get(reverse("scenario_list") + "?sort=name").content.decode()
    assert page.index("Alpha plan") < page.index("Zeta plan")
    page = client.get(reverse("scenario_list") + "?sort=-gpus").content.decode()
    assert page.index("Alpha plan") < page.index("Zeta plan")
