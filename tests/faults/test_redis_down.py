"""Redis (broker and cache) stopped: pages and the estimate API keep working, starting a sweep answers 503
"queue unavailable" and saves nothing; when Redis comes back on the same port, a new sweep is queued on it, and
a real Celery worker that lived through the outage runs that sweep to the end with every configuration counted."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from planner.celery import app
from planner.engine.search import sweep as engine_sweep
from planner.sweeps import conf as sweep_conf
from planner.sweeps.models import ACTIVE_STATUSES, ChunkStatus, SweepChunk, SweepRun, SweepStatus
from planner.sweeps.worker_process import start_worker
from tests.api.conftest import ESTIMATE_URL, contract_payload, token_client
from tests.conftest import require_service
from tests.faults.conftest import scenario_with_result
from tests.sweeps.conftest import H100, load_catalog, make_scenario
from tests.sweeps.workers import (
    eager_reference,
    log_tail,
    stop_worker,
    wait_for,
    wait_ready,
    worker_env,
)

pytestmark = pytest.mark.django_db

#: Seconds a refused sweep may take: the broker check must fail fast, not hang the request.
REFUSAL_MAX_S = 5.0
SWEEP_BODY = {"gpus": [H100], "nodes": [2, 4], "virtual_stages": "1", "objective": "min_time"}
PAGE_FORM = {
    "gpus": [H100],
    "nodes": "2, 4",
    "precision": "bf16",
    "virtual_stages": "1",
    "objective": "min_time",
}
#: The sweeps' queue (settings.SWEEP_QUEUE, "sweeps" since reports and sweeps have queues of their own): a
#: list under this key in the broker's Redis.
CELERY_QUEUE_KEY = sweep_conf.value("SWEEP_QUEUE")
#: Configurations per chunk of the sweep a worker runs after the outage: SWEEP_BODY's space cut in several chunks.
WORKER_CHUNK_CONFIGS = 4000
#: Seconds for the worker to reconnect to the restarted Redis and run that sweep (a few seconds in practice).
WORKER_SWEEP_TIMEOUT_S = 90


@pytest.fixture
def world(alice):
    load_catalog()
    return {"result_scenario": scenario_with_result(alice), "sweep_scenario": make_scenario(alice)}


def test_with_redis_stopped_pages_and_the_estimate_api_keep_working(own_redis, alice, alice_client, world):
    own_redis.stop()
    scenario = world["result_scenario"]
    page = alice_client.get(reverse("scenario_result", args=[scenario.pk, scenario.latest_result_id]))
    assert page.status_code == 200 and scenario.name in page.content.decode()
    assert alice_client.get(reverse("catalog:gpu_list")).status_code == 200
    api = token_client(alice)
    response = api.post(ESTIMATE_URL, json.dumps(contract_payload()), content_type="application/json")
    assert response.status_code == 200 and "memory" in json.dumps(response.json())


def test_with_redis_stopped_starting_a_sweep_is_a_fast_503_and_saves_nothing(
    own_redis, alice, alice_client, world
):
    own_redis.stop()
    api = token_client(alice)
    scenario = world["sweep_scenario"]
    started = time.monotonic()
    response = api.post("/api/sweeps/", {"scenario": scenario.pk, **SWEEP_BODY}, format="json")
    assert time.monotonic() - started < REFUSAL_MAX_S
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    assert response.json()["detail"].startswith("queue unavailable")
    page = alice_client.post(reverse("sweeps:create", args=[scenario.pk]), PAGE_FORM)
    # The page shows the message on the form; planner/sweeps/views.py answers 400 until it maps
    # services.QueueUnavailable to 503 (reported to the lead).
    assert page.status_code == 503 and "queue unavailable" in page.content.decode()
    assert SweepRun.objects.count() == 0


def test_when_redis_returns_a_new_sweep_is_queued_on_it(
    own_redis, alice, world, django_capture_on_commit_callbacks
):
    api = token_client(alice)
    scenario = world["sweep_scenario"]
    own_redis.stop()
    refused = api.post("/api/sweeps/", {"scenario": scenario.pk, **SWEEP_BODY}, format="json")
    assert refused.status_code == 503
    own_redis.start()  # same port: the app's settings do not change
    with override_settings(SWEEP_CHUNK_CONFIGS=2000), django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/sweeps/", {"scenario": scenario.pk, **SWEEP_BODY}, format="json")
    assert response.status_code == 202, response.json()
    run = SweepRun.objects.get()
    assert run.pk == response.json()["id"] and run.status == "pending" and not run.error
    queued = own_redis.client().lrange(CELERY_QUEUE_KEY, 0, -1)
    assert len(queued) == 1
    message = json.loads(queued[0])
    assert message["headers"]["task"] == "planner.sweeps.fan_out"
    assert message["headers"]["argsrepr"].startswith(f"({run.pk},")


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_when_redis_returns_a_worker_runs_a_new_sweep_to_the_end(own_redis, alice, tmp_path):
    """A worker (on the throw-away Redis and this test's PostgreSQL database) is consuming before Redis stops;
    while Redis is down a sweep is refused; after it returns on the same port the worker reconnects and a new
    sweep, started through the API, finishes with every configuration of its space evaluated once and the same
    result as an undisturbed in-process (eager) run of the same spec."""
    if connection.vendor != "postgresql":
        require_service(
            "PostgreSQL", "a postgres DATABASE_URL must be set for a worker to share the database"
        )
    load_catalog()
    scenario = make_scenario(alice)
    api = token_client(alice)
    log = tmp_path / "worker.log"
    env = worker_env(settings_module="planner.settings_test", redis_url=own_redis.url)
    name = f"redis-returns-{uuid.uuid4().hex[:10]}"
    queue = sweep_conf.value("SWEEP_QUEUE") or app.conf.task_default_queue  # where the sweep's tasks go
    worker = start_worker(name, queue, env, log)
    try:
        wait_ready(log, worker)
        own_redis.stop()
        refused = api.post("/api/sweeps/", {"scenario": scenario.pk, **SWEEP_BODY}, format="json")
        assert refused.status_code == 503
        assert worker.poll() is None, f"the worker exited while Redis was down:\n{log_tail(log)}"
        own_redis.start()  # same port: neither the app's nor the worker's settings change
        with override_settings(SWEEP_CHUNK_CONFIGS=WORKER_CHUNK_CONFIGS):
            response = api.post("/api/sweeps/", {"scenario": scenario.pk, **SWEEP_BODY}, format="json")
        assert response.status_code == 202, response.json()
        run_id = response.json()["id"]
        wait_for(
            lambda: SweepRun.objects.filter(pk=run_id).exclude(status__in=ACTIVE_STATUSES).exists(),
            WORKER_SWEEP_TIMEOUT_S,
            "the sweep to finish on the worker",
            detail=lambda: log_tail(log),
        )
    finally:
        stop_worker(worker)
    run = SweepRun.objects.get()  # the refused sweep saved nothing
    assert run.pk == run_id
    assert run.status == SweepStatus.DONE, (run.status, run.error, log_tail(log))
    # Every chunk of the plan ran on this worker and was counted once; together they cover the spec's space.
    plan = engine_sweep.plan_sweep(run.spec, chunk_configs=WORKER_CHUNK_CONFIGS)
    chunks = list(SweepChunk.objects.filter(run=run).order_by("index"))
    assert run.chunks_total == len(plan.chunks) == len(chunks) >= 3
    assert run.chunks_done == run.chunks_total
    assert all(c.status == ChunkStatus.DONE and c.attempts == 1 for c in chunks)
    assert {c.claimed_by.split("@")[0] for c in chunks} == {name}
    assert run.total_configs == plan.total_configs == sum(c.size for c in chunks)
    assert run.enumerated_configs == run.total_configs
    assert run.evaluated_configs == sum(c.evaluated for c in chunks) == run.result["evaluated"] > 0
    assert run.feasible_configs == sum(c.feasible for c in chunks)

    # The undisturbed reference: the same spec, Celery eager, in this process.
    reference = eager_reference(
        owner=alice, scenario=scenario, spec=run.spec, chunk_configs=WORKER_CHUNK_CONFIGS
    )
    assert (run.evaluated_configs, run.feasible_configs) == (
        reference.evaluated_configs,
        reference.feasible_configs,
    )
    assert run.result == reference.result
