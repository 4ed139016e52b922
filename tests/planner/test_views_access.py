"""Every scenario URL for each persona: the owner (alice) gets the page, another user (bob) and staff get a 404
for alice's objects, anonymous visitors are sent to sign in; a share link works signed out until revoked."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from planner.engine.accuracy import uncertainty
from planner.models import Scenario, ScenarioResult, ShareLink
from tests.planner.conftest import form_data, make_scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_scenarios(catalog, alice) -> tuple[Scenario, Scenario]:
    return make_scenario(alice, name="Plan A"), make_scenario(alice, name="Plan B", nodes=16)


def _object_requests(a: Scenario, b: Scenario) -> list[tuple[str, str, dict[str, Any], int]]:
    """(method, url, data, status for the owner) for every URL about alice's scenario `a`."""
    link = ShareLink.objects.create(scenario=a, token="t" * 43)
    result = a.latest_result
    return [
        ("get", reverse("scenario_detail", args=[a.pk]), {}, 200),
        ("get", reverse("scenario_result", args=[a.pk, result.pk]), {}, 200),
        ("get", reverse("scenario_edit", args=[a.pk]), {}, 200),
        ("post", reverse("scenario_edit", args=[a.pk]), form_data(name="Plan A, edited"), 302),
        ("post", reverse("scenario_preview", args=[a.pk]), form_data(nodes=4), 200),
        ("get", reverse("scenario_clone", args=[a.pk]), {}, 200),
        ("post", reverse("scenario_clone", args=[a.pk]), {"name": "Plan A copy"}, 302),
        ("post", reverse("scenario_reevaluate", args=[a.pk]), {}, 302),
        ("get", reverse("scenario_compare") + f"?ids={a.pk}&ids={b.pk}", {}, 200),
        ("post", reverse("share_create", args=[a.pk]), {}, 302),
        ("post", reverse("share_revoke", args=[a.pk, link.pk]), {}, 302),
        ("get", reverse("scenario_delete", args=[a.pk]), {}, 200),
        ("post", reverse("scenario_delete", args=[a.pk]), {}, 302),
    ]


def _call(client: Client, method: str, url: str, data: dict[str, Any]) -> Any:
    return client.get(url) if method == "get" else client.post(url, data)


def test_owner_reaches_every_url_of_her_scenario(client, alice, two_scenarios):
    client.force_login(alice)
    for method, url, data, status in _object_requests(*two_scenarios):
        response = _call(client, method, url, data)
        assert response.status_code == status, (method, url, response.status_code)


@pytest.mark.parametrize("persona", ["bob", "staff"])
def test_other_users_get_404_for_every_url_of_alices_scenario(request, client, two_scenarios, persona):
    client.force_login(request.getfixturevalue(persona))
    results_before = ScenarioResult.objects.count()
    for method, url, data, _ in _object_requests(*two_scenarios):
        response = _call(client, method, url, data)
        assert response.status_code == 404, (persona, method, url, response.status_code)
    assert (
        Scenario.objects.filter(name__startswith="Plan A").count() == 1
    )  # nothing edited, cloned or deleted
    assert Scenario.objects.get(name="Plan A").name == "Plan A"
    assert ScenarioResult.objects.count() == results_before
    assert ShareLink.objects.filter(revoked_at__isnull=False).count() == 0


def test_anonymous_visitors_are_sent_to_sign_in_for_every_scenario_url(client, two_scenarios):
    requests = _object_requests(*two_scenarios) + [
        ("get", reverse("scenario_list"), {}, 200),
        ("get", reverse("scenario_create"), {}, 200),
        ("post", reverse("scenario_create"), form_data(), 302),
        ("post", reverse("scenario_preview_new"), form_data(), 200),
        ("get", reverse("scenario_compare"), {}, 200),
    ]
    for method, url, data, _ in requests:
        response = _call(client, method, url, data)
        assert response.status_code == 302, (method, url)
        assert response["Location"].startswith(reverse("login")), (method, url)
    assert Scenario.objects.count() == 2


def test_owner_pages_without_an_object_answer(client, alice, catalog):
    client.force_login(alice)
    assert client.get(reverse("scenario_list")).status_code == 200
    assert client.get(reverse("scenario_create")).status_code == 200
    assert client.get(reverse("scenario_create") + "?starter=llama70b-b200").status_code == 200
    assert client.get(reverse("scenario_compare")).status_code == 200
    assert client.post(reverse("scenario_preview_new"), form_data()).status_code == 200
    response = client.post(reverse("scenario_create"), form_data(name="Fresh plan"))
    assert response.status_code == 302
    assert Scenario.objects.get(name="Fresh plan").owner == alice


def test_compare_including_someone_elses_scenario_is_404(client, bob, two_scenarios):
    own = make_scenario(bob, name="Bob's plan")
    client.force_login(bob)
    response = client.get(reverse("scenario_compare") + f"?ids={own.pk}&ids={two_scenarios[0].pk}")
    assert response.status_code == 404


def test_share_link_opens_signed_out_and_404s_once_revoked(client, alice, alice_scenario):
    client.force_login(alice)
    client.post(reverse("share_create", args=[alice_scenario.pk]))
    link = ShareLink.objects.get(scenario=alice_scenario)
    assert len(link.token) >= 40
    anonymous = Client()
    response = anonymous.get(link.get_absolute_url())
    assert response.status_code == 200
    assert alice_scenario.name in response.content.decode()
    assert reverse("scenario_edit", args=[alice_scenario.pk]) not in response.content.decode()
    client.post(reverse("share_revoke", args=[alice_scenario.pk, link.pk]))
    assert anonymous.get(link.get_absolute_url()).status_code == 404
    assert anonymous.get(reverse("share_view", args=["not-a-real-token"])).status_code == 404


def test_preview_and_mutations_refuse_get(client, alice, alice_scenario):
    client.force_login(alice)
    for name in ("scenario_preview", "scenario_reevaluate", "share_create"):
        assert client.get(reverse(name, args=[alice_scenario.pk])).status_code == 405


def test_signup_creates_a_planner_account_and_signs_in(client, db):
    response = client.get(reverse("signup"))
    assert response.status_code == 200
    response = client.post(
        reverse("signup"),
        {"username": "carol", "password1": "a-long-planner-pass-9", "password2": "a-long-planner-pass-9"},
    )
    assert response.status_code == 302
    from django.contrib.auth import get_user_model

    carol = get_user_model().objects.get(username="carol")
    assert not carol.is_staff
    assert client.get(reverse("scenario_list")).status_code == 200


def test_signup_with_mismatched_passwords_names_the_field(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "dave", "password1": "a-long-planner-pass-9", "password2": "different-9"},
    )
    assert response.status_code == 200
    assert "password2" in response.context["form"].errors


def test_clone_and_compare_on_another_gpu_lands_on_the_comparison(client, alice, alice_scenario):
    client.force_login(alice)
    response = client.post(
        reverse("scenario_clone", args=[alice_scenario.pk]), {"gpu": "nvidia_b200_hgx", "compare": "1"}
    )
    copy = Scenario.objects.exclude(pk=alice_scenario.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("scenario_compare") + f"?ids={alice_scenario.pk}&ids={copy.pk}"
    page = client.get(response["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert "B200" in html and 'class="num best"' in html


def test_results_page_says_the_catalog_changed_and_offers_to_reevaluate(client, alice, alice_scenario):
    from catalog.models import Gpu

    gpu = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    gpu.price_usd = 30_000
    gpu.save()  # as the admin, a CSV import or the API save it
    client.force_login(alice)
    html = client.get(alice_scenario.get_absolute_url()).content.decode()
    assert "The catalog changed since this result" in html
    assert "H100 SXM5 80GB price (USD): 27,500 → 30,000" in html
    assert reverse("scenario_reevaluate", args=[alice_scenario.pk]) in html
    old_result = alice_scenario.latest_result
    client.post(reverse("scenario_reevaluate", args=[alice_scenario.pk]))
    html = client.get(alice_scenario.get_absolute_url()).content.decode()
    assert "The catalog changed since this result" not in html
    old_page = client.get(reverse("scenario_result", args=[alice_scenario.pk, old_result.pk]))
    assert old_page.status_code == 200
    assert "earlier result" in old_page.content.decode()
    assert "27,500 → 30,000" in old_page.content.decode()


def test_results_page_links_catalog_rows_to_their_sources(client, alice, alice_scenario):
    client.force_login(alice)
    html = client.get(alice_scenario.get_absolute_url()).content.decode()
    assert reverse("catalog:gpu_detail", args=["nvidia_h100_sxm5_80gb"]) in html
    assert 'href="https://www.eia.gov' in html or "eia.gov" in html
    for section in ("hardware-bom", "network-bom", "assumptions", "catalog-values", "chart-data"):
        assert f'id="{section}"' in html


def test_results_page_shows_every_assumption_value_text_and_ranges_included(client, alice, alice_scenario):
    """Ranges read low–high and text assumptions show their text (not a dash), as in the PDF."""
    client.force_login(alice)
    html = client.get(alice_scenario.get_absolute_url()).content.decode()
    section = html[html.index('id="assumptions"') :]
    low, high = (round(v, 3) for v in uncertainty.band()[:2])
    assert f'<code>uncertainty.time_ratio_range</code></th><td class="num">{low:g}–{high:g}</td>' in section
    topology = alice_scenario.latest_result.output["assumptions"]["network.topology"]["value"]
    assert isinstance(topology, str) and f'<td class="num">{topology}</td>' in section
    assert '<code>efficiency.hbm</code></th><td class="num">0.85</td>' in section
