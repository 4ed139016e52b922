"""Sweep API: start through the page's form and services, status, cancel, results, list; owner-scoped, throttled."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import override_settings

from planner.sweeps.models import SweepRun, SweepStatus
from tests.api.conftest import token_client
from tests.sweeps.conftest import A100, H100, make_scenario

pytestmark = pytest.mark.django_db

URL = "/api/sweeps/"
BODY = {
    "gpus": [H100, A100],
    "nodes": [2, 4],
    "precision": "bf16",
    "virtual_stages": "1",
    "cp": "1, 2",
    "micro_batch": [1, 2, 4],
    "objective": "min_time",
    "deadline_days": 400,
}


def _start(client, scenario, **overrides):
    with override_settings(SWEEP_CHUNK_CONFIGS=2000):
        return client.post(URL, {"scenario": scenario.pk, **BODY, **overrides}, format="json")


@pytest.fixture
def done_sweep(alice_api, alice_scenario, eager, django_capture_on_commit_callbacks) -> dict:
    with django_capture_on_commit_callbacks(execute=True):
        response = _start(alice_api, alice_scenario)
    assert response.status_code == 202, response.json()
    return response.json()


def test_a_sweep_started_over_the_api_runs_and_reports_progress_and_results(alice_api, done_sweep):
    run = SweepRun.objects.get(pk=done_sweep["id"])
    assert run.chunks_total > 1 and run.spec["nodes"] == [2, 4]
    status = alice_api.get(done_sweep["url"]).json()
    assert status["status"] == SweepStatus.DONE and status["progress_pct"] == 100.0
    assert status["evaluated_configs"] == run.evaluated_configs > 0
    assert status["eta_s"] is None and status["configs_per_s"] > 0
    results = alice_api.get(done_sweep["results_url"]).json()
    assert results["complete"] and results["objective"] == "min_time"
    best = results["best"]["min_time"]
    assert best and best == run.result["best"]["min_time"]
    assert [g["gpu_label"] for g in results["per_gpu"]] == run.result["gpus"]
    assert results["pareto"] == run.result["pareto"]
    assert [s["id"] for s in alice_api.get(URL).json()] == [run.pk]


def test_the_api_accepts_what_the_page_accepts_and_names_the_bad_field(alice_api, alice_scenario):
    assert _start(alice_api, alice_scenario, nodes="8-4").status_code == 400
    response = _start(alice_api, alice_scenario, nodes="eight", gpus=["no_such_gpu"], colour="red")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"colour"}  # unknown keys first, nothing else is looked at
    errors = _start(alice_api, alice_scenario, nodes="eight", gpus=["no_such_gpu"]).json()["errors"]
    assert set(errors) == {"nodes", "gpus"}
    assert _start(alice_api, alice_scenario, gpus="h100").json()["errors"] == {
        "gpus": ["must be a list of strings"]
    }
    assert _start(alice_api, alice_scenario, tp={"a": 1}).status_code == 400
    assert alice_api.post(URL, [1, 2], format="json").status_code == 400
    assert SweepRun.objects.count() == 0


def test_a_sweep_above_the_size_limit_is_refused_with_its_size(alice_api, alice_scenario):
    with override_settings(SWEEP_MAX_CONFIGS=10):
        response = _start(alice_api, alice_scenario)
    assert response.status_code == 400
    assert "nodes" in response.json()["errors"] and SweepRun.objects.count() == 0


def test_omitted_fields_take_the_pages_defaults(alice_api, alice_scenario):
    response = alice_api.post(URL, {"scenario": alice_scenario.pk}, format="json")
    assert response.status_code == 202, response.json()
    spec = SweepRun.objects.get().spec
    assert spec["nodes"] == [1, 2, 4, 8] and [g["catalog_id"] for g in spec["gpus"]] == [H100]


def test_another_users_scenario_and_sweep_are_not_reachable(alice_api, bob, alice_scenario, done_sweep):
    bob_api = token_client(bob)
    response = _start(bob_api, alice_scenario)
    assert response.status_code == 400 and "scenario" in response.json()["errors"]
    for path in (done_sweep["url"], done_sweep["results_url"]):
        assert bob_api.get(path).status_code == 404
    assert bob_api.post(done_sweep["cancel_url"]).status_code == 404
    assert bob_api.get(URL).json() == []
    assert SweepRun.objects.filter(owner=bob).count() == 0


def test_cancel_stops_a_waiting_sweep_once(alice_api, alice_scenario):
    started = _start(alice_api, alice_scenario).json()
    first = alice_api.post(started["cancel_url"]).json()
    assert first["cancelled"] and first["sweep"]["status"] == SweepStatus.CANCELLED
    again = alice_api.post(started["cancel_url"]).json()
    assert again == {**again, "cancelled": False}


def test_anonymous_callers_are_told_to_authenticate(anon_api, alice_scenario):
    assert anon_api.get(URL).status_code == 401
    assert anon_api.post(URL, {"scenario": alice_scenario.pk}, format="json").status_code == 401


def test_starting_sweeps_is_rate_limited_with_retry_after(alice_api, alice_scenario):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "sweep": "1/min"}
    local = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "sweep-rate"}
    }
    # A cache of its own: on a shared Redis, parallel test workers' users share ids and so counters.
    with override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}, CACHES=local
    ):
        assert _start(alice_api, alice_scenario).status_code == 202
        limited = _start(alice_api, alice_scenario)
    assert limited.status_code == 429 and int(limited["Retry-After"]) >= 1
    assert SweepRun.objects.count() == 1
    assert alice_api.get(URL).status_code == 200  # reading is not limited


def test_the_running_limit_is_a_400_naming_the_limit(alice_api, alice, alice_scenario):
    with override_settings(SWEEP_MAX_RUNNING_PER_USER=1):
        assert _start(alice_api, alice_scenario).status_code == 202
        response = _start(alice_api, make_scenario(alice, name="second"))
    assert response.status_code == 400
    assert "limit is 1" in response.json()["errors"]["non_field_errors"][0]
