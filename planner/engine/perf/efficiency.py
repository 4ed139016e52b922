"""How close to the datasheet peak a GPU runs the work of one training step.

Three achieved rates, each a documented model, elementwise so that `search` can evaluate numpy arrays:

* Matrix multiplies (GEMMs): `ceiling(gpu) · FRAMEWORK_GEMM_FRACTION · Π_d d / (d + GEMM_HALF_DIM)` over the three
  GEMM dimensions (M tokens, N outputs, K inputs, all per GPU after tensor parallelism). The ceiling is the
  measured Maximum Achievable Matmul FLOPS of the GPU (stas00/ml-engineering, compute/accelerator/README.md,
  "Maximum Achievable Matmul FLOPS comparison table"); the saturation in each dimension captures tile and wave
  quantisation of small per-GPU matrices (h/tp, micro_batch·seq), cf. Anthony et al. 2024 arXiv:2401.14489 §5.
* Attention scores with FlashAttention: a fixed fraction of the ceiling (FlashAttention-2, arXiv:2307.08691,
  abstract: "50-73% of the theoretical maximum FLOPs/s on A100"); FlashAttention v1 (Dao et al. 2022,
  arXiv:2205.14135) at half of it (the same abstract: FlashAttention-2 yields "around 2× speedup compared to
  FlashAttention", which reached "only 25-40% of the theoretical maximum FLOPs/s").
* Memory-bound element-wise kernels (norms, activations, dropout, softmax, optimizer): a fixed fraction of HBM
  bandwidth.

`FRAMEWORK_GEMM_FRACTION`, `GEMM_HALF_DIM` and the scale-up link efficiency in comm.py were calibrated ONCE,
jointly, on all the shipped time-like cases (planner/engine/accuracy/data/validation.csv) by a grid search
(planner/engine/accuracy/calibrate.py) minimising the sum of squared tolerance-normalised errors subject to the
Korthikanti median staying within 5%; they are never adjusted per case. `python -m planner.engine validate`
prints the resulting errors.
"""

from __future__ import annotations

from typing import Any

from planner.engine.perf import fastnp as np  # numpy, with one-number calls answered in Python
from planner.engine.perf.layout import FLASH_V1, FLASH_V2

#: Measured Maximum Achievable Matmul FLOPS (BF16, dense) as a fraction of the datasheet peak, by accelerator.
#: Source: stas00/ml-engineering compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison
#: table" (A100 SXM 267.9/312, A100 PCIe 256.4/312, H100 SXM 792.1/989, GH200 821.0/989, MI250X 147.0/191.5 per
#: GCD, MI300X 781.9/1300) and ml-engineering's B200 page (1745.0/2250). Matched on the GPU's catalog id or name.
MAMF_FRACTION_BY_GPU: tuple[tuple[str, float], ...] = (
    ("a100_pcie", 256.4 / 312.0),
    ("a100 pcie", 256.4 / 312.0),
    ("a100", 267.9 / 312.0),
    ("gh200", 821.0 / 989.0),
    ("h200", 794.5 / 989.0),
    ("h100", 792.1 / 989.0),
    ("b200", 1745.0 / 2250.0),
    ("mi250x", 147.0 / 191.5),
    ("mi300x", 781.9 / 1300.0),
    ("mi325x", 781.9 / 1300.0),  # same CDNA3 compute die as MI300X
)
#: Ceiling for accelerators not in the MAMF table: the median of the measured rows above.
DEFAULT_MAMF_FRACTION = 0.80

#: Share of the MAMF ceiling that a training framework's GEMMs reach at large shapes (kernel selection, launch
#: gaps, clock drop under sustained load). Calibrated once on the shipped cases (module docstring).
FRAMEWORK_GEMM_FRACTION = 0.88
#: GEMM dimension (elements) at which one dimension's saturation factor d/(d+c) is one half. Calibrated once.
GEMM_HALF_DIM = 96.0
#: FlashAttention's achieved fraction of the MAMF ceiling, forward + backward: FlashAttention-2 on A100 with a
#: causal mask, head size 128 and 2k sequences runs at about 165 TFLOP/s = 53% of peak (arXiv:2307.08691 Fig. 4,
#: counting the executed half of the causal scores), divided by the A100 ceiling 0.859.
FLASH_ATTENTION_PEAK_FRACTION_A100 = 0.53
FLASH_ATTENTION_FRACTION = FLASH_ATTENTION_PEAK_FRACTION_A100 / (267.9 / 312.0)
#: FlashAttention-2's speed-up over FlashAttention v1: "around 2× speedup compared to FlashAttention"
#: (arXiv:2307.08691 abstract; FA1 "reaching only 25-40% of the theoretical maximum FLOPs/s", FA2 50-73%).
FLASH_ATTENTION_V2_SPEEDUP = 2.0
#: Achieved fraction of the HBM bandwidth for streaming element-wise kernels (STREAM-like copies reach 85-93% on
#: A100/H100: stas00/ml-engineering compute/accelerator/README.md "Accelerator memory size and speed").
HBM_EFFICIENCY = 0.85


def mamf_fraction(gpu_key: str) -> float:
    """The measured matmul ceiling (fraction of peak) for a GPU, matched on its catalog id or name."""
    key = gpu_key.lower()
    for needle, fraction in MAMF_FRACTION_BY_GPU:
        if needle in key:
            return fraction
    return DEFAULT_MAMF_FRACTION


def efficiency_scale_at_ceiling() -> float:
    """The `workload.efficiency_scale` at which a framework's large GEMMs reach the GPU's measured matmul ceiling
    (MAMF) itself: no framework beats the maximum achievable matmul FLOPS, so a what-if above it (the MFU row of
    a sensitivity table) describes no real software. 1 / FRAMEWORK_GEMM_FRACTION."""
    return 1.0 / FRAMEWORK_GEMM_FRACTION


def shape_factor(dim: Any) -> Any:
    """Saturation of one GEMM dimension: d / (d + GEMM_HALF_DIM) (1 for large matrices, small for tiny ones)."""
    return dim / (dim + GEMM_HALF_DIM)


def gemm_efficiency(m: Any, n: Any, k: Any, ceiling: Any) -> Any:
    """Achieved fraction of peak for an (m×k)·(k×n) GEMM on one GPU (module docstring)."""
    return ceiling * FRAMEWORK_GEMM_FRACTION * shape_factor(m) * shape_factor(n) * shape_factor(k)


def flash_attention_efficiency(ceiling: Any, version: Any = FLASH_V2) -> Any:
    """Achieved fraction of peak of a FlashAttention kernel: FlashAttention-2 (arXiv:2307.08691 Fig. 4), or
    FlashAttention v1 (`version` FLASH_V1) at 1/FLASH_ATTENTION_V2_SPEEDUP of it (arXiv:2307.08691 abstract)."""
    v2 = np.minimum(ceiling * FLASH_ATTENTION_FRACTION, ceiling)
    return np.where(version == FLASH_V1, v2 / FLASH_ATTENTION_V2_SPEEDUP, v2)


def assumptions() -> dict[str, dict[str, Any]]:
    return {
        "efficiency.framework_gemm_fraction": {
            "value": FRAMEWORK_GEMM_FRACTION,
            "unit": "fraction of the measured matmul ceiling",
            "source": "calibrated once on Korthikanti et al. 2022 Table 5 and Narayanan et al. 2021 Table 1",
        },
        "efficiency.gemm_half_dim": {
            "value": GEMM_HALF_DIM,
            "unit": "elements",
            "source": "calibrated once (GEMM saturation d/(d+c) per dimension)",
        },
        "efficiency.flash_attention_fraction": {
            "value": FLASH_ATTENTION_PEAK_FRACTION_A100,
            "unit": "fraction of peak (A100; scaled by each GPU's matmul ceiling)",
            "source": "FlashAttention-2 arXiv:2307.08691 Fig. 4: causal, head 128, 2k: ~165 TFLOP/s on A100",
        },
        "efficiency.flash_attention_v2_speedup": {
            "value": FLASH_ATTENTION_V2_SPEEDUP,
            "unit": '× FlashAttention v1 (used when workload.parallelism.flash_attention is "v1")',
            "source": "FlashAttention-2 arXiv:2307.08691 abstract: around 2× speedup compared to FlashAttention",
        },
        "efficiency.hbm": {
            "value": HBM_EFFICIENCY,
            "unit": "fraction of HBM bandwidth",
            "source": "stas00/ml-engineering accelerator memory bandwidth notes",
        },
    }
