"""Two sessions editing one scenario: the second save is refused with "changed elsewhere" (page 409, API 412
with If-Match) and nothing of it is stored; the first save's inputs stay."""

from __future__ import annotations

import pytest
from django.test import Client

from planner.models import Scenario
from tests.api.conftest import token_client
from tests.planner.conftest import alice_scenario, catalog, form_data  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def _edit_page(client: Client, scenario: Scenario):
    response = client.get(f"/scenarios/{scenario.pk}/edit/")
    assert response.status_code == 200
    return response


def test_the_second_of_two_page_edits_is_refused_and_saves_nothing(alice, alice_scenario):  # noqa: F811
    tab_a, tab_b = Client(), Client()
    tab_a.force_login(alice)
    tab_b.force_login(alice)
    for tab in (tab_a, tab_b):
        assert (
            f'name="version" value="{alice_scenario.version}"'
            in _edit_page(tab, alice_scenario).content.decode()
        )
    results = alice_scenario.results.count()
    first = tab_a.post(
        f"/scenarios/{alice_scenario.pk}/edit/",
        {**form_data(name="From tab A"), "version": alice_scenario.version},
    )
    assert first.status_code == 302
    second = tab_b.post(
        f"/scenarios/{alice_scenario.pk}/edit/",
        {**form_data(name="From tab B", nodes=4), "version": alice_scenario.version},
    )
    assert second.status_code == 409 and "changed elsewhere" in second.content.decode()
    alice_scenario.refresh_from_db()
    assert alice_scenario.name == "From tab A" and alice_scenario.version == 2
    assert alice_scenario.results.count() == results + 1


def test_an_edit_from_the_current_version_saves(alice_client, alice_scenario):  # noqa: F811
    for expected in (2, 3):
        current = Scenario.objects.get(pk=alice_scenario.pk).version
        response = alice_client.post(
            f"/scenarios/{alice_scenario.pk}/edit/", {**form_data(name=f"v{expected}"), "version": current}
        )
        assert response.status_code == 302
        assert Scenario.objects.get(pk=alice_scenario.pk).version == expected


def test_the_api_sends_an_etag_and_honours_if_match(alice, alice_scenario):  # noqa: F811
    api = token_client(alice)
    url = f"/api/scenarios/{alice_scenario.pk}/"
    got = api.get(url)
    etag = got["ETag"]
    assert etag == '"v1"' and got.json()["version"] == 1
    changed = api.patch(url, {"name": "first"}, format="json", HTTP_IF_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] == '"v2"'
    stale = api.patch(url, {"name": "second"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412 and "changed elsewhere" in stale.json()["detail"]
    assert Scenario.objects.get(pk=alice_scenario.pk).name == "first"
    assert api.patch(url, {"name": "x"}, format="json", HTTP_IF_MATCH="garbage").status_code == 412
    assert api.patch(url, {"name": "anyway"}, format="json").status_code == 200  # no If-Match: no check
    assert api.patch(url, {"name": "star"}, format="json", HTTP_IF_MATCH="*").status_code == 200
