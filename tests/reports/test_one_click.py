"""One click to a PDF (issue 18, point 7): the first visit to a result's page starts its PDF on a worker, so the
click on "PDF report" usually gets the file at once; that automatic render is the app's own work, so it spends
none of the user's report budget, does not count in their pending-report limit, and never breaks the page when
the broker is down. When the click comes before the render is done, the report page polls its status and
starts the download by itself (tests/browser/test_one_click_pdf_browser.py clicks it in chromium)."""

from __future__ import annotations

import re
import time

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

from planner.reports import services
from planner.reports.models import Report, ReportKind, ReportStatus
from tests.planner.conftest import make_scenario
from tests.reports.conftest import alice_b200, alice_scenario, alice_sweep, catalog  # noqa: F401 (fixtures)
from tests.sweeps.test_sweep_broker_down import dead_broker  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def _pdf_url(scenario) -> str:
    return reverse("reports:scenario_pdf", args=[scenario.pk])


def test_the_first_visit_starts_the_pdf_and_the_click_then_gets_the_file(alice_client, alice, alice_scenario):  # noqa: F811
    assert alice_client.get(alice_scenario.get_absolute_url()).status_code == 200
    report = Report.objects.get(owner=alice)
    assert report.automatic and report.kind == ReportKind.SCENARIO and report.status == ReportStatus.PENDING
    assert report.params["result_id"] == alice_scenario.latest_result_id and not report.rendered_inline
    alice_client.get(alice_scenario.get_absolute_url())
    assert Report.objects.count() == 1  # later visits start nothing more

    # Clicked before the worker is done: the page of that same report, which downloads when it is ready.
    response = alice_client.get(_pdf_url(alice_scenario))
    assert response.status_code == 302 and response["Location"] == f"/reports/{report.pk}/?download=1"
    assert Report.objects.count() == 1

    assert services.report_render(report_id=report.pk)  # the worker
    state = alice_client.get(reverse("reports:report_status", args=[report.pk])).json()
    assert re.fullmatch(r"\d+ pages, rendered in \d+(\.\d s| ms)", state["summary"]), state["summary"]
    response = alice_client.get(_pdf_url(alice_scenario))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-") and "attachment" in response["Content-Disposition"]
    assert Report.objects.count() == 1


def test_a_new_result_gets_its_own_pdf_on_the_next_visit(alice_client, alice, alice_scenario):  # noqa: F811
    from planner import services as planner_services

    alice_client.get(alice_scenario.get_absolute_url())
    first = Report.objects.get(owner=alice)
    services.report_render(report_id=first.pk)
    planner_services.scenario_reevaluate(scenario=alice_scenario)  # a new result is saved
    alice_client.get(alice_scenario.get_absolute_url())
    newest = Report.objects.exclude(pk=first.pk).get()
    assert (
        newest.automatic
        and newest.params["result_id"] == alice_scenario.latest_result_id != first.params["result_id"]
    )
    earlier = reverse("scenario_result", args=[alice_scenario.pk, first.params["result_id"]])
    alice_client.get(earlier)  # an earlier result's page starts nothing
    assert Report.objects.count() == 2


@override_settings(RATE_LIMITS={"report": "1/d"})
def test_the_automatic_render_spends_none_of_the_users_report_budget(alice_client, alice, alice_scenario):  # noqa: F811
    for _ in range(3):
        alice_client.get(alice_scenario.get_absolute_url())
    assert alice_client.get(_pdf_url(alice_scenario)).status_code == 302  # their one report of the day
    assert alice_client.get(_pdf_url(alice_scenario)).status_code == 429  # the limit is real


@override_settings(REPORT_MAX_PENDING_PER_USER=1)
def test_the_automatic_render_does_not_count_in_the_users_pending_limit(
    alice_client,
    alice,
    alice_scenario,  # noqa: F811
    alice_b200,  # noqa: F811
):
    alice_client.get(alice_scenario.get_absolute_url())
    assert Report.objects.filter(automatic=True, status=ReportStatus.PENDING).count() == 1
    # Their own click on that plan's PDF is the automatic report; on the other plan's, their one pending report.
    assert alice_client.get(_pdf_url(alice_scenario)).status_code == 302
    assert alice_client.get(_pdf_url(alice_b200)).status_code == 302
    assert Report.objects.filter(owner=alice, automatic=False).count() == 1
    compare = reverse("reports:comparison_pdf") + f"?ids={alice_scenario.pk}&ids={alice_b200.pk}"
    assert alice_client.get(compare).status_code == 429  # the user's limit still holds for their own clicks


@override_settings(REPORT_PRERENDER_MAX_PENDING_PER_USER=1)
def test_one_automatic_render_waits_at_a_time_per_user(alice_client, alice, alice_scenario, alice_b200):  # noqa: F811
    alice_client.get(alice_scenario.get_absolute_url())
    alice_client.get(alice_b200.get_absolute_url())
    (waiting,) = Report.objects.filter(owner=alice)
    assert waiting.params["scenario_id"] == alice_scenario.pk
    services.report_render(report_id=waiting.pk)
    alice_client.get(alice_b200.get_absolute_url())  # tried again on a later visit once the first is done
    assert Report.objects.get(owner=alice, params__scenario_id=alice_b200.pk).automatic


@override_settings(REPORT_PRERENDER_MAX_PENDING_PER_USER=0)
def test_automatic_renders_can_be_turned_off(alice_client, alice_scenario):  # noqa: F811
    alice_client.get(alice_scenario.get_absolute_url())
    assert Report.objects.count() == 0


def test_a_failed_automatic_render_is_not_repeated_on_every_visit_and_the_click_asks_anew(
    alice_client,
    alice,
    alice_scenario,  # noqa: F811
):
    alice_client.get(alice_scenario.get_absolute_url())
    failed = Report.objects.get()
    Report.objects.filter(pk=failed.pk).update(status=ReportStatus.FAILED, error="RuntimeError: boom")
    cache.clear()  # even without the visit mark, the failed row itself stops a new automatic render
    alice_client.get(alice_scenario.get_absolute_url())
    assert Report.objects.count() == 1
    response = alice_client.get(_pdf_url(alice_scenario))
    fresh = Report.objects.exclude(pk=failed.pk).get()
    assert response.status_code == 302 and not fresh.automatic and fresh.status == ReportStatus.PENDING


def test_with_the_broker_down_the_page_and_saving_work_and_nothing_is_kept(
    alice_client,
    alice,
    catalog,  # noqa: F811
    dead_broker,  # noqa: F811
):
    from planner.models import Scenario

    scenario = make_scenario(alice, name="saved while the broker is down")
    response = alice_client.get(scenario.get_absolute_url())
    assert response.status_code == 200 and "saved while the broker is down" in response.content.decode()
    assert Report.objects.count() == 0 and cache.get(services.PRERENDER_PAUSE_KEY)
    started = time.monotonic()
    assert alice_client.get(scenario.get_absolute_url()).status_code == 200
    assert time.monotonic() - started < 1.5  # paused: no second wait on the broker
    # Saving a new result ("Evaluate again") stores it and shows its page; still no report row.
    before = scenario.latest_result_id
    saved = alice_client.post(reverse("scenario_reevaluate", args=[scenario.pk]), follow=True)
    assert saved.status_code == 200 and saved.redirect_chain[-1][0] == scenario.get_absolute_url()
    assert Scenario.objects.get(pk=scenario.pk).latest_result_id != before
    assert Report.objects.count() == 0


def test_a_refused_publish_after_the_check_keeps_no_row_and_the_page_works(
    alice_client,
    alice,
    alice_scenario,  # noqa: F811
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    monkeypatch.setattr(services, "_enqueue", lambda report_id: False)
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.get(alice_scenario.get_absolute_url())
    assert response.status_code == 200 and Report.objects.count() == 0
    assert cache.get(services.PRERENDER_PAUSE_KEY)


def test_a_finished_sweeps_page_starts_its_pdf(alice_client, alice, alice_sweep):  # noqa: F811
    alice_client.get(alice_sweep.get_absolute_url())
    report = Report.objects.get(owner=alice)
    assert report.automatic and report.kind == ReportKind.SWEEP
    response = alice_client.get(reverse("reports:sweep_pdf", args=[alice_sweep.pk]))
    assert response["Location"] == f"/reports/{report.pk}/?download=1"


def test_the_status_of_a_report_is_its_owners_only(alice_client, client, bob, alice, alice_scenario):  # noqa: F811
    alice_client.get(alice_scenario.get_absolute_url())
    report = Report.objects.get()
    url = reverse("reports:report_status", args=[report.pk])
    state = alice_client.get(url)
    assert state.status_code == 200 and "no-store" in state["Cache-Control"]
    assert state.json() == {
        "status": "pending",
        "status_label": "Waiting for a worker",
        "active": True,
        "overdue": False,
        "ready": False,
        "pages": None,
        "render_ms": None,
        "summary": "",
        "download_url": None,
    }
    client.force_login(bob)
    assert client.get(url).status_code == 404
