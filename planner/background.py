"""One shape for background work: a row with a status, a claim, attempts, a heartbeat and an error.

Sweeps (`SweepRun`, `SweepChunk`) and PDF reports (`Report`) are rows a Celery worker takes over. They share:

* one status set (`RunStatus`: pending -> running -> done | failed | cancelled);
* `BackgroundRun`, the abstract base of every such row: status, error, `updated_at` (the heartbeat: stamped by
  every save and by every claim);
* `ClaimedRun`, the base of the rows a worker claims one at a time (a chunk, a report): attempts, when its
  task was last published (`queued_at`) and when it was last claimed (the field `claimed_at_field` names:
  `claimed_at` on a chunk, `started_at` on a report, its name since reports began);
* `claim`, the one claim: a conditional UPDATE that takes a pending row, or a running one whose claim is stale
  (its worker is gone) or that this delivery may take over, and counts an attempt. Exactly one of several
  deliveries racing for a row gets it;
* `lost`, the one test planner/recovery.py applies to every kind: claimed by a worker long gone, or still
  waiting for a message that was published long ago.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, ClassVar

from django.db import models
from django.db.models import F, Q


class RunStatus(models.TextChoices):
    PENDING = "pending", "Waiting for a worker"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


#: Rows that can still make progress (and hold a place in a per-user limit).
ACTIVE_STATUSES = (RunStatus.PENDING, RunStatus.RUNNING)


class BackgroundRun(models.Model):
    """A unit of background work: its status, the error that ended it and when it last changed."""

    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.PENDING)
    error = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True, help_text="Heartbeat: the last save or claim.")

    class Meta:
        abstract = True

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES


class ClaimedRun(BackgroundRun):
    """Background work a worker claims (`claim`): its attempts and when its task was last published. Each
    subclass declares the time of its claim as a DateTimeField and names it in `claimed_at_field`."""

    claimed_at_field: ClassVar[str] = "claimed_at"

    attempts = models.PositiveIntegerField(default=0)
    queued_at = models.DateTimeField(
        null=True, blank=True, help_text="When this row's task message was last published."
    )

    class Meta:
        abstract = True


def _published_before(moment: datetime) -> Q:
    return Q(queued_at__isnull=True) | Q(queued_at__lt=moment)


def claim(
    rows: models.QuerySet,
    *,
    now: datetime,
    stale_s: float,
    takeover: bool = False,
    max_attempts: int | None = None,
    **stamp: Any,
) -> bool:
    """Claim the row `rows` selects (one row): pending, or running with a claim older than `stale_s` (its
    worker is gone), or running at all when `takeover` (a broker redelivery of this very task), and below
    `max_attempts`. One conditional UPDATE sets it running, stamps the claim time, the heartbeat and `stamp`,
    and counts the attempt; True when this call got the row."""
    model = rows.model
    claimed_at = model.claimed_at_field
    claimable = Q(status=RunStatus.PENDING) | Q(
        status=RunStatus.RUNNING, **{f"{claimed_at}__lt": now - timedelta(seconds=stale_s)}
    )
    if takeover:
        claimable |= Q(status=RunStatus.RUNNING)
    chosen = rows.filter(claimable)
    if max_attempts is not None:
        chosen = chosen.filter(attempts__lt=max_attempts)
    updated = chosen.update(
        status=RunStatus.RUNNING,
        attempts=F("attempts") + 1,
        updated_at=now,
        **{claimed_at: now},
        **stamp,
    )
    return updated == 1


def stale_claims(model: type[ClaimedRun], *, stale_before: datetime) -> Q:
    """The rows of `model` running under a claim older than `stale_before`: their worker stopped."""
    return Q(status=RunStatus.RUNNING, **{f"{model.claimed_at_field}__lt": stale_before})


def lost(model: type[ClaimedRun], *, stale_before: datetime, waiting_before: datetime | None = None) -> Q:
    """The rows of `model` whose work was lost: running under a claim older than `stale_before` (its worker
    stopped) and not published again since; and, when `waiting_before` is given (the caller saw its queue
    empty), pending rows whose message was published before it (the broker lost it)."""
    found = stale_claims(model, stale_before=stale_before) & _published_before(stale_before)
    if waiting_before is not None:
        found |= Q(status=RunStatus.PENDING) & _published_before(waiting_before)
    return found


def fail(rows: models.QuerySet, *, error: str, now: datetime, **stamp: Any) -> int:
    """Fail the active rows among `rows` with `error` (and `stamp`); how many it failed."""
    return rows.filter(status__in=ACTIVE_STATUSES).update(
        status=RunStatus.FAILED, error=error, updated_at=now, **stamp
    )
