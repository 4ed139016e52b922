"""The serving step model and load model (engine/inference): physics a reviewer can check by hand."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from planner.engine.accuracy.serving import _gpu, _model
from planner.engine.inference import rates
from planner.engine.inference.kvcache import kv_bytes_per_token_per_gpu
from planner.engine.inference.layout import ServingLayout, layout_problems
from planner.engine.inference.service import (
    Concurrency,
    DecodeOnly,
    Deployment,
    EngineSettings,
    Offline,
    Rate,
    evaluate,
    prepare,
)
from planner.engine.inference.shape import serving_shape
from planner.engine.inference.step import cycle_time_s
from planner.engine.inference.workload import Lengths, Speculation, Workload

H100, H200, B200, L40S = (
    _gpu("nvidia_h100_sxm5_80gb"),
    _gpu("nvidia_h200_sxm_141gb"),
    _gpu("nvidia_b200_hgx"),
    _gpu("nvidia_l40s"),
)
LLAMA70, LLAMA8, DEEPSEEK = _model("llama3.1-70b"), _model("llama3.1-8b"), _model("deepseek-v3")


def deploy(model=LLAMA70, gpu=H100, tp=8, lin=1024, lout=256, precision="fp8", **kw) -> Deployment:
    base = {
        "model": model,
        "gpu": gpu,
        "layout": ServingLayout(tp=tp),
        "replicas": 1,
        "workload": Workload(Lengths(lin), Lengths(lout)),
        "weight_precision": precision,
        "kv_precision": precision,
    }
    base.update(kw)
    return Deployment(**base)


def test_one_request_decodes_at_about_the_weight_read_time():
    d = deploy(model=LLAMA8, tp=1, precision="bf16", lin=128, lout=128)
    res = evaluate(d, Concurrency(1))
    weights_s = 16.06e9 / (H100.hbm_bandwidth_bytes_per_s * rates.WEIGHT_STREAM_HBM_FRACTION)
    tpot = float(res.state.tpot_mean_s[0])
    assert weights_s < tpot < weights_s + 3 * rates.STEP_OVERHEAD_S + 2e-3


def test_a_request_first_token_is_its_own_prefill_not_the_batch_s():
    d = deploy(lin=4096, lout=512)
    one = evaluate(d, Concurrency(1))
    busy = evaluate(d, Concurrency(64))
    ttft_one, ttft_busy = float(one.state.ttft_mean_s[0]), float(busy.state.ttft_mean_s[0])
    # prefill of 64 prompts of 4,096 tokens would take ~64x one prompt; a request waits at most a few steps
    assert ttft_one < ttft_busy < 10 * ttft_one


def test_rate_maps_back_to_itself_and_saturation_is_the_most_a_replica_sustains():
    d = deploy()
    p = prepare(d)
    cap = float(p.model.max_rate_per_s()[0])
    for share in (0.1, 0.5, 0.9):
        st = p.model.at_rate(np.asarray([share * cap]))
        assert float(st.rate_per_s[0]) == pytest.approx(share * cap, rel=1e-3)
        assert not bool(st.saturated[0])
    over = p.model.at_rate(np.asarray([1.5 * cap]))
    assert bool(over.saturated[0]) and float(over.rate_per_s[0]) == pytest.approx(cap)
    assert float(evaluate(d, Offline()).requests_per_s) == pytest.approx(cap)


def test_latency_grows_with_load_and_percentiles_are_ordered():
    p = prepare(deploy())
    cap = float(p.model.max_rate_per_s()[0])
    st = p.model.at_rate(np.asarray([0.2, 0.5, 0.8, 0.95]) * cap)
    for kind in (st.ttft_s, st.tpot_s):
        assert np.all(np.diff(kind[90.0]) > 0)
        assert np.all(kind[50.0] <= kind[90.0]) and np.all(kind[90.0] <= kind[99.0])


def test_throughput_rises_with_concurrency_then_flattens():
    d = deploy()
    tokens = [evaluate(d, Concurrency(n)).output_tokens_per_s for n in (1, 8, 64, 512, 4096)]
    assert all(b > a for a, b in zip(tokens[:3], tokens[1:4], strict=True))
    assert tokens[-1] == pytest.approx(evaluate(d, Offline()).output_tokens_per_s, rel=0.02)


def test_paged_kv_blocks_and_memory_utilisation_bound_the_running_requests():
    d = deploy(lin=4000, lout=96, tp=8)
    mem = prepare(d).memories[0]
    per_token = mem.kv_bytes_per_token_per_gpu
    blocks = math.floor(mem.kv_budget_bytes_per_gpu / (per_token * d.engine.kv_block_tokens))
    assert mem.kv_capacity_tokens == blocks * d.engine.kv_block_tokens
    tighter = prepare(replace(d, engine=EngineSettings(gpu_memory_utilization=0.6))).memories[0]
    assert tighter.kv_capacity_tokens < mem.kv_capacity_tokens
    assert mem.max_running_requests == min(1024, math.floor(blocks / ((4000 + 48) / 16 + 0.5)))


def test_fp8_kv_cache_holds_twice_the_tokens_of_bf16():
    bf16 = prepare(deploy(precision="fp8", kv_precision="bf16")).memories[0]
    fp8 = prepare(deploy(precision="fp8", kv_precision="fp8")).memories[0]
    assert fp8.kv_bytes_per_token_per_gpu == pytest.approx(bf16.kv_bytes_per_token_per_gpu / 2)
    assert fp8.kv_capacity_tokens == pytest.approx(2 * bf16.kv_capacity_tokens, rel=0.01)


def test_mla_latent_is_whole_on_every_tp_rank_and_split_by_attention_dp():
    shape = serving_shape(DEEPSEEK)
    tp8 = kv_bytes_per_token_per_gpu(shape, ServingLayout(tp=8), 1.0)
    assert tp8 == pytest.approx(61 * (512 + 64))  # not divided by 8
    kw = {"model": DEEPSEEK, "gpu": H200, "lin": 1024, "lout": 1024}
    tp_attention = prepare(deploy(layout=ServingLayout(8, ep=8), **kw)).memories[0]
    dp_attention = prepare(deploy(layout=ServingLayout(8, ep=8, dp_attention=True), **kw)).memories[0]
    assert dp_attention.kv_capacity_tokens > 3 * tp_attention.kv_capacity_tokens


def test_attention_is_timed_at_its_own_precision():
    d = deploy(lin=16384, lout=128)
    bf16 = prepare(d).coef
    fp8 = prepare(replace(d, attention_precision="fp8")).coef
    assert fp8.decode_attention_s_per_pair[0] == pytest.approx(bf16.decode_attention_s_per_pair[0] / 2)
    assert fp8.dense_flop_s_per_token[0] == bf16.dense_flop_s_per_token[0]


def test_fp4_weights_use_the_fp4_peak_on_blackwell_and_run_weight_only_on_hopper():
    b200 = prepare(deploy(gpu=B200, tp=1, precision="fp4", kv_precision="fp8"))
    h100 = prepare(deploy(gpu=H100, tp=2, precision="fp4", kv_precision="fp8"))
    assert b200.hw.gemm_precision == "fp4" and h100.hw.gemm_precision == "bf16"


def test_tensor_parallel_over_pcie_pays_more_for_its_all_reduces_than_over_nvlink():
    pcie = prepare(deploy(gpu=L40S, tp=2, model=LLAMA8)).coef
    nvlink = prepare(deploy(gpu=H100, tp=2, model=LLAMA8)).coef
    assert pcie.comm_fixed_s[0] > 2 * nvlink.comm_fixed_s[0]
    assert pcie.comm_s_per_token[0] > 5 * nvlink.comm_s_per_token[0]


def test_pipeline_stages_do_not_make_one_request_faster_but_hold_more_requests():
    tp2 = prepare(deploy(tp=2, lin=2048, lout=512))
    pp2 = prepare(deploy(layout=ServingLayout(tp=1, pp=2), lin=2048, lout=512))
    one = [float(p.model.at_concurrency(np.asarray([1.0])).tpot_mean_s[0]) for p in (tp2, pp2)]
    assert one[1] > 0.9 * one[0]
    assert pp2.memories[0].kv_capacity_tokens > 0.8 * tp2.memories[0].kv_capacity_tokens


def test_expert_dispatch_is_paid_only_with_attention_data_parallelism():
    kw = {"model": DEEPSEEK, "gpu": H200, "lin": 1024, "lout": 1024}
    tp = prepare(deploy(layout=ServingLayout(8, ep=8), **kw)).coef
    dep = prepare(deploy(layout=ServingLayout(8, ep=8, dp_attention=True), **kw)).coef
    assert dep.comm_s_per_token[0] > 0 and tp.comm_s_per_token[0] > 0
    assert dep.dense_weight_s[0] > 5 * tp.dense_weight_s[0]  # attention weights replicated per DP rank


def test_speculative_acceptance_length_follows_leviathan_and_cuts_time_per_token():
    spec = Speculation.from_rate("eagle", 3, 0.8, 1 / 32, "test")
    assert spec.acceptance_length == pytest.approx((1 - 0.8**4) / (1 - 0.8))
    plain = deploy(model=LLAMA8, tp=1)
    fast = replace(plain, workload=replace(plain.workload, speculation=spec))
    one = [float(evaluate(d, Concurrency(1)).state.tpot_mean_s[0]) for d in (plain, fast)]
    assert one[1] < 0.5 * one[0]


def test_decode_only_pool_is_faster_per_token_than_colocated_steps_with_prompt_chunks():
    d = deploy(lin=4096, lout=256)
    colocated = evaluate(d, Offline())
    running = float(colocated.state.running[0])
    pool = evaluate(d, DecodeOnly(running))
    assert pool.output_tokens_per_s > colocated.output_tokens_per_s


def test_layout_rules_name_the_field():
    shape = serving_shape(LLAMA70)
    assert [p.path for p in layout_problems(shape, ServingLayout(tp=3))] == ["workload.parallelism.tp"]
    assert layout_problems(shape, ServingLayout(tp=8, ep=8))[0].path == "workload.parallelism.ep"
    assert layout_problems(shape, ServingLayout(tp=8, dp_attention=True))[0].path == (
        "workload.parallelism.dp_attention"
    )
    assert not layout_problems(serving_shape(DEEPSEEK), ServingLayout(tp=8, ep=8, dp_attention=True))


def test_rates_are_evaluated_for_many_layouts_at_once_like_one_by_one():
    lays = [ServingLayout(tp) for tp in (2, 4, 8)]
    d = deploy()
    together = prepare(d, lays).model.max_rate_per_s()
    alone = [float(prepare(replace(d, layout=lay)).model.max_rate_per_s()[0]) for lay in lays]
    assert together == pytest.approx(alone)


def test_rate_evaluation_is_deterministic():
    d = deploy()
    a, b = evaluate(d, Rate(5.0)), evaluate(d, Rate(5.0))
    assert a.state.ttft_s[99.0][0] == b.state.ttft_s[99.0][0]


def test_attention_dp_balance_holds_a_prompt_until_every_rank_has_one_within_its_timeout():
    kw = {"model": DEEPSEEK, "gpu": B200, "precision": "fp4", "lin": 800, "lout": 1000}
    lay = ServingLayout(8, ep=8, dp_attention=True)
    plain = deploy(layout=lay, **kw)
    balanced = replace(plain, engine=EngineSettings(adp_balance_timeout_iters=200))
    rate = Rate(4.0)
    base, held = evaluate(plain, rate).state, evaluate(balanced, rate).state
    # about (dp - 1) / (2 x rate) on average: 7 / 8 s at 4 requests/s
    assert float(held.ttft_mean_s[0] - base.ttft_mean_s[0]) == pytest.approx(7.0 / 8.0, rel=0.2)
    assert float(held.tpot_s[50.0][0]) == pytest.approx(float(base.tpot_s[50.0][0]))
    short = replace(plain, engine=EngineSettings(adp_balance_timeout_iters=2))
    capped = evaluate(short, rate).state
    step_s = float(capped.step_s[0])
    assert float(capped.ttft_s[99.0][0] - base.ttft_s[99.0][0]) <= 2 * step_s + 1e-9


def test_attention_dp_batching_wait_adds_its_iterations_to_a_filled_group_only():
    kw = {"model": DEEPSEEK, "gpu": B200, "precision": "fp4", "lin": 800, "lout": 1000}
    lay = ServingLayout(8, ep=8, dp_attention=True)
    plain = deploy(layout=lay, **kw)
    # a long timeout: every group of dp requests fills in time, so each waits batching_wait_iters steps more
    filled = replace(plain, engine=EngineSettings(adp_balance_timeout_iters=10_000))
    batched = replace(
        plain, engine=EngineSettings(adp_balance_timeout_iters=10_000, adp_batching_wait_iters=5)
    )
    rate = Rate(4.0)
    a, b = evaluate(filled, rate).state, evaluate(batched, rate).state
    extra_s = float(b.ttft_mean_s[0] - a.ttft_mean_s[0])
    assert extra_s == pytest.approx(5 * float(b.step_s[0]), rel=0.05)
    # a timeout shorter than the wait for the group: released at the timeout, no batching wait on top
    timed = replace(plain, engine=EngineSettings(adp_balance_timeout_iters=2))
    timed_batched = replace(
        plain, engine=EngineSettings(adp_balance_timeout_iters=2, adp_batching_wait_iters=5)
    )
    c, e = evaluate(timed, rate).state, evaluate(timed_batched, rate).state
    assert float(e.ttft_s[50.0][0]) == pytest.approx(float(c.ttft_s[50.0][0]), rel=0.05)
    assert (
        float(e.ttft_s[50.0][0] - evaluate(plain, rate).state.ttft_s[50.0][0])
        <= 2 * float(e.step_s[0]) * 1.05
    )


def test_batch_equilibration_lowers_the_busiest_rank_penalty_of_a_colocated_step():
    d = deploy(
        model=DEEPSEEK, gpu=H200, layout=ServingLayout(8, ep=8, dp_attention=True), lin=1024, lout=1024
    )
    running = np.asarray([2048.0])
    context_wait = float(prepare(d).model._decode_cycle(running)[0])
    batched = replace(d, engine=EngineSettings(adp_balance_timeout_iters=50, adp_batching_wait_iters=10))
    equilibrated = float(prepare(batched).model._decode_cycle(running)[0])
    pool = float(prepare(d).model._decode_cycle(running, colocated=False)[0])
    assert pool < equilibrated < context_wait


def test_a_colocated_attention_dp_step_waits_for_its_busiest_rank_a_decode_pool_does_not():
    d = deploy(
        model=DEEPSEEK, gpu=H200, layout=ServingLayout(8, ep=8, dp_attention=True), lin=1024, lout=1024
    )
    lm = prepare(d).model
    running = np.asarray([256.0])
    colocated = float(lm._decode_cycle(running)[0])
    pool = float(lm._decode_cycle(running, colocated=False)[0])
    assert colocated > pool
    dense = prepare(deploy(tp=8)).model
    assert float(dense._decode_cycle(running)[0]) == float(dense._decode_cycle(running, colocated=False)[0])


def test_a_swiglu_fused_into_the_gemm_saves_exactly_its_elementwise_traffic():
    d = deploy(model=LLAMA70, gpu=H200, tp=1, lin=222, lout=293)
    fused = replace(d, engine=EngineSettings(fused_gemm_swiglu=True))
    plain_c, fused_c = prepare(d).coef, prepare(fused).coef
    shape = serving_shape(LLAMA70)
    swiglu_bytes = rates.ELEMENTWISE_FFN_VALUES * shape.ffn_columns_per_token * 2.0 * shape.layers
    saved_s = swiglu_bytes / (H200.hbm_bandwidth_bytes_per_s * rates.ELEMENTWISE_HBM_FRACTION)
    saved = float(plain_c.elementwise_s_per_token[0] - fused_c.elementwise_s_per_token[0])
    assert saved == pytest.approx(saved_s, rel=1e-9)
    assert float(fused_c.dense_flop_s_per_token[0]) == float(plain_c.dense_flop_s_per_token[0])
    # a 1,536-token step (MLPerf's H200 budget) gains the saved traffic of its tokens, nothing else
    step = {"decode_tokens": np.asarray([800.0]), "prefill_tokens": np.asarray([736.0])}
    step |= {"cached_tokens": np.asarray([800.0 * 400]), "prefill_pairs": np.asarray([736.0 * 111])}
    gain = float(cycle_time_s(plain_c, **step)[0] - cycle_time_s(fused_c, **step)[0])
    assert gain == pytest.approx(1536 * saved_s, rel=1e-9)
    assert float(evaluate(fused, Offline()).output_tokens_per_s) > float(
        evaluate(d, Offline()).output_tokens_per_s
    )


def test_without_cuda_graphs_every_step_pays_the_eager_cost_not_only_those_with_prompts():
    graphs = prepare(deploy(model=LLAMA8, tp=1, lin=128, lout=512)).model
    eager = prepare(
        deploy(model=LLAMA8, tp=1, lin=128, lout=512, engine=EngineSettings(cuda_graphs=False))
    ).model
    running = np.asarray([1.0, 64.0])
    # a decode-only step replays its graph; without graphs it launches every kernel
    extra = eager._decode_cycle(running) - graphs._decode_cycle(running)
    assert extra == pytest.approx(np.full(2, rates.EAGER_STEP_OVERHEAD_S))
    x = np.asarray([0.05, 0.2])
    assert np.all(eager.step_s(x) > graphs.step_s(x))


def test_the_prefill_queue_is_busy_for_the_time_of_its_full_chunk_steps_not_their_count():
    """Long prompts in small chunks: the steps that carry a chunk are longer than the mean step, so the share of
    time the prefill queue is busy (its M/G/1 utilisation) exceeds the share of steps that carry a chunk."""
    lm = prepare(deploy(lin=8192, lout=256, engine=EngineSettings(max_batched_tokens=1024))).model
    cap = float(lm.max_rate_per_s()[0])
    x = lm.x_for_rate(np.asarray([0.3 * cap, 0.6 * cap]))
    t = lm.step_s(x)
    parts = lm._ttft_parts(x, t)
    share_of_steps = x * lm.new_in / parts["left"]
    assert np.all(parts["rho_p"] > share_of_steps)
    full = lm._cycle(x * lm.steps_out, parts["left"], 0.0, 0.0, x, 1.0)
    assert np.all(parts["rho_p"] <= 1.0) and np.all(full > t)


def test_the_per_request_step_cost_grows_with_running_requests_and_overlap_scheduling_hides_it(monkeypatch):
    running = np.asarray([1.0, 64.0, 256.0])

    def decode_cycles(per_request_s: float, overlap: bool) -> np.ndarray:
        monkeypatch.setattr(rates, "STEP_OVERHEAD_PER_REQUEST_S", per_request_s)
        engine = EngineSettings(overlap_scheduling=overlap)
        return prepare(deploy(model=LLAMA8, tp=1, lin=128, lout=512, engine=engine)).model._decode_cycle(
            running
        )

    cost = rates.STEP_OVERHEAD_PER_REQUEST_S
    assert cost > 0
    extra = decode_cycles(cost, False) - decode_cycles(0.0, False)
    assert extra == pytest.approx(running * cost)
    assert np.all(np.diff(extra) > 0)
    # SGLang's overlap scheduler / vLLM's async scheduling: the CPU work runs behind the GPU's step
    assert decode_cycles(cost, True) == pytest.approx(decode_cycles(0.0, True))


def test_tensorrt_llm_overlap_hides_only_output_processing_of_the_per_request_step_cost(monkeypatch):
    """TensorRT-LLM's overlap scheduler hides the previous step's output processing; scheduling and input
    preparation (rates.OVERLAP_EXPOSED_PER_REQUEST_SHARE of the per-request cost) stay on the critical path, while
    SGLang's/vLLM's overlap hides all of it."""
    running = np.asarray([1.0, 64.0, 256.0])

    def decode_cycles(per_request_s: float, hides_scheduling: bool) -> np.ndarray:
        monkeypatch.setattr(rates, "STEP_OVERHEAD_PER_REQUEST_S", per_request_s)
        engine = EngineSettings(overlap_scheduling=True, overlap_hides_scheduling=hides_scheduling)
        return prepare(deploy(model=LLAMA8, tp=1, lin=128, lout=512, engine=engine)).model._decode_cycle(
            running
        )

    cost = rates.STEP_OVERHEAD_PER_REQUEST_S
    share = rates.OVERLAP_EXPOSED_PER_REQUEST_SHARE
    assert 0.0 < share < 1.0
    exposed = decode_cycles(cost, False) - decode_cycles(0.0, False)
    assert exposed == pytest.approx(running * cost * share)
    assert np.all(exposed > 0)
    assert decode_cycles(cost, True) == pytest.approx(decode_cycles(0.0, True))
