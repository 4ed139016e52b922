"""Time of one continuous-batching engine step on one replica, vectorised over layouts and loads.

A step runs every running request's next decode token(s) and a chunk of prefill tokens together (chunked prefill,
Agrawal et al. 2024, Sarathi-Serve arXiv:2403.02310), through all layers. With `pp` pipeline stages the batch is
split into `pp` micro-batches in flight; a request gets its next token once per pipeline cycle of `pp` stage times
(every stage busy with one micro-batch at a time). Per stage and GPU the step is a sequence of kernel groups, each
a roofline (max of its memory time and compute time, Williams et al. CACM 2009):

* dense GEMMs (attention projections, dense FFN layers, shared experts): weights/HBM vs FLOPs/GEMM peak,
  where real kernels hide only part of the shorter time behind the longer (_roof);
* routed experts (grouped GEMM): their FLOPs at the achieved fraction DeepGEMM measures for the step's tokens per
  touched expert (1 - (1 - k/E)^tokens of the experts under uniform top-k routing), from weight-streaming (memory-
  bound) at a few tokens per expert to compute-bound at thousands (rates.grouped_gemm_fraction);
* LM head: for the tokens that need logits (decode tokens; one per finishing prompt, negligible, left out);
* attention: the KV cache read (decode) and written, at the KV precision, vs attention FLOPs at the attention
  precision (own peak and fraction, not the weights');
* elementwise kernels: activation traffic (rates.ELEMENTWISE_*; none for SwiGLU when the engine fuses it into the
  gate/up GEMM's epilogue, `fused_gemm_swiglu`);
* communication: two all-reduces per layer over the attention-TP group; with attention data parallelism and
  expert parallelism, one dispatch and one combine all-to-all per MoE layer (FP8 dispatch, 16-bit combine,
  DeepEP); pipeline hand-offs between stages; on the scale-up link inside a node, the NIC across nodes.
A fixed cost per step (scheduler, sampling, launches; more for steps that carry prompt chunks and so cannot replay a
CUDA graph) is added once per cycle, unless overlap scheduling hides it.

Every function takes numpy arrays: coefficients of shape (layouts, 1) against loads of shape (layouts, rates), or
1-D arrays of equal length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.engine.inference import rates as eff
from planner.engine.inference.expert_load import expert_load_imbalance
from planner.engine.inference.layout import ServingHardware, ServingLayout, kv_head_share
from planner.engine.inference.shape import ServingShape

#: Bytes of an activation value exchanged between GPUs or written by elementwise kernels (16-bit).
ACTIVATION_BYTES = 2.0
#: Expert dispatch sends FP8 activations, combine returns 16-bit ones (DeepEP normal and low-latency kernels).
DISPATCH_BYTES, COMBINE_BYTES = 1.0, 2.0


@dataclass(frozen=True)
class StepCoefficients:
    """Per-layout numbers of the step model (each a numpy array over layouts, one entry per layout)."""

    pp: np.ndarray
    tp: np.ndarray
    dp: np.ndarray  # attention data-parallel degree
    dense_weight_s: np.ndarray  # per stage: dense weights per GPU / achieved HBM
    #: tokens per expert at which the experts' GEMMs reach the GPU's ridge point (peak / HBM per weight byte)
    expert_ridge_tokens: np.ndarray
    expert_imbalance: np.ndarray  # busiest GPU's expert tokens over the mean (1 without expert parallelism)
    head_weight_s: np.ndarray  # LM head per GPU / achieved HBM
    dense_flop_s_per_token: np.ndarray  # per stage, per token of the micro-batch
    expert_flop_s_per_token: np.ndarray  # at the full peak of the experts' precision x matmul ceiling
    head_flop_s_per_token: np.ndarray
    kv_read_s_per_cached_token: np.ndarray  # per stage, per (decode token, cached token) pair
    kv_write_s_per_token: np.ndarray
    decode_attention_s_per_pair: np.ndarray
    prefill_attention_s_per_pair: np.ndarray
    elementwise_s_per_token: np.ndarray
    comm_fixed_s: np.ndarray  # per stage, latency of its collectives
    comm_s_per_token: np.ndarray  # per stage, bytes of its collectives per token / bandwidth
    comm_overlap: np.ndarray  # 1 where collectives overlap compute (two-batch overlap), else 0
    handoff_fixed_s: np.ndarray  # per cycle, (pp - 1) hand-off latencies
    handoff_s_per_token: np.ndarray
    #: busiest attention-DP rank's tokens over the mean in a colocated step (1 without attention DP)
    dp_imbalance: np.ndarray
    experts: float
    top_k: float

    def __len__(self) -> int:
        return len(self.tp)


def _link(hw: ServingHardware, group_gpus: int) -> tuple[float, float]:
    """(bytes/s one direction, latency s) of a collective over `group_gpus` GPUs of one replica."""
    if group_gpus <= hw.gpus_per_node:
        latency = eff.PCIE_COLLECTIVE_LATENCY_S if hw.pcie_only else eff.SCALEUP_COLLECTIVE_LATENCY_S
        return hw.scaleup_bytes_per_s * eff.SCALEUP_FRACTION, latency
    bandwidth = min(hw.scaleup_bytes_per_s, max(hw.scaleout_bytes_per_s, 1.0)) * eff.SCALEOUT_FRACTION
    return bandwidth, eff.RDMA_COLLECTIVE_LATENCY_S


def _comm(
    shape: ServingShape, hw: ServingHardware, lay: ServingLayout, imbalance: float
) -> tuple[float, float]:
    """(latency s, s per token of the micro-batch) of one stage's collectives.

    Attention-TP groups all-reduce the hidden state twice per layer (Megatron-LM, arXiv:1909.08053 §3). With
    attention data parallelism each MoE layer dispatches every token to its top-k experts and combines the results
    (one all-to-all each way, FP8 out and 16-bit back, DeepEP); inside a node every copy crosses NVLink, across nodes
    a token crosses the NIC once per remote node it needs (DeepEP's node-limited, NVLink-forwarded dispatch), so at
    most min(top_k, nodes) times. An uneven expert load makes every GPU wait for the busiest, which receives
    `imbalance` times the mean GPU's tokens (expert_load.expert_load_imbalance; "more data will be sent to/received
    from the hot EP rank", TensorRT-LLM tech blog 4)."""
    tp, atp, dp = lay.tp, lay.attention_tp, lay.attention_dp
    layers, moe_layers = shape.layers / lay.pp, shape.moe_layers / lay.pp
    fixed = per_token = 0.0
    if atp > 1:
        bandwidth, latency = _link(hw, atp)
        fixed += 2.0 * layers * latency
        per_token += 2.0 * layers * 2.0 * (atp - 1) / atp * shape.hidden * ACTIVATION_BYTES / dp / bandwidth
    if dp > 1 and moe_layers:
        bandwidth, latency = _link(hw, tp)
        nodes = -(-tp // hw.gpus_per_node)
        copies = shape.top_k * (tp - 1) / tp if nodes == 1 else min(shape.top_k, nodes) * (nodes - 1) / nodes
        fixed += 2.0 * moe_layers * latency
        per_token += (
            moe_layers * copies * shape.hidden * (DISPATCH_BYTES + COMBINE_BYTES) / tp / bandwidth * imbalance
        )
    return fixed, per_token


def step_coefficients(
    shape: ServingShape,
    hw: ServingHardware,
    layouts: list[ServingLayout],
    *,
    weight_bpv: float,
    kv_bpv: float,
    dense_weight_bpv: float | None = None,
    comm_overlap: bool = False,
    adp_balance_ratio: float | None = None,
    fused_gemm_swiglu: bool = False,
    eplb: bool = False,
) -> StepCoefficients:
    """The step model's coefficients for each layout (module docstring). `dense_weight_bpv` is the bytes per
    value of the non-expert weights when they are stored apart from the experts' format; `comm_overlap` hides a
    stage's collectives behind its compute (two-batch overlap, SGLang/DeepEP); `adp_balance_ratio` is the mean over
    colocated iterations of mean / busiest attention-DP rank's tokens (default rates.ATTENTION_DP_BALANCE_RATIO);
    `fused_gemm_swiglu`: the FFN's SwiGLU runs in the gate/up GEMM's epilogue, so its activation traffic
    (rates.ELEMENTWISE_FFN_VALUES per FFN column) is not paid (_elementwise_ffn_values); `eplb`: an expert-parallel
    load balancer places and replicates the experts (expert_load.expert_load_imbalance)."""
    balance = eff.ATTENTION_DP_BALANCE_RATIO if adp_balance_ratio is None else adp_balance_ratio
    bw = hw.hbm_bandwidth_bytes_per_s
    dense_bpv = weight_bpv if dense_weight_bpv is None else dense_weight_bpv
    ceiling = hw.matmul_ceiling_ratio
    dense_flops = hw.dense_gemm_peak_flop_per_s * eff.gemm_peak_fraction(hw.dense_gemm_precision) * ceiling
    attn_flops = hw.attention_peak_flop_per_s * eff.ATTENTION_PEAK_FRACTION * ceiling
    ffn_values = _elementwise_ffn_values(fused_gemm_swiglu)
    names = [k for k in StepCoefficients.__dataclass_fields__ if k not in ("experts", "top_k")]
    cols: dict[str, list[float]] = {k: [] for k in names}
    for lay in layouts:
        tp, pp, dp, atp = lay.tp, lay.pp, lay.attention_dp, lay.attention_tp
        stage = 1.0 / pp  # share of the layers in one stage
        imbalance = expert_load_imbalance(shape.experts, lay.ep, eplb=eplb) if shape.top_k else 1.0
        dense_bytes = (shape.attention_params + shape.dense_params) * dense_bpv * stage / atp
        head_bytes = shape.head_params * dense_bpv / tp / pp  # the last stage holds it: once per cycle
        kv_share = kv_head_share(shape, lay)
        kv_bytes_per_token = shape.kv_values_per_token_layer * shape.layers * stage * kv_bpv * kv_share / dp
        elementwise = (
            (
                (eff.ELEMENTWISE_HIDDEN_VALUES * shape.hidden / dp)
                + ffn_values * shape.ffn_columns_per_token / tp
            )
            * ACTIVATION_BYTES
            * shape.layers
            * stage
        )
        cols["pp"].append(pp)
        cols["tp"].append(tp)
        cols["dp"].append(dp)
        cols["dense_weight_s"].append(dense_bytes / (bw * eff.WEIGHT_STREAM_HBM_FRACTION))
        expert_peak = hw.gemm_peak_flop_per_s * ceiling
        cols["expert_ridge_tokens"].append(weight_bpv * expert_peak / (2.0 * bw))
        cols["expert_imbalance"].append(imbalance)
        cols["head_weight_s"].append(head_bytes / (bw * eff.WEIGHT_STREAM_HBM_FRACTION))
        cols["dense_flop_s_per_token"].append(
            2.0 * (shape.attention_params + shape.dense_params) * stage / tp / dense_flops
        )
        cols["expert_flop_s_per_token"].append(
            2.0 * shape.moe_layers * shape.top_k * shape.expert_params * stage / tp / max(expert_peak, 1.0)
        )
        cols["head_flop_s_per_token"].append(2.0 * shape.head_params / tp / pp / dense_flops)
        cols["kv_read_s_per_cached_token"].append(kv_bytes_per_token / (bw * eff.KV_READ_HBM_FRACTION))
        cols["kv_write_s_per_token"].append(kv_bytes_per_token / (bw * eff.KV_READ_HBM_FRACTION))
        cols["decode_attention_s_per_pair"].append(
            shape.decode_pair_flop_per_layer * shape.layers * stage / tp / attn_flops
        )
        cols["prefill_attention_s_per_pair"].append(
            shape.prefill_pair_flop_per_layer * shape.layers * stage / tp / attn_flops
        )
        cols["elementwise_s_per_token"].append(elementwise / (bw * eff.ELEMENTWISE_HBM_FRACTION))
        fixed, per_token = _comm(shape, hw, lay, imbalance)
        cols["comm_fixed_s"].append(fixed)
        cols["comm_s_per_token"].append(per_token)
        cols["comm_overlap"].append(1.0 if comm_overlap else 0.0)
        pp_bandwidth, pp_latency = _link(hw, tp * pp)
        cols["handoff_fixed_s"].append((pp - 1) * pp_latency)
        cols["handoff_s_per_token"].append((pp - 1) * shape.hidden * ACTIVATION_BYTES / pp_bandwidth)
        cols["dp_imbalance"].append(1.0 / balance if dp > 1 else 1.0)
    arrays = {k: np.asarray(v, dtype=float) for k, v in cols.items()}
    return StepCoefficients(**arrays, experts=float(shape.experts), top_k=float(shape.top_k))


def _elementwise_ffn_values(fused_gemm_swiglu: bool) -> float:
    """Activation values per FFN column and token the elementwise kernels move: SwiGLU reads gate and up and
    writes their product (rates.ELEMENTWISE_FFN_VALUES) unless the engine computes it in the epilogue of the fused
    gate/up GEMM, which then writes the product directly. TensorRT-LLM: `use_fused_mlp` alone "combines two Matmul
    operations into one Matmul followed by a separate SwiGLU kernel"; with `gemm_swiglu_plugin fp8` (FP8 on Hopper)
    it "runs single Matmul + SwiGLU fused kernel" (NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md,
    v0.14.0, "Known Issues: Fused Matmul + Gated-SiLU (LLaMA)"; tensorrt_llm/layers/mlp.py
    FusedGatedMLP.fc_gate_plugin). The GEMM's own output is not elementwise traffic in this model either way."""
    return 0.0 if fused_gemm_swiglu else eff.ELEMENTWISE_FFN_VALUES


def _roof(memory_s: Any, compute_s: Any) -> Any:
    """A kernel group's time from its memory and compute times: the roofline's max plus the share of the shorter
    one that real kernels do not hide (rates.ROOFLINE_EXPOSED_FRACTION; 0 is the ideal roofline, 1 no
    overlap at all)."""
    longer = np.maximum(memory_s, compute_s)
    return longer + eff.ROOFLINE_EXPOSED_FRACTION * (memory_s + compute_s - longer)


def _experts_s(c: StepCoefficients, tokens: Any, touched: Any, like: Any) -> Any:
    """The routed experts' grouped GEMMs on the busiest GPU: their FLOPs at the grouped-GEMM fraction the DeepGEMM
    curve gives for its tokens per touched expert (rates.grouped_gemm_fraction). Few tokens per expert: memory-bound,
    the touched experts' weights streamed at ~0.68 of HBM (an uneven load cancels out); many: compute-bound at up to
    0.62 of peak, the busiest GPU's extra tokens (expert_load.expert_load_imbalance) costing in full."""
    if not c.top_k:
        return 0.0 * np.asarray(like, dtype=float)
    per_expert = np.maximum(tokens, 0.0) * c.top_k / c.experts
    per_touched = np.where(touched > 0, per_expert / np.maximum(touched, 1e-12), 1.0)
    imbalance = _col(c.expert_imbalance, like)
    x = imbalance * per_touched / np.maximum(_col(c.expert_ridge_tokens, like), 1e-12)
    flop_s = imbalance * tokens * _col(c.expert_flop_s_per_token, like)
    return flop_s / eff.grouped_gemm_fraction(x)


def _col(x: np.ndarray, like: Any) -> np.ndarray:
    """A per-layout coefficient shaped to broadcast against `like` (layouts first)."""
    nd = np.ndim(like)
    return x.reshape(x.shape + (1,) * (nd - 1)) if nd > 1 else x


def cycle_time_s(
    c: StepCoefficients,
    *,
    decode_tokens: Any,
    prefill_tokens: Any,
    cached_tokens: Any,
    prefill_pairs: Any,
    step_overhead_s: Any = None,
    colocated: bool = True,
) -> np.ndarray:
    """Seconds for every running request to get its next token(s) (one pipeline cycle), given per replica:
    `decode_tokens` decoded (and verified, with speculation) this step, `prefill_tokens` of prompt chunks,
    `cached_tokens` = sum over decode tokens of the cached positions they attend to, `prefill_pairs` = causal
    (query, key) pairs of the prefill chunks.

    With attention data parallelism every rank computes its own requests' attention and dense layers, and the
    step waits for the busiest rank (TensorRT-LLM ADP balance blog: iteration time = max over ranks). In a
    `colocated` step (prompt chunks and decodes of different ranks in one iteration) the rank-local per-token work
    is scaled by `dp_imbalance` (rates.ATTENTION_DP_BALANCE_RATIO); a disaggregated pool's ranks all run the same
    phase, so it is not."""
    like = np.asarray(decode_tokens, dtype=float) + np.asarray(prefill_tokens, dtype=float)
    pp = _col(c.pp, like)
    tokens = like / pp  # per micro-batch
    skew = _col(c.dp_imbalance, like) if colocated else 1.0
    decode = np.asarray(decode_tokens, dtype=float) / pp
    touched = 1.0 - np.power(1.0 - c.top_k / c.experts, np.maximum(tokens, 0.0)) if c.top_k else 0.0
    dense = _roof(_col(c.dense_weight_s, like), skew * tokens * _col(c.dense_flop_s_per_token, like))
    experts = _experts_s(c, tokens, touched, like)
    head = _roof(_col(c.head_weight_s, like), decode * _col(c.head_flop_s_per_token, like))
    kv_memory = (np.asarray(cached_tokens, dtype=float) / pp) * _col(c.kv_read_s_per_cached_token, like) + (
        tokens * _col(c.kv_write_s_per_token, like)
    )
    attention_math = (np.asarray(cached_tokens, dtype=float) / pp) * _col(
        c.decode_attention_s_per_pair, like
    ) + (np.asarray(prefill_pairs, dtype=float) / pp) * _col(c.prefill_attention_s_per_pair, like)
    attention = _roof(skew * kv_memory, skew * attention_math)
    elementwise = skew * tokens * _col(c.elementwise_s_per_token, like)
    comm = _col(c.comm_fixed_s, like) + tokens * _col(c.comm_s_per_token, like)
    compute = dense + experts + head + attention + elementwise
    overlap = _col(c.comm_overlap, like)
    stage = np.where(overlap > 0, np.maximum(compute, comm), compute + comm)
    handoff = _col(c.handoff_fixed_s, like) + tokens * _col(c.handoff_s_per_token, like)
    overhead = eff.STEP_OVERHEAD_S if step_overhead_s is None else step_overhead_s
    return pp * stage + handoff + overhead
