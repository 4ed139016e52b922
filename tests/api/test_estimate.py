"""POST /api/estimate/: the engine contract over HTTP, its errors per field path, auth, size and rate limits."""

from __future__ import annotations

import io
import json

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from planner.api.errors import PayloadTooLarge
from planner.api.parsers import MAX_BODY_BYTES, read_bounded
from planner.api.services import non_finite_path, payload_with_catalog_gpu
from tests.api.conftest import CATALOG_GPU_ID, ESTIMATE_URL, catalog_payload, contract_payload, make_gpu

pytestmark = pytest.mark.django_db

CONTRACT_SECTIONS = {
    "model": {"params_b", "flop_per_token"},
    "memory": {
        "weights_gib",
        "gradients_gib",
        "optimizer_gib",
        "activations_gib",
        "kv_cache_gib",
        "other_gib",
        "per_gpu_gib",
        "capacity_gib",
        "fits",
    },
    "time": {"step_s", "tokens_per_s", "mfu", "model_tflops_per_gpu", "days", "gpu_hours", "breakdown_s"},
    "power": {"it_kw", "facility_kw", "pue", "energy_mwh"},
    "cost": {
        "capex_usd",
        "opex_usd_per_year",
        "tco_usd",
        "usd_per_gpu_hour",
        "run_cost_usd",
        "cloud_run_cost_usd",
    },
}


def post_json(client: APIClient, body: object) -> object:
    return client.post(ESTIMATE_URL, body, format="json")


def post_raw(client: APIClient, body: bytes, content_type: str = "application/json") -> object:
    return client.generic("POST", ESTIMATE_URL, body, content_type=content_type)


def test_it_answers_the_contract_example_with_every_contract_key(alice_api):
    response = post_json(alice_api, contract_payload())
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["engine_version"]
    assert isinstance(body["assumptions"], dict) and isinstance(body["warnings"], list)
    for section, keys in CONTRACT_SECTIONS.items():
        assert keys <= set(body[section]), f"{section} lacks {keys - set(body[section])}"
    assert {"compute", "tp_comm", "pp_bubble", "dp_comm"} <= set(body["time"]["breakdown_s"])
    assert body["memory"]["capacity_gib"] == 80.0
    assert body["power"]["pue"] == 1.2


def test_it_resolves_a_catalog_gpu_id_and_a_model_preset(alice_api):
    payload = catalog_payload()
    assert payload["cluster"]["gpu"] == CATALOG_GPU_ID
    response = post_json(alice_api, payload)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["kind"] == "training"
    assert body["memory"]["capacity_gib"] == 80.0
    assert 60 < body["model"]["params_b"] < 80  # Llama 3.1 70B
    assert "cost" not in body  # no economics given


def test_it_uses_this_sites_catalog_row_for_a_gpu_id(alice_api):
    """A row only the database holds (staff added it) resolves, with the row's own numbers."""
    make_gpu(id="test_gpu_96gb", model="Test GPU 96GB", memory_gb=96.0)
    payload = catalog_payload()
    payload["cluster"]["gpu"] = "test_gpu_96gb"
    response = post_json(alice_api, payload)
    assert response.status_code == 200, response.content
    assert response.json()["memory"]["capacity_gib"] == 96.0


def test_a_staff_edit_to_a_seed_gpu_changes_the_answer(alice_api):
    make_gpu(id=CATALOG_GPU_ID, model="H100 SXM5 (edited)", memory_gb=100.0)
    response = post_json(alice_api, catalog_payload())
    assert response.status_code == 200, response.content
    assert response.json()["memory"]["capacity_gib"] == 100.0


def test_a_staff_edit_through_the_api_applies_to_the_next_estimate(alice_api, staff_api):
    make_gpu(id="test_gpu_96gb", model="Test GPU 96GB", memory_gb=96.0)
    payload = catalog_payload()
    payload["cluster"]["gpu"] = "test_gpu_96gb"
    assert post_json(alice_api, payload).json()["memory"]["capacity_gib"] == 96.0
    edit = staff_api.patch("/api/catalog/gpus/test_gpu_96gb/", {"memory_gb": 141.0}, format="json")
    assert edit.status_code == 200
    assert post_json(alice_api, payload).json()["memory"]["capacity_gib"] == 141.0


def test_resolving_a_catalog_gpu_leaves_the_callers_payload_alone():
    make_gpu(id="test_gpu_96gb", model="Test GPU 96GB", memory_gb=96.0)
    payload = catalog_payload()
    payload["cluster"]["gpu"] = "test_gpu_96gb"
    resolved = payload_with_catalog_gpu(payload)
    assert payload["cluster"]["gpu"] == "test_gpu_96gb"
    assert (
        resolved["cluster"]["gpu"]["memory_gb"] == 96.0
        and resolved["cluster"]["gpu"]["id"] == "test_gpu_96gb"
    )
    resolved["cluster"]["gpu"]["tflops"]["bf16"] = -1.0  # a caller changing its copy cannot poison the memo
    assert payload_with_catalog_gpu(payload)["cluster"]["gpu"]["tflops"]["bf16"] == 500.0


# Each bad input: (raw body, field path the 400 must name). Every one answered 400, none 500.
PARALLELISM = contract_payload()["workload"]["parallelism"]
BAD_JSON_INPUTS = {
    "truncated JSON": (b'{"cluster": ', "(body)"),
    "NaN literal": (json.dumps(contract_payload()).replace('"pue": 1.2', '"pue": NaN').encode(), "(body)"),
    "number past float range": (
        json.dumps(contract_payload()).replace('"nodes": 16', '"nodes": 1e400').encode(),
        "(body)",
    ),
    "5000-digit integer": (
        json.dumps(contract_payload()).replace('"nodes": 16', '"nodes": ' + "9" * 5000).encode(),
        "(body)",
    ),
    "100000-deep nested list": (b"[" * 100_000 + b"]" * 100_000, "(body)"),
    "bytes that are not UTF-8": (b'{"cluster": "\xff\xfe"}', "(body)"),
    "a JSON list": (b"[]", "(input)"),
    "a JSON string": (b'"hello"', "(input)"),
    "an empty body": (b"", "cluster"),
}
BAD_VALUES = {
    "nodes as a word": (contract_payload(cluster={"nodes": "sixteen"}), "cluster.nodes"),
    "negative nodes": (contract_payload(cluster={"nodes": -1}), "cluster.nodes"),
    "fractional nodes": (contract_payload(cluster={"nodes": 16.5}), "cluster.nodes"),
    "10^18 nodes": (contract_payload(cluster={"nodes": 10**18}), "cluster.nodes"),
    "zero GPUs per node": (contract_payload(cluster={"gpus_per_node": 0}), "cluster.gpus_per_node"),
    "tp that does not divide the GPUs": (
        contract_payload(workload={"parallelism": {**PARALLELISM, "tp": 3}}),
        "workload.parallelism.tp",
    ),
    "misspelt top-level key": ({**contract_payload(), "clutser": {}}, "clutser"),
    "unknown catalog GPU": (contract_payload(cluster={"gpu": "nvidia_h999"}), "cluster.gpu"),
    "GPU as a boolean": (contract_payload(cluster={"gpu": True}), "cluster.gpu"),
    "null model": (contract_payload(workload={"model": None}), "workload.model"),
    "500-deep object as workload kind": (  # below the recursion limit under any runner
        contract_payload(workload={"kind": json.loads('{"a":' * 500 + "1" + "}" * 500)}),
        "workload.kind",
    ),
    "absurd years": (contract_payload(economics={"years": 10**9}), "economics.years"),
}


@pytest.mark.parametrize("name", list(BAD_JSON_INPUTS))
def test_it_rejects_bad_json_with_400_naming_the_problem(alice_api, name):
    body, path = BAD_JSON_INPUTS[name]
    response = post_raw(alice_api, body)
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert path in errors and all(isinstance(m, str) and m for m in errors[path])


@pytest.mark.parametrize("name", list(BAD_VALUES))
def test_it_rejects_bad_values_with_400_per_field_path(alice_api, name):
    payload, path = BAD_VALUES[name]
    response = post_json(alice_api, payload)
    assert response.status_code == 400, response.content
    assert path in response.json()["errors"], response.json()


def test_the_400_explains_a_bad_tp_with_the_gpu_count(alice_api):
    payload = contract_payload(workload={"parallelism": {**PARALLELISM, "tp": 3}})
    messages = post_json(alice_api, payload).json()["errors"]["workload.parallelism.tp"]
    assert any("divide" in m and "128" in m for m in messages), messages


def test_absurd_token_counts_answer_400_not_500(alice_api):
    response = post_json(alice_api, contract_payload(workload={"tokens_b": 1e300}))
    assert response.status_code == 400, response.content
    assert response.json()["errors"]


def test_an_answer_that_overflows_is_a_400_naming_the_figure(alice_api, monkeypatch):
    """Should valid-looking inputs ever drive a figure to infinity, JSON cannot carry it: 400, not a 500."""
    from planner.engine import api

    def overflowing(payload):
        return {"engine_version": "x", "time": {"days": float("inf")}, "assumptions": {}, "warnings": []}

    monkeypatch.setattr(api, "estimate", overflowing)
    response = post_json(alice_api, contract_payload())
    assert response.status_code == 400
    assert "time.days is not a finite number" in response.json()["errors"]["(input)"][0]


def test_an_arithmetic_error_in_the_engine_is_a_400(alice_api, monkeypatch):
    from planner.engine import api

    def dividing_by_zero(payload):
        return 1 / 0

    monkeypatch.setattr(api, "estimate", dividing_by_zero)
    response = post_json(alice_api, contract_payload())
    assert response.status_code == 400
    assert "(input)" in response.json()["errors"]


def test_non_finite_path_names_the_first_bad_figure():
    assert non_finite_path({"a": 1.0, "b": [0.5, {"c": float("inf")}]}) == "b.1.c"
    assert non_finite_path({"a": [1, 2.5, "x", None, True]}) is None


def test_it_refuses_a_body_over_the_size_limit_with_413(alice_api):
    padding = "x" * (MAX_BODY_BYTES + 1)
    response = post_raw(alice_api, json.dumps({"cluster": {"gpu": padding}}).encode())
    assert response.status_code == 413
    assert "KiB" in response.json()["detail"]


def test_the_size_limit_holds_whatever_content_length_claims():
    with pytest.raises(PayloadTooLarge):
        read_bounded(io.BytesIO(b"1" * (MAX_BODY_BYTES + 10)), MAX_BODY_BYTES)
    assert read_bounded(io.BytesIO(b"[1]"), MAX_BODY_BYTES) == b"[1]"


def test_it_refuses_a_body_that_is_not_json_with_415(alice_api):
    response = post_raw(alice_api, b"cluster=1", content_type="text/plain")
    assert response.status_code == 415


def test_anonymous_requests_get_401_with_the_token_scheme(anon_api):
    response = post_json(anon_api, contract_payload())
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_a_bad_token_gets_401(anon_api):
    anon_api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert post_json(anon_api, contract_payload()).status_code == 401


def test_a_session_needs_a_csrf_token(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    response = post_json(client, contract_payload())
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


def test_a_session_with_its_csrf_token_is_answered(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get("/accounts/login/")  # sets the csrftoken cookie
    token = client.cookies["csrftoken"].value
    response = client.post(ESTIMATE_URL, catalog_payload(), format="json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200, response.content


def test_get_is_not_allowed(alice_api):
    assert alice_api.get(ESTIMATE_URL).status_code == 405


def _rates(estimate: str) -> dict:
    return {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "estimate": estimate},
    }


@override_settings(REST_FRAMEWORK=_rates("2/min"))
def test_past_the_rate_limit_it_answers_429_with_retry_after(alice_api, staff_api):
    bad = {"cluster": {}}  # bad input still counts: the limit guards the server, not the answers
    assert post_json(alice_api, catalog_payload()).status_code == 200
    assert post_json(alice_api, bad).status_code == 400
    response = post_json(alice_api, catalog_payload())
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "throttled" in response.json()["detail"].lower()
    # The limit is per user: someone else is still answered.
    assert post_json(staff_api, catalog_payload()).status_code == 200


UNREACHABLE_REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: connection refused at once
    }
}


@override_settings(CACHES=UNREACHABLE_REDIS)
def test_estimates_keep_working_when_the_rate_limit_cache_is_down(alice_api):
    """The throttle's counters live in Redis in production; an outage skips the limit instead of failing."""
    response = post_json(alice_api, catalog_payload())
    assert response.status_code == 200, response.content
