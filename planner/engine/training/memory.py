"""GPU memory of a training job, per GPU, for the most loaded pipeline stage.

* Model states (ZeRO, Rajbhandari et al. 2019, arXiv:1910.02054, §3 and Fig. 1): with mixed-precision Adam,
  2Ψ weights + 2Ψ gradients + 12Ψ optimizer state; ZeRO-1 shards the optimizer state, ZeRO-2 also the
  gradients, ZeRO-3 (FSDP FULL_SHARD) also the weights over the data-parallel ranks (dp·cp in Megatron-LM,
  whose distributed optimizer shards over the data- and context-parallel group). Tensor parallelism divides a
  stage's weights by tp (Shoeybi et al. 2019, arXiv:1909.08053); routed experts are divided by ep·tp (expert
  parallelism carved out of the data-parallel group, expert tensor parallelism = tp, as Megatron-Core's default).
* Activations per layer (Korthikanti et al. 2022, arXiv:2205.05198, §4 and Table 2), generalised to GQA,
  SwiGLU and MoE term by term: sbh·(10 + 24/t + 5as/(ht)) with tensor parallelism, sbh·(34 + 5as/h)/t with
  sequence parallelism, 34·sbh/t with selective recompute, 2·sbh with full recompute. FlashAttention
  (Dao et al. 2022, arXiv:2205.14135) stores no s×s scores (only a fp32 log-sum-exp per row).
* Pipeline schedule (Korthikanti §4.2.3; Narayanan et al. 2021 §2.2): with 1F1B stage i (from 0) keeps
  min(p - i, m) micro-batches in flight; the interleaved schedule multiplies that by 1 + (p-1)/(p·v). The first
  stage adds the embedding's dropout mask, the last stage the output layer and fp32 logits (Korthikanti §4.3).
* Pipeline split (`pipeline_split`, stage_layers): "balanced" (the default) counts the input embedding and the
  output layer with its loss as one transformer layer each when placing layers on stages, so the first and the
  last stage hold one layer fewer than the others (Megatron-LM --account-for-embedding-in-pipeline-split and
  --account-for-loss-in-pipeline-split; the Llama 3 405B split, Dubey et al. 2024 arXiv:2407.21783 §3.3.2: "we
  reduce one Transformer layer each from the first and the last stages"; with layers that do not divide,
  Megatron's --decoder-first/last-pipeline-num-layers). "even": ⌈L/p⌉ layers on each stage, the remainder on
  the last (Megatron-LM's default split). The most loaded GPU is the heaviest of the first stage (most
  micro-batches in flight), the second (a full stage with p-1 in flight) and the last (output layer, logits).
* Framework overhead: the CUDA context and kernels, NCCL buffers, and allocator fragmentation (constants below).

All functions are elementwise over numpy arrays of layouts (layout.py).
"""

from __future__ import annotations

from typing import Any

from planner.engine.inputs.units import GiB
from planner.engine.perf import fastnp as np  # numpy, with one-number calls answered in Python
from planner.engine.perf.hardware import Hardware
from planner.engine.perf.layout import FULL, NONE, Layout, Numerics
from planner.engine.transformer.shape import ModelShape

#: CUDA context, cuBLAS/cuDNN workspaces and loaded kernels: PyTorch's first CUDA call takes 0.5-2 GB
#: (stas00/ml-engineering training/performance/README.md, "Anatomy of model's memory": "Preloaded CUDA kernels
#: memory usage"); we take 1 GiB.
CUDA_CONTEXT_BYTES = 1.0 * GiB
#: NCCL communicator buffers for the TP, PP and DP groups (NCCL_BUFFSIZE 4 MiB per channel and peer, NCCL
#: environment-variable documentation): 0.5 GiB.
NCCL_BUFFER_BYTES = 0.5 * GiB
#: PyTorch caching-allocator fragmentation, as a share of dynamic allocations (activations and transient
#: buffers); PyTorch CUDA-semantics docs on memory management; 10% is the middle of the 5-15% commonly seen.
FRAGMENTATION_FRACTION = 0.10
#: Layers whose gathered parameters ZeRO-3/FSDP holds at once: the one computing and the one prefetched
#: (FSDP's default backward prefetch and forward prefetch of one unit, arXiv:2304.11277 §3.4).
ZERO3_GATHERED_UNITS = 2.0
#: Bytes of a dropout mask element (torch stores masks as bytes; Korthikanti §4.1).
MASK_BYTES = 1.0
#: Bytes per row statistic FlashAttention keeps for the backward pass (fp32 log-sum-exp).
FLASH_STATS_BYTES = 4.0
#: Bytes per logit kept for the fp32 softmax cross-entropy (Korthikanti §4.3: 4sbV).
LOGIT_BYTES = 4.0


#: Pipeline stages the memory and time formulas tell apart: the first (input embedding, min(p, m) micro-batches in
#: flight), a middle one (the second: the most layers, min(p-1, m) in flight) and the last (output layer, loss).
FIRST, MIDDLE, LAST = "first", "middle", "last"
STAGES = (FIRST, MIDDLE, LAST)


def _even_split(sh: ModelShape, lay: Layout) -> tuple[Any, Any, Any]:
    """(first, middle, last) layers of Megatron-LM's default split: ⌈L/p⌉ per stage, what is left on the last."""
    per_stage = np.ceil(sh.layers / lay.pp)
    last = np.maximum(sh.layers - (lay.pp - 1) * per_stage, 0.0)
    return per_stage, np.where(lay.pp > 2, per_stage, 0.0), last


def _balanced_split(sh: ModelShape, lay: Layout) -> tuple[Any, Any, Any]:
    """(first, middle, last) layers with the embedding and the output layer + loss counted as one layer each
    (module docstring): u = ⌈(L+2)/p⌉ units per stage, u-1 layers on the first and the last stage, the rest spread
    over the p-2 middle stages (at most u each). One stage (p = 1) holds all L."""
    layers, p = sh.layers, lay.pp
    units = np.ceil((layers + 2.0) / p)
    first = np.minimum(units - 1.0, layers)
    last = np.minimum(units - 1.0, layers - first)
    middle = np.where(p > 2, np.ceil((layers - first - last) / np.maximum(p - 2.0, 1.0)), 0.0)
    single = p <= 1
    return np.where(single, layers, first), np.where(single, 0.0, middle), np.where(single, layers, last)


#: The last (shape, layout) stage_layers answered and its answer: the memory and time formulas ask for the same
#: layout's split a few dozen times (compared by identity; both are frozen). One tuple, read and replaced whole, so
#: that threads never see a shape from one answer and the split of another.
_LAST_SPLIT: tuple[Any, Any, Any] = (None, None, None)


def stage_layers(sh: ModelShape, lay: Layout) -> tuple[Any, Any, Any]:
    """(first, middle, last) stage's transformer layers under the layout's `pipeline_split` (module docstring);
    middle is 0 without middle stages (p <= 2)."""
    global _LAST_SPLIT
    last = _LAST_SPLIT
    if last[0] is sh and last[1] is lay:
        return last[2]
    split_layers = _stage_layers(sh, lay)
    _LAST_SPLIT = (sh, lay, split_layers)
    return split_layers


def _stage_layers(sh: ModelShape, lay: Layout) -> tuple[Any, Any, Any]:
    split = np.single_value(lay.pipeline_split)  # a workload switch: one value for every layout of a search
    if split is not None:
        return _balanced_split(sh, lay) if split > 0 else _even_split(sh, lay)
    balanced, even = _balanced_split(sh, lay), _even_split(sh, lay)
    flag = lay.pipeline_split > 0
    return (
        np.where(flag, balanced[0], even[0]),
        np.where(flag, balanced[1], even[1]),
        np.where(flag, balanced[2], even[2]),
    )


def layers_on_stage(sh: ModelShape, lay: Layout, stage: str) -> Any:
    """Transformer layers on the first, a middle or the last stage."""
    return stage_layers(sh, lay)[STAGES.index(stage)]


def layers_first_stage(sh: ModelShape, lay: Layout) -> Any:
    """Layers on the first pipeline stage (stage_layers)."""
    return layers_on_stage(sh, lay, FIRST)


def layers_last_stage(sh: ModelShape, lay: Layout) -> Any:
    """Layers on the last stage (all L when p = 1)."""
    return layers_on_stage(sh, lay, LAST)


def _stage_param_counts(sh: ModelShape, lay: Layout, stage: str) -> tuple[Any, Any, Any]:
    """(non-expert layer params, routed-expert params, embedding/output params) held by one stage, unsharded."""
    first, middle, last = stage_layers(sh, lay)
    n = {FIRST: first, MIDDLE: middle, LAST: last}[stage]
    before = {FIRST: 0.0, MIDDLE: first, LAST: sh.layers - last}[stage]  # layers on earlier stages
    dense = np.minimum(np.maximum(sh.dense_layers - before, 0.0), n)  # dense FFN layers first (DeepSeek-V3)
    moe = n - dense
    non_expert = (
        n * sh.attention_block_params
        + dense * sh.dense_ffn_params
        + moe * (sh.router_matmul_params + sh.shared_experts * sh.expert_params)
    )
    routed = moe * sh.experts * sh.expert_params
    single = lay.pp == 1
    output = sh.output_layer_params * (0.0 if sh.tied_embeddings else 1.0)
    if stage == FIRST:
        embeddings = sh.input_embedding_params + np.where(single, output, 0.0)
    elif stage == MIDDLE:
        embeddings = 0.0 * n
    else:
        # The last stage holds the output projection, a copy of the tied embedding when pp > 1.
        embeddings = np.where(single, sh.input_embedding_params + output, sh.output_layer_params)
    return non_expert, routed, embeddings


def kv_share(sh: ModelShape, tp: Any) -> Any:
    """Share of the K/V heads one TP rank holds: 1/tp, but a KV head is never split, so with tp > kv_heads each
    rank keeps one head (replicated tp/kv_heads times; Megatron-Core GQA)."""
    return np.maximum(1.0 / tp, 1.0 / sh.kv_heads)


def stage_params_per_gpu(sh: ModelShape, lay: Layout, stage: str) -> tuple[Any, Any]:
    """(dense, expert) parameters one GPU of a stage (FIRST, MIDDLE, LAST) holds before ZeRO sharding: /tp (K/V
    projections replicated beyond kv_heads), experts /(tp·ep)."""
    non_expert, routed, embeddings = _stage_param_counts(sh, lay, stage)
    layers = layers_on_stage(sh, lay, stage)
    replicated_kv = layers * sh.kv_projection_params * (kv_share(sh, lay.tp) - 1.0 / lay.tp)
    return (non_expert + embeddings) / lay.tp + replicated_kv, routed / (lay.tp * lay.ep)


def model_state_bytes(params: Any, shard: Any, zero_stage: Any, num: Numerics) -> tuple[Any, Any, Any]:
    """(weights, gradients, optimizer) bytes of `params` parameters with ZeRO stage z over `shard` ranks
    (ZeRO §3: 16Ψ; 4Ψ + 12Ψ/d; 2Ψ + 14Ψ/d; 16Ψ/d for mixed-precision Adam)."""
    weights = np.where(zero_stage >= 3, params * num.weight_bytes / shard, params * num.weight_bytes)
    grads = np.where(zero_stage >= 2, params * num.grad_bytes / shard, params * num.grad_bytes)
    optimizer = np.where(zero_stage >= 1, params * num.optimizer_bytes / shard, params * num.optimizer_bytes)
    return weights, grads, optimizer


def dp_shard_ranks(lay: Layout, gpus_per_node: Any) -> tuple[Any, Any]:
    """(dense, expert) ranks one ZeRO shard spans (memory.py divides the sharded states by them)."""
    dense = lay.dp * lay.cp
    expert = np.maximum(lay.dp * lay.cp / lay.ep, 1.0)
    node_dense = np.minimum(dense, np.maximum(1.0, np.floor(gpus_per_node / lay.tp)))
    node_expert = np.minimum(expert, np.maximum(1.0, np.floor(gpus_per_node / (lay.tp * lay.cp * lay.ep))))
    return np.where(lay.hsdp > 0, node_dense, dense), np.where(lay.hsdp > 0, node_expert, expert)


def stage_model_state_bytes(
    sh: ModelShape, lay: Layout, num: Numerics, stage: str, gpus_per_node: Any = 8.0
) -> tuple[Any, Any, Any]:
    """Weights, gradients and optimizer bytes on one GPU of a stage (FIRST, MIDDLE, LAST), ZeRO-sharded over the
    data-parallel group (with `hsdp`, over its ranks in one node).

    ZeRO-3 also holds unsharded copies while it computes (FSDP, Zhao et al. 2023 arXiv:2304.11277 §3.2-3.4): the
    current and the prefetched layer's gathered parameters and the current layer's unsharded gradients; with
    `reshard_after_forward` off the whole stage's gathered parameters stay from the forward to the backward."""
    dense, expert = stage_params_per_gpu(sh, lay, stage)
    dense_ranks, expert_ranks = dp_shard_ranks(lay, gpus_per_node)
    w1, g1, o1 = model_state_bytes(dense, dense_ranks, lay.zero_stage, num)
    w2, g2, o2 = model_state_bytes(expert, expert_ranks, lay.zero_stage, num)
    params = dense + expert
    layers = np.maximum(layers_on_stage(sh, lay, stage), 1.0)
    unit = params / layers
    gathered = np.where(
        lay.reshard_after_forward > 0,
        ZERO3_GATHERED_UNITS * unit * num.weight_bytes,
        params * num.weight_bytes,
    )
    zero3 = lay.zero_stage >= 3
    weights = w1 + w2 + np.where(zero3, gathered, 0.0)
    grads = g1 + g2 + np.where(zero3, unit * num.grad_bytes, 0.0)
    return weights, grads, o1 + o2


def layer_activation_bytes_per_token(sh: ModelShape, lay: Layout, num: Numerics, recompute: Any) -> Any:
    """Bytes one transformer layer keeps for the backward pass, per token of a micro-batch, on one GPU.

    Korthikanti Table 2 term by term (a = bytes per activation value, t = tp, s = keys per query):
      replicated without SP, /t with SP: two norm inputs (2·a·h), the two GEMM inputs after them (2·a·h),
                                          two dropout masks (2·h)                       -> 10·h for a = 2
      always /t: Q, K, V (a·(q + k + v)), the output projection input (a·heads·d_v), the FFN's
                 activation input and output (2·a·f; SwiGLU: gate, up and product 3·a·f) -> 24·h for a GPT
      attention scores, /t, dropped by selective recompute or FlashAttention: softmax output a, its dropout
                 mask 1 and dropout output a per score, heads·s scores per token         -> 5·a·s/h
      full recompute keeps only the layer input a·h (/t with SP).
    MoE layers keep the FFN terms for each of the top-k routed experts and the shared experts.
    """
    a, h = num.activation_bytes, sh.hidden
    t = lay.tp
    replicated_factor = np.where(lay.sequence_parallel > 0, 1.0 / t, 1.0)
    replicated = 4.0 * a * h + 2.0 * MASK_BYTES * h
    attention = a * (sh.q_width + sh.heads * sh.v_head_dim)
    kv = a * (sh.k_width + sh.v_width) * kv_share(sh, t)  # per GPU already
    ffn_values = 3.0 if sh.gated_ffn else 2.0
    dense_ffn = ffn_values * a * sh.ffn_width
    moe_ffn = (sh.top_k + sh.shared_experts) * ffn_values * a * sh.expert_ffn_width
    ffn = (sh.dense_layers * dense_ffn + sh.moe_layers * moe_ffn) / sh.layers
    keys = sh.seq_len  # every query attends to the whole sequence: s keys, with context parallelism too
    scores = sh.heads * keys * (2.0 * a + MASK_BYTES)
    flash_stats = sh.heads * FLASH_STATS_BYTES
    attention_core = np.where(lay.flash_attention > 0, flash_stats, np.where(recompute == NONE, scores, 0.0))
    stored = replicated * replicated_factor + (attention + ffn + attention_core) / t + kv
    layer_input = a * h * replicated_factor
    return np.where(recompute == FULL, layer_input, stored)


def microbatches(lay: Layout) -> Any:
    """Micro-batches per pipeline per step: m = global_batch / (dp · micro_batch)."""
    return lay.global_batch / (lay.dp * lay.micro_batch)


def in_flight_microbatches(lay: Layout, stage_index: float = 0.0) -> Any:
    """Micro-batches whose activations stage i (from 0; the first by default) holds at once: min(p - i, m) with
    1F1B, times 1 + (p-1)/(p·v) with the interleaved schedule (Korthikanti §4.2.3)."""
    base = np.minimum(lay.pp - stage_index, microbatches(lay))
    interleave = np.where(lay.virtual_stages > 1, 1.0 + (lay.pp - 1.0) / (lay.pp * lay.virtual_stages), 1.0)
    return base * interleave


def activation_bytes(sh: ModelShape, lay: Layout, num: Numerics, stage: str) -> Any:
    """Activation bytes on one GPU of a stage (FIRST, MIDDLE: the second, LAST) at the peak of the pipeline
    schedule."""
    tokens = lay.micro_batch * sh.seq_len / lay.cp  # tokens of one micro-batch on one GPU
    per_layer = layer_activation_bytes_per_token(sh, lay, num, lay.recompute) * tokens
    # Full recompute rematerialises one layer at a time: its full activations are live during its backward.
    working = np.where(
        lay.recompute == FULL, layer_activation_bytes_per_token(sh, lay, num, NONE) * tokens, 0.0
    )
    replicated_factor = np.where(lay.sequence_parallel > 0, 1.0 / lay.tp, 1.0)
    if stage == MIDDLE:
        return layers_on_stage(sh, lay, MIDDLE) * per_layer * in_flight_microbatches(lay, 1.0) + working
    if stage == FIRST:
        in_flight = in_flight_microbatches(lay)
        layers = layers_first_stage(sh, lay)
        embedding_mask = MASK_BYTES * sh.hidden * tokens * replicated_factor * in_flight
        output = np.where(lay.pp == 1, _output_layer_bytes(sh, lay, num, tokens, replicated_factor), 0.0)
        return layers * per_layer * in_flight + working + embedding_mask + output
    layers = layers_last_stage(sh, lay)
    return layers * per_layer + working + _output_layer_bytes(sh, lay, num, tokens, replicated_factor)


def _output_layer_bytes(
    sh: ModelShape, lay: Layout, num: Numerics, tokens: Any, replicated_factor: Any
) -> Any:
    """Final norm input, output-projection input and fp32 logits (Korthikanti §4.3: 4sbh/t·(1 + V/h))."""
    return tokens * (
        2.0 * num.activation_bytes * sh.hidden * replicated_factor + LOGIT_BYTES * sh.vocab / lay.tp
    )


def overhead_bytes(dynamic_bytes: Any) -> Any:
    """CUDA context + NCCL buffers + allocator fragmentation of the dynamic (activation) memory."""
    return CUDA_CONTEXT_BYTES + NCCL_BUFFER_BYTES + FRAGMENTATION_FRACTION * dynamic_bytes


def memory_breakdown(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware) -> dict[str, Any]:
    """Per-GPU bytes of the most loaded stage (the heaviest of the first, the second and the last), by category;
    `most_loaded_stage` 0, 1 or 2 (first, second, last)."""
    stages = []
    for stage in STAGES:
        weights, grads, optimizer = stage_model_state_bytes(sh, lay, num, stage, hw.gpus_per_node)
        activations = activation_bytes(sh, lay, num, stage)
        other = overhead_bytes(activations)
        total = weights + grads + optimizer + activations + other
        stages.append((total, weights, grads, optimizer, activations, other))
    first_total, middle_total, last_total = (stages[i][0] for i in range(3))
    last_is_larger = (last_total > first_total) & (last_total >= middle_total)
    middle_is_larger = (middle_total > first_total) & (middle_total > last_total)
    keys = (
        "per_gpu_bytes",
        "weights_bytes",
        "gradients_bytes",
        "optimizer_bytes",
        "activations_bytes",
        "other_bytes",
    )
    out = {
        k: np.where(last_is_larger, stages[2][i], np.where(middle_is_larger, stages[1][i], stages[0][i]))
        for i, k in enumerate(keys)
    }
    out["last_stage_is_larger"] = last_is_larger
    out["most_loaded_stage"] = np.where(last_is_larger, 2.0, np.where(middle_is_larger, 1.0, 0.0))
    out["capacity_bytes"] = hw.hbm_bytes
    out["fits"] = out["per_gpu_bytes"] <= hw.hbm_bytes
    return out


def assumptions() -> dict[str, dict[str, Any]]:
    return {
        "memory.cuda_context_gib": {
            "value": CUDA_CONTEXT_BYTES / GiB,
            "unit": "GiB per GPU",
            "source": "stas00/ml-engineering: PyTorch's CUDA kernels take 0.5-2 GB",
        },
        "memory.nccl_buffers_gib": {
            "value": NCCL_BUFFER_BYTES / GiB,
            "unit": "GiB per GPU",
            "source": "NCCL_BUFFSIZE 4 MiB per channel and peer, three communicators",
        },
        "memory.fragmentation_fraction": {
            "value": FRAGMENTATION_FRACTION,
            "unit": "fraction of activation memory",
            "source": "PyTorch caching allocator, CUDA semantics docs (5-15% typical)",
        },
    }
