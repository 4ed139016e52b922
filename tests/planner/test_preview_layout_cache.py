"""Live previews with automatic parallelism search for a layout once per search input: a change of economics
reuses the cached layout, a change of the cluster searches again."""

from __future__ import annotations

from unittest import mock

from django.urls import reverse

from planner.engine import api
from tests.planner.conftest import form_data


def _searches(client, posts: list[dict[str, object]]) -> int:
    url = reverse("scenario_preview_new")
    with mock.patch.object(api, "search", wraps=api.search) as spy:
        for data in posts:
            response = client.post(url, data)
            assert response.status_code == 200 and response.json()["ok"], response.content[:300]
    return spy.call_count


def test_previews_that_change_only_economics_search_for_the_layout_once(client, alice, catalog) -> None:
    client.force_login(alice)
    data = form_data()
    assert data["parallelism_mode"] == "automatic"
    posts = [{**data, "utilization_pct": pct, "years": years} for pct, years in ((60, 4), (70, 5), (80, 3))]
    assert _searches(client, posts) == 1


def test_a_preview_with_another_node_count_searches_again(client, alice, catalog) -> None:
    client.force_login(alice)
    data = form_data()
    assert _searches(client, [data, {**data, "nodes": 16}, {**data, "nodes": 16}]) == 2
