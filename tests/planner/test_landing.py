"""The signed-out home page explains the product: a worked example the engine computes (cached), the accuracy
summary with its link, what can be planned, and sign-in and sign-up beside it; it shows nobody's plans."""

from __future__ import annotations

from django.core.cache import cache
from django.urls import reverse

from planner import showcase
from planner.accuracy import accuracy_page
from planner.engine.api import ENGINE_VERSION
from planner.reports import formatting as f
from tests.planner.conftest import make_scenario, scenario_inputs


def test_signed_out_home_shows_a_worked_example_computed_by_the_engine(client, catalog):
    cache.clear()
    html = client.get(reverse("home")).content.decode()
    # The same plan through the form and the engine, as a person would get it on the planning page.
    from planner import services

    expected = services.scenario_preview(owner=None, inputs=scenario_inputs(showcase.SHOWCASE_STARTER)).output
    t = expected["time"]
    assert 'data-testid="worked-example"' in html
    assert f.quantity(t["days"], "days") in html
    assert f"{f.sig(t['days_low'])} and {f.sig(t['days_high'])} days" in html  # the range, in words
    assert f.power_kw(expected["power"]["it_kw"]) in html
    assert html.count('data-testid="example-chart"') == 2 and "<svg" in html
    assert t["days_low"] < t["days"] < t["days_high"]


def test_signed_out_home_has_the_accuracy_summary_sign_in_and_sign_up(client, catalog):
    html = client.get(reverse("home")).content.decode()
    report = accuracy_page().report
    assert f'href="{reverse("engine_accuracy")}"' in html
    assert f.percent(report.model_median_error) in html and str(report.model_cases) in html
    assert f'action="{reverse("login")}"' in html and 'name="password"' in html
    assert f'href="{reverse("signup")}"' in html
    assert "What you can plan" in html


def test_signed_out_home_signs_in_and_lands_on_the_users_home(client, alice, catalog):
    make_scenario(alice, name="Alice private plan")
    assert "Alice private plan" not in client.get(reverse("home")).content.decode()
    response = client.post(
        reverse("login"), {"username": "alice", "password": "alice-password-1", "next": reverse("home")}
    )
    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert "Alice private plan" in client.get(reverse("home")).content.decode()


def test_the_worked_example_is_cached_under_the_engine_and_catalog(client, catalog):
    from catalog import rows as catalog_rows
    from catalog.models import Gpu

    cache.clear()
    client.get(reverse("home"))
    key = showcase._cache_key(ENGINE_VERSION, catalog_rows.generation())
    cached = cache.get(key)
    assert cached and cached["output"]["time"]["days"] > 0
    # An edited catalog row is a new generation: the next visit computes the example again.
    gpu = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    gpu.price_usd = (gpu.price_usd or 30_000) * 2
    gpu.save()
    assert showcase._cache_key(ENGINE_VERSION, catalog_rows.generation()) != key
    client.get(reverse("home"))
    fresh = cache.get(showcase._cache_key(ENGINE_VERSION, catalog_rows.generation()))
    assert fresh["output"]["cost"]["capex_usd"] > cached["output"]["cost"]["capex_usd"]


def test_without_a_catalog_the_home_page_still_answers(client, db):
    cache.clear()
    response = client.get(reverse("home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="worked-example"' not in html and "How accurate is it?" in html
