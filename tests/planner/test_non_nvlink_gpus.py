"""Catalog GPUs without a scale-up fabric (PCIe cards, TPU v4, Ascend 910B) plan on the pages: the host PCIe
link stands in for the missing scale-up bandwidth, the result says so, and a GPU without the peak a precision
needs gets a message on the GPU field instead of a 500."""

from __future__ import annotations

import pytest
from django.urls import reverse

from catalog.models import Gpu
from planner import adapters, services
from planner.engine.inputs.catalog import PCIE_DEFAULT_GENERATION, PCIE_X16_BIDIR_GBS
from planner.forms import ScenarioForm
from tests.planner.conftest import form_data

pytestmark = pytest.mark.django_db

NON_NVLINK_GPUS = (
    "nvidia_l40s",
    "nvidia_l4",
    "nvidia_a10",
    "nvidia_h100_nvl_94gb",
    "nvidia_rtx6000_ada",
    "google_tpu_v4",
    "huawei_ascend_910b",
)


def _small_job(gpu_id: str, precision: str = "bf16") -> dict[str, object]:
    """Llama 3.1 8B on one 8-GPU node with prices typed (not every card has a catalog price)."""
    return form_data(
        gpu=gpu_id,
        precision=precision,
        model_preset="llama3.1-8b",
        nodes=1,
        tokens_b=10,
        server_price_usd=100_000,
        cloud_usd_per_gpu_hour=2,
    )


@pytest.mark.parametrize("gpu_id", NON_NVLINK_GPUS)
def test_a_scenario_on_a_gpu_without_nvlink_evaluates_or_names_the_gpu_field(catalog, alice, gpu_id) -> None:
    row = Gpu.objects.get(pk=gpu_id)
    form = ScenarioForm(_small_job(gpu_id))
    if row.missing_key_specs():
        assert not form.is_valid() and set(form.errors) == {"gpu"}, form.errors.as_json()
        assert row.model in form.errors["gpu"][0]
        return
    if row.bf16_tflops is None:  # a 16-bit peak in FP16 only: plan in FP16 (BF16 is refused, see below)
        form = ScenarioForm(_small_job(gpu_id, precision="fp16"))
    assert form.is_valid(), form.errors.as_json()
    evaluation = services.scenario_preview(owner=alice, inputs=form.scenario_inputs())
    assert evaluation.output["time"]["days"] > 0
    sent = evaluation.payload["cluster"]["gpu"]["scaleup_bandwidth_gbs"]
    assert sent == PCIE_X16_BIDIR_GBS.get(row.pcie_gen, PCIE_X16_BIDIR_GBS[PCIE_DEFAULT_GENERATION])
    shown = [a for a in evaluation.input_assumptions if a["name"] == "cluster.gpu.scaleup_bandwidth_gbs"]
    assert len(shown) == 1 and shown[0]["value"] == sent and "PCIe" in shown[0]["source"]


def test_a_gpu_with_nvlink_sends_its_own_scaleup_bandwidth_and_no_fallback_note(catalog) -> None:
    h100 = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    assert adapters.gpu_payload(h100)["scaleup_bandwidth_gbs"] == h100.scaleup_bw_gbs
    assert adapters.pcie_fallback_note(h100) is None


def test_the_pcie_fallback_uses_the_catalog_host_link_rows() -> None:
    assert PCIE_X16_BIDIR_GBS[4] == 62.0
    assert PCIE_X16_BIDIR_GBS[5] == 126.0
    assert PCIE_X16_BIDIR_GBS[6] == 242.0


def test_a_gpu_without_a_16_bit_peak_gets_a_message_next_to_the_gpu_field(catalog, alice, client) -> None:
    # Every seed GPU now has a 16-bit peak (issue 15 filled the RTX 6000 Ada's): take them away from one.
    gpu = Gpu.objects.get(pk="nvidia_rtx6000_ada")
    gpu.bf16_tflops = gpu.fp16_tflops = None
    gpu.save()
    client.force_login(alice)
    response = client.post(reverse("scenario_create"), _small_job("nvidia_rtx6000_ada"))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "gpu" in errors and "16-bit" in errors["gpu"][0]


def test_an_fp16_only_gpu_in_bf16_gets_a_message_next_to_the_precision_field(catalog, alice, client) -> None:
    client.force_login(alice)
    response = client.post(reverse("scenario_create"), _small_job("nvidia_v100_sxm2_32gb"))
    assert response.status_code == 200
    message = " ".join(response.context["form"].errors["precision"])
    assert "V100 SXM2 32GB has no bf16 peak" in message and "fp16" in message


def test_the_seed_resolution_uses_the_same_pcie_fallback() -> None:
    from planner.engine.inputs.catalog import catalog_gpu

    assert catalog_gpu("nvidia_l40s")["scaleup_bandwidth_gbs"] == PCIE_X16_BIDIR_GBS[4]
    assert (
        catalog_gpu("google_tpu_v4")["scaleup_bandwidth_gbs"] == PCIE_X16_BIDIR_GBS[PCIE_DEFAULT_GENERATION]
    )
