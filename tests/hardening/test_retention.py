"""Retention and storage limits: old PDFs go, old sweeps keep their merged result but not their rows, each
scenario keeps its latest results, and a user over the sweep storage limit cannot start another sweep."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from planner import retention
from planner.models import ScenarioResult
from planner.reports.models import Report, ReportKind, ReportStatus
from planner.services import scenario_reevaluate
from planner.sweeps import services
from planner.sweeps.models import ChunkStatus, SweepChunk, SweepRun, SweepStatus
from tests.planner.conftest import alice_scenario, catalog  # noqa: F401 (fixtures)
from tests.sweeps.test_sweep_services import create  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def _ago(days: float):
    return timezone.now() - timedelta(days=days)


def test_old_pdfs_go_and_recent_ones_stay(alice):
    old = Report.objects.create(
        owner=alice,
        kind=ReportKind.SCENARIO,
        fingerprint="a",
        title="old",
        status=ReportStatus.DONE,
        finished_at=_ago(31),
    )
    new = Report.objects.create(
        owner=alice,
        kind=ReportKind.SCENARIO,
        fingerprint="b",
        title="new",
        status=ReportStatus.DONE,
        finished_at=_ago(1),
    )
    out = StringIO()
    call_command("prune_storage", stdout=out)
    assert "Pruned 1 reports" in out.getvalue()
    assert not Report.objects.filter(pk=old.pk).exists() and Report.objects.filter(pk=new.pk).exists()


@override_settings(RESULTS_KEPT_PER_SCENARIO=2)
def test_a_scenario_keeps_its_latest_results(alice_scenario):  # noqa: F811
    for _ in range(3):
        scenario_reevaluate(scenario=alice_scenario)
    alice_scenario.refresh_from_db()
    assert alice_scenario.results.count() == 4
    assert retention.prune().results == 2
    kept = set(alice_scenario.results.values_list("pk", flat=True))
    assert len(kept) == 2 and alice_scenario.latest_result_id in kept
    assert ScenarioResult.objects.count() == 2


def test_an_old_sweep_keeps_its_result_and_loses_its_rows(create):  # noqa: F811
    run = create()
    SweepRun.objects.filter(pk=run.pk).update(
        status=SweepStatus.DONE, finished_at=_ago(181), result={"best": {}}
    )
    SweepChunk.objects.filter(run=run).update(status=ChunkStatus.DONE, rows=b"x" * 100)
    assert retention.prune().sweep_chunks == run.chunks_total
    assert not SweepChunk.objects.filter(run=run, rows__isnull=False).exists()
    assert SweepRun.objects.get(pk=run.pk).result == {"best": {}}


@override_settings(USER_SWEEP_STORAGE_MB=1)
def test_a_user_over_the_storage_limit_cannot_start_a_sweep(create):  # noqa: F811
    first = create()
    SweepRun.objects.filter(pk=first.pk).update(status=SweepStatus.DONE)
    SweepChunk.objects.filter(run=first, index=0).update(rows=b"x" * 1_500_000)
    with pytest.raises(services.SweepRefused, match="over the 1 MB each user may keep"):
        create()
