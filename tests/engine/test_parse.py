"""Parsing: units converted once, defaults echoed, every problem collected with its field path."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.parse import parse
from planner.engine.inputs.units import GB, TB, TERA, GiB
from tests.engine.conftest import TRAIN


def _payload(**workload: Any) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    payload["workload"].update(workload)
    return payload


def _problems(payload: Any) -> dict[str, list[str]]:
    with pytest.raises(SpecError) as err:
        parse(payload)
    return err.value.as_dict()


def test_units_convert_once_on_the_way_in():
    sc = parse(TRAIN)
    gpu = sc.cluster.gpu
    assert gpu.hbm_bytes == 80 * GiB  # the contract treats the vendor's GB label as GiB
    assert gpu.hbm_bandwidth_bytes_per_s == 3.35 * TB
    assert gpu.peak_flop_per_s["bf16"] == 989 * TERA
    assert gpu.scaleup_bandwidth_bytes_per_s == 900 * GB
    assert sc.cluster.scaleout_bytes_per_s_per_gpu == 400e9 / 8
    assert sc.tokens == 1000e9


def test_kilowatts_microseconds_and_minutes_convert():
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["node_max_power_kw"] = 10.2
    payload["cluster"]["network"] = {"latency_us": 2.5, "switch": {"port_gbps": 800}}
    payload["workload"]["goodput"] = {"restart_min": 10, "checkpoint_interval_min": 30}
    sc = parse(payload)
    assert sc.cluster.node_max_power_w == pytest.approx(10200.0)
    assert sc.cluster.network.latency_s == pytest.approx(2.5e-6)
    assert sc.cluster.network.switch.port_bandwidth_bits_per_s == 800e9
    assert sc.goodput.restart_s == 600.0 and sc.goodput.checkpoint_interval_s == 1800.0


def test_dp_is_derived_when_omitted_and_echoed():
    payload = copy.deepcopy(TRAIN)
    del payload["workload"]["parallelism"]["dp"]
    sc = parse(payload)
    assert sc.parallelism.dp == 16
    assert sc.assumptions["workload.parallelism.dp"]["value"] == 16


def test_a_catalog_id_resolves_from_the_seed_file():
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["gpu"] = "nvidia_a100_sxm4_80gb"
    sc = parse(payload)
    assert sc.cluster.gpu.hbm_bytes == 80 * GiB
    assert sc.cluster.gpu.peak_flop_per_s["bf16"] == 312 * TERA
    assert sc.cluster.gpu.catalog_id == "nvidia_a100_sxm4_80gb"


def test_an_unknown_catalog_id_gets_a_hint():
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["gpu"] = "nvidia_h100_sxm5_80g"
    assert "did you mean 'nvidia_h100_sxm5_80gb'" in _problems(payload)["cluster.gpu"][0]


def test_a_preset_with_overrides_and_params_b_only():
    sc = parse(_payload(model={"preset": "llama3.1-8b", "seq_len": 4096}))
    assert sc.model.seq_len == 4096 and sc.model.layers == 32
    sc = parse(_payload(model={"params_b": 7.0}, parallelism={"tp": 1, "global_batch": 64}))
    assert sc.model.params_override == 7e9
    assert "workload.model.shape" in sc.assumptions


def test_a_nested_preset_override_changes_only_the_keys_it_names():
    mixtral = parse(_payload(model={"preset": "mixtral-8x7b", "moe": {"top_k": 1}})).model
    assert mixtral is not None and mixtral.moe is not None
    assert (mixtral.moe.top_k, mixtral.moe.experts) == (1, 8)
    problems = _problems(_payload(model={"preset": "deepseek-v3", "mla": {"qk_rope_head_dim": -64}}))
    assert list(problems) == ["workload.model.mla.qk_rope_head_dim"]


def test_every_problem_is_reported_at_once_with_its_path():
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["nodes"] = 0
    payload["workload"]["tokens_b"] = -1
    payload["workload"]["precision"] = "bf17"
    payload["workload"]["parallelism"]["zero_stage"] = 4
    problems = _problems(payload)
    assert {
        "cluster.nodes",
        "workload.tokens_b",
        "workload.precision",
        "workload.parallelism.zero_stage",
    } <= set(problems)
    assert "did you mean 'bf16'" in problems["workload.precision"][0]


def test_a_missing_global_batch_does_not_hide_the_layout_rules():
    payload = copy.deepcopy(TRAIN)
    del payload["workload"]["parallelism"]["global_batch"]
    payload["workload"]["parallelism"].update({"tp": 3, "dp": None})
    problems = _problems(payload)
    assert problems["workload.parallelism.global_batch"] == ["is required"]
    assert "must divide gpus (got 3 for 32 GPUs)" in problems["workload.parallelism.tp"]


@pytest.mark.parametrize(
    ("parallelism", "path", "text"),
    [
        (
            {"tp": 2, "pp": 1, "dp": 8},
            "workload.parallelism.dp",
            "tp·pp·dp·cp = 16 but the cluster has 32 GPUs",
        ),
        ({"tp": 64, "dp": None}, "workload.parallelism.tp", "must divide gpus (got 64 for 32 GPUs)"),
        ({"tp": 1, "pp": 64, "dp": None}, "workload.parallelism.pp", "must divide gpus"),
        (
            {"tp": 2, "pp": 2, "dp": 8, "virtual_stages": 3},
            "workload.parallelism.virtual_stages",
            "must divide layers",
        ),
        ({"tp": 2, "dp": 16, "global_batch": 24}, "workload.parallelism.global_batch", "micro_batch·dp = 16"),
        ({"tp": 2, "dp": 8, "cp": 2, "ep": 2}, "workload.parallelism.ep", "mixture-of-experts"),
    ],
)
def test_cross_field_rules_name_the_field_to_change(parallelism, path, text):
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["parallelism"].update(parallelism)
    problems = _problems(payload)
    assert path in problems
    assert any(text in m for m in problems[path])


def test_pp_larger_than_the_layers_is_an_error_on_pp():
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["nodes"] = 8
    payload["workload"]["parallelism"].update({"tp": 1, "pp": 64, "dp": 1})
    assert (
        "must not exceed the model's layers (got pp 64 for 32 layers)"
        in _problems(payload)["workload.parallelism.pp"]
    )


def test_heads_must_be_divisible_by_tp_and_kv_heads_replicate_beyond():
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["parallelism"].update({"tp": 16, "dp": 2})  # 8 KV heads: each replicated twice
    sc = parse(payload)
    assert sc.assumptions["workload.parallelism.kv_heads_replicated"]["value"] == 2
    assert any("larger than a node" in w for w in sc.warnings)


def test_a_precision_the_gpu_lacks_is_refused():
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["gpu"] = "nvidia_a100_sxm4_80gb"
    payload["workload"]["precision"] = "fp8"
    assert "has no fp8 peak" in _problems(payload)["workload.precision"][0]


def test_mixture_of_experts_rules():
    payload = _payload(model="mixtral-8x7b", parallelism={"tp": 1, "ep": 3, "global_batch": 64})
    assert "must divide the experts" in " ".join(_problems(payload)["workload.parallelism.ep"])
    payload = _payload(
        model={"preset": "mixtral-8x7b", "moe": {"experts": 8, "top_k": 9, "expert_ffn_hidden": 1}},
        parallelism={"tp": 1, "global_batch": 64},
    )
    assert "workload.model.moe.top_k" in _problems(payload)


def test_economics_defaults_come_from_the_facility_module_and_are_echoed():
    payload = copy.deepcopy(TRAIN)
    payload["economics"] = {"gpu_server_usd": 300000, "cloud_usd_per_gpu_hour": 2.5}
    sc = parse(payload)
    assert sc.economics.years == 5.0
    assert "economics.electricity_usd_per_kwh" in sc.assumptions


def test_economics_without_server_price_is_an_error():
    payload = copy.deepcopy(TRAIN)
    payload["economics"] = {"years": 4}
    assert "economics.gpu_server_usd" in _problems(payload)


@pytest.mark.parametrize("bad", [True, "8", [8], {"n": 8}, 8.5, float("inf")])
def test_wrong_types_are_refused(bad):
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["gpus_per_node"] = bad
    assert "cluster.gpus_per_node" in _problems(payload)
