"""Per-user storage for PDF reports (USER_REPORT_STORAGE_MB): over it, a report the user asks for is a 429 with
the reason and keeps no row, and the app's automatic pre-renders are skipped; under it, both work as before."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from planner import retention
from planner.reports import services
from planner.reports.models import Report, ReportKind, ReportStatus
from tests.reports.conftest import alice_b200, alice_scenario, catalog, renders_fast  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

OVER_MESSAGE = "over the 1 MB each user may keep"


def _stored_pdf(owner, size_bytes: int, fingerprint: str = "stored") -> Report:
    """A finished report whose PDF takes `size_bytes` in the database."""
    return Report.objects.create(
        owner=owner,
        kind=ReportKind.SCENARIO,
        fingerprint=fingerprint,
        title="an earlier report",
        status=ReportStatus.DONE,
        finished_at=timezone.now(),
        pdf=b"%PDF-" + b"x" * (size_bytes - 5),
    )


def _pdf_url(scenario) -> str:
    return reverse("reports:scenario_pdf", args=[scenario.pk])


def test_the_storage_counted_is_the_bytes_of_the_users_own_pdfs(alice, bob):
    _stored_pdf(alice, 1_200_000, "a")
    _stored_pdf(alice, 300_000, "b")
    _stored_pdf(bob, 900_000, "c")
    Report.objects.create(owner=alice, kind=ReportKind.SCENARIO, fingerprint="d", title="pending")
    assert retention.user_report_storage_bytes(alice) == 1_500_000
    assert retention.user_report_storage_bytes(bob) == 900_000


@override_settings(USER_REPORT_STORAGE_MB=1)
def test_over_the_limit_a_report_is_refused_with_the_reason_and_no_row(alice_client, alice, alice_scenario):  # noqa: F811
    _stored_pdf(alice, 1_600_000)
    response = alice_client.get(_pdf_url(alice_scenario))
    assert response.status_code == 429
    page = response.content.decode()
    assert OVER_MESSAGE in page and "Your PDF reports store 2 MB" in page
    assert list(Report.objects.values_list("fingerprint", flat=True)) == ["stored"]


@override_settings(USER_REPORT_STORAGE_MB=1)
def test_over_the_limit_a_report_that_would_render_in_the_request_is_refused_too(
    alice_client,
    alice,
    alice_scenario,  # noqa: F811
    renders_fast,  # noqa: F811
):
    _stored_pdf(alice, 1_500_000)
    before = Report.objects.count()
    response = alice_client.get(_pdf_url(alice_scenario))
    assert response.status_code == 429 and OVER_MESSAGE in response.content.decode()
    assert Report.objects.count() == before


@override_settings(USER_REPORT_STORAGE_MB=1)
def test_a_pdf_already_made_still_downloads_over_the_limit(alice_client, alice, alice_scenario):  # noqa: F811
    alice_client.get(alice_scenario.get_absolute_url())  # the automatic render, made while under the limit
    (report,) = Report.objects.filter(owner=alice)
    services.report_render(report_id=report.pk)
    _stored_pdf(alice, 1_500_000)
    response = alice_client.get(_pdf_url(alice_scenario))
    assert response.status_code == 200 and response.content.startswith(b"%PDF-")


@override_settings(USER_REPORT_STORAGE_MB=1)
def test_under_the_limit_a_report_is_accepted(alice_client, alice, alice_scenario):  # noqa: F811
    _stored_pdf(alice, 500_000)
    response = alice_client.get(_pdf_url(alice_scenario))
    assert response.status_code == 302
    assert Report.objects.filter(owner=alice, kind=ReportKind.SCENARIO, automatic=False).count() == 2


@override_settings(USER_REPORT_STORAGE_MB=1)
def test_another_users_pdfs_do_not_count(alice_client, alice, bob, alice_scenario):  # noqa: F811
    _stored_pdf(bob, 1_500_000)
    assert alice_client.get(_pdf_url(alice_scenario)).status_code == 302


@override_settings(USER_REPORT_STORAGE_MB=1)
def test_over_the_limit_the_automatic_render_is_skipped_and_resumes_once_space_is_freed(
    alice_client,
    alice,
    alice_scenario,  # noqa: F811
):
    stored = _stored_pdf(alice, 1_500_000)
    assert alice_client.get(alice_scenario.get_absolute_url()).status_code == 200  # the page never fails
    assert not Report.objects.filter(automatic=True).exists()
    stored.delete()  # e.g. pruned after REPORT_RETENTION_DAYS
    alice_client.get(alice_scenario.get_absolute_url())
    assert Report.objects.filter(owner=alice, automatic=True, status=ReportStatus.PENDING).count() == 1
