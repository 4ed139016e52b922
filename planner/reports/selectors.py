"""Read side of the exports: a report is fetched filtered by its owner, so another user's report is a 404."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.shortcuts import get_object_or_404
from django.urls import reverse

from planner.reports.models import Report
from planner.reports.services import report_overdue


def report_get(*, user: AbstractBaseUser, pk: int, with_pdf: bool = False) -> Report:
    """One of the user's reports (without its PDF bytes unless asked), or 404."""
    queryset = Report.objects.all() if with_pdf else Report.objects.defer("pdf")
    return get_object_or_404(queryset, pk=pk, owner=user)


def report_state(report: Report) -> dict[str, Any]:
    """What the report page's polling reads: status, whether to keep polling, and what a ready report shows."""
    overdue = report_overdue(report)
    return {
        "status": report.status,
        "status_label": report.get_status_display(),
        "active": report.is_active and not overdue,
        "overdue": overdue,
        "ready": report.is_ready,
        "pages": report.pages,
        "render_ms": round(report.render_ms) if report.render_ms is not None else None,
        "summary": report_summary(report),
        "download_url": reverse("reports:report_download", args=[report.pk]) if report.is_ready else None,
    }


def report_summary(report: Report) -> str:
    """ "12 pages, rendered in 2.4 s" for a finished report (empty before): seconds from one second on."""
    if not report.is_ready:
        return ""
    pages = f"{report.pages} page{'s' if report.pages != 1 else ''}" if report.pages else "The PDF"
    if report.render_ms is None:
        return pages
    took = f"{report.render_ms / 1000:.1f} s" if report.render_ms >= 1000 else f"{report.render_ms:.0f} ms"
    return f"{pages}, rendered in {took}"
