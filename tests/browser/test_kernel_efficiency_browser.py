"""The serving kernel efficiency in Debian's chromium: the inference form's Serving fieldset offers it, a zero gets a
field message, a stated 1.2 is saved and the results page says it is the user's figure; left blank, the page says
what the engine assumed and how to change it. Screenshots (kernel_efficiency_*.png) go to the `screenshot` folder."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from planner.models import Scenario


@pytest.mark.django_db(transaction=True)
def test_the_kernel_efficiency_on_the_form_and_the_results_page(
    page, live_server, login, screenshot_dir, alice
):
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())
    login(page, alice)
    page.goto(live_server.url + "/scenarios/new/?starter=llama8b-serving")
    page.wait_for_selector("#id_kernel_efficiency")
    page.fill("#id_name", "Llama 3.1 8B, kernels 1.2x")
    assert page.is_visible("#id_kernel_efficiency")  # shown with the serving inputs of an inference scenario

    page.fill("#id_kernel_efficiency", "0")
    page.click("#save-button")
    page.wait_for_selector("#errors-kernel_efficiency li")
    assert "more than 0" in page.inner_text("#errors-kernel_efficiency")
    assert not Scenario.objects.exists()

    page.fill("#id_kernel_efficiency", "1.2")
    page.locator("#field-kernel_efficiency").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "kernel_efficiency_form.png"))
    page.click("#save-button")
    page.wait_for_selector('[data-testid="kernel-efficiency"]')
    panel = page.inner_text('[data-testid="kernel-efficiency"]')
    assert "1.2× (your figure)" in panel and "Kernel efficiency (× calibrated)" in panel
    assert Scenario.objects.get().kernel_efficiency == 1.2
    page.locator('[data-testid="kernel-efficiency"]').scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "kernel_efficiency_stated.png"))

    page.goto(live_server.url + "/scenarios/new/?starter=llama8b-serving")
    page.wait_for_selector("#id_kernel_efficiency")
    page.fill("#id_name", "Llama 3.1 8B, kernels as calibrated")
    page.click("#save-button")
    page.wait_for_selector('[data-testid="kernel-efficiency"]')
    panel = page.inner_text('[data-testid="kernel-efficiency"]')
    assert "assumed 1×" in panel and "cannot know" in panel
    page.screenshot(path=str(screenshot_dir / "kernel_efficiency_assumed_page.png"), full_page=True)
    page.locator('[data-testid="kernel-efficiency"]').scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "kernel_efficiency_assumed.png"))
