"""One click to a PDF in Debian's chromium (issue 18, point 7). Opening a result's page starts its PDF on a
worker; a click on "PDF report" before the worker is done opens the report's page, which polls and starts the
download by itself when the PDF is ready: one click, one file. A click once it is ready downloads at once.

The worker is the test thread, as in test_sweep_browser: while the report page is open the test renders the
report through the same service the Celery task calls, so the page is seen to notice it without a reload. The
page runs under the app's Content-Security-Policy and raises no violation."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from planner.middleware import CONTENT_SECURITY_POLICY
from planner.reports import services
from planner.reports.models import Report, ReportStatus
from tests.browser.test_csp_browser import VIOLATIONS_JS
from tests.planner.conftest import make_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: A scenario PDF renders in about 2 s on the 2-core machine, far longer when it is loaded.
RENDER_WAIT_MS = 120_000


def _with_policy(route) -> None:
    """The app's policy on every answer; redirects are handed to the browser (so its address bar follows)."""
    response = route.fetch(max_redirects=0)
    route.fulfill(
        response=response, headers={**response.headers, "content-security-policy": CONTENT_SECURITY_POLICY}
    )


def test_one_click_on_pdf_report_gets_the_file(page, live_server, login, screenshot, alice):
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())
    scenario = make_scenario(alice, name="Llama 3.1 70B on 64 H100s")
    page.set_default_timeout(60_000)  # the first visit also renders the charts and reaches the broker
    page.add_init_script(VIOLATIONS_JS)
    page.route(f"{live_server.url}/**", _with_policy)
    login(page, alice)

    page.goto(live_server.url + scenario.get_absolute_url())
    report = Report.objects.get(owner=alice)  # the visit started the PDF; no worker has taken it yet
    assert report.automatic and report.status == ReportStatus.PENDING

    # One click before the PDF is ready: the report's page, which downloads the file by itself.
    with page.expect_download(timeout=RENDER_WAIT_MS) as first:
        page.click('[data-export="scenario-pdf"]')
        page.wait_for_url(re.compile(rf"/reports/{report.pk}/\?download=1$"))
        status = page.locator('[data-testid="report-status"]')
        assert status.get_attribute("data-status") == "pending"
        assert "starts by itself" in status.inner_text()
        screenshot(page, "pdf-01-preparing")
        assert services.report_render(report_id=report.pk)  # the worker
    download = first.value
    assert download.suggested_filename.endswith(".pdf")
    with open(download.path(), "rb") as fh:
        assert fh.read(5) == b"%PDF-"
    page.wait_for_selector('[data-testid="report-status"][data-status="done"]')
    assert page.locator('[data-when="ready"] [data-testid="report-download"]').is_visible()
    assert "download=1" not in page.url  # a reload does not download it again
    screenshot(page, "pdf-02-ready-downloaded")

    # Ready before the click (the usual case): the click is the download.
    page.goto(live_server.url + scenario.get_absolute_url())
    with page.expect_download(timeout=30_000) as second:
        page.click('[data-export="scenario-pdf"]')
    assert second.value.suggested_filename == download.suggested_filename
    assert Report.objects.filter(owner=alice).count() == 1
    assert page.evaluate("window.__cspViolations") == []
