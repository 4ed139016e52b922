"""The layout chooser stays within what has been achieved (issue 13 point 2 and its acceptance property): for dense
BF16 models from 8B to 405B on 64 to 1,024 A100 or H100 GPUs, no self-chosen layout exceeds 60% MFU (nor the best
published MFU of its generation, perf/achieved.py, which the result names when it holds a step back), and at a
fixed global batch the MFU of the chosen layout falls strictly as the cluster grows: the published ceiling holds a
pipeline replica's work, and what the data-parallel group adds (fewer micro-batches to hide the gradient and ZeRO
traffic behind, ring latency that grows with the group) still costs MFU at scale. Every result names the nearest
shipped validation case."""

from __future__ import annotations

from typing import Any

import pytest

from planner.engine.api import estimate
from planner.engine.perf import achieved

GPUS = ("nvidia_a100_sxm4_80gb", "nvidia_h100_sxm5_80gb")
HBM_GB = 80.0
MODELS = ("llama3.1-8b", "llama3.1-70b", "llama3.1-405b")
NODES = (8, 16, 32, 64, 128)  # 64, 128, 256, 512, 1,024 GPUs
#: (sequences per step, tokens per sequence): the presets' 8k sequences, and 4k ones at twice the batch.
BATCHES = ((1024, None), (2048, 4096))
MFU_BOUND = 0.60
#: Mixed-precision Adam keeps 16 bytes per parameter (ZeRO arXiv:1910.02054 §3.1). Where they fill more than a quarter
#: of the cluster's HBM, memory forces recompute or deeper model parallelism and more GPUs buy a faster layout (405B on
#: 128 H100 needs full recompute; on 256 it still needs 16 pipeline stages): the MFU rises with the cluster there, a
#: real effect, so the falling property is asserted from the first cluster with that headroom.
STATE_BYTES_PER_PARAM = 16.0
STATE_SHARE_OF_HBM = 0.25


def _auto(gpu: str, model: str, nodes: int, global_batch: int, seq_len: int | None) -> dict[str, Any]:
    return estimate(
        {
            "cluster": {"gpu": gpu, "gpus_per_node": 8, "nodes": nodes, "scaleout_gbps_per_gpu": 400},
            "workload": {
                "kind": "training",
                "model": {"preset": model, "seq_len": seq_len} if seq_len else model,
                "tokens_b": 1000,
                "parallelism": {"auto": True, "global_batch": global_batch},
            },
        }
    )


def _headroom(out: dict[str, Any], gpus: int) -> bool:
    state_gb = out["model"]["params_b"] * STATE_BYTES_PER_PARAM
    return state_gb <= STATE_SHARE_OF_HBM * gpus * HBM_GB


@pytest.mark.parametrize("global_batch,seq_len", BATCHES)
@pytest.mark.parametrize("gpu", GPUS)
@pytest.mark.parametrize("model", MODELS)
def test_self_chosen_layouts_stay_within_what_has_been_achieved(gpu, model, global_batch, seq_len):
    runs = [(8 * nodes, _auto(gpu, model, nodes, global_batch, seq_len)) for nodes in NODES]
    fitting = [(gpus, out) for gpus, out in runs if out["time"] is not None]
    assert len(fitting) >= 2, [out["memory"]["message"] for _, out in runs]
    ceiling = achieved.achieved(gpu, "bf16", multi_node=True)
    assert ceiling is not None
    for _, out in fitting:
        assert out["parallelism"]["auto"] is True
        assert out["time"]["mfu"] <= min(MFU_BOUND, ceiling.mfu), out["parallelism"]
        # The ceiling holds the replica's work; the data-parallel group's exposed traffic and the optimizer show
        # below it rather than being absorbed.
        parts = out["time"]["breakdown_s"]
        group_share = (parts["dp_comm"] + parts["zero_comm"] + parts["optimizer"]) / out["time"]["step_s"]
        assert out["time"]["mfu"] <= ceiling.mfu * (1.0 - group_share) * (1.0 + 1e-12), (
            parts,
            out["parallelism"],
        )
        if out["time"]["breakdown_s"]["ceiling"] > 0.01 * out["time"]["step_s"]:
            assert any(f"{ceiling.mfu:.1%} MFU" in w for w in out["warnings"]), out["warnings"]
        assert out["time"]["nearest_validated_case"]["id"]
    roomy = [(gpus, out["time"]["mfu"]) for gpus, out in fitting if _headroom(out, gpus)]
    assert len(roomy) >= 2, roomy
    assert roomy[-1][0] == 8 * NODES[-1]
    assert all(later < earlier for (_, earlier), (_, later) in zip(roomy, roomy[1:], strict=False)), roomy


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
