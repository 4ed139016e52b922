"""Scenario API: owner-scoped CRUD through the same form and services as the pages; another user's scenario is
a 404 for every method; results and re-evaluation; bad input is a 400 per field and saves nothing."""

from __future__ import annotations

import pytest

from planner.models import Scenario, ScenarioResult
from tests.api.conftest import token_client
from tests.planner.conftest import load_catalog

pytestmark = pytest.mark.django_db

LIST_URL = "/api/scenarios/"


@pytest.fixture
def catalog(db) -> None:
    load_catalog()


def create(client, **body) -> dict:
    response = client.post(LIST_URL, body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def alice_plan(catalog, alice_api) -> dict:
    return create(alice_api, starter="llama70b-h100", name="Alice API plan")


def test_anonymous_gets_401_everywhere(anon_api, alice_plan):
    url = alice_plan["url"]
    assert anon_api.get(LIST_URL).status_code == 401
    assert anon_api.post(LIST_URL, {"name": "x"}, format="json").status_code == 401
    for method in ("get", "patch", "put", "delete"):
        assert getattr(anon_api, method)(url).status_code == 401
    assert anon_api.post(f"{url}evaluate/").status_code == 401


def test_alice_creates_a_scenario_from_a_starter_and_gets_its_result(alice_api, alice, alice_plan):
    assert alice_plan["name"] == "Alice API plan"
    assert alice_plan["total_gpus"] == 64
    assert alice_plan["inputs"]["gpu"] == "nvidia_h100_sxm5_80gb"
    latest = alice_plan["latest_result"]
    assert latest["engine_version"] and latest["summary"]
    scenario = Scenario.objects.get(pk=alice_plan["id"])
    assert scenario.owner == alice and scenario.latest_result_id == latest["id"]


def test_a_create_with_only_a_name_takes_the_defaults(catalog, alice_api):
    body = create(alice_api, name="Defaults")
    assert body["inputs"]["gpu"] and body["latest_result"] is not None


BAD_BODIES = {
    "nodes as a word": ({"name": "x", "nodes": "many"}, "nodes"),
    "no name": ({"name": ""}, "name"),
    "unknown field": ({"name": "x", "nodez": 4}, "nodez"),
    "a nested value": ({"name": "x", "nodes": {"value": 4}}, "nodes"),
    "unknown starter": ({"name": "x", "starter": "gpt-17"}, "starter"),
    "unknown catalog GPU": ({"name": "x", "gpu": "nvidia_h999"}, "gpu"),
    "a GPU id holding NUL": ({"name": "x", "gpu": "nvidia_h100\x00"}, "gpu"),
    "a starter holding NUL": ({"name": "x", "starter": "llama\x00"}, "starter"),
}


@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_bad_input_is_a_400_per_field_and_saves_nothing(catalog, alice_api, case):
    body, field = BAD_BODIES[case]
    response = alice_api.post(LIST_URL, body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"], response.json()
    assert not Scenario.objects.exists() and not ScenarioResult.objects.exists()


def test_a_body_that_is_not_an_object_is_a_400(catalog, alice_api):
    response = alice_api.post(LIST_URL, [1, 2], format="json")
    assert response.status_code == 400
    assert "(input)" in response.json()["errors"]


def test_an_engine_problem_comes_back_under_its_field(catalog, alice_api):
    body = {"name": "x", "parallelism_mode": "manual", "tp": 3, "pp": 1}
    response = alice_api.post(LIST_URL, body, format="json")
    assert response.status_code == 400, response.content
    assert "tp" in response.json()["errors"], response.json()
    assert not Scenario.objects.exists()


def test_the_list_holds_only_the_users_own_scenarios(alice_plan, bob):
    bob_api = token_client(bob)
    assert bob_api.get(LIST_URL).json() == []
    names = [s["name"] for s in token_client(Scenario.objects.get().owner).get(LIST_URL).json()]
    assert names == ["Alice API plan"]


def test_another_user_gets_404_for_every_method_and_changes_nothing(alice_plan, bob):
    bob_api = token_client(bob)
    url = alice_plan["url"]
    result_url = alice_plan["latest_result"]["url"]
    assert bob_api.get(url).status_code == 404
    assert bob_api.patch(url, {"nodes": 1}, format="json").status_code == 404
    assert bob_api.put(url, {"name": "mine now"}, format="json").status_code == 404
    assert bob_api.delete(url).status_code == 404
    assert bob_api.post(f"{url}evaluate/").status_code == 404
    assert bob_api.get(f"{url}results/").status_code == 404
    assert bob_api.get(result_url).status_code == 404
    scenario = Scenario.objects.get()
    assert scenario.name == "Alice API plan" and scenario.nodes == 8 and scenario.results.count() == 1


def test_patch_changes_some_inputs_and_adds_a_result(alice_api, alice_plan):
    response = alice_api.patch(alice_plan["url"], {"nodes": 16}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["total_gpus"] == 128 and body["name"] == "Alice API plan"
    assert body["latest_result"]["id"] != alice_plan["latest_result"]["id"]
    assert Scenario.objects.get().results.count() == 2


def test_a_bad_patch_changes_nothing(alice_api, alice_plan):
    response = alice_api.patch(alice_plan["url"], {"nodes": -3}, format="json")
    assert response.status_code == 400
    assert "nodes" in response.json()["errors"]
    scenario = Scenario.objects.get()
    assert scenario.nodes == 8 and scenario.results.count() == 1


def test_the_inputs_of_a_get_put_back_reproduce_the_scenario(alice_api, alice_plan):
    detail = alice_api.get(alice_plan["url"]).json()
    response = alice_api.put(alice_plan["url"], detail["inputs"], format="json")
    assert response.status_code == 200, response.content
    assert response.json()["inputs"] == detail["inputs"]


def test_results_list_and_detail(alice_api, alice_plan):
    results = alice_api.get(f"{alice_plan['url']}results/").json()
    assert [r["id"] for r in results] == [alice_plan["latest_result"]["id"]]
    full = alice_api.get(results[0]["url"]).json()
    assert full["output"]["engine_version"] == full["engine_version"]
    assert {"memory", "time", "power", "cost"} <= set(full["output"])
    assert full["input_payload"]["cluster"]["gpus_per_node"] == 8


def test_an_unknown_result_is_404(alice_api, alice_plan):
    assert alice_api.get(f"{alice_plan['url']}results/999999/").status_code == 404


def test_evaluate_adds_a_result(alice_api, alice_plan):
    response = alice_api.post(f"{alice_plan['url']}evaluate/")
    assert response.status_code == 201, response.content
    assert Scenario.objects.get().results.count() == 2
    assert Scenario.objects.get().latest_result_id == response.json()["id"]


def test_delete_removes_the_scenario_and_its_results(alice_api, alice_plan):
    assert alice_api.delete(alice_plan["url"]).status_code == 204
    assert not Scenario.objects.exists() and not ScenarioResult.objects.exists()
    assert alice_api.get(alice_plan["url"]).status_code == 404
