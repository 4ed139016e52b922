"""Training-time model: the breakdown adds up, FLOPs follow the published formulas, and the model reacts to the
layout the way the sources say it should."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner.engine.api import estimate
from planner.engine.inputs.parse import parse
from planner.engine.inputs.specs import ModelSpec
from planner.engine.perf import efficiency
from planner.engine.transformer.flops import model_flop_per_token
from planner.engine.transformer.shape import shape_of
from tests.engine.conftest import H100, TRAIN


def _run(parallelism: dict[str, Any] | None = None, **cluster: Any) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    if parallelism is not None:
        payload["workload"]["parallelism"] = parallelism
    payload["cluster"].update(cluster)
    return estimate(payload)


def test_the_breakdown_adds_up_to_the_step():
    t = _run()["time"]
    assert sum(t["breakdown_s"].values()) == pytest.approx(t["step_s"], rel=1e-12)


def test_flop_per_token_is_megatron_s_formula_for_a_gpt():
    # Narayanan et al. 2021 §5.1: 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)) per batch without recompute.
    layers, h, s, v = 96, 12288, 2048, 51200
    m = ModelSpec(
        "gpt",
        layers,
        h,
        96,
        96,
        4 * h,
        "gelu",
        v,
        s,
        tied_embeddings=True,
        bias=True,
        norm="layernorm",
        position_embedding="learned",
    )
    expected = 72 * layers * h * h * (1 + s / (6 * h) + v / (12 * layers * h))
    assert model_flop_per_token(shape_of(m)) == pytest.approx(expected, rel=1e-12)


def test_moe_flops_count_active_parameters_only():
    out = estimate(
        {
            **TRAIN,
            "workload": {
                **TRAIN["workload"],
                "model": "mixtral-8x7b",
                "parallelism": {"tp": 1, "ep": 8, "global_batch": 64},
            },
        }
    )
    flop = out["model"]["flop_per_token"]
    assert flop < 6.5 * out["model"]["active_params_b"] * 1e9 + 12 * 32 * 4096 * 32768
    assert flop > 6 * (out["model"]["active_params_b"] - 0.3) * 1e9


def test_hfu_exceeds_mfu_by_the_recompute():
    full = _run({"tp": 2, "dp": 16, "recompute": "full", "global_batch": 512})["time"]
    none = _run({"tp": 2, "dp": 16, "recompute": "none", "global_batch": 512})["time"]
    assert full["hfu"] > full["mfu"]
    assert none["hfu"] == pytest.approx(none["mfu"])
    assert full["step_s"] > none["step_s"]


def test_more_gpus_train_faster_but_less_efficiently():
    small = _run({"tp": 2, "global_batch": 512}, nodes=4)["time"]
    large = _run({"tp": 2, "global_batch": 512}, nodes=16)["time"]
    assert large["days"] < small["days"]
    assert large["gpu_hours"] >= small["gpu_hours"] * 0.99


def test_the_bubble_shrinks_with_interleaving_and_more_microbatches():
    base = {"tp": 2, "pp": 4, "dp": 4, "micro_batch": 1}
    few = _run({**base, "global_batch": 16})["time"]["breakdown_s"]
    many = _run({**base, "global_batch": 512})["time"]["breakdown_s"]
    inter = _run({**base, "global_batch": 16, "virtual_stages": 2})["time"]["breakdown_s"]
    assert few["pp_bubble"] / few["compute"] > many["pp_bubble"] / many["compute"]
    assert inter["pp_bubble"] == pytest.approx(few["pp_bubble"] / 2, rel=0.05)


def test_cross_node_tensor_parallelism_is_slower():
    inside = _run({"tp": 8, "dp": 4, "global_batch": 512})["time"]
    across = _run({"tp": 16, "dp": 2, "global_batch": 512})["time"]
    assert across["breakdown_s"]["tp_comm"] > 2 * inside["breakdown_s"]["tp_comm"]


def test_days_include_goodput_and_the_range_brackets_the_estimate():
    t = _run()["time"]
    assert t["days"] == pytest.approx(t["steady_days"] / t["goodput"])
    assert t["days_low"] < t["days"] < t["days_high"]
    assert t["gpu_hours_low"] < t["gpu_hours"] < t["gpu_hours_high"]


def test_energy_is_facility_power_times_run_time():
    out = _run()
    hours = out["time"]["days"] * 24
    assert out["power"]["energy_mwh"] == pytest.approx(out["power"]["facility_kw"] * hours / 1000)
    assert out["power"]["facility_kw"] == pytest.approx(out["power"]["it_kw"] * 1.3)


def test_run_costs_carry_the_time_range():
    cost = _run()["cost"]
    assert cost["run_cost_usd_low"] < cost["run_cost_usd"] < cost["run_cost_usd_high"]
    assert cost["tco_usd_low"] == cost["tco_usd"] == cost["tco_usd_high"]


def _with_positions(position_embedding: str, recompute: str, tp: int) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["model"]["position_embedding"] = position_embedding
    payload["workload"]["parallelism"].update({"recompute": recompute, "tp": tp, "dp": 32 // tp})
    return estimate(payload)["time"]["breakdown_s"]


@pytest.mark.parametrize(
    ("recompute", "passes", "tp", "k_heads_per_rank"),
    [("selective", 2.0, 2, 4), ("full", 3.0, 2, 4), ("selective", 2.0, 16, 1)],
)
def test_rotary_embedding_costs_one_read_and_write_of_q_and_k_per_pass(
    recompute, passes, tp, k_heads_per_rank
):
    """RoPE (RoFormer arXiv:2104.09864 eq. 34) is element-wise: forward reads and writes every Q and K value a
    rank holds, backward the same for their gradients, full recompute repeats the forward. ALiBi has the same
    parameters. With tp 16 > 8 KV heads each rank keeps (and rotates) one whole K head."""
    rotary, alibi = _with_positions("rotary", recompute, tp), _with_positions("alibi", recompute, tp)
    model, par = TRAIN["workload"]["model"], TRAIN["workload"]["parallelism"]
    head_dim = model["hidden"] / model["heads"]
    rotated_per_token = (model["heads"] / tp + k_heads_per_rank) * head_dim
    bytes_per_pass = model["seq_len"] * par["micro_batch"] * 2 * 2 * rotated_per_token  # bf16, read + write
    hbm_bytes_per_s = H100["memory_bandwidth_tbs"] * 1e12 * efficiency.HBM_EFFICIENCY
    microbatches = par["global_batch"] / (32 // tp) / par["micro_batch"]
    per_layer_s = bytes_per_pass / hbm_bytes_per_s
    expected_s = microbatches * model["layers"] * per_layer_s
    assert rotary["compute"] - alibi["compute"] == pytest.approx(2.0 * expected_s, rel=1e-9)
    extra_recompute = rotary["recompute"] - alibi["recompute"]
    assert extra_recompute == pytest.approx((passes - 2.0) * expected_s, rel=1e-9, abs=1e-12)


def test_mla_rotates_only_its_decoupled_rope_dimensions():
    """DeepSeek-V2 arXiv:2405.04434 §2.1.3: RoPE on d_rope per query head and on one shared key."""
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["model"] = "deepseek-v3"
    model = parse(payload).model
    assert model is not None and model.mla is not None
    shape = shape_of(model)
    assert shape.rotary_q_width == model.heads * model.mla.qk_rope_head_dim == 128 * 64
    assert shape.rotary_k_width == model.mla.qk_rope_head_dim == 64 and shape.rotary_k_shared
