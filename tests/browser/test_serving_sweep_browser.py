"""Serving sweeps in Debian's chromium: an inference scenario's "Run a sweep" form stores a sweep; its page shows
the progress moving without a reload while the test thread runs the chunks through the service the Celery task
calls, then the ranked rows; a bad rate is a field message; the sweep list shows it; a row opens as a scenario.
Screenshots go to the `screenshot` folder."""

from __future__ import annotations

import re

import pytest

from planner.sweeps import services
from planner.sweeps.models import SweepRun
from tests.planner.conftest import load_catalog, make_scenario

pytestmark = pytest.mark.django_db(transaction=True)

H100, B200 = "nvidia_h100_sxm5_80gb", "nvidia_b200_hgx"


def _percent(page) -> float:
    return float(page.inner_text('#sweep-progress [data-field="percent"]'))


def test_a_serving_sweep_from_its_form_to_its_ranked_rows(
    page, live_server, login, screenshot, screenshot_dir, alice, monkeypatch
):
    load_catalog()
    scenario = make_scenario(alice, "llama8b-serving", name="Llama 3.1 8B chat", max_tpot_s=0.02)
    monkeypatch.setattr(services, "_enqueue", lambda run_id: None)  # the test thread is the worker
    login(page, alice)
    page.goto(f"{live_server.url}{scenario.get_absolute_url()}")
    page.click('[data-testid="run-sweep"]')
    page.wait_for_url(re.compile(rf"/sweeps/serving/{scenario.pk}/$"))
    page.check(f'input[name="gpus"][value="{B200}"]')
    page.fill("#id_nodes", "1, 2")
    page.fill("#id_rates", "0, 40")
    page.click("text=Start the sweep")
    page.wait_for_selector("#errors-rates li")
    assert "above 0" in page.inner_text("#errors-rates")
    assert not SweepRun.objects.exists()
    screenshot(page, "serving-sweep-01-form-error")

    page.fill("#id_rates", "10, 40, 80")
    page.click("text=Start the sweep")
    page.wait_for_url(re.compile(r"/sweeps/\d+/$"))
    run = SweepRun.objects.get(owner=alice)
    assert run.kind == "serving" and run.total_configs == 2 * 2 * 4 * 3 and run.chunks_total == 2
    assert page.inner_text("#sweep-status") == "Waiting for a worker"
    page.evaluate("window.__sameDocument = true")
    services.sweep_chunk_run(run_id=run.pk, index=0, worker="browser-test")
    page.wait_for_function(
        "() => parseFloat(document.querySelector('#sweep-progress [data-field=\"percent\"]').textContent) > 0"
    )
    assert page.evaluate("window.__sameDocument") is True and 0 < _percent(page) < 100
    assert page.inner_text("#sweep-status") == "Running"
    screenshot(page, "serving-sweep-02-running")

    services.sweep_chunk_run(run_id=run.pk, index=1, worker="browser-test")
    page.wait_for_selector('[data-testid="serving-sweep-table"]')  # the page reloads once when it stops
    assert page.inner_text("#sweep-status") == "Done" and _percent(page) == 100.0
    rows = page.locator('[data-testid="serving-sweep-table"] tbody tr')
    assert rows.count() == run.total_configs
    assert "yes" in rows.first.inner_text()
    screenshot(page, "serving-sweep-03-done")
    page.eval_on_selector("#rows-serving", "t => { t.closest('.table-wrap').scrollLeft = 10000; }")
    rows.nth(30).scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "serving-sweep-03b-scrolled-right.png"))  # the viewport only

    page.goto(f"{live_server.url}/sweeps/")
    assert "Serving" in page.inner_text("#sweep-table") and run.name in page.inner_text("#sweep-table")
    screenshot(page, "serving-sweep-04-list")

    page.goto(f"{live_server.url}{run.get_absolute_url()}")
    page.locator('[data-testid="serving-sweep-table"] tbody tr').first.get_by_role(
        "button", name="Open as scenario"
    ).click()
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    assert "requests/s" in page.inner_text("h1")
