"""Redis (broker and cache) stopped: pages and the estimate API keep working, starting a sweep answers 503
"queue unavailable" and saves nothing; when Redis comes back on the same port, a new sweep is queued on it."""

from __future__ import annotations

import json
import time

import pytest
from django.test import override_settings
from django.urls import reverse

from planner.sweeps.models import SweepRun
from tests.api.conftest import ESTIMATE_URL, contract_payload, token_client
from tests.faults.conftest import scenario_with_result
from tests.sweeps.conftest import H100, load_catalog, make_scenario

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
#: Celery's default queue: a list under this key in the broker's Redis.
CELERY_QUEUE_KEY = "celery"


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
