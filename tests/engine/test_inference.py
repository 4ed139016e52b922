"""Inference roofline: KV cache exactness, memory fit, latency sanity, GPUs for a target throughput."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.engine.inference.roofline import (
    ServingSpec,
    estimate_inference,
    experts_touched_fraction,
    kv_cache_bytes_per_token,
    kv_tp_share,
)
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.specs import GpuSpec, ModelSpec, MoeSpec
from planner.engine.inputs.units import GiB, KiB
from planner.engine.perf import efficiency
from planner.engine.transformer.params import total_params

# H100 SXM5 80GB datasheet values (catalog gpus.csv nvidia_h100_sxm5_80gb), dense tensor peaks
H100 = GpuSpec(
    name="H100 SXM5 80GB",
    hbm_bytes=80 * GiB,
    hbm_bandwidth_bytes_per_s=3.35e12,
    peak_flop_per_s={"bf16": 989e12, "fp16": 989e12, "fp8": 1979e12},
    tdp_w=700.0,
    scaleup_bandwidth_bytes_per_s=900e9,
)
A100 = GpuSpec(
    name="A100 SXM4 80GB",
    hbm_bytes=80 * GiB,
    hbm_bandwidth_bytes_per_s=2.039e12,
    peak_flop_per_s={"bf16": 312e12, "fp16": 312e12},
    tdp_w=400.0,
    scaleup_bandwidth_bytes_per_s=600e9,
)
# Llama 2 (arXiv:2307.09288): 70B has 80 layers, d 8192, 64 heads, 8 KV heads, FFN 28672, vocab 32000
LLAMA2_70B = ModelSpec("llama2-70b", 80, 8192, 64, 8, 28672, "swiglu", 32000, 4096)
LLAMA2_7B = ModelSpec("llama2-7b", 32, 4096, 32, 32, 11008, "swiglu", 32000, 4096)
# OPT-13B (arXiv:2205.01068 Table 1): 40 layers, d 5120, 40 heads
OPT_13B = ModelSpec(
    "opt-13b",
    40,
    5120,
    40,
    40,
    20480,
    "gelu",
    50272,
    2048,
    bias=True,
    norm="layernorm",
    position_embedding="learned",
)
MIXTRAL = ModelSpec(
    "mixtral-8x7b",
    32,
    4096,
    32,
    8,
    14336,
    "swiglu",
    32000,
    4096,
    moe=MoeSpec(experts=8, top_k=2, expert_ffn_hidden=14336),
)


def serve(model=LLAMA2_7B, gpu=H100, serving=None, precision="bf16", tp=1, pp=1, gpus=None, overhead=2 * GiB):
    serving = serving or ServingSpec(batch=1, context_len=512, output_len=128)
    return estimate_inference(
        model=model,
        gpu=gpu,
        serving=serving,
        precision=precision,
        tp=tp,
        pp=pp,
        gpus=gpus or tp * pp,
        overhead_bytes=overhead,
    )


def test_llama2_70b_fp16_kv_cache_is_exactly_320_kib_per_token():
    assert kv_cache_bytes_per_token(LLAMA2_70B, 2.0) == 320 * KiB


def test_llama2_70b_kv_cache_for_a_4096_token_request_is_1_25_gib():
    out = serve(
        LLAMA2_70B, serving=ServingSpec(batch=1, context_len=4000, output_len=96), precision="fp16", tp=8
    ).as_dict()
    assert out["kv_cache_gib_per_request"] == 1.25


def test_opt_13b_kv_cache_is_800_kib_per_token():
    # vLLM (arXiv:2309.06180 §3): "800 KB" per token = 2 x 5120 x 40 layers x 2 bytes
    assert kv_cache_bytes_per_token(OPT_13B, 2.0) == 800 * KiB == 2 * 5120 * 40 * 2


def test_gqa_heads_split_over_tp_but_are_replicated_past_kv_heads():
    assert kv_tp_share(LLAMA2_70B, 8) == 1 / 8
    assert kv_tp_share(LLAMA2_70B, 16) == 1 / 8  # 8 KV heads on 16 ranks: one head each, replicated


def test_batch_1_decode_time_is_weight_bytes_over_hbm_bandwidth():
    result = serve(LLAMA2_7B, serving=ServingSpec(batch=1, context_len=128, output_len=128))
    weight_s = total_params(LLAMA2_7B) * 2 / (H100.hbm_bandwidth_bytes_per_s * efficiency.HBM_EFFICIENCY)
    assert result.decode_bound == "memory"
    assert weight_s <= result.tpot_s <= 1.02 * weight_s  # plus a small KV read at 128-256 cached tokens
    assert 1e-3 < result.tpot_s < 10e-3  # a 13.5 GB model on 3.35 TB/s: a few milliseconds per token


def test_long_prompt_prefill_is_compute_bound_at_about_2n_flops_per_token():
    result = serve(LLAMA2_7B, serving=ServingSpec(batch=1, context_len=4096, output_len=1))
    gemm = (
        efficiency.mamf_fraction("h100")
        * efficiency.FRAMEWORK_GEMM_FRACTION
        * efficiency.shape_factor(11008)
        * efficiency.shape_factor(4096)
    )
    dense_s = 2 * total_params(LLAMA2_7B) * 4096 / (989e12 * gemm)
    assert result.prefill_bound == "compute"
    assert dense_s < result.ttft_s < 1.3 * dense_s  # attention adds a share at 4k context


def test_tensor_parallelism_splits_weights_and_speeds_decode_sublinearly():
    one, eight = serve(LLAMA2_70B, tp=1, overhead=0), serve(LLAMA2_70B, tp=8)
    assert eight.weights_bytes_per_gpu == pytest.approx(one.weights_bytes_per_gpu / 8)
    assert not one.fits and eight.fits
    assert one.tpot_s / 8 < eight.tpot_s < one.tpot_s


def test_max_concurrent_requests_fit_and_one_more_does_not():
    probe = serve(LLAMA2_70B, serving=ServingSpec(batch=1, context_len=4000, output_len=96), tp=8)
    n = probe.max_concurrent_requests
    assert n > 1
    at_max = serve(LLAMA2_70B, serving=ServingSpec(batch=n, context_len=4000, output_len=96), tp=8)
    over = serve(LLAMA2_70B, serving=ServingSpec(batch=n + 1, context_len=4000, output_len=96), tp=8)
    assert at_max.fits and at_max.per_gpu_bytes <= H100.hbm_bytes
    assert not over.fits and over.per_gpu_bytes > H100.hbm_bytes and over.warnings


def test_bigger_batches_raise_throughput_and_time_per_token():
    small = serve(serving=ServingSpec(batch=1, context_len=512, output_len=256))
    large = serve(serving=ServingSpec(batch=32, context_len=512, output_len=256))
    assert large.tokens_per_s > 10 * small.tokens_per_s
    assert large.tpot_s > small.tpot_s


def test_cluster_throughput_is_replicas_times_one_replica():
    one = serve(LLAMA2_70B, tp=8, gpus=8)
    four = serve(LLAMA2_70B, tp=8, gpus=32)
    assert four.replicas == 4
    assert four.tokens_per_s == pytest.approx(4 * one.tokens_per_s)
    assert four.tokens_per_s_per_gpu == pytest.approx(one.tokens_per_s_per_gpu)


def test_gpus_needed_meet_the_target_and_one_replica_fewer_does_not():
    serving = ServingSpec(
        batch=8, context_len=1024, output_len=256, target_tokens_per_s=20_000, max_tpot_s=0.05
    )
    result = serve(LLAMA2_70B, serving=serving, tp=8, gpus=8)
    assert result.gpus_needed is not None and result.best_batch is not None
    sized = ServingSpec(batch=result.best_batch, context_len=1024, output_len=256, max_tpot_s=0.05)
    enough = serve(LLAMA2_70B, serving=sized, tp=8, gpus=result.gpus_needed)
    fewer = serve(LLAMA2_70B, serving=sized, tp=8, gpus=result.gpus_needed - 8)
    assert enough.tokens_per_s >= 20_000 > fewer.tokens_per_s
    assert enough.tpot_s <= 0.05
    assert not result.meets_target  # 8 GPUs at batch 8 fall short of 20k tokens/s


def test_a_tighter_latency_bound_allows_a_smaller_batch():
    loose = serve(
        LLAMA2_70B,
        tp=8,
        serving=ServingSpec(batch=1, context_len=1024, output_len=256, target_tokens_per_s=1000),
    )
    tight = serve(
        LLAMA2_70B,
        tp=8,
        serving=ServingSpec(
            batch=1, context_len=1024, output_len=256, target_tokens_per_s=1000, max_tpot_s=0.03
        ),
    )
    assert tight.best_batch < loose.best_batch
    assert tight.gpus_needed >= loose.gpus_needed


def test_an_impossible_latency_bound_gives_no_gpu_count():
    result = serve(
        serving=ServingSpec(batch=1, context_len=512, output_len=64, target_tokens_per_s=100, max_tpot_s=1e-6)
    )
    assert result.gpus_needed is None and not result.meets_target and result.warnings


def test_moe_decode_reads_only_the_experts_its_tokens_touch():
    assert experts_touched_fraction(MIXTRAL, 1) == pytest.approx(2 / 8)
    assert experts_touched_fraction(MIXTRAL, 64) == pytest.approx(1 - 0.75**64)
    one = serve(MIXTRAL, tp=2, serving=ServingSpec(batch=1, context_len=128, output_len=64))
    dense_equivalent_s = (
        total_params(MIXTRAL) * 2 / 2 / (H100.hbm_bandwidth_bytes_per_s * efficiency.HBM_EFFICIENCY)
    )
    assert one.tpot_s < dense_equivalent_s


def test_a_gpu_without_fp8_times_fp8_at_its_16_bit_peak_with_a_warning():
    result = serve(gpu=A100, precision="fp8")
    assert any("no fp8" in w for w in result.warnings)


def test_it_rejects_a_zero_batch_naming_the_field():
    with pytest.raises(SpecError) as err:
        serve(serving=ServingSpec(batch=0, context_len=10, output_len=10))
    assert err.value.problems[0].path == "workload.serving.batch"


@settings(max_examples=60)
@given(
    model=st.sampled_from([LLAMA2_7B, LLAMA2_70B, OPT_13B, MIXTRAL]),
    batch=st.integers(min_value=1, max_value=512),
    context=st.integers(min_value=1, max_value=32_768),
    output=st.integers(min_value=1, max_value=4096),
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 4]),
    replicas=st.integers(min_value=1, max_value=8),
    precision=st.sampled_from(["bf16", "fp8", "fp4"]),
    target=st.one_of(st.none(), st.floats(min_value=1, max_value=1e6)),
)
def test_random_valid_serving_gives_finite_non_negative_numbers(
    model, batch, context, output, tp, pp, replicas, precision, target
):
    serving = ServingSpec(batch=batch, context_len=context, output_len=output, target_tokens_per_s=target)
    out = serve(model, serving=serving, precision=precision, tp=tp, pp=pp, gpus=tp * pp * replicas).as_dict()
    for key, value in out.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert math.isfinite(value) and value >= 0, key
