"""The batch limits `trtllm-bench throughput` picks when the command line sets none (TensorRT-LLM perf-overview rows).

TensorRT-LLM's perf-overview tables (docs/source/developer-guide/perf-overview.md, and the same page for releases up
to 1.0) run `trtllm-bench ... throughput` with only CUDA-graph and attention-DP options, so the engine's
max_batch_size and max_num_tokens come from trtllm-bench's own heuristic, tensorrt_llm/bench/build/tuning.py
(calc_engine_setting and finetune_setting, NVIDIA/TensorRT-LLM @ 04cba882):

* bytes per token of KV cache = 2 x attention layers x max(tp, kv_heads) x head_size x KV bytes (FP8 = 1);
* KV memory = (device memory x tp x pp - parameters x weight bytes) x 0.95 (kv_cache_free_gpu_mem_fraction);
* requests = KV memory / (bytes per token x (ISL + OSL)); raw batch = min(requests, 4096) / pp;
  raw tokens = min(raw batch x (1 + ISL / OSL), 32,768);
* max_batch_size = raw batch rounded up to 32 (at least 64) below 256, to 128 below 1,024, else to 256;
  max_num_tokens = raw tokens rounded up to 256 (at least 2,048) below 4,096, to 512 below 8,192, else to 1,024.

So a 1,024/1,024 run of Llama 3.3 70B on one B200 has max_num_tokens 2,048 and max_batch_size 512, not the
LLM API defaults (8,192 and 2,048) the cases first assumed. Dense (GQA) models only: for MLA models the heuristic's
KV size depends on the release, so those rows keep their stated limits.
"""

from __future__ import annotations

import math

from planner.engine.inputs.specs import ModelSpec
from planner.engine.transformer.params import total_params

GIB = 1024.0**3
#: torch.cuda total_memory of each GPU as the heuristic reads it (get_device_memory, GiB): nvidia-smi totals
#: H100 SXM 81,559 MiB, H200 SXM 143,771 MiB, B200 183,359 MiB.
DEVICE_MEMORY_GIB: dict[str, float] = {
    "nvidia_h100_sxm5_80gb": 81559 / 1024,
    "nvidia_h200_sxm_141gb": 143771 / 1024,
    "nvidia_b200_hgx": 183359 / 1024,
}
#: BYTES_PER_ELEM of tuning.py by checkpoint precision.
WEIGHT_BYTES = {"fp8": 1.0, "fp4": 0.5, "bf16": 2.0}
KV_CACHE_FRACTION = 0.95


def finetune_setting(requests: float, isl: float, osl: float, pp: int = 1) -> tuple[int, int]:
    """(max_batch_size, max_num_tokens) from the requests the KV cache holds (tuning.finetune_setting)."""
    raw_bs = min(requests, 4096.0) / pp
    raw_tokens = min(raw_bs * (1.0 + isl / osl), 32768.0)
    if raw_bs < 256:
        bs = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        bs = 128 * math.ceil(raw_bs / 128)
    else:
        bs = 256 * math.ceil(raw_bs / 256)
    if raw_tokens < 4096:
        tokens = max(2048, 256 * math.ceil(raw_tokens / 256))
    elif raw_tokens < 8192:
        tokens = 512 * math.ceil(raw_tokens / 512)
    else:
        tokens = 1024 * math.ceil(raw_tokens / 1024)
    return bs, tokens


def engine_setting(
    model: ModelSpec, gpu_id: str, precision: str, tp: int, pp: int, isl: float, osl: float
) -> tuple[int, int]:
    """(max_batch_size, max_num_tokens) trtllm-bench sets for a dense model (module docstring); FP8 KV cache."""
    if model.mla is not None:
        raise ValueError("the trtllm-bench heuristic is only reproduced for dense (GQA) models")
    kv_bytes_per_token = 2.0 * model.layers * max(tp, model.kv_heads) * model.head_dim * 1.0
    memory = DEVICE_MEMORY_GIB[gpu_id] * GIB * tp * pp - total_params(model) * WEIGHT_BYTES[precision]
    requests = memory * KV_CACHE_FRACTION / (kv_bytes_per_token * (isl + osl))
    return finetune_setting(requests, isl, osl, pp)
