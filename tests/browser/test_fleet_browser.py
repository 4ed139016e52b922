"""The fleet page in a browser: the example plan edited in its tables, solved (Celery, eager here) and shown as a
purchase timeline, GPUs per pool, cost and power charts; a bad cell shown on that cell; the PDF downloaded."""

from __future__ import annotations

import re

from planner.fleets.models import FleetPlan


def test_a_fleet_plan_edited_in_its_tables_is_solved_and_charted(
    page, live_server, login, screenshot, screenshot_dir, alice
):
    import planner.fleets.tasks  # noqa: F401  (registered as a worker's autodiscovery does)
    from planner.celery import app

    login(page, alice)
    page.goto(f"{live_server.url}/fleets/new/")
    page.fill("#id_name", "Example fleet")
    page.fill("#id_workloads-0-start_period", "3")
    page.fill("#id_workloads-0-deadline_period", "1")
    page.click("button[name=save]")
    error = page.locator("#workloads-table .error").first
    assert "must not be before start_period" in error.inner_text()
    screenshot(page, "fleet-01-bad-cell")
    page.fill("#id_workloads-0-start_period", "0")
    page.fill("#id_workloads-0-deadline_period", "3")
    page.fill("#id_pools-0-existing_nodes", "2")
    app.conf.task_always_eager = True
    try:
        page.click("button[name=solve]")
        page.wait_for_url(re.compile(r"/fleets/\d+/$"), timeout=180_000)  # solved in the request (eager)
    finally:
        app.conf.task_always_eager = False
    page.wait_for_selector('[data-chart="purchases"] svg.main-svg')
    page.wait_for_selector('[data-chart="cost"] svg.main-svg')
    assert "Solved" in page.inner_text("#fleet-status")
    plan = FleetPlan.objects.get(owner=alice)
    assert plan.payload["pools"][0]["existing_nodes"] == 2
    assert page.locator("#purchases-table tbody tr").count() == len(plan.result["purchases"])
    assert "1g.10gb" in page.inner_text("#sharing-table")
    screenshot(page, "fleet-02-results")
    response = page.request.get(f"{live_server.url}/fleets/{plan.pk}/report.pdf")
    assert response.status == 200 and response.body().startswith(b"%PDF")
    (screenshot_dir / "fleet-report.pdf").write_bytes(response.body())  # looked at beside the screenshots
