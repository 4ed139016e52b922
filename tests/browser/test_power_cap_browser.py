"""A power-capped scenario in a real browser: the form shows the cap fields, the headline states the cap."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.planner.conftest import make_scenario

pytestmark = pytest.mark.django_db(transaction=True)


def test_power_cap_on_the_form_and_the_results(page, live_server, login, screenshot, alice, transactional_db):
    call_command("load_catalog", stdout=io.StringIO())
    scenario = make_scenario(alice, "llama70b-h100", tokens_b=1000, gpu_power_limit_w=600)
    login(page, alice)
    page.goto(f"{live_server.url}{scenario.get_absolute_url()}")
    cap = page.locator("[data-testid=power-cap]").first
    assert "GPUs capped at 600 W" in cap.inner_text() and "0.875" in cap.inner_text()
    screenshot(page, "power_cap_results")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/edit/")
    assert page.locator("#id_gpu_power_limit_w").input_value() == "600"
    screenshot(page, "power_cap_form")
