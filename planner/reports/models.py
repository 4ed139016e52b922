"""A Report row per PDF: what was asked for, its status while a worker renders it, and the finished PDF.

PDFs that render in about a second are made in the request; slower ones are made by a Celery task that reads this
row (every background job is a row with status, timings and error; the page reads the row, never Celery's
result backend). The PDF bytes live in the row, so any web server behind the same database can serve a
PDF that any worker rendered. A finished row is also a cache: asking again for the same figures (same results,
same share link, same report format) returns it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from planner.background import ClaimedRun, RunStatus


class ReportKind(models.TextChoices):
    SCENARIO = "scenario", "Scenario report"
    COMPARISON = "comparison", "Comparison report"
    SWEEP = "sweep", "Sweep report"


#: One status set for every kind of background work (planner/background.py); the name stays for readers.
ReportStatus = RunStatus
#: How a report's status reads (a report renders; a finished one is ready).
STATUS_WORDS = {RunStatus.RUNNING: "Rendering", RunStatus.DONE: "Ready"}


class Report(ClaimedRun):
    """One PDF export, owned by the user who asked for it. Its claim time is `started_at`."""

    claimed_at_field = "started_at"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports")
    kind = models.CharField(max_length=12, choices=ReportKind.choices)
    params = models.JSONField(
        default=dict, help_text="What to render: scenario_ids / sweep_id, result ids and the share link."
    )
    fingerprint = models.CharField(
        max_length=64, help_text="SHA-256 of kind, params and report format: equal figures, equal PDF."
    )
    title = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    render_ms = models.FloatField(null=True, blank=True, help_text="Wall-clock milliseconds of the render.")
    pages = models.PositiveIntegerField(null=True, blank=True)
    filename = models.CharField(max_length=120, blank=True)
    pdf = models.BinaryField(null=True, blank=True, editable=False)
    rendered_inline = models.BooleanField(
        default=False, help_text="Rendered in the web request, not a worker."
    )
    automatic = models.BooleanField(
        default=False,
        help_text="Started by the app before anyone asked (a saved result's PDF, rendered ahead of the click); "
        "not counted in the user's report limits.",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["owner", "fingerprint"], name="report_owner_fingerprint"),
            models.Index(fields=["kind", "status", "-finished_at"], name="report_kind_status_finished"),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({STATUS_WORDS.get(self.status, self.get_status_display())})"

    def get_absolute_url(self) -> str:
        return reverse("reports:report_detail", args=[self.pk])

    @property
    def is_ready(self) -> bool:
        return self.status == ReportStatus.DONE


__all__ = ["Report", "ReportKind", "ReportStatus"]
