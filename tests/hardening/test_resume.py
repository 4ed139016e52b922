"""Resume only re-queues a stalled sweep, and only chunks whose message is older than the stall window: 30
resumes in a row publish each unfinished chunk once (before: ~14,000 duplicate messages)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from planner.sweeps import conf, services
from planner.sweeps.models import SweepChunk, SweepRun
from tests.sweeps.conftest import alice_scenario, catalog  # noqa: F401 (fixtures)
from tests.sweeps.test_sweep_services import create  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


class Published:
    """Stands in for celery.group in planner.sweeps.services: records each chunk message instead of sending."""

    def __init__(self) -> None:
        self.chunks: list[int] = []

    def __call__(self, signatures):
        self.chunks += [sig.args[1] for sig in signatures]
        return self

    def apply_async(self, **options):
        return None


def _stall(run: SweepRun) -> None:
    past = timezone.now() - timedelta(seconds=conf.value("SWEEP_STALLED_S") + 5)
    SweepRun.objects.filter(pk=run.pk).update(last_progress_at=past, created_at=past)
    SweepChunk.objects.filter(run=run).update(queued_at=past)


def _resume_inline(monkeypatch, published: Published) -> None:
    """The resume's fan-out runs here, as a worker would run its task."""
    monkeypatch.setattr(services, "group", published)
    monkeypatch.setattr(
        services,
        "_enqueue",
        lambda run_id, requeue=False: services.sweep_fan_out(run_id=run_id, requeue=requeue),
    )


def test_a_sweep_that_makes_progress_is_not_requeued(create, monkeypatch):  # noqa: F811
    published = Published()
    _resume_inline(monkeypatch, published)
    run = create()
    SweepRun.objects.filter(pk=run.pk).update(last_progress_at=timezone.now())
    with pytest.raises(services.SweepRefused, match="still making progress"):
        services.sweep_resume(run=run)
    assert published.chunks == []


def test_thirty_resumes_publish_each_unfinished_chunk_once(create, monkeypatch):  # noqa: F811
    published = Published()
    _resume_inline(monkeypatch, published)
    run = create()
    _stall(run)
    for _ in range(30):
        services.sweep_resume(run=run)
    unfinished = list(SweepChunk.objects.filter(run=run).order_by("index").values_list("index", flat=True))
    assert sorted(published.chunks) == unfinished and len(unfinished) == run.chunks_total > 1


def test_the_page_says_why_a_live_sweep_is_not_requeued(client, alice, create):  # noqa: F811
    run = create()
    SweepRun.objects.filter(pk=run.pk).update(last_progress_at=timezone.now())
    client.force_login(alice)
    page = client.post(f"/sweeps/{run.pk}/resume/", follow=True)
    assert "still making progress" in page.content.decode()


@override_settings(RATE_LIMITS={"resume": "2/d"})
def test_resume_posts_are_rate_limited(client, alice, create):  # noqa: F811
    run = create()
    client.force_login(alice)
    answers = [client.post(f"/sweeps/{run.pk}/resume/").status_code for _ in range(3)]
    assert answers == [302, 302, 429]
