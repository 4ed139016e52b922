"""`estimate` for inference with continuous batching: the contract keys, the Llama 3.1 70B example, bad input."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner.engine.api import estimate
from planner.engine.inputs.errors import SpecError

#: The worked example: Llama 3.1 70B on 8 H100s, batch 32, 4K prompt / 512 output, 20k tokens/s, TTFT within 2 s.
EXAMPLE: dict[str, Any] = {
    "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 1},
    "workload": {
        "kind": "inference",
        "model": "llama3.1-70b",
        "parallelism": {"tp": 8},
        "serving": {
            "batch": 32,
            "context_len": 4096,
            "output_len": 512,
            "target_tokens_per_s": 20000,
            "max_ttft_s": 2,
        },
    },
    "economics": {
        "electricity_usd_per_kwh": 0.08,
        "years": 4,
        "utilization": 0.8,
        "gpu_server_usd": 300000,
        "cloud_usd_per_gpu_hour": 2.5,
    },
}
ORIGINAL_KEYS = (
    "ttft_s",
    "tpot_s",
    "tokens_per_s",
    "tokens_per_s_per_gpu",
    "max_concurrent_requests",
    "gpus_needed",
    "best_batch",
    "meets_target",
    "replicas",
    "batch",
)
NEW_KEYS = (
    "batching",
    "requests_per_s",
    "ttft_s_p50",
    "ttft_s_p90",
    "ttft_s_p99",
    "tpot_s_p50",
    "tpot_s_p90",
    "tpot_s_p99",
    "usd_per_million_tokens",
    "speculative",
    "disaggregated",
)


def run(**serving: Any) -> dict[str, Any]:
    payload = copy.deepcopy(EXAMPLE)
    payload["workload"]["serving"].update(serving)
    return estimate(payload)


def test_every_original_and_new_inference_key_is_there_for_both_batchings():
    for batching in ("continuous", "static"):
        out = run(batching=batching)
        assert set(ORIGINAL_KEYS + NEW_KEYS) <= set(out["inference"]), batching
        assert out["inference"]["batching"] == batching
    assert {"ep", "dp_attention"} <= set(run()["parallelism"])


def test_first_token_time_is_one_request_s_not_the_batch_s_prefill():
    continuous = run()["inference"]
    static = run(batching="static")["inference"]
    # static prefills all 32 prompts before anyone's first token; a request in a continuous batch waits for its own
    assert continuous["ttft_s"] < static["ttft_s"] / 8
    assert continuous["ttft_s"] < 1.0


def test_the_gpu_count_follows_the_request_rate_never_the_typed_batch():
    counts = {b: run(batch=b)["inference"]["gpus_needed"] for b in (1, 32, 256)}
    assert len(set(counts.values())) == 1 and counts[32] % 8 == 0
    by_rate = [run(target_tokens_per_s=t)["inference"]["gpus_needed"] for t in (5000, 20000, 80000)]
    assert by_rate[0] < by_rate[1] < by_rate[2]
    assert by_rate[2] == pytest.approx(4 * by_rate[1], rel=0.15)


def test_the_example_says_the_cluster_is_too_small_and_how_many_gpus_serve_the_rate():
    out = run()["inference"]
    assert out["requests_per_s"] == pytest.approx(20000 / 512)
    assert out["saturated"] and not out["meets_target"] and out["ttft_s_p90"] is None
    assert out["max_requests_per_s"] < out["requests_per_s"]
    assert out["gpus_needed"] > 8 and out["best_batch"] >= 1
    assert any("exceed" in w for w in out["warnings"])
    served = run(target_tokens_per_s=0.5 * out["max_requests_per_s"] * 512)["inference"]
    assert served["meets_target"] and not served["saturated"]
    assert served["ttft_s_p50"] <= served["ttft_s_p90"] <= served["ttft_s_p99"] <= 2


def test_an_impossible_target_says_which_bound_fails_and_by_how_much():
    out = run(max_ttft_s=0.05)["inference"]
    assert out["gpus_needed"] is None
    reason = next(w for w in out["warnings"] if "no number of" in w)
    assert "TTFT" in reason and "over the 0.05 s target" in reason and "%" in reason


def test_cost_per_million_tokens_owned_and_rented():
    out = run(target_tokens_per_s=1000)["inference"]
    assert not out["saturated"]
    cost = out["usd_per_million_tokens"]
    hours = 1000 * 3600 / 1e6
    assert cost["cloud"] == pytest.approx(8 * 2.5 / hours)
    assert 0 < cost["own"] < cost["cloud"] * 3


def test_deepseek_with_expert_parallelism_and_attention_dp_on_8_h200():
    payload = copy.deepcopy(EXAMPLE)
    payload["cluster"]["gpu"] = "nvidia_h200_sxm_141gb"
    payload["workload"].update(
        model="deepseek-v3",
        precision="fp8",
        parallelism={"tp": 8, "ep": 8, "dp_attention": True},
        serving={"context_len": 1024, "output_len": 1024, "requests_per_s": 5, "kv_precision": "fp8"},
    )
    out = estimate(payload)
    assert out["parallelism"]["ep"] == 8 and out["parallelism"]["dp_attention"] is True
    assert out["inference"]["fits"] and out["inference"]["tokens_per_s"] > 0


def test_speculative_decoding_and_disaggregated_pools_are_echoed():
    spec = {
        "method": "mtp",
        "draft_tokens": 1,
        "acceptance_rate": 0.85,
        "acceptance_source": "DeepSeek-V3 §5.4.3",
    }
    out = run(target_tokens_per_s=2000, speculative=spec)["inference"]
    assert out["speculative"]["acceptance_length"] == pytest.approx(1.85)
    payload = copy.deepcopy(EXAMPLE)
    payload["cluster"]["nodes"] = 2
    payload["workload"]["serving"].update(target_tokens_per_s=2000, disaggregated={})
    dis = estimate(payload)["inference"]["disaggregated"]
    assert dis["prefill_gpus"] + dis["decode_gpus"] == 16 and dis["chosen_by"] == "sizer"
    assert dis["kv_transfer_s"] > 0


@pytest.mark.parametrize(
    ("serving", "parallelism", "path"),
    [
        ({"batching": "paged"}, {"tp": 8}, "workload.serving.batching"),
        ({"batching": "static", "batch": None}, {"tp": 8}, "workload.serving.batch"),
        ({"input_distribution": "lognormal"}, {"tp": 8}, "workload.serving.input_cv"),
        ({"latency_percentile": 95}, {"tp": 8}, "workload.serving.latency_percentile"),
        ({"requests_per_s": -1}, {"tp": 8}, "workload.serving.requests_per_s"),
        ({"prefix_cache_hit_rate": 1.0}, {"tp": 8}, "workload.serving.prefix_cache_hit_rate"),
        (
            {"speculative": {"method": "eagle", "draft_tokens": 2, "acceptance_length": 4}},
            {"tp": 8},
            "workload.serving.speculative.acceptance_length",
        ),
        ({"disaggregated": {"prefill_gpus": 8}}, {"tp": 8}, "workload.serving.disaggregated.prefill_gpus"),
        ({}, {"tp": 8, "dp_attention": True}, "workload.parallelism.dp_attention"),
        ({}, {"tp": 8, "ep": 2}, "workload.parallelism.ep"),
        ({}, {"tp": 8, "zero_stage": 3}, "workload.parallelism.zero_stage"),
        ({"serving_typo": 1}, {"tp": 8}, "workload.serving.serving_typo"),
        ({"fused_gemm_swiglu": "yes"}, {"tp": 8}, "workload.serving.fused_gemm_swiglu"),
        ({"eplb": "yes"}, {"tp": 8}, "workload.serving.eplb"),
        ({"cuda_graphs": "no"}, {"tp": 8}, "workload.serving.cuda_graphs"),
    ],
)
def test_bad_serving_input_names_the_field(serving, parallelism, path):
    payload = copy.deepcopy(EXAMPLE)
    payload["workload"]["serving"].update(serving)
    payload["workload"]["serving"] = {
        k: v for k, v in payload["workload"]["serving"].items() if v is not None
    }
    payload["workload"]["parallelism"] = parallelism
    with pytest.raises(SpecError) as err:
        estimate(payload)
    assert path in [p.path for p in err.value.problems]


def test_int4_weights_run_weight_only_and_halve_the_weight_memory_of_fp8():
    fp8 = estimate({**EXAMPLE, "workload": {**EXAMPLE["workload"], "precision": "fp8"}})
    int4 = estimate({**EXAMPLE, "workload": {**EXAMPLE["workload"], "precision": "int4"}})
    assert int4["memory"]["weights_gib"] == pytest.approx(fp8["memory"]["weights_gib"] / 2, rel=0.01)
    assert int4["inference"]["engine"]["gemm_precision"] == "bf16"


@pytest.mark.parametrize("rate", [1.0, 3.0, 4.0, 4.1, 5.0])
def test_a_cluster_meeting_its_targets_is_never_told_it_needs_more_gpus(rate: float) -> None:
    """`gpus_needed` sizes the scenario's own layout for the rate; where the scenario's GPUs meet the targets at
    that rate, the count may not exceed them (a coarse load grid once said 16 GPUs for 8 that met them), and where
    they miss, it must exceed them."""
    payload = copy.deepcopy(EXAMPLE)
    serving = payload["workload"]["serving"]
    del serving["batch"], serving["target_tokens_per_s"]
    serving.update(requests_per_s=rate, max_tpot_s=0.05)
    payload["workload"]["precision"] = "fp8"
    inference = estimate(payload)["inference"]
    gpus = payload["cluster"]["gpus_per_node"] * payload["cluster"]["nodes"]
    assert inference["gpus_needed"] is not None
    if inference["meets_target"]:
        assert inference["gpus_needed"] <= gpus
    else:
        assert inference["gpus_needed"] > gpus


def test_a_fused_gemm_swiglu_engine_is_echoed_and_no_slower():
    plain = run(target_tokens_per_s=2000)["inference"]
    fused = run(target_tokens_per_s=2000, fused_gemm_swiglu=True)["inference"]
    assert fused["engine"]["fused_gemm_swiglu"] is True and plain["engine"]["fused_gemm_swiglu"] is False
    assert fused["tpot_s_p50"] < plain["tpot_s_p50"]


def test_cuda_graphs_is_echoed_and_an_engine_without_them_is_slower_per_token():
    graphs = run(requests_per_s=1.0)["inference"]
    eager = run(requests_per_s=1.0, cuda_graphs=False)["inference"]
    assert graphs["engine"]["cuda_graphs"] is True and eager["engine"]["cuda_graphs"] is False
    assert eager["tpot_s_p50"] > graphs["tpot_s_p50"]
