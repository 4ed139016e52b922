"""Per-user fair-use limits on the live preview, creates, evaluations and sweep re-queues: past the rate a
429 with Retry-After (JSON for the preview), other users unaffected, pages and API sharing one budget."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from planner import ratelimit
from planner.models import Scenario
from tests.api.conftest import token_client
from tests.planner.conftest import alice_scenario, catalog, form_data  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


@override_settings(RATE_LIMITS={"preview": "3/d"})
def test_the_live_preview_is_limited_per_user(alice_client, bob, catalog):  # noqa: F811
    answers = [alice_client.post("/scenarios/new/preview/", form_data()) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    body = answers[-1].json()
    assert body["rate_limited"] and "live previews" in body["errors"]["__all__"][0]
    assert int(answers[-1]["Retry-After"]) == body["retry_after_s"] > 0
    other = Client()
    other.force_login(bob)
    assert other.post("/scenarios/new/preview/", form_data()).status_code == 200


@override_settings(RATE_LIMITS={"create": "2/d"})
def test_creates_share_one_budget_between_the_page_and_the_api(alice_client, alice, catalog):  # noqa: F811
    assert alice_client.post("/scenarios/new/", form_data(name="page 1")).status_code == 302
    api = token_client(alice)
    assert api.post("/api/scenarios/", {"starter": "llama70b-h100"}, format="json").status_code == 201
    refused = alice_client.post("/scenarios/new/", form_data(name="page 2"))
    assert refused.status_code == 429 and "new scenarios" in refused.content.decode()
    assert api.post("/api/scenarios/", {"starter": "llama70b-h100"}, format="json").status_code == 429
    assert Scenario.objects.filter(owner=alice).count() == 2


@override_settings(RATE_LIMITS={"evaluate": "2/d"})
def test_evaluations_are_limited(alice_client, alice, alice_scenario):  # noqa: F811
    url = f"/scenarios/{alice_scenario.pk}/evaluate/"
    answers = [alice_client.post(url).status_code for _ in range(3)]
    assert answers == [302, 302, 429]
    api = token_client(alice)
    assert api.post(f"/api/scenarios/{alice_scenario.pk}/evaluate/").status_code == 429
    assert alice_scenario.results.count() == 3  # the first result and two evaluations


def test_a_get_of_a_page_is_not_counted(alice_client, catalog):  # noqa: F811
    with override_settings(RATE_LIMITS={"create": "1/d"}):
        for _ in range(3):
            assert alice_client.get("/scenarios/new/").status_code == 200


def test_rates_parse_and_bad_ones_are_named():
    assert ratelimit.parse_rate("120/min") == ratelimit.Rate(120, 60)
    assert ratelimit.parse_rate("5/15min") == ratelimit.Rate(5, 900)
    assert ratelimit.parse_rate("5/hour") == ratelimit.Rate(5, 3600)
    for bad in ("fast", "0/min", "5/fortnight", "x/min"):
        with pytest.raises(ValueError, match="rate"):
            ratelimit.parse_rate(bad)
