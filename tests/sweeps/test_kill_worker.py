"""No lost work: two real Celery workers on Redis and PostgreSQL; one is killed with SIGKILL (its main process
and its pool child) while it evaluates a chunk; the sweep still completes with exactly the evaluated count and
the same best configuration as an undisturbed run of the same spec (in-process, Celery eager)."""

from __future__ import annotations

import os
import signal
import subprocess
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from planner.celery import app
from planner.sweeps import services
from planner.sweeps.models import ChunkStatus, SweepChunk, SweepRun, SweepStatus
from planner.sweeps.worker_process import start_worker
from tests.conftest import require_service
from tests.sweeps.conftest import A100, H100, load_catalog, make_scenario
from tests.sweeps.workers import eager_reference, stop_worker, wait_for, wait_ready, worker_env

#: Seconds before Redis hands a killed worker's unacknowledged message to another worker.
VISIBILITY_TIMEOUT_S = 3
#: About a second of numpy per chunk on this machine: long enough to be killed in the middle of one.
CHUNK_CONFIGS = 1_000_000
SWEEP_TIMEOUT_S = 240

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _spec_inputs():
    from catalog.models import Gpu
    from planner.sweeps.adapters import SweepInputs

    return SweepInputs(
        name="kill test",
        gpus=list(Gpu.objects.filter(pk__in=[H100, A100, "nvidia_h200_sxm_141gb"]).order_by("pk")),
        nodes=list(range(16, 16 * 17, 16)),
        precision="bf16",
        space={},
        objective="min_time",
        constraints={"days_max": 400.0},
    )


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _kill_worker(worker: subprocess.Popen) -> None:
    """SIGKILL the worker's main process and its pool child: nothing gets a chance to acknowledge or requeue."""
    children = _children(worker.pid)
    assert children, "the prefork worker has a pool child"
    os.kill(worker.pid, signal.SIGKILL)
    for child in children:
        os.kill(child, signal.SIGKILL)
    worker.wait(timeout=10)


def _forget_queue(queue: str) -> None:
    """Drop this test's Redis queue and kombu's bindings of it."""
    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        client.delete(queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")


def _best(run: SweepRun) -> dict:
    row = run.result["best"]["min_time"][0]
    keys = (
        "gpu_label",
        "nodes",
        "tp",
        "pp",
        "dp",
        "cp",
        "ep",
        "virtual_stages",
        "micro_batch",
        "zero_stage",
        "recompute",
    )
    return {k: row[k] for k in keys} | {"days": row["days"]}


def test_a_sweep_completes_exactly_when_a_worker_is_killed_mid_chunk(alice, tmp_path):
    redis_url = os.environ.get("REDIS_URL", "")
    if not redis_url or connection.vendor != "postgresql":
        require_service("Redis and PostgreSQL", "REDIS_URL and a postgres DATABASE_URL must both be set")
    load_catalog()
    scenario = make_scenario(
        alice, name="kill test", model_preset="llama3.1-70b", global_batch=1024, nodes=16
    )
    tag = uuid.uuid4().hex[:10]
    queue = f"sweep-kill-{tag}"
    env = worker_env(
        settings_module="tests.sweeps.worker_settings",
        SWEEP_TEST_VISIBILITY_TIMEOUT_S=str(VISIBILITY_TIMEOUT_S),
    )
    logs = tmp_path
    workers: dict[str, subprocess.Popen] = {}
    try:
        for name in ("victim", "survivor"):
            workers[name] = start_worker(f"{name}-{tag}", queue, env, logs / f"{name}.log")
        for name, worker in workers.items():
            wait_ready(logs / f"{name}.log", worker)
        with override_settings(SWEEP_QUEUE=queue, SWEEP_CHUNK_CONFIGS=CHUNK_CONFIGS):
            run = services.sweep_create_from_scenario(owner=alice, scenario=scenario, inputs=_spec_inputs())
        assert run.chunks_total >= 6
        victim_chunk = wait_for(
            lambda: (
                SweepChunk.objects.filter(
                    run=run, status=ChunkStatus.RUNNING, claimed_by__startswith=f"victim-{tag}@"
                )
                .values_list("index", flat=True)
                .first()
            ),
            60,
            "the victim to claim a chunk",
        )
        _kill_worker(workers["victim"])
        wait_for(
            lambda: SweepRun.objects.filter(pk=run.pk).exclude(status__in=["pending", "running"]).exists(),
            SWEEP_TIMEOUT_S,
            "the sweep to finish",
        )
        run.refresh_from_db()
        killed = SweepChunk.objects.get(run=run, index=victim_chunk)
        chunks = list(SweepChunk.objects.filter(run=run))
    finally:
        for worker in workers.values():
            stop_worker(worker, grace_s=0)
        _forget_queue(queue)
    assert run.status == SweepStatus.DONE, (
        run.status,
        run.error,
        (logs / "survivor.log").read_text()[-3000:],
    )
    # The killed chunk was evaluated again by the survivor and counted once.
    assert killed.status == ChunkStatus.DONE and killed.attempts == 2
    assert killed.claimed_by.startswith(f"survivor-{tag}@")
    assert run.chunks_done == run.chunks_total == len(chunks)
    assert all(c.status == ChunkStatus.DONE for c in chunks)
    assert run.enumerated_configs == run.total_configs
    assert run.evaluated_configs == sum(c.evaluated for c in chunks) == run.result["evaluated"]

    # The undisturbed reference: the same spec, Celery eager, in this process.
    reference = eager_reference(owner=alice, scenario=scenario, spec=run.spec, chunk_configs=CHUNK_CONFIGS)
    assert run.evaluated_configs == reference.evaluated_configs
    assert run.feasible_configs == reference.feasible_configs
    assert _best(run) == _best(reference)
    assert run.result == reference.result
