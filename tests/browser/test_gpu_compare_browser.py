""" "Compare GPUs" in Debian's chromium: a Llama 3.1 70B training run and a 70B service on H100, H200, B200 and
MI300X side by side, with the chart drawn from our static plotly.js and no console error. Screenshots go to the
`screenshot` folder (SCREENSHOT_DIR): compare_gpus.png, compare_gpus_inference.png and compare_gpus_budget.png
(what the training scenario's capex buys) and compare_gpus_nofit.png (one node: the L4 cannot hold the model)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.planner.conftest import make_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOUR = ["nvidia_h100_sxm5_80gb", "nvidia_h200_sxm_141gb", "nvidia_b200_hgx", "amd_mi300x"]
WITH_L4 = ["nvidia_h100_sxm5_80gb", "nvidia_b200_hgx", "amd_mi300x", "nvidia_l4"]
SHORT = {
    "nvidia_h100_sxm5_80gb": "H100",
    "nvidia_h200_sxm_141gb": "H200",
    "nvidia_b200_hgx": "B200",
    "amd_mi300x": "Instinct",
    "nvidia_l4": "L4",
}
TRAINING = {"name": "Llama 3.1 70B, 1T tokens on 256 H100s"}
SERVING = {
    "name": "Serve Llama 3.1 70B on 32 H100s",
    "model_preset": "llama3.1-70b",
    "tp": 8,
    "nodes": 4,
    "serving_batch": 32,
    "context_len": 4096,
    "output_len": 512,
    "requests_per_s": "",  # the rate as tokens/s (the serving starter states requests/s)
    "target_tokens_per_s": 20000,
    "max_ttft_s": 2,
}


@pytest.mark.parametrize(
    "starter, overrides, gpus, mode, shot",
    [
        ("llama70b-h100-1t", TRAINING, FOUR, "same_gpus", "compare_gpus"),
        ("llama8b-serving", SERVING, FOUR, "same_gpus", "compare_gpus_inference"),
        ("llama70b-h100-1t", TRAINING, WITH_L4, "same_budget", "compare_gpus_budget"),
        ("llama70b-h100-1t", {**TRAINING, "nodes": 1}, WITH_L4, "same_gpus", "compare_gpus_nofit"),
    ],
)
def test_compare_gpus_page_in_a_browser(
    page, live_server, login, alice, screenshot, starter, overrides, gpus, mode, shot
):
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())
    scenario = make_scenario(alice, starter, **overrides)
    login(page, alice)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(live_server.url + scenario.get_absolute_url())
    page.click("[data-testid=compare-gpus]")
    page.wait_for_selector("[data-testid=gpu-compare-table]")
    query = "&".join(f"gpus={i}" for i in gpus)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/compare-gpus/?{query}&mode={mode}")
    page.wait_for_selector(".chart .main-svg")
    headers = page.locator("#gpu-compare-table thead th").all_inner_texts()
    assert [h.split()[0] for h in headers[1:]] == [SHORT[g] for g in gpus]
    assert page.locator("[data-row=tco_usd] td").count() == 4
    screenshot(page, shot)
    assert not errors, errors
    page.set_viewport_size({"width": 375, "height": 800})  # a phone: the table scrolls in its own box
    page.reload()
    page.wait_for_selector(".chart .main-svg")
    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')].filter(e => !e.closest('.table-wrap') && e.getBoundingClientRect().right > 376)
                 .slice(0, 8).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 375, f"the page scrolls sideways: {wide}"
