"""The layout chooser stays within what has been achieved (issue 13 point 2 and its acceptance property): for dense
BF16 models from 8B to 405B on 64 to 1,024 A100 or H100 GPUs, no self-chosen layout exceeds 60% MFU (nor the best
published MFU of its generation, perf/achieved.py, which the result names when it holds a step back), and at a
fixed global batch the MFU does not rise as the cluster grows; the step model's own MFU (before the published
ceiling) falls. Every result names the nearest shipped validation case."""

from __future__ import annotations

from typing import Any

import pytest

from planner.engine.api import estimate
from planner.engine.perf import achieved

GPUS = ("nvidia_a100_sxm4_80gb", "nvidia_h100_sxm5_80gb")
MODELS = ("llama3.1-8b", "llama3.1-70b", "llama3.1-405b")
NODES = (8, 32, 128)  # 64, 256, 1,024 GPUs
GLOBAL_BATCH = 1024
MFU_BOUND = 0.60
#: At the published ceiling the reported MFU is flat; the smooth minimum (perf/achieved.py) lets it move by less
#: than this between sizes.
RISE_TOLERANCE = 1e-3


def _auto(gpu: str, model: str, nodes: int) -> dict[str, Any]:
    return estimate(
        {
            "cluster": {"gpu": gpu, "gpus_per_node": 8, "nodes": nodes, "scaleout_gbps_per_gpu": 400},
            "workload": {
                "kind": "training",
                "model": model,
                "tokens_b": 1000,
                "parallelism": {"auto": True, "global_batch": GLOBAL_BATCH},
            },
        }
    )


def _model_mfu(out: dict[str, Any]) -> float:
    """The step model's MFU before the published ceiling held the step back."""
    t = out["time"]
    return t["mfu"] * t["step_s"] / (t["step_s"] - t["breakdown_s"]["ceiling"])


@pytest.mark.parametrize("gpu", GPUS)
@pytest.mark.parametrize("model", MODELS)
def test_self_chosen_layouts_stay_within_what_has_been_achieved(gpu, model):
    runs = [(nodes, _auto(gpu, model, nodes)) for nodes in NODES]
    fitting = [(nodes, out) for nodes, out in runs if out["time"] is not None]
    assert len(fitting) >= 2, [out["memory"]["message"] for _, out in runs]
    ceiling = achieved.achieved(gpu, "bf16", multi_node=True)
    assert ceiling is not None
    for _, out in fitting:
        assert out["parallelism"]["auto"] is True
        assert out["time"]["mfu"] <= min(MFU_BOUND, ceiling.mfu) + 1e-9
        if out["time"]["breakdown_s"]["ceiling"] > 0.01 * out["time"]["step_s"]:
            assert any(f"{ceiling.mfu:.1%} MFU" in w for w in out["warnings"]), out["warnings"]
        assert out["time"]["nearest_validated_case"]["id"]
    mfus = [out["time"]["mfu"] for _, out in fitting]
    assert all(
        later <= earlier * (1 + RISE_TOLERANCE) for earlier, later in zip(mfus, mfus[1:], strict=False)
    ), mfus
    if fitting[0][0] == NODES[0]:
        # The step model's own MFU falls with the cluster when the smallest cluster holds the model comfortably.
        # (405B does not fit 64 GPUs; between 256 and 1,024 more GPUs free memory for a faster layout, a real
        # effect: its model MFU rises from 54% to 57% on H100 while the reported MFU stays at the ceiling.)
        model_mfus = [_model_mfu(out) for _, out in fitting]
        assert model_mfus[-1] < model_mfus[0], model_mfus


def test_the_nearest_case_shares_the_generation_and_family_when_one_does():
    out = estimate(
        {
            "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 8},
            "workload": {
                "kind": "training",
                "model": "llama3.1-70b",
                "tokens_b": 100,
                "parallelism": {"tp": 1, "pp": 1, "zero_stage": 3, "recompute": "full", "global_batch": 512},
            },
        }
    )
    case = out["time"]["nearest_validated_case"]
    assert case["gpu_generation"] == "h100" and case["layout_family"] == "fsdp"
    assert case["differs_in"] == [] and case["source"]
