"""Memory formulas pinned to published figures.

ZeRO (Rajbhandari et al. 2019, arXiv:1910.02054, Fig. 1 and §5): 7.5B parameters on 64 GPUs with mixed-precision
Adam is 120 GB per GPU without ZeRO, 31.4 GB with stage 1, 16.6 GB with stage 2, 1.9 GB with stage 3 (the
formulas 16Ψ, 4Ψ+12Ψ/Nd, 2Ψ+14Ψ/Nd, 16Ψ/Nd; the figure rounds). Tolerance 1%.
Korthikanti et al. 2022 (arXiv:2205.05198) Table 2 activation bytes per layer: tolerance 1%.
KV cache per token: OPT-13B 800 KiB (vLLM §3), Llama-2-70B fp16 320 KiB and 1.25 GiB at 4,096 tokens: exact.
"""

import pytest

from planner.engine.accuracy.formulas import FORMULA_TOLERANCE, formula_results
from planner.engine.api import estimate
from planner.engine.perf.layout import numerics_for
from planner.engine.training.memory import model_state_bytes
from tests.engine.conftest import TRAIN

CASES = {c.id: c for c in formula_results()}


@pytest.mark.parametrize("stage,published_gb", [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.875)])
def test_zero_bytes_per_gpu_match_the_paper(stage, published_gb):
    weights, grads, optimizer = model_state_bytes(7.5e9, 64.0, float(stage), numerics_for("fp16", "adam"))
    assert float(weights + grads + optimizer) / 1e9 == pytest.approx(published_gb, rel=FORMULA_TOLERANCE)


@pytest.mark.parametrize("case_id", [k for k in CASES if k.startswith("table2-")])
def test_activation_bytes_match_korthikanti_table_2(case_id):
    case = CASES[case_id]
    assert case.engine == pytest.approx(case.published, rel=FORMULA_TOLERANCE)


@pytest.mark.parametrize("case_id", [k for k in CASES if k.startswith("kv-")])
def test_kv_cache_bytes_are_exact(case_id):
    case = CASES[case_id]
    assert case.engine == case.published


def test_sgd_and_8bit_adam_keep_less_optimizer_state_than_adam():
    adam = numerics_for("bf16", "adam").optimizer_bytes
    assert numerics_for("bf16", "sgd_momentum").optimizer_bytes == 8.0 < adam == 12.0
    assert numerics_for("bf16", "adam_8bit").optimizer_bytes == 6.0


def _estimate(**parallelism):
    payload = {
        **TRAIN,
        "workload": {**TRAIN["workload"], "parallelism": {**TRAIN["workload"]["parallelism"], **parallelism}},
    }
    return estimate(payload)["memory"]


def test_memory_shrinks_with_zero_stage_and_recompute():
    by_stage = [_estimate(zero_stage=z)["per_gpu_gib"] for z in range(4)]
    assert by_stage == sorted(by_stage, reverse=True)
    by_recompute = [_estimate(recompute=r)["activations_gib"] for r in ("none", "selective", "full")]
    assert by_recompute[0] >= by_recompute[1] > by_recompute[2]


def test_memory_parts_add_up_and_headroom_is_capacity_minus_need():
    m = _estimate()
    parts = sum(
        m[k]
        for k in (
            "weights_gib",
            "gradients_gib",
            "optimizer_gib",
            "activations_gib",
            "kv_cache_gib",
            "other_gib",
        )
    )
    assert m["per_gpu_gib"] == pytest.approx(parts)
    assert m["headroom_gib"] == pytest.approx(m["capacity_gib"] - m["per_gpu_gib"])
    assert f"needs {m['per_gpu_gib']:.1f} GiB per GPU" in m["message"]


def test_pipeline_first_stage_holds_pp_microbatches_of_activations():
    one = _estimate(tp=2, pp=1, dp=16, micro_batch=1)["activations_gib"]
    four = _estimate(tp=2, pp=4, dp=4, micro_batch=1)["activations_gib"]
    # 1F1B: the first stage keeps p micro-batches of L/p layers, about the activations of all L layers.
    assert four == pytest.approx(one, rel=0.15)
