"""The best model-FLOPs utilisation ever published on a GPU generation and precision: the step model may not claim
more ("a layout chooser that stays within what has been achieved").

A bottom-up step model can find layouts whose kernels, on paper, beat every measured run (large GEMMs, little
communication, no recompute). No published run has; planning on such a figure under-buys. So the work of one pipeline
replica (its micro-batches with their tensor-, context- and expert-parallel traffic, and its pipeline bubble: what
every published run includes) is held to the published ceiling; the data-parallel group's exposed traffic and the
optimizer step come on top (training/step_time.py), so that a larger group at a fixed global batch still shows as a
lower MFU. The replica's MFU m and the ceiling c combine as a smooth minimum
(m⁻ᵖ + c⁻ᵖ)^(-1/p) with p = CEILING_SHARPNESS, which equals min(m, c) to within 0.1% unless m is within a few
percent of c, stays below c, and keeps the ranking of layouts strict (a hard minimum would tie every layout at the
ceiling and leave the choice among them to chance). When the ceiling holds a step back by more than
CEILING_WARNING_FRACTION, the result says so and names the published figure.

The figures are the best published for each generation at each scale: one node (the GPUs of a node only, no
scale-out traffic) and several nodes. Precisions without a published figure (FP8, FP32) and generations
without one are not held.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Sharpness of the smooth minimum (module docstring); fitted jointly on the whole validation set (accuracy/calibrate.py).
CEILING_SHARPNESS = 64.0
#: Share of the step the ceiling must add before the result warns.
CEILING_WARNING_FRACTION = 0.01
CEILING_PRECISIONS = ("bf16", "fp16")


@dataclass(frozen=True)
class Achieved:
    """The best published MFU of one generation at one scale, with its source."""

    mfu: float
    source: str


#: (needle in the GPU's catalog id or name, one node, several nodes).
ACHIEVED_MFU: tuple[tuple[str, Achieved, Achieved], ...] = (
    (
        "a100",
        Achieved(
            0.72,
            "FlashAttention-2, Dao 2023 arXiv:2307.08691 abstract: GPT-style training at 225 TFLOP/s per A100, "
            "72% model FLOPs utilization (one 8-GPU node)",
        ),
        Achieved(
            0.582,
            "torchtitan docs/performance.md (Liang et al. 2024 arXiv:2410.06511): Llama 3 8B on 64 A100-80GB, "
            "FSDP2, selective op activation checkpointing, 2,973 tokens/s per GPU, MFU 58.2%",
        ),
    ),
    (
        "h100",
        Achieved(
            0.47,
            "Megatron-LM README (NVIDIA, 2024-2025): 'up to 47% Model FLOP Utilization (MFU) on H100 clusters', "
            "GPT 2B-462B",
        ),
        Achieved(
            0.47,
            "Megatron-LM README (NVIDIA, 2024-2025): 'up to 47% Model FLOP Utilization (MFU) on H100 clusters', "
            "GPT 2B-462B on up to 6,144 H100",
        ),
    ),
)
#: Hopper parts that share the H100's figures (same SM and tensor cores; the H200 has more HBM).
HOPPER_NEEDLES = ("h100", "h200", "h800", "gh200")
#: No ceiling: an MFU no layout can reach.
UNBOUNDED = 1.0


def achieved(gpu_key: str, precision: str, multi_node: bool) -> Achieved | None:
    """The published ceiling for a GPU (catalog id and name), precision and scale; None when none is published."""
    if precision not in CEILING_PRECISIONS:
        return None
    key = gpu_key.lower()
    for needle, one_node, nodes in ACHIEVED_MFU:
        needles = HOPPER_NEEDLES if needle == "h100" else (needle,)
        if any(n in key for n in needles):
            return nodes if multi_node else one_node
    return None


def held_mfu(mfu: Any, ceiling: Any) -> Any:
    """The model's MFU held below the published ceiling (smooth minimum, module docstring)."""
    p = CEILING_SHARPNESS
    return (mfu ** (-p) + ceiling ** (-p)) ** (-1.0 / p)


def assumptions(found: Achieved | None) -> dict[str, dict[str, Any]]:
    if found is None:
        return {
            "achieved.mfu_ceiling": {
                "value": None,
                "unit": "fraction of peak",
                "source": "no published MFU for this GPU generation and precision: the step is not held",
            }
        }
    return {"achieved.mfu_ceiling": {"value": found.mfu, "unit": "fraction of peak", "source": found.source}}
