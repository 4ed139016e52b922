"""Fleet API: one-call planning and saved plans (create, solve, poll, result, update, delete), owner-scoped, bad
input answered 400 with each field path; the operations are in the OpenAPI schema."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.fleets.test_fleet_pages import SERVICES_ONLY

pytestmark = pytest.mark.django_db


def test_plan_in_one_call(alice_api: APIClient) -> None:
    response = alice_api.post("/api/fleet/", SERVICES_ONLY, format="json")
    assert response.status_code == 200
    answer = response.json()
    assert answer["feasible"] is True
    assert {"purchases", "placements", "utilisation", "chargeback", "cost", "solver"} <= set(answer)


def test_bad_input_is_a_400_naming_each_field_path(alice_api: APIClient) -> None:
    payload = copy.deepcopy(SERVICES_ONLY)
    payload["workloads"][1]["replicas"] = [1, 2]
    payload["pools"][0]["colour"] = "red"
    response = alice_api.post("/api/fleet/", payload, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors["workloads[1].replicas"] == ["must have one value per period (4), got 2"]
    assert "pools[0].colour" in errors
    saved = alice_api.post("/api/fleets/", {"name": "x", "input": payload}, format="json")
    assert saved.status_code == 400 and "input.workloads[1].replicas" in saved.json()["errors"]


def test_save_solve_and_read_a_plan(alice_api: APIClient, django_user_model: Any) -> None:
    created = alice_api.post("/api/fleets/", {"name": "Services", "input": SERVICES_ONLY}, format="json")
    assert created.status_code == 201
    brief = created.json()
    assert brief["status"] == "draft"
    assert alice_api.get(brief["result_url"]).status_code == 404
    solved = alice_api.post(brief["solve_url"])
    assert solved.status_code == 200 and solved.json()["status"] == "done"
    result = alice_api.get(brief["result_url"]).json()
    assert result["feasible"] and result["sharing"][0]["mig_profile"] == "1g.10gb"
    detail = alice_api.get(brief["url"]).json()
    assert detail["input"] == SERVICES_ONLY and detail["feasible"] is True
    changed = copy.deepcopy(SERVICES_ONLY)
    changed["workloads"][0]["replicas"] = 7
    updated = alice_api.put(brief["url"], {"name": "Services 2", "input": changed}, format="json")
    assert updated.status_code == 200 and updated.json()["status"] == "draft"
    bob = django_user_model.objects.create_user("bob", password="pw-bob-1234567")
    bob_api = APIClient()
    bob_api.force_authenticate(bob)
    assert bob_api.get(brief["url"]).status_code == 404
    assert bob_api.post(brief["solve_url"]).status_code == 404
    assert [p["id"] for p in alice_api.get("/api/fleets/").json()] == [brief["id"]]
    assert alice_api.delete(brief["url"]).status_code == 204
    assert alice_api.get(brief["url"]).status_code == 404


def test_anonymous_is_401(anon_api: APIClient) -> None:
    assert anon_api.post("/api/fleet/", SERVICES_ONLY, format="json").status_code == 401
    assert anon_api.get("/api/fleets/").status_code == 401


def test_the_fleet_operations_are_in_the_openapi_schema(alice_api: APIClient) -> None:
    schema = alice_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    ops = {
        op["operationId"] for path in schema["paths"].values() for op in path.values() if isinstance(op, dict)
    }
    assert {
        "fleet_plan",
        "fleets_list",
        "fleets_create",
        "fleets_retrieve",
        "fleets_solve",
        "fleets_result",
    } <= ops


def test_a_plan_that_sizes_models_is_sent_to_the_saved_plans(alice_api: APIClient) -> None:
    payload = copy.deepcopy(SERVICES_ONLY)
    payload["workloads"].append({"id": "t", "kind": "training", "model": "llama3.1-8b", "tokens_b": 100})
    response = alice_api.post("/api/fleet/", payload, format="json")
    assert response.status_code == 400 and "solve" in response.json()["errors"]["workloads"][0]
