"""The results page is the most visited page: after the first visit it costs two queries (the user; the scenario
with its result, two existence flags and the catalog generation), and asks for earlier results and share links
only when there are some."""

from __future__ import annotations

from django.urls import reverse

from planner import services
from tests.planner.conftest import make_scenario

#: The user, and the scenario with its latest result, the two flags and the catalog generation.
WARM_PAGE_QUERIES = 2


def test_a_warm_results_page_costs_a_fixed_number_of_queries(
    client, alice, catalog, django_assert_num_queries
):
    scenario = make_scenario(alice)
    client.force_login(alice)
    url = scenario.get_absolute_url()
    assert client.get(url).status_code == 200  # loads the catalog copy and the results section
    with django_assert_num_queries(WARM_PAGE_QUERIES):
        assert client.get(url).status_code == 200


def test_earlier_results_and_share_links_appear_once_they_exist(client, alice, catalog):
    scenario = make_scenario(alice)
    client.force_login(alice)
    first_result = scenario.latest_result_id
    html = client.get(scenario.get_absolute_url()).content.decode()
    assert "Earlier results" not in html and 'data-testid="share-link"' not in html
    services.scenario_reevaluate(scenario=scenario)
    client.post(reverse("share_create", args=[scenario.pk]))
    html = client.get(scenario.get_absolute_url()).content.decode()
    assert "Earlier results" in html
    assert reverse("scenario_result", args=[scenario.pk, first_result]) in html
    assert 'data-testid="share-link"' in html
