"""Retention: what old background results are kept, and how much one user may store.

Run daily by Celery beat (planner.prune) and by `manage.py prune_storage`:

* finished PDF reports older than REPORT_RETENTION_DAYS (30) lose their row (asking again renders anew);
* finished, failed or cancelled sweeps older than SWEEP_RETENTION_DAYS (180) keep their merged result (the page's
  rankings, Pareto front and per-GPU tables) but drop the per-configuration rows of their chunks (the CSV of
  every configuration and "open as scenario" then say the rows were pruned);
* each scenario keeps its latest RESULTS_KEPT_PER_SCENARIO (50) results (the latest one always).

Per user: a new sweep is refused while the user's stored sweep rows exceed USER_SWEEP_STORAGE_MB (1,024 MB);
one 49M-configuration sweep stores ~23 MB, a serving sweep of 256 configurations (its chunks' JSON) ~0.65 MB. A new PDF the user asks for is refused (and the app's automatic
pre-renders are skipped) while the user's finished PDFs (the bytes in Report.pdf) exceed USER_REPORT_STORAGE_MB
(500 MB).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Sum, TextField
from django.db.models.functions import Cast, Coalesce, Length
from django.utils import timezone

from planner.models import Scenario, ScenarioResult
from planner.reports.models import Report, ReportStatus
from planner.sweeps.models import ACTIVE_STATUSES, SweepChunk, SweepKind

DEFAULTS = {
    "REPORT_RETENTION_DAYS": 30,
    "SWEEP_RETENTION_DAYS": 180,
    "RESULTS_KEPT_PER_SCENARIO": 50,
    "USER_SWEEP_STORAGE_MB": 1024,
    "USER_REPORT_STORAGE_MB": 500,
}


def _setting(name: str) -> int:
    return int(getattr(settings, name, DEFAULTS[name]))


@dataclass
class Pruned:
    reports: int = 0
    sweep_chunks: int = 0
    results: int = 0


def prune(now: datetime | None = None) -> Pruned:
    """One retention pass (see the module's docstring)."""
    now = now or timezone.now()
    done = Pruned()
    old_reports = now - timedelta(days=_setting("REPORT_RETENTION_DAYS"))
    done.reports, _ = Report.objects.filter(
        status__in=(ReportStatus.DONE, ReportStatus.FAILED), finished_at__lt=old_reports
    ).delete()
    old_sweeps = now - timedelta(days=_setting("SWEEP_RETENTION_DAYS"))
    done.sweep_chunks = (
        SweepChunk.objects.filter(run__finished_at__lt=old_sweeps, rows__isnull=False)
        .exclude(run__status__in=ACTIVE_STATUSES)
        .update(rows=None)
    )
    keep = _setting("RESULTS_KEPT_PER_SCENARIO")
    for scenario in Scenario.objects.filter(results__isnull=False).distinct().only("pk", "latest_result_id"):
        kept = list(
            ScenarioResult.objects.filter(scenario=scenario)
            .order_by("-created_at", "-pk")
            .values_list("pk", flat=True)[:keep]
        )
        stale = ScenarioResult.objects.filter(scenario=scenario).exclude(pk__in=kept)
        if scenario.latest_result_id:
            stale = stale.exclude(pk=scenario.latest_result_id)
        deleted, _ = stale.delete()
        done.results += deleted
    return done


def user_sweep_storage_bytes(user: AbstractBaseUser) -> int:
    """The user's stored sweep rows: training chunks' row blobs, and serving chunks' configurations and rows
    (JSON, measured as text: a serving sweep of 256 configurations stores ~0.65 MB)."""
    total = SweepChunk.objects.filter(run__owner=user, rows__isnull=False).aggregate(n=Sum(Length("rows")))[
        "n"
    ]
    as_text = Coalesce(Length(Cast("pieces", TextField())), 0) + Coalesce(
        Length(Cast("summary", TextField())), 0
    )
    serving = SweepChunk.objects.filter(run__owner=user, run__kind=SweepKind.SERVING).aggregate(
        n=Sum(as_text)
    )["n"]
    return int(total or 0) + int(serving or 0)


def sweep_storage_problem(user: AbstractBaseUser) -> str | None:
    """Why this user may not start another sweep for storage (None: they may)."""
    limit_mb = _setting("USER_SWEEP_STORAGE_MB")
    used_mb = user_sweep_storage_bytes(user) / 1e6
    if used_mb <= limit_mb:
        return None
    return (
        f"Your sweeps store {used_mb:,.0f} MB of per-configuration rows, over the {limit_mb:,} MB each user may "
        "keep. Delete old sweeps, or wait for rows older than the retention period to be pruned."
    )


def user_report_storage_bytes(user: AbstractBaseUser) -> int:
    """Bytes of the user's stored PDFs (the rows' `pdf` column; only finished reports have one)."""
    total = Report.objects.filter(owner=user, pdf__isnull=False).aggregate(n=Sum(Length("pdf")))["n"]
    return int(total or 0)


def report_storage_problem(user: AbstractBaseUser) -> str | None:
    """Why this user may not store another PDF report (None: they may)."""
    limit_mb = _setting("USER_REPORT_STORAGE_MB")
    used_mb = user_report_storage_bytes(user) / 1e6
    if used_mb <= limit_mb:
        return None
    return (
        f"Your PDF reports store {used_mb:,.0f} MB, over the {limit_mb:,} MB each user may keep, so no new "
        f"report was started. Finished PDFs are deleted {_setting('REPORT_RETENTION_DAYS')} days after they "
        "were made; reports you already have still download."
    )
