"""The numeric inputs of the memory and time formulas besides the hardware (hardware.py): a parallel layout and
the numerics of a precision.

Each Layout field may be a Python number (one `estimate`) or a numpy array (a whole `search` space): the
formulas in training/memory.py and training/step_time.py are elementwise, so the same code evaluates one
configuration or a million of them (and `search` gives bit-for-bit the same numbers as `estimate`). Inference
(inference/roofline.py) reads the same Layout for its tensor and pipeline degrees.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.engine.inputs.specs import BYTES_PER_VALUE, ParallelismSpec

#: Recompute modes as numbers so that they can live in numpy arrays.
RECOMPUTE_CODES: dict[str, int] = {"none": 0, "selective": 1, "full": 2}
RECOMPUTE_NAMES: dict[int, str] = {v: k for k, v in RECOMPUTE_CODES.items()}
NONE, SELECTIVE, FULL = 0, 1, 2
#: Attention kernels as numbers: unfused (two batched GEMMs and a softmax), FlashAttention v1 or v2.
FLASH_NONE, FLASH_V1, FLASH_V2 = 0, 1, 2
FLASH_CODES: dict[str, int] = {"v1": FLASH_V1, "v2": FLASH_V2}
#: Framework families as numbers (workload.framework; "typical" infers the family from the layout).
TYPICAL, MEGATRON, FSDP, DEEPSPEED = 0, 1, 2, 3
FRAMEWORK_CODES: dict[str, int] = {
    "typical": TYPICAL,
    "megatron": MEGATRON,
    "fsdp": FSDP,
    "deepspeed": DEEPSPEED,
}


@dataclass(frozen=True)
class Layout:
    """One (or an array of) parallel layouts (Megatron-LM vocabulary); inference uses tp and pp."""

    tp: Any
    pp: Any
    dp: Any
    cp: Any
    ep: Any
    virtual_stages: Any
    micro_batch: Any
    global_batch: Any  # sequences per optimizer step
    zero_stage: Any
    recompute: Any  # RECOMPUTE_CODES
    sequence_parallel: Any  # 1 / 0
    flash_attention: Any  # FLASH_NONE / FLASH_V1 / FLASH_V2
    dp_overlap: Any  # 1 / 0: gradient reduction overlapped with the last backward, or all exposed
    reshard_after_forward: Any = 1.0  # 1 / 0: ZeRO-3 re-gathers parameters for the backward (FSDP default)
    hsdp: Any = 0.0  # 1 / 0: ZeRO shards within a node's data-parallel ranks, replicated across nodes
    framework: Any = 0.0  # FRAMEWORK_CODES (perf/framework.py): whose kernels and overlap figures apply
    pipeline_split: Any = (
        1.0  # PIPELINE_SPLIT_CODES: 1 balanced (embedding, output + loss count as a layer), 0 even
    )


#: Pipeline splits as numbers (workload.parallelism.pipeline_split; training/memory.py stage_layers).
PIPELINE_SPLIT_CODES: dict[str, int] = {"even": 0, "balanced": 1}


#: Bytes per parameter of the optimizer state, for mixed-precision training (an fp32 master copy included) and
#: for pure fp32 training (no master copy). Adam: fp32 master + momentum + variance = 12 (ZeRO, arXiv:1910.02054
#: §3.1, K = 12); SGD with momentum: master + momentum = 8; 8-bit Adam (Dettmers et al. 2021, arXiv:2110.02861):
#: master 4 + two 1-byte states = 6.
OPTIMIZER_STATE_BYTES: dict[str, tuple[float, float]] = {
    "adam": (12.0, 8.0),
    "adamw": (12.0, 8.0),
    "sgd_momentum": (8.0, 4.0),
    "adam_8bit": (6.0, 2.0),
}
#: Precisions trained without a separate low-precision weight copy.
FULL_PRECISION = ("fp32", "tf32")


@dataclass(frozen=True)
class Numerics:
    """Bytes per value for weights, gradients, optimizer state and activations of one training precision."""

    weight_bytes: float
    grad_bytes: float
    optimizer_bytes: float
    activation_bytes: float
    optimizer_touched_bytes: float


def numerics_for(precision: str, optimizer: str) -> Numerics:
    """Mixed precision (bf16/fp16/fp8): 2-byte weights and gradients plus the optimizer's fp32 state (ZeRO §3.1:
    2 + 2 + 12 = 16 bytes per parameter with Adam). fp32/tf32: 4-byte weights and gradients, no master copy.
    FP8 training (Transformer Engine) keeps bf16 weights and activations; only the GEMM inputs are cast."""
    full = precision in FULL_PRECISION
    value_bytes = 4.0 if full else max(BYTES_PER_VALUE.get(precision, 2.0), 2.0)
    mixed_state, full_state = OPTIMIZER_STATE_BYTES[optimizer]
    state_bytes = full_state if full else mixed_state
    # One optimizer step reads and writes every state, reads the gradient twice (norm for clipping, update)
    # and, in mixed precision, writes the low-precision weight copy: all memory-bound traffic.
    touched = 2.0 * state_bytes + 2.0 * value_bytes + (0.0 if full else value_bytes)
    return Numerics(
        weight_bytes=value_bytes,
        grad_bytes=value_bytes,
        optimizer_bytes=state_bytes,
        activation_bytes=value_bytes,
        optimizer_touched_bytes=touched,
    )


def layout_for(p: ParallelismSpec) -> Layout:
    """One fixed layout as plain numbers (floats, so that scalars and numpy arrays give identical results)."""
    return Layout(
        tp=float(p.tp),
        pp=float(p.pp),
        dp=float(p.dp),
        cp=float(p.cp),
        ep=float(p.ep),
        virtual_stages=float(p.virtual_stages),
        micro_batch=float(p.micro_batch),
        global_batch=float(p.global_batch),
        zero_stage=float(p.zero_stage),
        recompute=float(RECOMPUTE_CODES[p.recompute]),
        **workload_flags(p),
    )


def workload_flags(p: ParallelismSpec) -> dict[str, Any]:
    """The layout's workload-level switches as numbers (the same for every layout of a search, so that `search`
    and `estimate` encode them identically)."""
    return {
        "sequence_parallel": 1.0 if p.sequence_parallel else 0.0,
        "flash_attention": float(FLASH_CODES[p.flash_attention_version] if p.flash_attention else FLASH_NONE),
        "dp_overlap": 1.0 if p.dp_overlap else 0.0,
        "reshard_after_forward": 1.0 if p.reshard_after_forward else 0.0,
        "hsdp": 1.0 if p.hsdp else 0.0,
        "framework": float(FRAMEWORK_CODES[p.framework]),
        "pipeline_split": float(PIPELINE_SPLIT_CODES[p.pipeline_split]),
    }
