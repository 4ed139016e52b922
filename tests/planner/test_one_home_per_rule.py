"""The rules written once (issue 12 point 3): which catalog GPU a scenario uses, copying a scenario onto another
GPU, and the catalog columns of the contract's TFLOPS keys."""

from __future__ import annotations

import pytest

from catalog.models import Gpu, System
from planner import adapters, services
from planner.engine.inputs.catalog import TFLOPS_COLUMNS
from planner.models import Scenario
from tests.planner.conftest import make_scenario

pytestmark = pytest.mark.django_db

CUSTOM_GPU = {
    "gpu_source": "custom",
    "custom_gpu_name": "Prototype X",
    "custom_gpu_memory_gb": 96,
    "custom_gpu_bandwidth_tbs": 4.0,
    "custom_gpu_bf16_tflops": 1200,
    "custom_gpu_tdp_w": 800,
    "custom_gpu_scaleup_gbs": 900,
    "custom_gpu_price_usd": 30_000,
    "cloud_usd_per_gpu_hour": 3.1,
}


def test_the_catalog_gpu_is_the_scenarios_own_else_its_templates_and_none_for_custom_numbers(catalog, alice):
    own = make_scenario(alice)
    assert own.catalog_gpu_id == "nvidia_h100_sxm5_80gb" == own.catalog_gpu.pk
    template = System.objects.get(pk="nvidia_dgx_b200")
    on_template = make_scenario(alice, gpu_source="system", system=template.pk)
    assert on_template.gpu_id is None
    assert on_template.catalog_gpu_id == template.gpu_id == on_template.catalog_gpu.pk
    custom = make_scenario(alice, **CUSTOM_GPU)
    assert custom.catalog_gpu_id is None and custom.catalog_gpu is None


def test_a_copy_onto_the_gpu_the_scenario_already_uses_is_exact(catalog, alice):
    template = System.objects.get(pk="nvidia_dgx_b200")
    scenario = make_scenario(alice, gpu_source="system", system=template.pk, server_price_usd=400_000)
    copy = services.scenario_clone(scenario=scenario, owner=alice, gpu=template.gpu)
    assert copy.system_id == template.pk and copy.server_price_usd == 400_000
    assert copy.latest_result.input_payload == scenario.latest_result.input_payload


def test_a_copy_onto_another_gpu_drops_the_template_and_the_typed_node_price(catalog, alice):
    scenario = make_scenario(alice, gpu_source="system", system="nvidia_dgx_b200", server_price_usd=400_000)
    h200 = Gpu.objects.get(pk="nvidia_h200_sxm_141gb")
    unsaved = services.scenario_on_gpu(scenario, h200)
    assert unsaved.pk is None and unsaved.owner_id == alice.pk
    assert (unsaved.gpu_id, unsaved.system_id, unsaved.server_price_usd) == (h200.pk, None, None)
    assert unsaved.catalog_gpu_id == h200.pk
    assert Scenario.objects.count() == 1


def test_every_contract_tflops_key_reads_a_gpu_column():
    assert set(adapters.GPU_TFLOPS_KEYS) == set(TFLOPS_COLUMNS)
    columns = {field.name for field in Gpu._meta.concrete_fields}
    assert set(adapters.GPU_TFLOPS_KEYS.values()) <= columns
