"""Lost work heals by itself, on real services (this test's own redis-server, PostgreSQL, real Celery worker
and beat processes):

* a worker SIGKILLed while it renders a PDF: the report is rendered by another worker, exactly one more
  attempt, without anyone pressing a button;
* Redis restarted while a worker is busy with a sweep: the worker lives on and the sweep finishes with every
  configuration counted once (the same result as an undisturbed run).
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from planner.reports import services as report_services
from planner.reports.models import Report, ReportKind, ReportStatus
from planner.sweeps import services as sweep_services
from planner.sweeps.models import ACTIVE_STATUSES, ChunkStatus, SweepChunk, SweepRun, SweepStatus
from planner.sweeps.worker_process import ROOT, start_worker
from tests.conftest import require_service
from tests.faults.conftest import scenario_with_result
from tests.sweeps.conftest import load_catalog, make_scenario
from tests.sweeps.test_kill_worker import _kill_worker, _spec_inputs
from tests.sweeps.workers import eager_reference, log_tail, stop_worker, wait_for, wait_ready, worker_env

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

#: Seconds for the recovery to bring a killed render back and finish it (claim stale 4 s, beat every 2 s).
HEAL_TIMEOUT_S = 180
CHUNK_CONFIGS = 1_000_000


def _needs_postgres() -> None:
    if connection.vendor != "postgresql":
        require_service("PostgreSQL", "a postgres DATABASE_URL must be set for workers to share the database")


def _env(redis_url: str, tmp: Path) -> dict[str, str]:
    return worker_env(
        settings_module="tests.faults.worker_settings",
        redis_url=redis_url,
        SWEEP_TEST_VISIBILITY_TIMEOUT_S="3",
        RECOVERY_INTERVAL_S="2",
        FAULT_BEAT_SCHEDULE=str(tmp / "beat-schedule"),
    )


def _start_beat(env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "planner.celery", "beat", "--loglevel=INFO"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def test_a_pdf_whose_worker_is_killed_mid_render_finishes_by_itself(own_redis, alice, tmp_path):
    _needs_postgres()
    load_catalog()
    scenario = scenario_with_result(alice)
    env = _env(own_redis.url, tmp_path)
    tag = uuid.uuid4().hex[:8]
    logs = {name: tmp_path / f"{name}.log" for name in ("victim", "survivor", "beat")}
    processes: dict[str, subprocess.Popen] = {}
    try:
        processes["victim"] = start_worker(f"victim-{tag}", "reports", env, logs["victim"])
        wait_ready(logs["victim"], processes["victim"])
        report = report_services.report_request(
            owner=alice,
            kind=ReportKind.SCENARIO,
            params=report_services.scenario_report_params(scenario=scenario, base_url="http://testserver/"),
            title="kill test",
        )
        assert not report.rendered_inline
        wait_for(
            lambda: Report.objects.filter(pk=report.pk, status=ReportStatus.RUNNING).exists(),
            60,
            "the victim to start rendering",
            detail=lambda: log_tail(logs["victim"]),
        )
        _kill_worker(processes.pop("victim"))
        processes["survivor"] = start_worker(f"survivor-{tag}", "reports,celery", env, logs["survivor"])
        processes["beat"] = _start_beat(env, logs["beat"])
        wait_for(
            lambda: Report.objects.filter(pk=report.pk, status=ReportStatus.DONE).exists(),
            HEAL_TIMEOUT_S,
            "the report to be rendered again by itself",
            detail=lambda: log_tail(logs["survivor"]) + log_tail(logs["beat"]),
        )
    finally:
        for process in processes.values():
            stop_worker(process, grace_s=0)
    report.refresh_from_db()
    assert report.status == ReportStatus.DONE and bytes(report.pdf).startswith(b"%PDF")
    assert report.attempts == 2 and report.pages and report.pages > 1
    assert Report.objects.count() == 1


def test_a_worker_busy_with_a_sweep_survives_a_redis_restart_and_the_sweep_finishes(
    own_redis, alice, tmp_path
):
    _needs_postgres()
    load_catalog()
    scenario = make_scenario(
        alice, name="restart test", model_preset="llama3.1-70b", global_batch=1024, nodes=16
    )
    env = _env(own_redis.url, tmp_path)
    tag = uuid.uuid4().hex[:8]
    logs = {name: tmp_path / f"{name}.log" for name in ("worker", "beat")}
    processes: dict[str, subprocess.Popen] = {}
    try:
        processes["worker"] = start_worker(f"busy-{tag}", "sweeps,celery", env, logs["worker"])
        wait_ready(logs["worker"], processes["worker"])
        processes["beat"] = _start_beat(env, logs["beat"])
        with override_settings(SWEEP_CHUNK_CONFIGS=CHUNK_CONFIGS):
            run = sweep_services.sweep_create_from_scenario(
                owner=alice, scenario=scenario, inputs=_spec_inputs()
            )
        assert run.chunks_total >= 4
        wait_for(
            lambda: SweepChunk.objects.filter(run=run, status=ChunkStatus.RUNNING).exists(),
            60,
            "the worker to start a chunk",
            detail=lambda: log_tail(logs["worker"]),
        )
        own_redis.stop()
        time.sleep(3)
        own_redis.start()  # same port, empty: the queued chunk messages are gone with the old server
        wait_for(
            lambda: SweepRun.objects.filter(pk=run.pk).exclude(status__in=ACTIVE_STATUSES).exists(),
            HEAL_TIMEOUT_S,
            "the sweep to finish by itself",
            detail=lambda: log_tail(logs["worker"]) + log_tail(logs["beat"]),
        )
        assert processes["worker"].poll() is None, f"the worker died:\n{log_tail(logs['worker'])}"
    finally:
        for process in processes.values():
            stop_worker(process, grace_s=0)
    run.refresh_from_db()
    chunks = list(SweepChunk.objects.filter(run=run))
    assert run.status == SweepStatus.DONE, (run.status, run.error)
    assert run.chunks_done == run.chunks_total == len(chunks)
    assert all(c.status == ChunkStatus.DONE for c in chunks)
    assert run.enumerated_configs == run.total_configs
    assert run.evaluated_configs == sum(c.evaluated for c in chunks) == run.result["evaluated"]
    reference = eager_reference(owner=alice, scenario=scenario, spec=run.spec, chunk_configs=CHUNK_CONFIGS)
    assert run.result == reference.result
