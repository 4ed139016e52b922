"""A serving replica's parallel layout and the hardware it runs on, as the step model sees them.

Vocabulary (TensorRT-LLM / SGLang / vLLM):
* `tp` GPUs per pipeline stage; `pp` pipeline stages with `pp` micro-batches in flight; a replica has tp·pp GPUs.
* `dp_attention`: attention (and dense FFN layers) run data-parallel over the tp GPUs of a stage, each GPU holding
  whole attention weights and only its own requests' KV cache (DeepSeek-V3 style "DEP"); otherwise attention is
  tensor-parallel over tp (heads split; MLA's latent cannot be split by head, so every TP rank holds all of it).
* `ep`: routed experts split over ep GPUs of a stage (expert parallelism); the rest of a stage's tp GPUs split each
  expert (expert-TP = tp / ep).

`layout_problems` is the one home of what a valid serving layout is; the sizer enumerates only what it accepts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.engine.inference.shape import ServingShape
from planner.engine.inputs.errors import Problem
from planner.engine.inputs.specs import GpuSpec
from planner.engine.inputs.units import GiB
from planner.engine.perf.efficiency import mamf_fraction

#: Scale-up bandwidth (both directions, bytes/s) at or below which a GPU is taken to talk over PCIe (no NVLink or
#: Infinity Fabric): the catalog gives such GPUs their PCIe x16 host link, at most 242 GB/s for Gen6
#: (planner/engine/catalog.py PCIE_X16_BIDIR_GBS).
PCIE_CLASS_SCALEUP_BYTES_PER_S = 250e9


@dataclass(frozen=True)
class ServingLayout:
    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp_attention: bool = False

    @property
    def gpus(self) -> int:
        return self.tp * self.pp

    @property
    def attention_tp(self) -> int:
        """GPUs one attention head group is split over: 1 with attention data parallelism."""
        return 1 if self.dp_attention else self.tp

    @property
    def attention_dp(self) -> int:
        return self.tp if self.dp_attention else 1

    def label(self) -> str:
        parts = [f"TP{self.tp}"]
        if self.pp > 1:
            parts.append(f"PP{self.pp}")
        if self.ep > 1:
            parts.append(f"EP{self.ep}")
        if self.dp_attention:
            parts.append("attention-DP")
        return " · ".join(parts)

    def as_dict(self) -> dict[str, object]:
        return {"tp": self.tp, "pp": self.pp, "ep": self.ep, "dp_attention": self.dp_attention}


def kv_head_share(shape: ServingShape, lay: ServingLayout) -> float:
    """Share of a request's KV cache one attention-TP rank holds: KV heads split over ranks, but a head is never
    split, so with kv_heads < attention-TP each rank keeps one whole head; MLA's latent cannot be split by head and
    is whole on every rank."""
    if shape.mla:
        return 1.0
    return max(1, math.ceil(shape.kv_heads / lay.attention_tp)) / shape.kv_heads


def layout_problems(
    shape: ServingShape, lay: ServingLayout, path: str = "workload.parallelism"
) -> list[Problem]:
    """Why a layout cannot serve this model (empty when it can)."""
    problems: list[Problem] = []
    if lay.tp < 1 or lay.pp < 1 or lay.ep < 1:
        problems.append(Problem(path, "tp, pp and ep must be at least 1"))
        return problems
    if lay.pp > shape.layers:
        problems.append(Problem(f"{path}.pp", f"must not exceed the model's layers ({shape.layers})"))
    if shape.heads % lay.attention_tp:
        problems.append(Problem(f"{path}.tp", f"must divide the attention heads ({shape.heads})"))
    if lay.ep > 1 and shape.moe_layers == 0:
        problems.append(Problem(f"{path}.ep", "expert parallelism needs a mixture-of-experts model"))
    if lay.ep > 1 and lay.tp % lay.ep:
        problems.append(Problem(f"{path}.ep", f"must divide tp ({lay.tp}): experts are split within a stage"))
    if lay.ep > 1 and shape.experts % lay.ep:
        problems.append(Problem(f"{path}.ep", f"must divide the experts ({shape.experts})"))
    if lay.dp_attention and shape.moe_layers == 0:
        problems.append(
            Problem(f"{path}.dp_attention", "attention data parallelism is for mixture-of-experts models")
        )
    return problems


@dataclass(frozen=True)
class ServingHardware:
    """One GPU type in its node, with the peaks of the precisions a serving step computes in."""

    name: str
    hbm_bytes: float
    hbm_bandwidth_bytes_per_s: float
    gemm_precision: str  # routed experts' GEMMs (all GEMMs of a dense model)
    gemm_peak_flop_per_s: float
    dense_gemm_precision: str  # attention projections, dense FFN layers, shared experts, LM head
    dense_gemm_peak_flop_per_s: float
    attention_precision: str
    attention_peak_flop_per_s: float
    matmul_ceiling_ratio: float  # this GPU's measured matmul ceiling / the H100's (rates.MAMF table)
    scaleup_bytes_per_s: float  # one direction
    pcie_only: bool
    gpus_per_node: int
    scaleout_bytes_per_s: float  # per GPU, one direction
    tdp_w: float
    price_usd: float | None

    @property
    def hbm_gib(self) -> float:
        return self.hbm_bytes / GiB


#: Precisions a weight format computes in when the GPU has a tensor peak for it; otherwise the weights are
#: de-quantised to the next one that has a peak (weight-only quantisation, e.g. AWQ INT4 runs W4A16).
_COMPUTE_CHAIN: dict[str, tuple[str, ...]] = {
    "fp4": ("fp4", "bf16", "fp16"),
    "int4": ("bf16", "fp16"),
    "fp8": ("fp8", "bf16", "fp16"),
    "int8": ("int8", "fp8", "bf16", "fp16"),
    "bf16": ("bf16", "fp16"),
    "fp16": ("fp16", "bf16"),
    "fp32": ("tf32", "fp32"),
    "tf32": ("tf32", "fp32"),
}


def compute_precision(gpu: GpuSpec, weight_precision: str) -> str | None:
    """The precision a GEMM with these weights runs at on this GPU (None when it has no usable peak)."""
    for candidate in _COMPUTE_CHAIN.get(weight_precision, (weight_precision,)):
        if gpu.peak_for(candidate):
            return candidate
    return None


def matmul_ceiling_ratio(gpu: GpuSpec) -> float:
    """How this GPU's measured matmul ceiling (fraction of its own peak) compares with the H100's, on which the
    serving fractions' published ranges were measured (DeepGEMM, FlashMLA on H800 = H100 silicon). The ceilings
    are measurements (stas00/ml-engineering "Maximum Achievable Matmul FLOPS" table, planner/engine/rates.py
    MAMF_FRACTION_BY_GPU), not the training calibration: MI300X reaches 782/1300 = 0.60 of its peak where an H100
    reaches 792/989 = 0.80."""
    key = f"{gpu.catalog_id or ''} {gpu.name}"
    return float(mamf_fraction(key) / mamf_fraction("h100"))


def serving_hardware(
    gpu: GpuSpec,
    *,
    weight_precision: str,
    attention_precision: str,
    gpus_per_node: int,
    scaleout_bytes_per_s: float,
    dense_weight_precision: str | None = None,
    kernel_efficiency: float = 1.0,
) -> ServingHardware:
    """The GPU as the step model sees it; raises ValueError when it has no tensor peak to compute with.
    `dense_weight_precision` is the non-expert weights' format when it differs (NVFP4 MoE checkpoints keep
    attention and dense layers in FP8). `kernel_efficiency` (the user's `workload.serving.kernel_efficiency`)
    multiplies the matmul ceiling, so the compute side of every GEMM, grouped GEMM and attention kernel, and
    nothing that streams memory: 1.0 is the calibrated average of the published serving stacks."""
    gemm = compute_precision(gpu, weight_precision)
    dense = compute_precision(gpu, dense_weight_precision or weight_precision)
    attention = compute_precision(gpu, attention_precision)
    if gemm is None or attention is None or dense is None:
        raise ValueError(f"the {gpu.name} has no tensor peak for {weight_precision} or 16-bit")
    return ServingHardware(
        name=gpu.name,
        hbm_bytes=gpu.hbm_bytes,
        hbm_bandwidth_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s,
        gemm_precision=gemm,
        gemm_peak_flop_per_s=float(gpu.peak_for(gemm) or 0.0),
        dense_gemm_precision=dense,
        dense_gemm_peak_flop_per_s=float(gpu.peak_for(dense) or 0.0),
        attention_precision=attention,
        attention_peak_flop_per_s=float(gpu.peak_for(attention) or 0.0),
        matmul_ceiling_ratio=matmul_ceiling_ratio(gpu) * kernel_efficiency,
        scaleup_bytes_per_s=gpu.scaleup_bandwidth_bytes_per_s / 2.0,
        pcie_only=gpu.scaleup_bandwidth_bytes_per_s <= PCIE_CLASS_SCALEUP_BYTES_PER_S,
        gpus_per_node=gpus_per_node,
        scaleout_bytes_per_s=scaleout_bytes_per_s,
        tdp_w=gpu.tdp_w,
        price_usd=gpu.price_usd,
    )
