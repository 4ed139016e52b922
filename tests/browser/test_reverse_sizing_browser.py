""" "What fits in this power and budget?" in a real browser: from the menu's entry page to the ranked table and its
two charts for Llama 3.1 70B training at 2 MW and USD 50 M; a bad budget shows its field message."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.planner.conftest import make_scenario

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def loaded_catalog(transactional_db) -> None:
    call_command("load_catalog", stdout=io.StringIO())


def test_reverse_sizing_page(page, live_server, login, screenshot, alice, loaded_catalog):
    scenario = make_scenario(alice, "llama70b-h100", name="Llama 3.1 70B pre-training, 15T tokens")
    login(page, alice)
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="What fits?").first.click()
    page.check(f"input[name=scenario][value='{scenario.pk}']")
    page.fill("#id_power_mw", "2")
    page.fill("#id_budget_musd", "50")
    page.get_by_role("button", name="Find what fits").click()
    page.wait_for_selector("[data-testid=fit-table]")
    rows = page.locator("[data-testid=fit-table] tbody tr")
    assert rows.count() >= 10
    assert "B tokens/day" in rows.first.inner_text()
    page.wait_for_selector("[data-chart=fit-efficiency] .main-svg")
    page.wait_for_selector("[data-chart=fit-work] .main-svg")
    screenshot(page, "reverse_sizing")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/fit/?power_mw=-1&budget_musd=abc")
    assert "greater than 0" in page.locator("#errors-power_mw").inner_text()
    assert "must be a number of USD million" in page.locator("#errors-budget_musd").inner_text()
    screenshot(page, "reverse_sizing_bad_input")
