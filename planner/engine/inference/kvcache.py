"""GPU memory of a serving replica: weights, the activation workspace, and the paged KV cache that is left.

Like vLLM (Kwon et al. 2023, arXiv:2309.06180 §4; `gpu_memory_utilization`), the engine may use a fraction of the
GPU's memory; weights and the peak activation workspace of one step come first and the rest is cut into KV blocks
of `kv_block_tokens` tokens. A request holds ceil(context / block) blocks, so on average half a block is wasted
per request (the paper's "under 4%" internal fragmentation). The running-request limit is the smaller of the
engine's `max_running_requests` (vLLM max_num_seqs, TensorRT-LLM max_batch_size; per attention-DP rank) and the
requests whose blocks fit at their average context while running: input + output / 2 for fixed lengths, input +
(1 + cv²) · output / 2 with an output-length spread (running requests are length-biased,
`workload.Workload.mean_context_tokens`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.engine.inference.layout import ServingHardware, ServingLayout, kv_head_share
from planner.engine.inference.shape import ServingShape
from planner.engine.inference.step import ACTIVATION_BYTES
from planner.engine.training.memory import CUDA_CONTEXT_BYTES, NCCL_BUFFER_BYTES

#: Logits are sampled in fp32 (vLLM's sampler upcasts; 4 bytes per vocabulary entry and running request).
LOGIT_BYTES = 4.0
#: Peak activations of one step per batched token, in hidden-size units: the residual stream, the norm output and
#: the attention output (3h) plus the FFN's gate and up projections (2 per FFN column per GPU).
WORKSPACE_HIDDEN_VALUES = 3.0
WORKSPACE_FFN_VALUES = 2.0


@dataclass(frozen=True)
class ReplicaMemory:
    weights_bytes_per_gpu: float
    workspace_bytes_per_gpu: float
    overhead_bytes_per_gpu: float
    kv_budget_bytes_per_gpu: float  # what is left for KV blocks (negative: does not fit)
    kv_bytes_per_token_per_gpu: float  # one token of one request, on the GPUs that hold it
    kv_capacity_tokens: int  # per replica, whole blocks
    max_running_requests: int  # per replica, the smaller of the engine limit and what the KV blocks hold
    engine_limit: int  # per replica
    fits: bool

    @property
    def kv_limited(self) -> bool:
        return self.max_running_requests < self.engine_limit


def weights_bytes_per_gpu(
    shape: ServingShape, lay: ServingLayout, weight_bpv: float, dense_weight_bpv: float | None = None
) -> float:
    """Attention and dense weights split over attention-TP (replicated over attention-DP ranks), experts over the
    whole stage, the LM head and input embedding vocabulary-parallel; each stage holds 1/pp of the layers."""
    dense_bpv = weight_bpv if dense_weight_bpv is None else dense_weight_bpv
    replicated = (shape.attention_params + shape.dense_params) / lay.attention_tp * dense_bpv
    embeddings = (shape.head_params + shape.embedding_params) / lay.tp * dense_bpv
    experts = shape.routed_expert_params / lay.tp * weight_bpv
    return (replicated + embeddings + experts) / lay.pp


def kv_bytes_per_token_per_gpu(shape: ServingShape, lay: ServingLayout, kv_bpv: float) -> float:
    """KV bytes one cached token of one request takes on each GPU holding it: its stage's layers, the KV heads of
    the GPU's attention-TP rank (a head is never split; MLA's latent is whole on every rank)."""
    return shape.kv_values_per_token_layer * shape.layers / lay.pp * kv_bpv * kv_head_share(shape, lay)


def replica_memory(
    shape: ServingShape,
    hw: ServingHardware,
    lay: ServingLayout,
    *,
    weight_bpv: float,
    kv_bpv: float,
    dense_weight_bpv: float | None = None,
    gpu_memory_utilization: float,
    kv_block_tokens: int,
    max_running_requests: int,
    max_batched_tokens: int,
    mean_context_tokens: float,
    memory_fraction_of_free: bool = False,
) -> ReplicaMemory:
    """Memory of one replica and the running requests it can hold (module docstring). `max_running_requests`
    and `max_batched_tokens` are the engine's per-rank limits. `memory_fraction_of_free`: the fraction is of the
    memory left after weights, workspace and runtime (TensorRT-LLM's kv_cache_free_gpu_mem_fraction,
    tensorrt_llm/llmapi KvCacheConfig.free_gpu_memory_fraction), not of the whole GPU (vLLM's
    gpu_memory_utilization)."""
    dp = lay.attention_dp
    weights = weights_bytes_per_gpu(shape, lay, weight_bpv, dense_weight_bpv)
    ffn_per_gpu = shape.ffn_columns_per_token / lay.tp
    workspace = (
        max_batched_tokens
        * ACTIVATION_BYTES
        * (WORKSPACE_HIDDEN_VALUES * shape.hidden + WORKSPACE_FFN_VALUES * ffn_per_gpu)
        + max_running_requests * shape.vocab * LOGIT_BYTES / lay.tp
    )
    overhead = CUDA_CONTEXT_BYTES + (NCCL_BUFFER_BYTES if lay.gpus > 1 else 0.0)
    if memory_fraction_of_free:
        budget = (hw.hbm_bytes - weights - workspace - overhead) * gpu_memory_utilization
    else:
        budget = hw.hbm_bytes * gpu_memory_utilization - weights - workspace - overhead
    per_token = kv_bytes_per_token_per_gpu(shape, lay, kv_bpv)
    blocks_per_gpu = max(0, math.floor(budget / (per_token * kv_block_tokens))) if per_token > 0 else 0
    capacity_tokens = blocks_per_gpu * kv_block_tokens * dp  # each attention-DP rank holds its own requests
    blocks_per_request = mean_context_tokens / kv_block_tokens + 0.5
    kv_limit = math.floor(blocks_per_gpu * dp / blocks_per_request) if blocks_per_request > 0 else 0
    engine_limit = max_running_requests * dp
    return ReplicaMemory(
        weights_bytes_per_gpu=weights,
        workspace_bytes_per_gpu=workspace,
        overhead_bytes_per_gpu=overhead,
        kv_budget_bytes_per_gpu=budget,
        kv_bytes_per_token_per_gpu=per_token,
        kv_capacity_tokens=capacity_tokens,
        max_running_requests=max(0, min(engine_limit, kv_limit)),
        engine_limit=engine_limit,
        fits=budget > 0 and kv_limit >= 1,
    )
