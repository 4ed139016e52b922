"""POST /api/estimate/ plans like the planning page (issue 18, point 3): an `economics` object takes its defaults
from the catalog as the form does, unknown names get useful suggestions, and a payload without a layout gets the
layout the page's automatic search picks.

The engine chooses that layout itself when `workload.parallelism` is omitted, has no layout in it or is
`{"auto": true}` (issue 13's contract; planner/engine/search/layouts.py `choose_layout`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from catalog.models import EconomicsFact, Gpu
from planner import adapters, services
from planner.engine.inputs.presets import PRESETS
from tests.api.conftest import CATALOG_GPU_ID, ESTIMATE_URL, make_gpu
from tests.planner.conftest import load_catalog, scenario_inputs

pytestmark = pytest.mark.django_db

H100_NODE_GPUS = 8
#: A plan the page sizes with its automatic layout: Llama 3.1 70B on 8 × 8 H100 SXM5, 1T tokens.
PLAN: dict[str, Any] = {
    "cluster": {"gpu": CATALOG_GPU_ID, "gpus_per_node": H100_NODE_GPUS, "nodes": 8},
    "workload": {
        "kind": "training",
        "model": "llama3.1-70b",
        "tokens_b": 1000,
        "parallelism": {"tp": 8, "pp": 4, "global_batch": 1024},
    },
}


def _plan(**economics: Any) -> dict[str, Any]:
    payload = copy.deepcopy(PLAN)
    payload["economics"] = economics
    return payload


def _post(client: Any, body: Any) -> Any:
    return client.post(ESTIMATE_URL, body, format="json")


# ------------------------------------------------------------------------------------------ economics


def test_an_empty_economics_object_is_priced_from_the_catalog_like_the_form(alice_api):
    load_catalog()
    response = _post(alice_api, _plan())
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["cost"]["tco_usd"] > body["cost"]["capex_usd"] > 0
    # The same prices the planning form uses for this GPU and node size (one rule: planner/adapters.py).
    gpu = Gpu.objects.get(pk=CATALOG_GPU_ID)
    server = adapters.node_price_from_gpus(H100_NODE_GPUS, gpu.price_usd)
    cloud = adapters.cloud_price_reference(CATALOG_GPU_ID)
    assumptions = body["assumptions"]
    assert assumptions["economics.gpu_server_usd"]["value"] == pytest.approx(server.value)
    assert "catalog GPU price" in assumptions["economics.gpu_server_usd"]["source"]
    assert assumptions["economics.cloud_usd_per_gpu_hour"]["value"] == pytest.approx(cloud.value)
    electricity = EconomicsFact.objects.get(pk="elec_us_industrial_2023")
    assert assumptions["economics.electricity_usd_per_kwh"]["value"] == electricity.value
    assert body["cost"]["capex_usd"] >= 8 * server.value  # eight nodes at least, plus network and fit-out


def test_the_page_and_the_api_price_the_same_node(alice_api):
    """The page's server price for the starter plan equals the API's default for the same GPU and node size."""
    load_catalog()
    evaluation = services.scenario_preview(owner=None, inputs=scenario_inputs("llama70b-h100"))
    page_server_usd = evaluation.payload["economics"]["gpu_server_usd"]
    page_cloud_usd = evaluation.payload["economics"]["cloud_usd_per_gpu_hour"]
    body = _post(alice_api, _plan()).json()
    assert body["assumptions"]["economics.gpu_server_usd"]["value"] == pytest.approx(page_server_usd)
    assert body["assumptions"]["economics.cloud_usd_per_gpu_hour"]["value"] == pytest.approx(page_cloud_usd)


def test_a_catalog_price_edit_reaches_the_api_default(alice_api):
    load_catalog()
    before = _post(alice_api, _plan()).json()["assumptions"]["economics.gpu_server_usd"]["value"]
    gpu = Gpu.objects.get(pk=CATALOG_GPU_ID)
    gpu.price_usd += 10_000
    gpu.save()
    after = _post(alice_api, _plan()).json()["assumptions"]["economics.gpu_server_usd"]["value"]
    assert after == pytest.approx(before + H100_NODE_GPUS * 10_000)


def test_prices_the_caller_gives_are_used_as_given(alice_api):
    load_catalog()
    body = _post(alice_api, _plan(gpu_server_usd=400_000, cloud_usd_per_gpu_hour=2.0)).json()
    assert "economics.gpu_server_usd" not in body["assumptions"]
    assert "economics.cloud_usd_per_gpu_hour" not in body["assumptions"]
    default = _post(alice_api, _plan()).json()
    assert body["cost"]["capex_usd"] > default["cost"]["capex_usd"]


def test_without_a_catalog_price_the_400_names_the_field_and_what_to_send(alice_api):
    make_gpu(id="unpriced_gpu", model="Unpriced GPU", price_usd=None)
    payload = _plan()
    payload["cluster"]["gpu"] = "unpriced_gpu"
    response = _post(alice_api, payload)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert set(errors) == {"economics.gpu_server_usd", "economics.cloud_usd_per_gpu_hour"}, errors
    assert "no price for the Unpriced GPU" in errors["economics.gpu_server_usd"][0]
    assert "price of one node" in errors["economics.gpu_server_usd"][0]
    assert "rental price" in errors["economics.cloud_usd_per_gpu_hour"][0]
    payload["economics"] = {"gpu_server_usd": 200_000, "cloud_usd_per_gpu_hour": 2.0}
    assert _post(alice_api, payload).status_code == 200


def test_a_custom_gpu_object_is_priced_from_its_own_price(alice_api):
    payload = _plan(cloud_usd_per_gpu_hour=2.0)
    payload["cluster"]["gpu"] = {
        "name": "Lab GPU",
        "memory_gb": 80,
        "memory_bandwidth_tbs": 3.35,
        "tflops": {"bf16": 989},
        "tdp_w": 700,
        "scaleup_bandwidth_gbs": 900,
        "price_usd": 20_000,
    }
    body = _post(alice_api, payload).json()
    expected = adapters.node_price_from_gpus(H100_NODE_GPUS, 20_000).value
    assert body["assumptions"]["economics.gpu_server_usd"]["value"] == pytest.approx(expected)


def test_no_economics_object_still_means_no_cost_section(alice_api):
    payload = _plan()
    del payload["economics"]
    body = _post(alice_api, payload).json()
    assert "cost" not in body or body["cost"] is None


# ------------------------------------------------------------------------------------------ suggestions


def test_a_partial_gpu_id_suggests_the_rows_it_starts(alice_api):
    payload = _plan()
    payload["cluster"]["gpu"] = "nvidia_h100"
    errors = _post(alice_api, payload).json()["errors"]
    assert "did you mean 'nvidia_h100_sxm5_80gb'?" in errors["cluster.gpu"][0]
    assert "nvidia_a10'" not in errors["cluster.gpu"][0]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("h100", "nvidia_h100_sxm5_80gb"),
        ("h20", "nvidia_h20_96gb"),
        ("NVIDIA H100 SXM5 80GB", CATALOG_GPU_ID),
    ],
)
def test_parts_and_other_spellings_of_a_gpu_id_are_understood(alice_api, typed, meant):
    payload = _plan()
    payload["cluster"]["gpu"] = typed
    message = _post(alice_api, payload).json()["errors"]["cluster.gpu"][0]
    assert f"did you mean '{meant}'?" in message


def test_an_unknown_model_size_lists_the_presets_instead_of_a_wrong_guess(alice_api):
    payload = _plan()
    payload["workload"]["model"] = "llama-99b"
    message = _post(alice_api, payload).json()["errors"]["workload.model"][0]
    assert "did you mean" not in message and "llama2-7b'?" not in message
    assert all(name in message for name in PRESETS), message


@pytest.mark.parametrize(("typed", "meant"), [("llama3", "llama3.1-8b"), ("Llama 3.1 70B", "llama3.1-70b")])
def test_a_preset_family_or_its_display_name_is_suggested(alice_api, typed, meant):
    payload = _plan()
    payload["workload"]["model"] = typed
    message = _post(alice_api, payload).json()["errors"]["workload.model"][0]
    assert f"did you mean '{meant}'?" in message


# ------------------------------------------------------------------------------------------ automatic layout


def _page_layout(global_batch: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The layout the planning page's automatic search picks for PLAN (same GPU, nodes, model, tokens, batch),
    and the engine input the page sent."""
    load_catalog()
    inputs = scenario_inputs("llama70b-h100", tokens_b=1000, global_batch=global_batch)
    evaluation = services.scenario_preview(owner=None, inputs=inputs)
    assert evaluation.search_summary and evaluation.search_summary["best"], evaluation.search_summary
    return evaluation.search_summary["best"][0]["config"], evaluation.payload


LAYOUT_KEYS = ("tp", "pp", "dp", "cp", "ep", "zero_stage", "recompute", "micro_batch")


@pytest.mark.parametrize("parallelism", [{"auto": True, "global_batch": 1024}, {"global_batch": 1024}])
def test_a_payload_without_a_layout_gets_the_pages_automatic_layout(alice_api, parallelism):
    config, page_payload = _page_layout(1024)
    payload = copy.deepcopy(page_payload)  # the page's own engine input, its layout taken away
    payload["workload"]["parallelism"] = parallelism
    response = _post(alice_api, payload)
    assert response.status_code == 200, response.content
    body = response.json()
    chosen = body["parallelism"]
    assert {k: chosen[k] for k in LAYOUT_KEYS} == {k: config[k] for k in LAYOUT_KEYS}
    assert body["memory"]["fits"] is True and body["time"]["days"] > 0


def test_an_omitted_parallelism_object_plans_a_layout_that_fits(alice_api):
    load_catalog()
    payload = _plan()
    del payload["workload"]["parallelism"]
    response = _post(alice_api, payload)
    assert response.status_code == 200, response.content
    body = response.json()
    layout = body["parallelism"]
    assert layout["tp"] * layout["pp"] * layout["dp"] * layout["cp"] == 64
    assert body["memory"]["fits"] is True and body["time"]["days"] > 0


def test_a_model_that_fits_no_layout_reports_no_time(alice_api):
    load_catalog()
    payload = _plan()
    payload["cluster"]["nodes"] = 1
    payload["workload"]["model"] = "llama3.1-405b"
    del payload["workload"]["parallelism"]
    response = _post(alice_api, payload)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["memory"]["fits"] is False
    assert body["time"] is None


@pytest.mark.parametrize("gpu_id", ["nvidia_l40s", "nvidia_l4"])
def test_an_l40s_or_l4_plan_is_priced_from_the_catalog_without_typed_prices(alice_api, gpu_id):
    """Issue 15: an L40S or L4 box can be planned without typing any price (API as on the page)."""
    load_catalog()
    payload = _plan()
    payload["cluster"]["gpu"] = gpu_id
    response = _post(alice_api, payload)
    assert response.status_code == 200, response.content
    assumptions = response.json()["assumptions"]
    gpu = Gpu.objects.get(pk=gpu_id)
    gpus_per_node = payload["cluster"]["gpus_per_node"]
    expected = adapters.node_price_from_gpus(gpus_per_node, gpu.price_usd).value
    assert assumptions["economics.gpu_server_usd"]["value"] == pytest.approx(expected)
    assert assumptions["economics.cloud_usd_per_gpu_hour"]["value"] == pytest.approx(
        adapters.cloud_price_reference(gpu_id).value
    )
