"""The periodic recovery pass (Celery beat, planner.recover): stale claims are published again once, waiting
chunks only when their queue is empty, and work past its attempts fails with the reason."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from planner import queueing, recovery
from planner.celery import app
from planner.reports import services as report_services
from planner.reports.models import Report, ReportKind, ReportStatus
from planner.sweeps import conf, services
from planner.sweeps.models import ChunkStatus, SweepChunk, SweepRun, SweepStatus
from tests.hardening.test_resume import Published
from tests.sweeps.conftest import alice_scenario, catalog  # noqa: F401 (fixtures)
from tests.sweeps.test_sweep_services import create  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def _ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


@pytest.fixture
def published(monkeypatch) -> Published:
    out = Published()
    monkeypatch.setattr(services, "group", out)
    return out


def test_beat_runs_the_recovery_task_every_minute():
    entry = settings.CELERY_BEAT_SCHEDULE["recover-background-work"]
    assert entry["task"] == "planner.recover" and entry["schedule"] == 60.0
    app.loader.import_default_modules()  # what a worker does at start: autodiscovers planner/tasks.py
    assert "planner.recover" in app.tasks


def test_a_chunk_whose_worker_died_is_published_again_once(create, published, monkeypatch):  # noqa: F811
    monkeypatch.setattr(queueing, "waiting_messages", lambda queue: 5)  # other work waits in the queue
    run = create()
    stale = conf.claim_stale_s() + 5
    SweepChunk.objects.filter(run=run, index=0).update(
        status=ChunkStatus.RUNNING, claimed_at=_ago(stale), attempts=1, queued_at=_ago(stale)
    )
    SweepChunk.objects.filter(run=run).exclude(index=0).update(queued_at=_ago(10_000))
    first = recovery.recover()
    assert published.chunks == [0] and first.chunks_requeued == 1  # the waiting ones may still be queued
    assert recovery.recover().chunks_requeued == 0 and published.chunks == [0]


def test_waiting_chunks_are_published_again_only_when_their_queue_is_empty(create, published, monkeypatch):  # noqa: F811
    run = create()
    SweepChunk.objects.filter(run=run).update(queued_at=_ago(conf.value("SWEEP_STALLED_S") + 5))
    monkeypatch.setattr(queueing, "waiting_messages", lambda queue: None)  # the broker cannot say
    assert recovery.recover().chunks_requeued == 0
    monkeypatch.setattr(queueing, "waiting_messages", lambda queue: 0)
    assert recovery.recover().chunks_requeued == run.chunks_total
    assert recovery.recover().chunks_requeued == 0
    assert sorted(published.chunks) == list(range(run.chunks_total))


def test_a_chunk_past_its_attempts_fails_the_sweep(create, published):  # noqa: F811
    run = create()
    SweepChunk.objects.filter(run=run, index=1).update(
        status=ChunkStatus.RUNNING,
        claimed_at=_ago(conf.claim_stale_s() + 5),
        attempts=conf.value("SWEEP_CHUNK_MAX_ATTEMPTS"),
    )
    assert recovery.recover().sweeps_failed == 1
    run.refresh_from_db()
    assert run.status == SweepStatus.FAILED and "Chunk 1 failed: its worker stopped" in run.error
    assert published.chunks == []
    assert SweepRun.objects.filter(status__in=["pending", "running"]).count() == 0


def _report(owner, **fields) -> Report:
    return Report.objects.create(
        owner=owner, kind=ReportKind.SCENARIO, params={}, fingerprint="f", title="t", **fields
    )


def test_a_report_whose_worker_died_is_published_again_then_failed_past_its_attempts(alice, monkeypatch):
    sent: list[int] = []
    monkeypatch.setattr(report_services, "_enqueue", lambda report_id: sent.append(report_id) or True)
    stale = report_services.claim_stale_s() + 5
    retry = _report(
        alice, status=ReportStatus.RUNNING, started_at=_ago(stale), attempts=1, queued_at=_ago(stale)
    )
    spent = _report(
        alice, status=ReportStatus.RUNNING, started_at=_ago(stale), attempts=3, queued_at=_ago(stale)
    )
    fresh = _report(alice, status=ReportStatus.RUNNING, started_at=_ago(5), attempts=1, queued_at=_ago(5))
    done = recovery.recover()
    assert (done.reports_requeued, done.reports_failed) == (1, 1) and sent == [retry.pk]
    spent.refresh_from_db()
    fresh.refresh_from_db()
    assert spent.status == ReportStatus.FAILED and "stopped 3 times" in spent.error
    assert fresh.status == ReportStatus.RUNNING
    assert recovery.recover().reports_requeued == 0  # just published: not again until it is stale
