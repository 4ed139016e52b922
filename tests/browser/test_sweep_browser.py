"""Sweeps in Debian's chromium: start a sweep from a scenario's form, watch the progress bar move without a
reload, see it reach done and draw the Pareto chart (an SVG inside the Plotly div), sort a table, open a row as a
scenario; and cancel a sweep half way. Screenshots go to the `screenshot` folder.

The first test runs Celery eagerly (the whole sweep runs inside the form's request). The second replaces the
queue with the test thread: the sweep page is open while the test runs the chunk tasks one by one through the
same service the Celery task calls, so the page's polling is seen to move."""

from __future__ import annotations

import re

import pytest

from planner.sweeps import services
from planner.sweeps.models import SweepRun
from tests.sweeps.conftest import A100, engine_spec, load_catalog, make_scenario

pytestmark = pytest.mark.django_db(transaction=True)


def _fill_form(page, live_server, scenario, nodes: str, deadline: str = "") -> None:
    page.goto(f"{live_server.url}/sweeps/new/{scenario.pk}/")
    page.check(f'input[name="gpus"][value="{A100}"]')
    page.fill("#id_nodes", nodes)
    page.fill("#id_cp", "1, 2")
    page.select_option("#id_objective", "min_tco")
    if deadline:
        page.fill("#id_deadline_days", deadline)
    page.click("text=Start the sweep")
    page.wait_for_url(re.compile(r"/sweeps/\d+/$"))


def _percent(page) -> float:
    return float(page.inner_text('#sweep-progress [data-field="percent"]'))


def test_a_sweep_started_in_the_browser_ends_with_a_pareto_chart(page, live_server, login, screenshot, alice):
    from planner.celery import app

    load_catalog()
    scenario = make_scenario(alice, name="Llama 3.1 8B, 1T tokens")
    login(page, alice)
    app.conf.task_always_eager = True
    try:
        _fill_form(page, live_server, scenario, "2-8 step 2", deadline="200")
    finally:
        app.conf.task_always_eager = False
    page.wait_for_selector('[data-chart="pareto"] svg.main-svg')
    assert page.inner_text("#sweep-status") == "Done"
    assert _percent(page) == 100.0
    legend = page.text_content('[data-chart="pareto"] g.legend')
    assert "H100 SXM5 80GB" in legend and "A100 SXM4 80GB" in legend and "Pareto front" in legend
    assert "Training time (days)" in page.text_content(
        '[data-chart="pareto"] svg.main-svg ~ svg, [data-chart="pareto"] .xtitle'
    )
    screenshot(page, "sweep-01-done")

    # Sort the TCO table by training time, descending then ascending.
    table = "#rows-min_tco"
    header = page.locator(f"{table} th button.sort", has_text="Training time")
    header.click()
    header.click()
    column = page.eval_on_selector_all(
        f"{table} thead th", "ths => ths.findIndex(th => th.textContent.includes('Training time'))"
    )
    days = page.eval_on_selector_all(
        f"{table} tbody tr", "(rows, i) => rows.map(r => parseFloat(r.cells[i].dataset.value))", column
    )
    assert days == sorted(days, reverse=True) and len(days) > 3

    # Open the best TCO row as a scenario.
    page.reload()
    page.locator("#rows-min_tco tbody tr").first.get_by_role("button", name="Open as scenario").click()
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    assert "nodes, TP" in page.inner_text("h1")


def test_progress_moves_without_a_reload_and_cancel_keeps_finished_chunks(
    page, live_server, login, screenshot, alice, monkeypatch, settings
):
    load_catalog()
    scenario = make_scenario(alice, name="Llama 3.1 8B, 1T tokens")
    monkeypatch.setattr(services, "_enqueue", lambda run_id: None)
    settings.SWEEP_CHUNK_CONFIGS = 3000
    login(page, alice)
    _fill_form(page, live_server, scenario, "2-16 step 2")
    run = SweepRun.objects.get(owner=alice)
    assert run.chunks_total >= 6
    assert page.inner_text("#sweep-status") == "Waiting for a worker"
    page.evaluate("window.__sameDocument = true")

    seen = []
    for index in range(3):
        services.sweep_chunk_run(run_id=run.pk, index=index, worker="browser-test")
        page.wait_for_function(
            "([p]) => parseFloat(document.querySelector('#sweep-progress [data-field=\"percent\"]').textContent) > p",
            arg=[seen[-1] if seen else 0.0],
        )
        seen.append(_percent(page))
    assert page.evaluate("window.__sameDocument") is True  # updated in place, no reload
    assert seen == sorted(seen) and 0 < seen[-1] < 100
    assert page.inner_text("#sweep-status") == "Running"
    assert page.inner_text('#sweep-progress [data-field="configs_per_s"]') != "—"
    assert page.inner_text('#sweep-progress [data-field="eta"]') != "—"
    screenshot(page, "sweep-02-running")

    page.click("#cancel-button")
    page.wait_for_selector('[data-chart="pareto"] svg.main-svg')
    assert page.inner_text("#sweep-status") == "Cancelled"
    assert "results below cover the 3 of" in page.inner_text("main")
    run.refresh_from_db()
    assert run.status == "cancelled" and run.chunks_done == 3
    screenshot(page, "sweep-03-cancelled")


def test_bob_cannot_see_alices_sweep_in_the_browser(page, live_server, login, alice, bob, monkeypatch):
    load_catalog()
    monkeypatch.setattr(services, "_enqueue", lambda run_id: None)
    run = services.sweep_create(owner=alice, scenario=make_scenario(alice), spec=engine_spec(nodes=[2]))
    login(page, bob)
    response = page.goto(f"{live_server.url}/sweeps/{run.pk}/")
    assert response.status == 404
