"""Time of one training step (one optimizer step of `global_batch` sequences), with its breakdown.

The step of the slowest pipeline stage, built bottom-up (the same structure as Calculon, Isaev et al. SC'23,
and Narayanan et al. 2021 §3):

    step = m · t_microbatch                              (1F1B: every stage runs every micro-batch)
         + (p - 1)/v · t_microbatch                      (pipeline bubble, Narayanan et al. 2021 §2.2, eq. 1-2)
         + 2·v·m · t_p2p                                 (activation sends between stages, not overlapped)
         + exposed data-parallel gradient traffic         (all-reduce or reduce-scatter overlapped with the last
                                                          micro-batch's backward; ZeRO's parameter all-gather
                                                          exposed; Megatron-LM / DeepSpeed / FSDP defaults.
                                                          `dp_overlap` false: all of it exposed, as DeepSpeed's
                                                          PipelineEngine reduces after the last backward)
         + ZeRO-3 parameter gathers per micro-batch       (ZeRO §7: 1.5× the all-reduce volume, per micro-batch
                                                          under gradient accumulation, prefetched behind compute)
         + optimizer step                                 (memory-bound: every state byte read and written)
         + ceiling                                        (the replica's part, the lines above the data-parallel
                                                          traffic, held to the best published MFU of the GPU
                                                          generation: perf/achieved.py)

    t_microbatch = the slowest stage's: max(first: its layers · t_layer + input embedding (gather, gradient, its
                   tensor-parallel collectives), a middle stage: its layers · t_layer, last: its layers · t_layer
                   + output layer and loss); layers per stage from training/memory.py stage_layers (the default
                   "balanced" split counts the embedding and the output layer + loss as one layer each, as
                   Megatron-LM's --account-for-embedding/loss-in-pipeline-split and the Llama 3 405B split do)
    t_layer = GEMMs (forward, 2× for backward, + recompute) at the efficiency of efficiency.py
            + attention core (batched GEMMs, or FlashAttention v2 or v1: causal half, backward 2.5× forward)
            + element-wise kernels at HBM bandwidth (norms, residual/dropout, activation, softmax, and the
              rotary position embedding of Q and K)
            + tensor-parallel collectives (Korthikanti et al. 2022 §4.2.2: with sequence parallelism 2
              all-gathers + 2 reduce-scatters forward, the same plus 2 re-gathers backward; without, 2
              all-reduces each way), expert all-to-all (dispatch + combine), context-parallel KV exchange
              (overlapped with the attention core).

Every function is elementwise over layout arrays (layout.py); `search` and `estimate` share it.
"""

from __future__ import annotations

from typing import Any

from planner.engine.perf import achieved, comm, efficiency, framework
from planner.engine.perf import fastnp as np  # numpy, with one-number calls answered in Python
from planner.engine.perf.hardware import Hardware
from planner.engine.perf.layout import FULL, SELECTIVE, Layout, Numerics
from planner.engine.training.memory import (
    MASK_BYTES,
    STAGES,
    dp_shard_ranks,
    kv_share,
    microbatches,
    stage_layers,
    stage_params_per_gpu,
)
from planner.engine.transformer.flops import (
    FLOP_PER_MAC,
    attention_score_flop_per_token,
    layer_matmul_flop_per_token,
    logits_flop_per_token,
    model_flop_per_token,
)
from planner.engine.transformer.shape import ModelShape

#: Backward GEMMs = 2 × forward (input gradient and weight gradient).
BACKWARD_GEMM_FACTOR = 2.0
#: Backward element-wise traffic ≈ 2 × forward (reads the saved input and the output gradient, writes the
#: input gradient; Korthikanti et al. 2022 §4 counts the same tensors).
BACKWARD_ELEMENTWISE_FACTOR = 2.0
#: Backward of rotary position embedding = the inverse rotation of the output gradient: one read and one write,
#: the same traffic as the forward (Megatron-Core fused RoPE kernels, core.fusions.fused_mla_yarn_rope_apply:
#: forward "reads ... writes back", backward "inverse RoPE inplace": read, write).
ROPE_BACKWARD_FACTOR = 1.0
#: Causal FlashAttention skips the masked upper triangle: half the score FLOPs are executed
#: (FlashAttention-2, arXiv:2307.08691 §3.1.1).
CAUSAL_EXECUTED_FRACTION = 0.5
#: FlashAttention backward = 5 matmuls vs 2 forward (recomputes QKᵀ): 2.5× (FlashAttention-2 §3.1.2).
FLASH_BACKWARD_FACTOR = 2.5
#: Bytes per logit of the fp32 softmax cross-entropy, forward + backward (read, exp, write, gradient).
LOSS_BYTES_PER_LOGIT = 16.0


def _gemm_s(flop: Any, m: Any, n: Any, k: Any, hw: Hardware) -> Any:
    """Time of `flop` FLOPs of an m×n×k GEMM on one GPU."""
    return flop / (hw.peak_flop_per_s * efficiency.gemm_efficiency(m, n, k, hw.matmul_ceiling))


def _layer_gemm_forward_s(sh: ModelShape, lay: Layout, hw: Hardware, tokens: Any) -> Any:
    """Forward time of one average layer's weight GEMMs for one micro-batch on one GPU."""
    t = lay.tp
    h = sh.hidden
    out_params = sh.heads * sh.v_head_dim * h
    qkv_params = sh.attention_matmul_params - out_params
    attention = _gemm_s(
        FLOP_PER_MAC * tokens * qkv_params / t, tokens, qkv_params / (h * t), h, hw
    ) + _gemm_s(FLOP_PER_MAC * tokens * out_params / t, tokens, h, sh.heads * sh.v_head_dim / t, hw)
    mats_in = 2.0 if sh.gated_ffn else 1.0
    dense = _ffn_s(tokens, tokens, h, sh.ffn_width, mats_in, t, hw)
    if not sh.moe_layers:
        return attention + dense
    routed_tokens = tokens * sh.top_k * lay.ep / sh.experts  # rows of each local expert's GEMM (balanced)
    moe = sh.top_k * _ffn_s(tokens, routed_tokens, h, sh.expert_ffn_width, mats_in, t, hw) + _gemm_s(
        FLOP_PER_MAC * tokens * sh.router_matmul_params, tokens, sh.experts, h, hw
    )
    if sh.shared_experts:
        moe = moe + sh.shared_experts * _ffn_s(tokens, tokens, h, sh.expert_ffn_width, mats_in, t, hw)
    moe_share = sh.moe_layers / sh.layers
    return attention + (1.0 - moe_share) * dense + moe_share * moe


def _ffn_s(tokens: Any, gemm_m: Any, h: float, f: float, mats_in: float, t: Any, hw: Hardware) -> Any:
    """One FFN (or expert) for `tokens` tokens processed in GEMMs of `gemm_m` rows: up (and gate), down."""
    up = _gemm_s(FLOP_PER_MAC * tokens * mats_in * h * f / t, gemm_m, mats_in * f / t, h, hw)
    down = _gemm_s(FLOP_PER_MAC * tokens * h * f / t, gemm_m, h, f / t, hw)
    return up + down


def _attention_core_forward_s(sh: ModelShape, lay: Layout, hw: Hardware, tokens: Any) -> Any:
    """Forward time of QKᵀ and attention·V: FlashAttention v2 or v1 (causal half) or two batched GEMMs."""
    flop = tokens * attention_score_flop_per_token(sh) / lay.tp
    flash_efficiency = efficiency.flash_attention_efficiency(hw.matmul_ceiling, lay.flash_attention)
    flash = CAUSAL_EXECUTED_FRACTION * flop / (hw.peak_flop_per_s * flash_efficiency)
    queries = sh.seq_len / lay.cp
    share_qk = sh.qk_head_dim / (sh.qk_head_dim + sh.v_head_dim)
    batched = _gemm_s(flop * share_qk, queries, sh.seq_len, sh.qk_head_dim, hw) + _gemm_s(
        flop * (1.0 - share_qk), queries, sh.v_head_dim, sh.seq_len, hw
    )
    return np.where(lay.flash_attention > 0, flash, batched)


def _elementwise_forward_bytes_per_token(sh: ModelShape, lay: Layout, num: Numerics) -> tuple[Any, Any]:
    """(layer traffic without the score softmax, score softmax traffic) in HBM bytes per token, forward.

    Norms: 2 × (read + write a·h); residual add with dropout: 2 × (read x, read residual, write, mask);
    activation: read + write per FFN value (SwiGLU reads two); fused scale-mask-softmax and attention dropout:
    read + write + read + write + mask per score (4a + 1). Sequence parallelism divides the norm and residual
    traffic by t; without it every TP rank repeats them (Korthikanti §4.2.2)."""
    a, h = num.activation_bytes, sh.hidden
    replicated_factor = np.where(lay.sequence_parallel > 0, 1.0 / lay.tp, 1.0)
    norms_residual = (2.0 * 2.0 * a * h + 2.0 * (3.0 * a + MASK_BYTES) * h) * replicated_factor
    act_values = 3.0 if sh.gated_ffn else 2.0
    dense_act = act_values * a * sh.ffn_width
    moe_act = (sh.top_k + sh.shared_experts) * act_values * a * sh.expert_ffn_width
    act = (sh.dense_layers * dense_act + sh.moe_layers * moe_act) / sh.layers / lay.tp
    scores = np.where(lay.flash_attention > 0, 0.0, sh.heads * sh.seq_len * (4.0 * a + MASK_BYTES) / lay.tp)
    return norms_residual + act, scores


def _rope_forward_bytes_per_token(sh: ModelShape, lay: Layout, num: Numerics) -> Any:
    """HBM bytes per token of rotary position embedding, forward: read and write every rotated Q and K value.

    RoPE (Su et al. 2021, RoFormer arXiv:2104.09864 §3.4.2 eq. 34) is an element-wise product with cos and sin
    of each position: memory-bound. A fused kernel (Megatron-Core `apply_rope_fusion`, Transformer Engine) reads
    each value once and writes it once; the cos/sin table is shared by the batch and heads (not counted). Q comes
    out of the column-parallel QKV projection, 1/t per TP rank; K as the KV heads are split (a head is never
    split: kv_share), and MLA's one shared rope key is computed whole on every rank (DeepSeek-V2 §2.1.3)."""
    k_share = 1.0 if sh.rotary_k_shared else kv_share(sh, lay.tp)
    return 2.0 * num.activation_bytes * (sh.rotary_q_width / lay.tp + sh.rotary_k_width * k_share)


def _hbm_s(size_bytes: Any, hw: Hardware) -> Any:
    return size_bytes / (hw.hbm_bandwidth_bytes_per_s * efficiency.HBM_EFFICIENCY)


def _tp_collective_s(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware, tokens: Any) -> Any:
    """One tensor-parallel collective of a micro-batch's activations, timed by NCCL's own model (perf/comm.py
    nccl_collective_s): an all-gather (or reduce-scatter) with sequence parallelism, an all-reduce without."""
    size = tokens * sh.hidden * num.activation_bytes
    args = (hw.gpus_per_node, hw.scaleup_bytes_per_s, hw.scaleout_bytes_per_s, hw.scaleout_efficiency)
    sp = np.single_value(lay.sequence_parallel)  # a workload switch: one value for every layout of a search

    def gather() -> Any:
        return comm.group_collective_s("all_gather", size, lay.tp, 1.0, *args, hw.nccl_generation)

    def all_reduce() -> Any:
        return comm.group_collective_s("all_reduce", size, lay.tp, 1.0, *args, hw.nccl_generation)

    if sp is not None:
        return gather() if sp > 0 else all_reduce()
    return np.where(lay.sequence_parallel > 0, gather(), all_reduce())


def _tp_layer_collectives(lay: Layout) -> Any:
    """Tensor-parallel collectives of one layer, forward + backward (+ recompute) (Korthikanti et al. 2022 §4.2.2):
    with sequence parallelism 4 all-gathers / reduce-scatters forward and 6 backward (+ 4 with full recompute);
    without, 2 all-reduces each way (+ 2)."""
    full = np.where(lay.recompute == FULL, 1.0, 0.0)
    return np.where(lay.sequence_parallel > 0, 10.0 + 4.0 * full, 4.0 + 2.0 * full)


#: Tensor-parallel collectives of the vocabulary-parallel input embedding (Megatron-LM VocabParallelEmbedding):
#: with sequence parallelism a reduce-scatter forward and an all-gather backward, without it one all-reduce forward
#: (its backward is the identity).
EMBEDDING_TP_COLLECTIVES_SP = 2.0
EMBEDDING_TP_COLLECTIVES = 1.0


def _ep_comm_per_layer_s(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware, tokens: Any) -> Any:
    """Expert all-to-all, averaged over layers: dispatch + combine forward and backward (+ forward again with
    full recompute) of top_k copies of each token (Lepikhin et al. 2020 GShard, arXiv:2006.16668 §2.2)."""
    if not sh.moe_layers:
        return 0.0 * lay.tp
    size = tokens * sh.top_k * sh.hidden * num.activation_bytes / lay.tp
    stride = lay.tp * lay.cp
    bw = comm.group_bandwidth_bytes_per_s(
        lay.ep,
        stride,
        hw.gpus_per_node,
        hw.scaleup_bytes_per_s,
        hw.scaleout_bytes_per_s,
        hw.scaleout_efficiency,
    )
    lat = comm.group_step_latency_s(lay.ep, stride, hw.gpus_per_node, hw.scaleout_latency_s)
    passes = 4.0 + np.where(lay.recompute == FULL, 2.0, 0.0)
    return passes * comm.all_to_all_s(size, lay.ep, bw, lat) * sh.moe_layers / sh.layers


def _cp_comm_per_layer_s(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware, tokens: Any) -> Any:
    """Context parallelism (ring attention, Liu et al. 2023 arXiv:2310.01889; Megatron-Core CP): every rank
    receives the other ranks' K and V in the forward, K, V and their gradients in the backward."""
    kv_bytes = tokens * (sh.k_width + sh.v_width) * num.activation_bytes / lay.tp * lay.cp
    stride = lay.tp
    bw = comm.group_bandwidth_bytes_per_s(
        lay.cp,
        stride,
        hw.gpus_per_node,
        hw.scaleup_bytes_per_s,
        hw.scaleout_bytes_per_s,
        hw.scaleout_efficiency,
    )
    lat = comm.group_step_latency_s(lay.cp, stride, hw.gpus_per_node, hw.scaleout_latency_s)
    passes = 3.0 + np.where(lay.recompute == FULL, 1.0, 0.0)
    return passes * comm.all_gather_s(kv_bytes, lay.cp, bw, lat)


def _layer_times(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware) -> dict[str, Any]:
    """Per-layer, per-micro-batch times on one GPU, by category."""
    tokens = lay.micro_batch * sh.seq_len / lay.cp
    gemm_fwd = _layer_gemm_forward_s(sh, lay, hw, tokens)
    core_fwd = _attention_core_forward_s(sh, lay, hw, tokens)
    core_bwd = core_fwd * np.where(lay.flash_attention > 0, FLASH_BACKWARD_FACTOR, BACKWARD_GEMM_FACTOR)
    layer_bytes, score_bytes = _elementwise_forward_bytes_per_token(sh, lay, num)
    unfused = framework.elementwise_factor(
        lay
    )  # eager PyTorch (FSDP family) runs unfused element-wise kernels
    ew_fwd = _hbm_s(tokens * layer_bytes * unfused, hw)
    score_fwd = _hbm_s(tokens * score_bytes, hw)
    rope_fwd = _hbm_s(tokens * _rope_forward_bytes_per_token(sh, lay, num) * unfused, hw)
    compute = (1.0 + BACKWARD_GEMM_FACTOR) * gemm_fwd + core_fwd + core_bwd
    compute = compute + (1.0 + BACKWARD_ELEMENTWISE_FACTOR) * (ew_fwd + score_fwd)
    compute = compute + (1.0 + ROPE_BACKWARD_FACTOR) * rope_fwd
    recompute = np.where(
        lay.recompute == FULL,
        gemm_fwd + core_fwd + ew_fwd + score_fwd + rope_fwd,
        np.where(lay.recompute == SELECTIVE, core_fwd + score_fwd, 0.0),
    )
    tp_one = _tp_collective_s(sh, lay, num, hw, tokens)
    cp_raw = _cp_comm_per_layer_s(sh, lay, num, hw, tokens)
    core = core_fwd + core_bwd
    # Ring attention overlaps each KV block's transfer with the previous block's attention (Liu et al. 2023 §3):
    # the part longer than the attention core is exposed, and the overlapped part slows the core down.
    cp_exposed = np.maximum(cp_raw - core, 0.0) + framework.OVERLAP_SLOWDOWN * np.minimum(cp_raw, core)
    return {
        "compute": compute,
        "recompute": recompute,
        "tp_comm": _tp_layer_collectives(lay) * tp_one,
        "tp_one": tp_one,
        "ep_comm": _ep_comm_per_layer_s(sh, lay, num, hw, tokens),
        "cp_comm": cp_exposed,
        "forward": gemm_fwd + core_fwd + ew_fwd + score_fwd + rope_fwd,
        "backward": BACKWARD_GEMM_FACTOR * gemm_fwd
        + core_bwd
        + BACKWARD_ELEMENTWISE_FACTOR * (ew_fwd + score_fwd)
        + ROPE_BACKWARD_FACTOR * rope_fwd,
    }


def _output_layer_s(sh: ModelShape, lay: Layout, hw: Hardware) -> Any:
    """Output projection (forward + backward) and the fp32 cross-entropy, per micro-batch, on the last stage."""
    tokens = lay.micro_batch * sh.seq_len / lay.cp
    flop = tokens * logits_flop_per_token(sh) / lay.tp
    gemm = (1.0 + BACKWARD_GEMM_FACTOR) * _gemm_s(flop, tokens, sh.vocab / lay.tp, sh.hidden, hw)
    return gemm + _hbm_s(tokens * LOSS_BYTES_PER_LOGIT * sh.vocab / lay.tp, hw)


def _embedding_s(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware, tp_one: Any) -> tuple[Any, Any]:
    """(memory-bound work, tensor-parallel collectives) of the input embedding per micro-batch on the first stage.

    Forward: each rank of the vocabulary-parallel embedding reads the rows of its vocabulary shard and writes the
    micro-batch's [tokens, h] output (masked rows zero); backward: reads the output gradient and accumulates it
    into the embedding's gradient rows (read and write). Then EMBEDDING_TP_COLLECTIVES(_SP) collectives of the
    activations (Megatron-LM core/tensor_parallel/layers.py VocabParallelEmbedding)."""
    tokens = lay.micro_batch * sh.seq_len / lay.cp
    values = tokens * sh.hidden
    traffic = values * (2.0 * num.activation_bytes + num.activation_bytes + 2.0 * num.grad_bytes)
    collectives = np.where(lay.sequence_parallel > 0, EMBEDDING_TP_COLLECTIVES_SP, EMBEDDING_TP_COLLECTIVES)
    return _hbm_s(traffic, hw), np.where(lay.tp > 1, collectives * tp_one, 0.0)


def _largest_stage_params(sh: ModelShape, lay: Layout) -> tuple[Any, Any]:
    """(dense, expert) parameters per GPU of the stage that holds the most (first, middle or last)."""
    dense, expert = stage_params_per_gpu(sh, lay, STAGES[0])
    for stage in STAGES[1:]:
        d, e = stage_params_per_gpu(sh, lay, stage)
        dense, expert = np.maximum(dense, d), np.maximum(expert, e)
    return dense, expert


def _dp_group(lay: Layout, hw: Hardware, expert: bool) -> tuple[Any, Any, Any, Any]:
    """(shard ranks, their stride, replica ranks, their stride) of the data-parallel group of dense (or expert)
    parameters. ZeRO shards over the whole group (dp·cp ranks, tp apart; experts over dp·cp/ep, tp·cp·ep apart),
    or with `hsdp` over the group's ranks inside one node, replicated across nodes."""
    n = np.maximum(lay.dp * lay.cp / lay.ep, 1.0) if expert else lay.dp * lay.cp
    stride = lay.tp * lay.cp * lay.ep if expert else lay.tp
    in_node = np.minimum(n, np.maximum(1.0, np.floor(hw.gpus_per_node / stride)))
    shard = np.where(lay.hsdp > 0, in_node, n)
    return shard, stride, n / shard, stride * shard


def _collective_times(
    params: Any, lay: Layout, num: Numerics, hw: Hardware, expert: bool
) -> tuple[Any, Any, Any]:
    """(parameter all-gather, gradient reduce-scatter over the shard group, gradient all-reduce of one shard
    across the replicas) of `params` parameters."""
    shard, stride, replicas, replica_stride = _dp_group(lay, hw, expert)
    args = (hw.gpus_per_node, hw.scaleup_bytes_per_s, hw.scaleout_bytes_per_s, hw.scaleout_efficiency)
    generation = hw.nccl_generation
    gather = comm.group_collective_s(
        "all_gather", params * num.weight_bytes, shard, stride, *args, generation
    )
    # NCCL's model charges a reduce-scatter as an all-gather of the same buffer (tuning.cc: the same steps and
    # tables), so with gradients as wide as the weights the gather's time is the reduce-scatter's.
    grads = (
        gather
        if num.grad_bytes == num.weight_bytes
        else comm.group_collective_s(
            "reduce_scatter", params * num.grad_bytes, shard, stride, *args, generation
        )
    )
    if np.single_value(lay.hsdp) == 0.0:
        return gather, grads, 0.0 * gather  # no replicas to all-reduce across (hsdp is a workload switch)
    replica = comm.group_collective_s(
        "all_reduce", params * num.grad_bytes / shard, replicas, replica_stride, *args, generation
    )
    return gather, grads, replica


def _dp_comm_s(
    sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware, per_layer: dict[str, Any], layers: Any
) -> tuple[Any, Any]:
    """(exposed data-parallel traffic of ZeRO 0-2, exposed ZeRO-3 traffic) per step, seconds.

    ZeRO 0-2 (Megatron-LM, DeepSpeed, DDP): the gradient reduction (all-reduce for ZeRO 0, reduce-scatter for 1-2)
    overlaps the last micro-batch's backward; ZeRO 1-2 gather the updated parameters after the optimizer,
    exposed. With `lay.dp_overlap` 0 no part hides: DeepSpeed's PipelineEngine (GPT-NeoX whenever
    pipe-parallel-size >= 1) runs ReduceGrads after the last backward (deepspeed/runtime/pipe/schedule.py
    TrainSchedule.steps; engine.py `_exec_reduce_grads`).

    ZeRO-3 / FSDP (Zhao et al. 2023 arXiv:2304.11277 §3.3-3.5; Rajbhandari et al. 2019 §7), per micro-batch and
    per layer (one FSDP unit per transformer block, as torchtitan and llm-foundry wrap): the forward all-gathers
    the layer's parameters, the backward all-gathers them again (unless `reshard_after_forward` is off) and
    reduce-scatters their gradients. One collective is in flight per stream and the next layer's gather is
    prefetched behind the current layer's compute (prefetch depth 1), so per layer the part of the collectives
    longer than the layer's compute is exposed; the first gather of the forward and the last reduce-scatter of
    the backward have no compute to hide behind. The overlapped part slows the compute by OVERLAP_SLOWDOWN
    (perf/framework.py). With `hsdp` the gradient shard is all-reduced across the node replicas once per step,
    overlapped with the last backward."""
    window = np.where(lay.dp_overlap > 0, layers * per_layer["backward"], 0.0)
    dense, expert_params = _largest_stage_params(sh, lay)
    groups = [(dense, False)]
    if sh.moe_layers:  # a dense model launches no expert-group collectives (not even their latency)
        groups.append((expert_params, True))
    total = 0.0
    zero3 = 0.0
    m = microbatches(lay)
    forward_c = per_layer["forward"]
    backward_c = per_layer["backward"] + per_layer["recompute"]
    for params, expert in groups:
        gather, grads, replica = _collective_times(params, lay, num, hw, expert)
        # ZeRO 0: all-reduce (= RS + AG) overlapped; ZeRO 1: RS overlapped, the parameter all-gather after the
        # optimizer exposed. ZeRO 2 keeps only its gradient shard, so under gradient accumulation it
        # reduce-scatters every micro-batch's gradients during that micro-batch's backward (ZeRO §5.2; DeepSpeed
        # stage 2 reduces its buckets in every backward), each overlapped with its own backward.
        overlapped = np.where(lay.zero_stage == 0, grads + gather, np.where(lay.zero_stage == 1, grads, 0.0))
        overlapped = overlapped + np.where(lay.hsdp > 0, replica, 0.0)
        exposed = np.where((lay.zero_stage >= 1) & (lay.zero_stage < 3), gather, 0.0)
        hidden = np.minimum(overlapped, window)
        zero2_window = layers * per_layer["backward"]
        zero2_hidden = np.minimum(grads, zero2_window)
        zero2 = m * (grads - zero2_hidden + framework.OVERLAP_SLOWDOWN * zero2_hidden)
        total = total + overlapped - hidden + exposed + framework.OVERLAP_SLOWDOWN * hidden
        total = total + np.where(lay.zero_stage == 2, zero2, 0.0)
        if not np.any(lay.zero_stage >= 3):
            continue  # no layout with ZeRO-3 here: no per-unit collectives to time
        # ZeRO-3: per layer and micro-batch.
        # One collective per unit and pass, each paying its own latency as NCCL's cost model charges it (perf/comm.py:
        # the ring's intra-node steps at NVLink latency, its inter-node steps at network latency, or PAT/tree where
        # NCCL would pick them), so a unit's collective grows with the group while its bytes per rank do not.
        units = np.maximum(layers, 1.0)  # a stage may hold no layer, only the embedding or output
        unit_gather, unit_grads, _ = _collective_times(params / units, lay, num, hw, expert)
        regather = np.where(lay.reshard_after_forward > 0, unit_gather, 0.0)
        fwd_exposed = unit_gather + (units - 1.0) * np.maximum(unit_gather - forward_c, 0.0)
        bwd_comm = regather + unit_grads
        bwd_exposed = (units - 1.0) * np.maximum(bwd_comm - backward_c, 0.0) + unit_grads
        overlapped3 = units * (unit_gather + bwd_comm) - fwd_exposed - bwd_exposed
        per_microbatch = fwd_exposed + bwd_exposed + framework.OVERLAP_SLOWDOWN * overlapped3
        zero3 = zero3 + np.where(lay.zero_stage >= 3, m * per_microbatch, 0.0)
    return total, zero3


def _optimizer_s(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware) -> Any:
    """Memory-bound optimizer step on the most loaded stage's (ZeRO-sharded) parameters."""
    dense_ranks, expert_ranks = dp_shard_ranks(lay, hw.gpus_per_node)
    dense_shard = np.where(lay.zero_stage >= 1, dense_ranks, 1.0)
    expert_shard = np.where(lay.zero_stage >= 1, expert_ranks, 1.0)
    params = 0.0
    for stage in STAGES:
        dense, expert = stage_params_per_gpu(sh, lay, stage)
        params = np.maximum(params, dense / dense_shard + expert / expert_shard)
    return _hbm_s(params * num.optimizer_touched_bytes, hw)


def step_breakdown(sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware) -> dict[str, Any]:
    """Step time and its parts (seconds) for the slowest stage; every key of the output `breakdown_s`."""
    per_layer = _layer_times(sh, lay, num, hw)
    first_layers, middle_layers, last_layers = stage_layers(sh, lay)
    layer_total = (
        per_layer["compute"]
        + per_layer["recompute"]
        + per_layer["tp_comm"]
        + per_layer["ep_comm"]
        + per_layer["cp_comm"]
    )
    # The slowest stage sets the pace: the first (its layers + the input embedding; with one stage also the output
    # layer and loss), a middle one (the most layers under the balanced split) or the last (+ output layer, loss).
    output = _output_layer_s(sh, lay, hw)
    embedding, embedding_tp = _embedding_s(sh, lay, num, hw, per_layer["tp_one"])
    first_extra = embedding + np.where(lay.pp == 1, output, 0.0)
    first_mb = first_layers * layer_total + first_extra + embedding_tp
    middle_mb = middle_layers * layer_total
    last_mb = last_layers * layer_total + output
    last_slowest = (last_mb > first_mb) & (last_mb >= middle_mb)
    middle_slowest = (middle_mb > first_mb) & (middle_mb > last_mb)
    layers = np.where(last_slowest, last_layers, np.where(middle_slowest, middle_layers, first_layers))
    extra = np.where(last_slowest, output, np.where(middle_slowest, 0.0, first_extra))
    extra_tp = np.where(last_slowest | middle_slowest, 0.0, embedding_tp)
    t_mb = layers * layer_total + extra + extra_tp
    m = microbatches(lay)
    p, v = lay.pp, lay.virtual_stages
    bubble = (p - 1.0) / v * t_mb
    pp_bytes = lay.micro_batch * sh.seq_len / lay.cp * sh.hidden * num.activation_bytes / lay.tp
    pp_stride = lay.tp * lay.cp * lay.dp
    pp_bw = comm.group_bandwidth_bytes_per_s(
        2.0,
        pp_stride,
        hw.gpus_per_node,
        hw.scaleup_bytes_per_s,
        hw.scaleout_bytes_per_s,
        hw.scaleout_efficiency,
    )
    pp_lat = comm.group_step_latency_s(2.0, pp_stride, hw.gpus_per_node, hw.scaleout_latency_s)
    # Each stage sends one activation (forward) and one gradient (backward) per micro-batch and model chunk, each
    # paying the link's latency and bandwidth, not overlapped with compute. (The fill and drain's 2(p-1) hops on
    # the critical path are not added: Megatron-LM overlaps the sends of the steady state with compute in part,
    # which this count of 2·v·m unhidden sends already overstates; adding them breaks the Korthikanti 1T bound.)
    pp_p2p = np.where(p > 1, 2.0 * v * m * comm.p2p_s(pp_bytes, pp_bw, pp_lat), 0.0)
    dp_exposed, zero3_exposed = _dp_comm_s(sh, lay, num, hw, per_layer, layers)
    optimizer = _optimizer_s(sh, lay, num, hw)
    # Kernel launches: the GPU waits for the host when a layer's launches take longer than its work (small
    # models, small micro-batches; perf/framework.py).
    host = m * layers * np.maximum(framework.host_s_per_layer(lay) - layer_total, 0.0)
    parts = {
        "compute": m * (layers * per_layer["compute"] + extra),
        "recompute": m * layers * per_layer["recompute"],
        "tp_comm": m * (layers * per_layer["tp_comm"] + extra_tp),
        "cp_comm": m * layers * per_layer["cp_comm"],
        "ep_comm": m * layers * per_layer["ep_comm"],
        "pp_bubble": bubble,
        "pp_p2p": pp_p2p,
        "dp_comm": dp_exposed,
        "zero_comm": zero3_exposed,
        "optimizer": optimizer,
        "host": host,
        "ceiling": 0.0 * host,
    }
    # The published ceiling (perf/achieved.py) holds the work of one pipeline replica: its micro-batches and its
    # bubble. What the data-parallel group adds (exposed gradient and ZeRO traffic, whose ring latency grows with
    # the group, and the optimizer step paid once per step) comes on top, so that it still costs MFU at scale.
    replica = m * t_mb + host + bubble + pp_p2p
    model_flop = (
        lay.global_batch * sh.seq_len * model_flop_per_token(sh) / (lay.tp * lay.pp * lay.dp * lay.cp)
    )
    replica_mfu = model_flop / (replica * hw.peak_flop_per_s)
    held = model_flop / (achieved.held_mfu(replica_mfu, hw.mfu_ceiling) * hw.peak_flop_per_s)
    parts["ceiling"] = np.maximum(held - replica, 0.0)  # never negative (rounding far below the ceiling)
    step = replica + parts["ceiling"] + dp_exposed + zero3_exposed + optimizer
    return {"step_s": step, "parts": parts, "cross_node_tp": lay.tp > hw.gpus_per_node}


def recompute_flop_per_token(sh: ModelShape, recompute: Any) -> Any:
    """Extra forward FLOPs of recomputation per token, elementwise over recompute codes (flops.py)."""
    score = sh.layers * attention_score_flop_per_token(sh)
    full = sh.layers * layer_matmul_flop_per_token(sh) + score
    return np.where(recompute == FULL, full, np.where(recompute == SELECTIVE, score, 0.0))


def throughput(sh: ModelShape, lay: Layout, hw: Hardware, step_s: Any) -> dict[str, Any]:
    """Tokens per second, MFU, HFU and per-GPU FLOP/s from a step time."""
    gpus = lay.tp * lay.pp * lay.dp * lay.cp
    tokens_per_s = lay.global_batch * sh.seq_len / step_s
    model_flop = model_flop_per_token(sh)
    model_per_gpu = tokens_per_s * model_flop / gpus
    hardware_per_gpu = tokens_per_s * (model_flop + recompute_flop_per_token(sh, lay.recompute)) / gpus
    return {
        "gpus": gpus,
        "tokens_per_s": tokens_per_s,
        "model_flop_per_s_per_gpu": model_per_gpu,
        "hardware_flop_per_s_per_gpu": hardware_per_gpu,
        "mfu": model_per_gpu / hw.peak_flop_per_s,
        "hfu": hardware_per_gpu / hw.peak_flop_per_s,
    }
