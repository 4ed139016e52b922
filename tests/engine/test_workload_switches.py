"""Two documented framework behaviours as workload inputs: the FlashAttention version
(`workload.parallelism.flash_attention`: false, true = "v2", "v1" or "v2") and whether the data-parallel gradient
reduction overlaps the backward (`workload.parallelism.dp_overlap`).

FlashAttention-2 (arXiv:2307.08691, abstract) is "around 2× speedup compared to FlashAttention"; DeepSpeed's
PipelineEngine (GPT-NeoX) reduces gradients only after the last micro-batch's backward
(deepspeed/runtime/pipe/schedule.py TrainSchedule.steps), so none of the reduction hides behind it.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from planner.engine.api import estimate, search
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.parse import parse
from planner.engine.perf import comm, efficiency, framework
from planner.engine.perf.hardware import hardware_of
from planner.engine.perf.layout import layout_for, numerics_for
from planner.engine.search import sweep
from planner.engine.training.memory import FIRST, stage_params_per_gpu
from planner.engine.training.step_time import FLASH_BACKWARD_FACTOR, _attention_core_forward_s
from planner.engine.transformer.shape import shape_of
from tests.engine.conftest import TRAIN
from tests.engine.test_contract import run_cli

RELATIVE = 1e-9


def _payload(**parallelism: Any) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["parallelism"].update(parallelism)
    return payload


def _core_forward_s(payload: dict[str, Any]) -> float:
    """The attention core's forward time of one layer and micro-batch, as estimate computes it."""
    sc = parse(payload)
    assert sc.model is not None
    lay = layout_for(sc.parallelism)
    tokens = lay.micro_batch * sc.model.seq_len / lay.cp
    return float(_attention_core_forward_s(shape_of(sc.model), lay, hardware_of(sc), tokens))


# --- FlashAttention version -----------------------------------------------------------------------------------


def test_flash_attention_v2_is_the_cited_2x_of_v1():
    assert efficiency.FLASH_ATTENTION_V2_SPEEDUP == 2.0  # arXiv:2307.08691 abstract: "around 2× speedup"


def test_flash_attention_v1_makes_the_attention_core_exactly_2x_slower_than_v2():
    v2 = _core_forward_s(_payload(flash_attention="v2"))
    v1 = _core_forward_s(_payload(flash_attention="v1"))
    assert v1 == pytest.approx(efficiency.FLASH_ATTENTION_V2_SPEEDUP * v2, rel=1e-12)


def test_true_means_v2_and_gives_the_same_estimate():
    assert (
        estimate(_payload(flash_attention=True))["time"] == estimate(_payload(flash_attention="v2"))["time"]
    )


def test_v1_adds_exactly_the_extra_attention_time_to_compute_and_recompute():
    """With v1 every attention-core pass takes twice as long: forward + backward (FLASH_BACKWARD_FACTOR × forward)
    in compute and the selective recompute's forward, on every layer of every micro-batch (pp = 1)."""
    v2 = estimate(_payload(flash_attention="v2"))
    v1 = estimate(_payload(flash_attention="v1"))
    core_v2 = _core_forward_s(_payload(flash_attention="v2"))
    passes = v2["parallelism"]["microbatches"] * TRAIN["workload"]["model"]["layers"]
    extra = (efficiency.FLASH_ATTENTION_V2_SPEEDUP - 1.0) * core_v2
    b1, b2 = v1["time"]["breakdown_s"], v2["time"]["breakdown_s"]
    assert b1["compute"] - b2["compute"] == pytest.approx(
        passes * (1 + FLASH_BACKWARD_FACTOR) * extra, rel=1e-9
    )
    assert b1["recompute"] - b2["recompute"] == pytest.approx(passes * extra, rel=1e-9)
    assert v1["time"]["step_s"] > v2["time"]["step_s"]


def test_the_flash_attention_choice_is_echoed():
    out = estimate(_payload(flash_attention="v1"))
    assert out["parallelism"]["flash_attention"] == "v1"
    assert out["parallelism"]["flash_attention_version"] == "v1"
    off = estimate(_payload(flash_attention=False))["parallelism"]
    assert off["flash_attention"] is False and off["flash_attention_version"] is None
    default = estimate(_payload())
    assert default["parallelism"]["flash_attention"] is True
    assert default["parallelism"]["flash_attention_version"] == "v2"
    assert default["assumptions"]["workload.parallelism.flash_attention"]["value"] == "v2"
    assert "workload.parallelism.flash_attention" not in out["assumptions"]


# --- data-parallel gradient reduction overlap -------------------------------------------------------------------


def _dp_collectives_s(payload: dict[str, Any]) -> tuple[float, float]:
    """(gradient reduce-scatter, parameter all-gather) of the data-parallel group, from comm.py's formulas."""
    sc = parse(payload)
    assert sc.model is not None
    sh, lay, hw = shape_of(sc.model), layout_for(sc.parallelism), hardware_of(sc)
    num = numerics_for(sc.precision, sc.optimizer)
    params = float(stage_params_per_gpu(sh, lay, FIRST)[0])
    n = lay.dp * lay.cp
    args = (
        n,
        lay.tp,
        hw.gpus_per_node,
        hw.scaleup_bytes_per_s,
        hw.scaleout_bytes_per_s,
        hw.scaleout_efficiency,
    )
    grads = float(
        comm.group_collective_s("reduce_scatter", params * num.grad_bytes, *args, hw.nccl_generation)
    )
    gather = float(
        comm.group_collective_s("all_gather", params * num.weight_bytes, *args, hw.nccl_generation)
    )
    return grads, gather


@pytest.mark.parametrize("zero_stage", [0, 1])
def test_dp_overlap_false_exposes_the_whole_reduction(zero_stage):
    """ZeRO-0 all-reduces (reduce-scatter + all-gather), ZeRO-1 reduce-scatters and gathers the updated
    parameters after the optimizer. With overlap the overlappable part hides behind the last backward (it is
    shorter here); without it the whole reduction is exposed and the step grows by exactly the hidden amount."""
    fits = {"tp": 4, "dp": 8}  # ZeRO-0 at tp 2 does not fit, and a run that does not fit has no time
    overlap = estimate(_payload(zero_stage=zero_stage, **fits))
    exposed = estimate(_payload(zero_stage=zero_stage, dp_overlap=False, **fits))
    grads, gather = _dp_collectives_s(_payload(zero_stage=zero_stage, **fits))
    hidden = grads + gather if zero_stage == 0 else grads
    # the hidden part still slows the backward it overlaps by OVERLAP_SLOWDOWN (perf/framework.py)
    slowed = framework.OVERLAP_SLOWDOWN * hidden
    assert overlap["time"]["breakdown_s"]["dp_comm"] == pytest.approx(
        grads + gather - hidden + slowed, rel=1e-9
    )
    assert exposed["time"]["breakdown_s"]["dp_comm"] == pytest.approx(grads + gather, rel=1e-12)

    def unheld(out: dict[str, Any]) -> float:  # the step before the published-MFU ceiling (perf/achieved.py)
        return out["time"]["step_s"] - out["time"]["breakdown_s"]["ceiling"]

    step_difference = unheld(exposed) - unheld(overlap)
    assert hidden > 0 and step_difference == pytest.approx(hidden - slowed, rel=1e-9)
    changed = ("dp_comm", "ceiling")
    others = {k: v for k, v in exposed["time"]["breakdown_s"].items() if k not in changed}
    assert others == {k: v for k, v in overlap["time"]["breakdown_s"].items() if k not in changed}


def test_dp_overlap_does_not_change_zero3_or_a_single_replica():
    for changes in ({"zero_stage": 3}, {"tp": 8, "pp": 4, "dp": 1}):
        on = estimate(_payload(**changes))["time"]["step_s"]
        off = estimate(_payload(dp_overlap=False, **changes))["time"]["step_s"]
        assert off == on, changes


def test_dp_overlap_is_echoed():
    default = estimate(_payload())
    assert default["parallelism"]["dp_overlap"] is True
    assert default["assumptions"]["workload.parallelism.dp_overlap"]["value"] is True
    off = estimate(_payload(dp_overlap=False))
    assert off["parallelism"]["dp_overlap"] is False
    assert "workload.parallelism.dp_overlap" not in off["assumptions"]


# --- bad values -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("flash_attention", "v3", "'v3'"),
        ("flash_attention", 1, "1"),
        ("flash_attention", 0, "0"),
        ("flash_attention", "yes", "'yes'"),
        ("flash_attention", ["v1"], "a list"),
        ("dp_overlap", "yes", "a string"),
        ("dp_overlap", 1, "a number"),
        ("dp_overlap", "false", "a string"),
    ],
)
def test_a_bad_switch_exits_2_naming_the_field(key, value, shown):
    done = run_cli("estimate", _payload(**{key: value}))
    assert done.returncode == 2
    assert done.stdout == "" and "Traceback" not in done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith(f"workload.parallelism.{key}: "))
    assert f"(got {shown})" in line


def test_search_rejects_a_bad_switch_with_its_path():
    payload = {**_payload(flash_attention="v3", dp_overlap="no"), "search": {"nodes": [4]}}
    with pytest.raises(SpecError) as err:
        search(payload)
    paths = {p.path for p in err.value.problems}
    assert {"workload.parallelism.flash_attention", "workload.parallelism.dp_overlap"} <= paths


def test_inference_takes_neither_switch():
    payload = {
        "cluster": copy.deepcopy(TRAIN["cluster"]),
        "workload": {
            "kind": "inference",
            "model": TRAIN["workload"]["model"],
            "parallelism": {"tp": 1, "dp_overlap": False},
            "serving": {"batch": 1, "context_len": 100, "output_len": 10},
        },
    }
    with pytest.raises(SpecError) as err:
        estimate(payload)
    assert "workload.parallelism.dp_overlap" in {p.path for p in err.value.problems}


# --- search and sweep evaluate the switches like estimate ------------------------------------------------------


SWITCHES = {"flash_attention": "v1", "dp_overlap": False}


def _search_payload(**switches: Any) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["parallelism"] = {"global_batch": 256, **switches}
    payload["workload"]["tokens_b"] = 100
    payload["search"] = {"objective": "min_time", "max_results": 300, "nodes": [2, 4]}
    return payload


def test_search_with_the_switches_equals_estimate_on_its_configurations():
    result = search(_search_payload(**SWITCHES))
    entries = result["best"]
    sample = random.Random(11).sample(entries, 20) + entries[:3]
    for entry in sample:
        config = entry["config"]
        assert config["flash_attention"] == "v1" and config["dp_overlap"] is False
        payload = _search_payload(**SWITCHES)
        del payload["search"]
        payload["cluster"]["nodes"] = config["nodes"]
        keys = [k for k in config if k not in ("gpu", "nodes", "gpus")]
        payload["workload"]["parallelism"] = {**{k: config[k] for k in keys}, "global_batch": 256}
        out = estimate(payload)
        assert out["time"]["step_s"] == pytest.approx(entry["step_s"], rel=RELATIVE)
        assert out["time"]["days"] == pytest.approx(entry["days"], rel=RELATIVE)
        assert out["time"]["mfu"] == pytest.approx(entry["mfu"], rel=RELATIVE)
        assert out["memory"]["per_gpu_gib"] == pytest.approx(entry["per_gpu_gib"], rel=RELATIVE)


def test_search_uses_the_switches():
    with_switches = search(_search_payload(**SWITCHES))["best"][0]
    default = search(_search_payload())["best"][0]
    assert with_switches["step_s"] > default["step_s"]


def test_a_sweep_carries_the_switches_to_every_configuration():
    spec = {
        "base": {
            "cluster": {"gpus_per_node": 8},
            "workload": {
                "kind": "training",
                "model": "llama3.1-8b",
                "tokens_b": 100,
                "precision": "bf16",
                "parallelism": {"global_batch": 256, **SWITCHES},
            },
            "economics": copy.deepcopy(TRAIN["economics"]),
        },
        "gpus": [{"label": "H100", "cluster": {"gpu": TRAIN["cluster"]["gpu"]}, "economics": {}}],
        "nodes": [2],
        "space": {"virtual_stages": [1], "cp": [1], "ep": [1], "zero_stage": [1], "recompute": ["selective"]},
        "objective": "min_time",
    }
    plan = sweep.plan_sweep(spec)
    rows = sweep.evaluate_chunk(spec, plan.chunks[0]).rows
    fitting = [i for i in range(len(rows["step_s"])) if rows["feasible"][i]]
    assert len(fitting) > 3  # a layout that does not fit has no time to compare (docs/engine-contract.md)
    for i in fitting:
        layout = {key: rows[key][i] for key in sweep.DEGREES}
        out = estimate(sweep.payload_for(spec, 0, 2, layout))
        assert out["parallelism"]["flash_attention"] == "v1" and out["parallelism"]["dp_overlap"] is False
        assert rows["step_s"][i] == pytest.approx(out["time"]["step_s"], rel=1e-12)
