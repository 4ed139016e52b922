"""What the training framework adds to the hardware's work: `workload.framework` and its efficiency figures.

Two families of software run the layouts the engine plans, and they reach different efficiencies on the same GPU:

* Megatron-style 3D (Megatron-LM / Megatron-Core / NeMo, Megatron-DeepSpeed): fused element-wise kernels
  (bias-GeLU/SwiGLU, fused layer norm and RoPE, Transformer Engine), few kernels per layer. The engine's GEMM
  and element-wise figures are calibrated on its published runs (Korthikanti et al. 2022 arXiv:2205.05198,
  Narayanan et al. 2021 arXiv:2104.04473).
* FSDP / ZeRO-3 (PyTorch FSDP, arXiv:2304.11277; torchtitan, arXiv:2410.06511; MosaicML llm-foundry; DeepSpeed
  ZeRO-3): eager PyTorch element-wise operators, each a separate kernel that reads and writes HBM. torchtitan's
  own Table 1 (Llama 3.1 8B, 8 H100, FSDP) measures what fusing them is worth: torch.compile raises 5,762 to 6,667
  tokens/s per GPU (+15.7%). Its collectives overlap compute on separate CUDA streams, one collective in flight
  per stream, prefetching the next layer's parameters (FSDP paper §3.4-3.5, "backward prefetching", "rate
  limiter"), and they occupy streaming multiprocessors while they run (NCCL runs one thread block per channel).

`"typical"` (the default) infers the family from the layout: ZeRO-3 layouts get the FSDP figures, every other
layout the Megatron figures. `"deepspeed"` uses the FSDP family's figures (DeepSpeed ZeRO-3 is the same design:
eager kernels, prefetched parameter all-gathers, Rajbhandari et al. 2020 arXiv:1910.02054 §7-8).

The two constants fitted jointly on the whole validation set (accuracy/calibrate.py) are
`EAGER_ELEMENTWISE_FACTOR` and `OVERLAP_SLOWDOWN`; the others are sourced below.
"""

from __future__ import annotations

from typing import Any

from planner.engine.perf import fastnp as np  # numpy, with one-number calls answered in Python
from planner.engine.perf.layout import DEEPSPEED, FSDP, MEGATRON, Layout

#: HBM traffic of an eager (unfused) element-wise pass relative to the fused kernels the engine's element-wise
#: model counts: each fused operator becomes several kernels that re-read and re-write their tensors (RMSNorm's
#: fp32 upcast, mean of squares, scale; SiLU then the gating product; dropout and the residual add apart).
#: Fitted jointly on the whole validation set (accuracy/calibrate.py); torchtitan's torch.compile gain (+15.7%
#: on 8 H100, arXiv:2410.06511 Table 1) is the order of magnitude it must reproduce.
EAGER_ELEMENTWISE_FACTOR = 3.0
#: Slowdown of computation while a collective runs beside it, as a fraction of the overlapped communication
#: time: NCCL's channels are thread blocks that take streaming multiprocessors and HBM bandwidth from the GEMMs
#: (NCCL runs one CTA per channel, up to 32 channels: NCCL_MAX_NCHANNELS, NCCL environment documentation; an
#: H100 has 132 SMs, an A100 108). Fitted jointly on the whole validation set (accuracy/calibrate.py).
OVERLAP_SLOWDOWN = 0.1
#: Host time per launched kernel in eager PyTorch: "PyTorch... overhead on the order of 10 microseconds per
#: operator" (Horace He, "Making Deep Learning Go Brrrr From First Principles", 2022, section Overhead).
EAGER_HOST_S_PER_KERNEL = 10e-6
#: Kernels per transformer layer, forward, in eager PyTorch (Llama-style block: 2 norms of 4-5 operators each,
#: QKV and output GEMMs, RoPE on Q and K, attention, SiLU, gate product, up and down GEMMs, 2 residual adds,
#: reshapes and casts: about 40) and in Megatron-Core with Transformer Engine's fused kernels (about 15). The
#: backward launches about twice as many. Counted from torchtitan's models/llama3/model.py and Megatron-Core's
#: transformer_layer.py; with CUDA graphs or torch.compile the host cost hides behind the GPU work.
KERNELS_PER_LAYER_FORWARD_EAGER = 40.0
KERNELS_PER_LAYER_FORWARD_FUSED = 15.0
BACKWARD_KERNEL_FACTOR = 2.0
#: Host time per launched kernel with Megatron's fused kernels (a CUDA launch, no Python dispatch per
#: element-wise op): ~4 µs, the CUDA kernel launch latency (NVIDIA CUDA C++ Best Practices Guide, "kernel launch
#: overhead ... on the order of microseconds").
FUSED_HOST_S_PER_KERNEL = 4e-6


def eager(lay: Layout) -> Any:
    """1 where the FSDP/ZeRO-3 family's figures apply (explicitly, or "typical" with ZeRO-3), else 0."""
    explicit = (lay.framework == FSDP) | (lay.framework == DEEPSPEED)
    inferred = (lay.framework != MEGATRON) & (lay.zero_stage >= 3)
    return np.where(explicit | inferred, 1.0, 0.0)


def elementwise_factor(lay: Layout) -> Any:
    """Multiplier of the element-wise HBM traffic: EAGER_ELEMENTWISE_FACTOR for the eager family, else 1."""
    return np.where(eager(lay) > 0, EAGER_ELEMENTWISE_FACTOR, 1.0)


def host_s_per_layer(lay: Layout) -> Any:
    """Host time to launch one layer's kernels, forward + backward (+ the recomputed forward)."""
    family = eager(lay) > 0
    kernels = np.where(family, KERNELS_PER_LAYER_FORWARD_EAGER, KERNELS_PER_LAYER_FORWARD_FUSED)
    per_kernel = np.where(family, EAGER_HOST_S_PER_KERNEL, FUSED_HOST_S_PER_KERNEL)
    passes = 1.0 + BACKWARD_KERNEL_FACTOR + np.where(lay.recompute == 2, 1.0, 0.0)
    return kernels * per_kernel * passes


def assumptions(framework: str) -> dict[str, dict[str, Any]]:
    return {
        "framework.eager_elementwise_factor": {
            "value": EAGER_ELEMENTWISE_FACTOR,
            "unit": "× fused element-wise HBM traffic (FSDP/ZeRO-3 family)",
            "source": "fitted jointly on the validation set (calibrate); torchtitan arXiv:2410.06511 Table 1: "
            "torch.compile +15.7% on 8 H100",
        },
        "framework.overlap_slowdown": {
            "value": OVERLAP_SLOWDOWN,
            "unit": "fraction of overlapped communication time added to compute",
            "source": "fitted jointly on the validation set (calibrate); NCCL channels occupy SMs",
        },
        "framework.host_us_per_kernel": {
            "value": EAGER_HOST_S_PER_KERNEL * 1e6,
            "unit": "µs per eager PyTorch operator",
            "source": "H. He, 'Making Deep Learning Go Brrrr From First Principles' (2022)",
        },
        "framework.family": {
            "value": framework,
            "unit": "",
            "source": "workload.framework: typical = Megatron-style kernels, FSDP-style for ZeRO-3 layouts",
        },
    }
