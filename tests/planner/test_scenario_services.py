"""Scenario services: results store exactly what the engine was sent and answered, engine rejections write
nothing, re-evaluation keeps history, catalog changes are detected, clones and share links behave."""

from __future__ import annotations

import pytest

from catalog.models import Gpu
from planner import selectors, services
from planner.engine.api import ENGINE_VERSION, estimate
from planner.engine.inputs.errors import SpecError
from planner.models import Scenario, ScenarioResult, ShareLink
from tests.planner.conftest import make_scenario, scenario_inputs

pytestmark = pytest.mark.django_db


def test_create_stores_the_payload_output_and_catalog_values_used(catalog, alice):
    scenario = make_scenario(alice)
    result = scenario.latest_result
    assert result.scenario == scenario and result.engine_version == ENGINE_VERSION
    assert result.input_payload["cluster"]["nodes"] == 8
    assert result.input_payload["cluster"]["gpus_per_node"] == 8
    assert result.input_payload["workload"]["model"] == "llama3.1-70b"
    assert result.input_payload["workload"]["tokens_b"] == 15_000
    # The stored output is what the engine answers for the stored payload: reproducible.
    again = estimate(result.input_payload)
    assert again["time"]["days"] == pytest.approx(result.output["time"]["days"])
    assert again["cost"]["tco_usd"] == pytest.approx(result.output["cost"]["tco_usd"])
    gpu = result.catalog_snapshot["gpu"]
    assert gpu["id"] == "nvidia_h100_sxm5_80gb"
    assert gpu["values"]["price_usd"] == Gpu.objects.get(pk="nvidia_h100_sxm5_80gb").price_usd
    assert gpu["updated_at"] and gpu["sources"]
    assert len(result.catalog_hash) == 64
    assert result.summary["days"] == pytest.approx(result.output["time"]["days"])


def test_automatic_parallelism_uses_the_searched_layout(catalog, alice):
    scenario = make_scenario(alice)
    result = scenario.latest_result
    best = result.search_summary["best"][0]["config"]
    used = result.input_payload["workload"]["parallelism"]
    for key in ("tp", "pp"):
        assert used[key] == best[key]
    assert result.search_summary["feasible"] >= 1
    assert result.output["memory"]["fits"] is True


def test_engine_rejection_writes_nothing(catalog, alice):
    inputs = scenario_inputs(gpu="nvidia_a100_sxm4_80gb", precision="fp8")
    with pytest.raises(SpecError):
        services.scenario_create(owner=alice, inputs=inputs)
    assert Scenario.objects.count() == 0
    assert ScenarioResult.objects.count() == 0


def test_update_keeps_earlier_results_readable(catalog, alice):
    scenario = make_scenario(alice)
    first = scenario.latest_result
    services.scenario_update(scenario=scenario, inputs=scenario_inputs(nodes=16, name=scenario.name))
    scenario.refresh_from_db()
    assert scenario.results.count() == 2
    assert scenario.latest_result != first
    first.refresh_from_db()
    assert first.input_payload["cluster"]["nodes"] == 8
    assert scenario.latest_result.input_payload["cluster"]["nodes"] == 16
    assert scenario.latest_result.output["time"]["days"] < first.output["time"]["days"]


def test_catalog_change_is_reported_and_reevaluation_uses_the_new_value(catalog, alice):
    scenario = make_scenario(alice)
    old_price = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb").price_usd
    gpu = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    gpu.price_usd = old_price + 2_500
    gpu.save()  # as the admin, a CSV import or the API save it
    scenario = selectors.scenario_get(user=alice, pk=scenario.pk)
    page = selectors.result_page(scenario=scenario)
    assert page.is_stale
    [change] = page.catalog_changes
    assert (change.row_label, change.field, change.old, change.new) == (
        "H100 SXM5 80GB",
        "price_usd",
        old_price,
        old_price + 2_500,
    )
    old_capex = scenario.latest_result.output["cost"]["capex_usd"]
    services.scenario_reevaluate(scenario=scenario)
    scenario = selectors.scenario_get(user=alice, pk=scenario.pk)
    assert not selectors.result_page(scenario=scenario).is_stale
    assert scenario.latest_result.output["cost"]["capex_usd"] > old_capex
    assert scenario.results.count() == 2


def test_clone_on_another_gpu_copies_the_inputs(catalog, alice):
    scenario = make_scenario(alice)
    b200 = Gpu.objects.get(pk="nvidia_b200_hgx")
    copy = services.scenario_clone(scenario=scenario, owner=alice, gpu=b200)
    assert copy.pk != scenario.pk and copy.owner == alice
    assert scenario.name == "Llama 3.1 70B on 64 H100s, 15T tokens"
    assert copy.name == "Llama 3.1 70B on 64 B200s, 15T tokens"
    assert (copy.nodes, copy.gpus_per_node, copy.model_preset, copy.tokens_b) == (
        8,
        8,
        "llama3.1-70b",
        15_000,
    )
    assert copy.latest_result.input_payload["cluster"]["gpu"]["name"] == b200.model
    assert scenario.results.count() == 1


def test_clone_onto_a_gpu_not_named_in_the_title_appends_it(catalog, alice):
    scenario = make_scenario(alice, name="Pre-training plan")
    h200 = Gpu.objects.get(pk="nvidia_h200_sxm_141gb")
    copy = services.scenario_clone(scenario=scenario, owner=alice, gpu=h200)
    assert copy.name == f"Pre-training plan on {h200.model}"


def test_plain_clone_is_named_copy_of(catalog, alice):
    scenario = make_scenario(alice)
    copy = services.scenario_clone(scenario=scenario, owner=alice)
    assert copy.name == f"Copy of {scenario.name}"
    assert copy.latest_result.input_payload == scenario.latest_result.input_payload


def test_delete_removes_results_and_links(catalog, alice):
    scenario = make_scenario(alice)
    services.share_link_create(scenario=scenario)
    services.scenario_delete(scenario=scenario)
    assert Scenario.objects.count() == 0
    assert ScenarioResult.objects.count() == 0
    assert ShareLink.objects.count() == 0


def test_share_link_is_reused_until_revoked_then_replaced(catalog, alice):
    scenario = make_scenario(alice)
    first = services.share_link_create(scenario=scenario)
    assert services.share_link_create(scenario=scenario) == first
    services.share_link_revoke(link=first)
    first.refresh_from_db()
    assert first.revoked_at is not None
    second = services.share_link_create(scenario=scenario)
    assert second != first and second.token != first.token


def test_preview_saves_nothing(catalog, alice):
    evaluation = services.scenario_preview(owner=alice, inputs=scenario_inputs(nodes=4))
    assert evaluation.output["time"]["days"] > 0
    assert evaluation.payload["cluster"]["nodes"] == 4
    assert Scenario.objects.count() == 0


def test_automatic_mode_without_any_workable_layout_says_why_on_the_parallelism_field(catalog, alice):
    """257 nodes x 8 GPUs = 2,056 GPUs: no data-parallel degree divides a global batch of 1,024 sequences."""
    inputs = scenario_inputs(nodes=257, tp=8, pp=1, global_batch=1024)
    with pytest.raises(SpecError) as caught:
        services.scenario_create(owner=alice, inputs=inputs)
    [problem] = caught.value.problems
    assert problem.path == "workload.parallelism"
    assert "No parallel layout of the 2,056 GPUs works" in problem.message
    assert Scenario.objects.count() == 0
