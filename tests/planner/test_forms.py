"""Bad input on the scenario form: the page answers 200 with a message next to the field concerned, and nothing
is saved (no scenario, no result)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from planner.forms import ScenarioForm
from planner.models import Scenario, ScenarioResult
from tests.planner.conftest import form_data

pytestmark = pytest.mark.django_db

MANUAL = {"parallelism_mode": "manual", "tp": 8, "pp": 2, "cp": 1, "ep": 1, "micro_batch": 1}

BAD_INPUTS = [
    # (case, overrides, field, words the message must contain)
    ("no name", {"name": ""}, "name", "required"),
    ("zero nodes", {"nodes": 0}, "nodes", "greater than or equal to 1"),
    ("nodes not a number", {"nodes": "eight"}, "nodes", "whole number"),
    ("zero GPUs per node", {"gpus_per_node": 0}, "gpus_per_node", "greater than or equal to 1"),
    ("unknown catalog GPU", {"gpu": "no_such_gpu"}, "gpu", "valid choice"),
    ("no GPU picked", {"gpu": ""}, "gpu", "Pick a GPU"),
    ("negative tokens", {"tokens_b": -5}, "tokens_b", "billions"),
    ("tokens in units not billions", {"tokens_b": 15e12}, "tokens_b", "billions"),
    ("no tokens for training", {"tokens_b": ""}, "tokens_b", "required"),
    ("TP not dividing a node", {**MANUAL, "tp": 3}, "tp", "TP must divide the 8 GPUs of a node (got 3)"),
    ("TP x PP not dividing GPUs", {**MANUAL, "pp": 3}, "pp", "must divide the 64 GPUs"),
    ("DP inconsistent", {**MANUAL, "dp": 5}, "dp", "must equal the 64 GPUs"),
    ("batch not a multiple", {**MANUAL, "global_batch": 6}, "global_batch", "multiple of micro-batch"),
    ("manual without TP", {**MANUAL, "tp": ""}, "tp", "set by hand"),
    ("utilisation above 100 %", {"utilization_pct": 150}, "utilization_pct", "less than or equal to 100"),
    ("utilisation zero", {"utilization_pct": 0}, "utilization_pct", "greater than or equal to 1"),
    ("no electricity price", {"electricity": "", "electricity_usd_per_kwh": ""}, "electricity", "region"),
    ("colocation without a rate", {"colocation": ""}, "colocation", "colocation rate"),
    ("life of 0 years", {"years": 0}, "years", "greater than or equal to 1"),
    ("PUE below 1", {"pue": 0.9}, "pue", "greater than or equal to 1"),
    (
        "custom GPU without memory",
        {"gpu_source": "custom", "custom_gpu_name": "X1"},
        "custom_gpu_memory_gb",
        "custom GPU",
    ),
    (
        "custom model heads not dividing hidden",
        {
            "model_preset": "custom",
            "custom_model_layers": 32,
            "custom_model_hidden": 4096,
            "custom_model_heads": 30,
            "custom_model_kv_heads": 6,
            "custom_model_ffn_hidden": 14336,
            "custom_model_ffn_type": "swiglu",
            "custom_model_vocab": 128256,
            "custom_model_seq_len": 8192,
        },
        "custom_model_heads",
        "divide the hidden size",
    ),
    (
        "serving without a batch",
        {"workload_kind": "inference", "batching": "static", "serving_batch": ""},
        "serving_batch",
        "required",
    ),
    (
        "job fraction above 1",
        {"workload_kind": "job", "job_parallel_fraction": 1.5},
        "job_parallel_fraction",
        "less than or equal to 1",
    ),
    (
        "job without a run time",
        {"workload_kind": "job", "job_single_gpu_hours": ""},
        "job_single_gpu_hours",
        "required",
    ),
    ("system template without a system", {"gpu_source": "system", "system": ""}, "system", "system template"),
    (
        "GPU that is not sold (cloud only)",
        {"gpu": "google_tpu_v4"},
        "server_price_usd",
        "type the price of one node",
    ),
    (
        "GPU without a public cloud price",
        {"gpu": "nvidia_rtx6000_ada"},
        "cloud_usd_per_gpu_hour",
        "type the rental price you were quoted",
    ),
    (
        "custom GPU without prices",
        {
            "gpu_source": "custom",
            "custom_gpu_name": "X1",
            "custom_gpu_memory_gb": 96,
            "custom_gpu_bandwidth_tbs": 4,
            "custom_gpu_bf16_tflops": 1000,
            "custom_gpu_tdp_w": 800,
            "custom_gpu_scaleup_gbs": 900,
        },
        "server_price_usd",
        "type the price of one node",
    ),
    ("no global batch", {"global_batch": ""}, "global_batch", "required"),
]


@pytest.mark.parametrize(("case", "overrides", "field", "words"), BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_input_gets_a_message_next_to_the_field_and_saves_nothing(
    client, alice, catalog, case, overrides, field, words
):
    client.force_login(alice)
    response = client.post(reverse("scenario_create"), form_data(**overrides))
    assert response.status_code == 200, case
    errors = response.context["form"].errors
    assert field in errors, (case, errors.as_json())
    assert words in " ".join(errors[field]), (case, errors[field])
    html = response.content.decode()
    block = re.search(rf'id="errors-{field}"[^>]*>(.*?)</ul>', html, re.S)
    assert block and words.split(" (")[0] in block.group(1).replace("&#x27;", "'"), case
    assert Scenario.objects.count() == 0
    assert ScenarioResult.objects.count() == 0


def test_engine_problems_land_on_the_field_they_concern(client, alice, catalog):
    """FP8 training on an A100 (no FP8 tensor cores): the engine rejects it and the page names the field."""
    client.force_login(alice)
    response = client.post(
        reverse("scenario_create"), form_data(gpu="nvidia_a100_sxm4_80gb", precision="fp8")
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "no fp8 peak" in " ".join(errors["precision"]), errors.as_json()
    assert "no fp8 peak" in response.content.decode()
    assert Scenario.objects.count() == 0


def test_preview_returns_field_errors_as_json(client, alice, catalog):
    client.force_login(alice)
    response = client.post(reverse("scenario_preview_new"), form_data(**{**MANUAL, "tp": 3}))
    body = response.json()
    assert response.status_code == 200
    assert body["ok"] is False
    assert body["errors"]["tp"] == ["TP must divide the 8 GPUs of a node (got 3)."]
    assert Scenario.objects.count() == 0


def test_form_normalises_percentages_to_fractions_and_picks_catalog_rows(catalog):
    form = ScenarioForm(form_data(utilization_pct=75, discount_rate_pct=8))
    assert form.is_valid(), form.errors.as_json()
    inputs = form.scenario_inputs()
    assert inputs["utilization"] == pytest.approx(0.75)
    assert inputs["discount_rate"] == pytest.approx(0.08)
    assert inputs["gpu"].pk == "nvidia_h100_sxm5_80gb"
    assert inputs["custom_gpu"] is None
    assert inputs["model_preset"] == "llama3.1-70b"


def test_system_template_fixes_the_gpus_per_node(catalog):
    form = ScenarioForm(form_data(gpu_source="system", system="nvidia_dgx_b200", gpus_per_node=4))
    assert form.is_valid(), form.errors.as_json()
    inputs = form.scenario_inputs()
    assert inputs["gpus_per_node"] == 8
    assert inputs["gpu"] is None and inputs["system"].pk == "nvidia_dgx_b200"


def test_custom_gpu_numbers_become_a_contract_gpu_object(catalog):
    form = ScenarioForm(
        form_data(
            gpu_source="custom",
            custom_gpu_name="Prototype X",
            custom_gpu_memory_gb=96,
            custom_gpu_bandwidth_tbs=4.0,
            custom_gpu_bf16_tflops=1200,
            custom_gpu_tdp_w=800,
            custom_gpu_scaleup_gbs=900,
            custom_gpu_price_usd=30_000,
            cloud_usd_per_gpu_hour=3.1,
        )
    )
    assert form.is_valid(), form.errors.as_json()
    gpu = form.scenario_inputs()["custom_gpu"]
    assert gpu == {
        "name": "Prototype X",
        "memory_gb": 96.0,
        "memory_bandwidth_tbs": 4.0,
        "tdp_w": 800.0,
        "scaleup_bandwidth_gbs": 900.0,
        "price_usd": 30_000.0,
        "tflops": {"bf16": 1200.0, "fp16": 1200.0},
    }


def test_preview_returns_the_headline_charts_and_its_server_time(client, alice, catalog):
    client.force_login(alice)
    response = client.post(reverse("scenario_preview_new"), form_data(nodes=16))
    body = response.json()
    assert body["ok"] is True and body["errors"] == {}
    assert 'data-kpi="days"' in body["headline_html"] and "Fits in GPU memory" in body["headline_html"]
    assert {c["key"] for c in body["charts"]} >= {"memory", "step_time", "power", "own_vs_rent"}
    timing = dict(part.strip().split(";dur=") for part in response["Server-Timing"].split(","))
    assert float(timing["total"]) >= float(timing["engine"]) > 0
    assert body["server_ms"] == pytest.approx(float(timing["total"]), abs=0.1)
    assert Scenario.objects.count() == 0


@pytest.mark.parametrize("gpu_id", ["nvidia_l40s", "nvidia_l4"])
def test_an_l40s_or_l4_box_is_planned_without_typing_any_price(client, alice, catalog, gpu_id):
    """Issue 15: the form showed red errors until both a server and a cloud price were typed."""
    client.force_login(alice)
    data = form_data(gpu=gpu_id)
    assert data.get("server_price_usd", "") == "" and data.get("cloud_usd_per_gpu_hour", "") == ""
    response = client.post(reverse("scenario_create"), data)
    assert response.status_code == 302, response.content.decode()[:2000]


def test_the_dgx_a100_template_plans(client, alice, catalog):
    """Issue 15: the DGX A100 system template failed with "GPU of DGX A100 is not in the catalog"."""
    client.force_login(alice)
    response = client.post(
        reverse("scenario_create"), form_data(gpu_source="system", system="nvidia_dgx_a100")
    )
    assert response.status_code == 302, response.content.decode()[:2000]
