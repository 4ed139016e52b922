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
LLM API defaults (8,192 and 2,048) the cases first assumed.

* MLA models (DeepSeek-V3/R1) go through the same generic ModelConfig (tensorrt_llm/bench/build/dataclasses.py):
  num_key_value_heads from the checkpoint's config (128 for DeepSeek) and head_size = hidden / heads (7168 / 128 =
  56; DeepSeek's config has no head_dim), not the MLA latent;
* the pytorch flow (tensorrt_llm/bench/benchmark/utils/general.py get_settings) leaves chunked prefill off unless
  the options enable it, and then raises max_num_tokens to at least the longest prompt + max_batch_size;
* with attention data parallelism the limits are per rank (the DeepSeek-R1 best-practice blog: "--max_batch_size:
  Max batch size in each rank").
The parameter count the heuristic multiplies by BYTES_PER_ELEM is the safetensors element count
(ModelConfig.get_param_count: sum of metadata.parameter_count). An NVFP4 checkpoint packs two 4-bit values into one
uint8 element and adds one FP8 scale element per 16 values, so its quantised weights count 1/2 + 1/16 element per
parameter (the routed experts of an MoE checkpoint whose other layers stay FP8, every transformer-layer weight of a
dense one; embeddings and LM head stay 16-bit); FP8 and 16-bit checkpoints count one element per parameter.
"""

from __future__ import annotations

import math

from planner.engine.inference.roofline import routed_expert_params
from planner.engine.inputs.specs import ModelSpec
from planner.engine.transformer.params import embedding_params, total_params

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
#: Safetensors elements per parameter of an NVFP4-quantised weight: half a packed uint8 plus a 1/16 FP8 scale.
NVFP4_ELEMENTS_PER_PARAM = 0.5 + 1.0 / 16.0


def checkpoint_elements(model: ModelSpec, precision: str) -> float:
    """The safetensors element count trtllm-bench reads as the parameter count (module docstring)."""
    params = total_params(model)
    if precision != "fp4":
        return params
    quantised = routed_expert_params(model) if model.moe is not None else params - embedding_params(model)
    return params - quantised + quantised * NVFP4_ELEMENTS_PER_PARAM


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
    model: ModelSpec,
    gpu_id: str,
    precision: str,
    tp: int,
    pp: int,
    isl: float,
    osl: float,
    chunked_prefill: bool = False,
) -> tuple[int, int]:
    """(max_batch_size, max_num_tokens) trtllm-bench sets (module docstring); FP8 KV cache."""
    kv_heads, head_size = model.kv_heads, model.head_dim
    if model.mla is not None:
        kv_heads, head_size = model.heads, model.hidden // model.heads
    kv_bytes_per_token = 2.0 * model.layers * max(tp, kv_heads) * head_size * 1.0
    memory = (
        DEVICE_MEMORY_GIB[gpu_id] * GIB * tp * pp
        - checkpoint_elements(model, precision) * WEIGHT_BYTES[precision]
    )
    requests = memory * KV_CACHE_FRACTION / (kv_bytes_per_token * (isl + osl))
    bs, tokens = finetune_setting(requests, isl, osl, pp)
    if not chunked_prefill:
        tokens = max(tokens, int(isl) + bs)
    return bs, tokens
