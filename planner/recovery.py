"""Self-healing of background work: what Celery beat runs every minute (planner.recover, RECOVERY_INTERVAL_S).

A worker killed mid-task, a broker restart or a lost message leaves a sweep chunk or a PDF report claimed by
nobody alive, or waiting for a message that no longer exists. This finds them and either publishes their task
again or, past their attempts, fails them with the reason, so nothing waits forever:

* a chunk or report whose claim is stale (older than its time limit and a minute: its worker is gone) is
  published again; its claim function takes a stale claim over, and its result is counted only by the
  delivery holding the claim, so a late original and the new message never count twice;
* a chunk or report still waiting, whose message was published more than the stall window ago, is published
  again only when its queue holds no waiting message (so a chunk or report still queued behind other work
  never gets a second message);
* a chunk or report that has used its attempts (SWEEP_CHUNK_MAX_ATTEMPTS, REPORT_MAX_ATTEMPTS) fails, with the
  sweep it belongs to.

What counts as lost, stale or exhausted is written once, for every kind, in planner/background.py (the shared
background-run base: status, claim time, attempts, queued_at, heartbeat); the steps below only say what to do
with each kind's lost rows.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from planner import background, queueing
from planner.reports import services as report_services
from planner.reports.models import Report
from planner.sweeps import conf as sweep_conf
from planner.sweeps import services as sweep_services
from planner.sweeps.models import ACTIVE_STATUSES, SweepChunk, SweepRun

logger = logging.getLogger(__name__)

#: Seconds between two recovery passes (the beat schedule in settings.CELERY_BEAT_SCHEDULE).
RECOVERY_INTERVAL_S = 60
#: Renders of one report before it is failed (settings.REPORT_MAX_ATTEMPTS).
REPORT_MAX_ATTEMPTS_DEFAULT = 3


@dataclass
class Recovered:
    chunks_requeued: int = 0
    sweeps_failed: int = 0
    reports_requeued: int = 0
    reports_failed: int = 0


def recover(now: datetime | None = None) -> Recovered:
    """One pass over every active sweep and report (see the module's docstring)."""
    now = now or timezone.now()
    done = Recovered()
    recover_sweeps(now, done)
    recover_reports(now, done)
    if any(vars(done).values()):
        logger.warning("recovered background work: %s", done)
    return done


def recover_sweeps(now: datetime, done: Recovered) -> None:
    """Chunks past their attempts fail their sweep; lost chunks are published again (sweep_requeue)."""
    stale = now - timedelta(seconds=sweep_conf.claim_stale_s())
    max_attempts = int(sweep_conf.value("SWEEP_CHUNK_MAX_ATTEMPTS"))
    queue = sweep_conf.value("SWEEP_QUEUE") or ""
    queue_empty = queueing.waiting_messages(queue or "celery") == 0
    for run_id in SweepRun.objects.filter(status__in=ACTIVE_STATUSES).values_list("pk", flat=True):
        exhausted = SweepChunk.objects.filter(
            background.stale_claims(SweepChunk, stale_before=stale), run_id=run_id, attempts__gte=max_attempts
        ).first()
        if exhausted is not None:
            if sweep_services.sweep_chunk_fail(
                run_id=run_id,
                index=exhausted.index,
                error=f"its worker stopped {exhausted.attempts} times while evaluating it (killed, out of "
                "memory or past the time limit); lower SWEEP_CHUNK_CONFIGS for smaller chunks",
            ):
                done.sweeps_failed += 1
            continue
        done.chunks_requeued += sweep_services.sweep_requeue(
            run_id=run_id, queue=queue, include_waiting=queue_empty, now=now
        )


def recover_reports(now: datetime, done: Recovered) -> None:
    """Lost reports are published again (report_publish), or failed once past their attempts."""
    stale = now - timedelta(seconds=report_services.claim_stale_s())
    max_attempts = int(getattr(settings, "REPORT_MAX_ATTEMPTS", REPORT_MAX_ATTEMPTS_DEFAULT))
    queue_empty = queueing.waiting_messages(queueing.report_queue()) == 0
    lost = background.lost(Report, stale_before=stale, waiting_before=stale if queue_empty else None)
    for report in Report.objects.filter(lost, rendered_inline=False).defer("pdf"):
        if report.attempts >= max_attempts:
            done.reports_failed += background.fail(
                Report.objects.filter(pk=report.pk),
                error=f"Its worker stopped {report.attempts} times while rendering it; try again later.",
                now=now,
                finished_at=now,
            )
        elif report_services.report_publish(report_id=report.pk):
            done.reports_requeued += 1
