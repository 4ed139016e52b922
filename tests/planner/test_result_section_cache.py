"""The results section of a scenario page is rendered once per (result, engine, catalog, scenario version) and
served from the cache after that; any change of those renders it again. Sources are linked without urlize."""

from __future__ import annotations

from unittest import mock

from catalog.models import Gpu
from planner import selectors
from planner.reports import charts
from tests.planner.conftest import make_scenario


def _chart_calls(client, url: str, times: int) -> int:
    with mock.patch.object(charts, "result_charts", wraps=charts.result_charts) as spy:
        for _ in range(times):
            assert client.get(url).status_code == 200
    return spy.call_count


def test_the_results_section_is_rendered_once_and_then_served_from_the_cache(client, alice, catalog) -> None:
    scenario = make_scenario(alice)
    client.force_login(alice)
    url = scenario.get_absolute_url()
    first = client.get(url).content.decode()
    assert _chart_calls(client, url, 3) == 0
    again = client.get(url).content.decode()
    assert again.count('id="chart-data"') == 1 and first.split('id="chart-data"')[1][:200] in again


def test_a_catalog_change_renders_the_section_again(client, alice, catalog) -> None:
    scenario = make_scenario(alice)
    client.force_login(alice)
    url = scenario.get_absolute_url()
    client.get(url)
    gpu = Gpu.objects.get(pk=scenario.gpu_id)
    gpu.price_usd = 12_345
    gpu.save()  # as the admin, a CSV import or the API save it
    assert _chart_calls(client, url, 1) == 1


def test_an_edit_of_the_scenario_renders_the_section_again(client, alice, catalog) -> None:
    scenario = make_scenario(alice)
    client.force_login(alice)
    url = scenario.get_absolute_url()
    client.get(url)
    scenario.save()  # a new updated_at
    assert _chart_calls(client, url, 1) == 1


def test_source_texts_link_their_urls_and_escape_the_rest() -> None:
    parts = selectors.linked_parts("GPU price <b> (https://example.com/a?b=1), see https://x.org/y.")
    assert parts == [
        ("GPU price <b> (", ""),
        ("https://example.com/a?b=1", "https://example.com/a?b=1"),
        ("), see ", ""),
        ("https://x.org/y", "https://x.org/y"),
        (".", ""),
    ]
    assert selectors.linked_parts(None) == []


def test_planner_default_sources_are_links_on_the_page(client, alice, catalog) -> None:
    scenario = make_scenario(alice)
    client.force_login(alice)
    html = client.get(scenario.get_absolute_url()).content.decode()
    assert '<a href="https://github.com/epoch-research/training-cost-trends" rel="nofollow noopener' in html
