"""LLM inference on a roofline: KV cache, concurrency that fits, time to first token, time per output token,
throughput, and the GPUs needed for a target throughput within latency bounds.

Roofline (Williams, Waterman, Patterson, "Roofline", CACM 52(4), 2009): a kernel takes the longer of its
memory time (bytes / achieved bandwidth) and its compute time (FLOPs / achieved peak).
* Prefill (first token) processes the whole prompt: 2 x N_active FLOPs per token (Kaplan et al. 2020,
  arXiv:2001.08361 Table 1, forward pass) plus causal attention, so it is compute-bound.
* Decode (each later token) reads all weights touched and the KV cache once per step for the whole batch, so at
  small batch it is bandwidth-bound: time per token ~ weight bytes / HBM bandwidth.
* Achieved rates are the engine's own (the training model uses the same): HBM at efficiency.HBM_EFFICIENCY; GEMMs
  at efficiency.gemm_efficiency with the token dimension left saturated (a skinny decode GEMM is slow because it
  is memory-bound, which the roofline's memory term already counts); attention at
  efficiency.flash_attention_efficiency.
* Tensor parallelism adds two all-reduces per layer (Megatron-LM, Shoeybi et al. 2019, arXiv:1909.08053 §3) on
  the scale-up link, timed by comm.all_reduce_s (ring, alpha-beta) at comm.SCALEUP_EFFICIENCY.
* Pipeline stages run one after another for one request batch (no micro-batch interleaving is assumed, which
  is conservative for throughput): step time = pp x stage time + (pp-1) point-to-point hand-offs on the
  scale-out network.

KV cache per token = 2 x layers x kv_heads x head_dim x bytes (planner.engine.transformer.params.kv_values_per_token), e.g.
Llama-2-70B in fp16: 320 KiB per token; OPT-13B: 800 KiB (Kwon et al. 2023, vLLM, arXiv:2309.06180 §3 writes
"800 KB").

Throughput counts whole requests served batch by batch (static batching): each batch of B requests spends
TTFT in prefill, then output_len decode steps, so tokens/s = B x output_len / (TTFT + output_len x TPOT).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from planner.engine.facility.network import EFFICIENCY_DEFAULT as SCALEOUT_EFFICIENCY_DEFAULT
from planner.engine.facility.network import LATENCY_S_DEFAULT as SCALEOUT_LATENCY_S_DEFAULT
from planner.engine.inference.workload import ServingSpec
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.specs import BYTES_PER_VALUE, GpuSpec, ModelSpec, ParallelismSpec
from planner.engine.inputs.units import BITS_PER_BYTE, GIGA, GiB
from planner.engine.perf import comm, efficiency
from planner.engine.perf.hardware import Hardware, hardware_for
from planner.engine.perf.layout import Layout, layout_for
from planner.engine.results import InferenceSection
from planner.engine.transformer.params import (
    active_params,
    expert_params,
    kv_values_per_token,
    moe_layer_count,
    total_params,
)

_PATH = "workload.serving"
NOT_SOURCED = "planning assumption, not sourced"

#: Scale-out bandwidth per GPU for pipeline hand-offs when the caller gives none: the contract's default
#: scaleout_gbps_per_gpu (400 Gb/s, one NDR NIC per GPU; catalog interconnects.csv ib_ndr).
SCALEOUT_BYTES_PER_S_DEFAULT = 400 * GIGA / BITS_PER_BYTE
#: Activations exchanged by TP all-reduces are 16-bit (bf16/fp16) also when weights are 8- or 4-bit.
ACTIVATION_BYTES = BYTES_PER_VALUE["bf16"]
#: Precisions tried, in order, when the GPU has no tensor peak for the requested one.
_PEAK_FALLBACK = ("bf16", "fp16", "fp32")


@dataclass(frozen=True)
class InferenceResult:
    weights_bytes_per_gpu: float
    kv_cache_bytes_per_gpu: float
    kv_cache_bytes_per_request: float  # whole model, context + output tokens
    overhead_bytes: float
    capacity_bytes: float
    fits: bool
    max_concurrent_requests: int  # per model replica
    batch: int
    replicas: int
    gpus: int
    ttft_s: float
    tpot_s: float
    tokens_per_s: float  # cluster, generated tokens
    prefill_bound: str
    decode_bound: str
    gpus_needed: int | None
    best_batch: int | None  # the batch gpus_needed is sized with
    meets_target: bool
    warnings: tuple[str, ...] = ()
    assumptions: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def per_gpu_bytes(self) -> float:
        return self.weights_bytes_per_gpu + self.kv_cache_bytes_per_gpu + self.overhead_bytes

    @property
    def tokens_per_s_per_gpu(self) -> float:
        return self.tokens_per_s / self.gpus if self.gpus else 0.0

    def as_dict(self) -> InferenceSection:
        """The `inference` output section (docs/engine-contract.md)."""
        return {
            "ttft_s": self.ttft_s,
            "tpot_s": self.tpot_s,
            "tokens_per_s": self.tokens_per_s,
            "tokens_per_s_per_gpu": self.tokens_per_s_per_gpu,
            "max_concurrent_requests": self.max_concurrent_requests,
            "kv_cache_gib_per_request": self.kv_cache_bytes_per_request / GiB,
            "gpus_needed": self.gpus_needed,
            "meets_target": self.meets_target,
            "fits": self.fits,
            "batch": self.batch,
            "best_batch": self.best_batch,
            "replicas": self.replicas,
            "weights_gib_per_gpu": self.weights_bytes_per_gpu / GiB,
            "kv_cache_gib_per_gpu": self.kv_cache_bytes_per_gpu / GiB,
            "per_gpu_gib": self.per_gpu_bytes / GiB,
            "prefill_bound": self.prefill_bound,
            "decode_bound": self.decode_bound,
            "warnings": list(self.warnings),
        }


def kv_cache_bytes_per_token(model: ModelSpec, bytes_per_value: float) -> float:
    """Whole-model KV cache per token: kv_values_per_token (2 x layers x kv_heads x head_dim, or the MLA latent)
    x bytes per value."""
    return kv_values_per_token(model) * bytes_per_value


def kv_tp_share(model: ModelSpec, tp: int) -> float:
    """Share of the KV heads one TP rank holds: heads split over ranks, but a KV head is never split, so with
    kv_heads < tp each rank keeps one head (replicated). MLA's compressed latent is replicated on every rank."""
    if model.mla is not None:
        return 1.0
    heads_per_rank = max(1, math.ceil(model.kv_heads / tp))
    return heads_per_rank / model.kv_heads


def routed_expert_params(model: ModelSpec) -> float:
    """All routed experts' parameters (every MoE layer x experts x one expert's FFN)."""
    if model.moe is None:
        return 0.0
    return moe_layer_count(model) * model.moe.experts * expert_params(model)


def experts_touched_fraction(model: ModelSpec, tokens: float) -> float:
    """Expected share of routed experts a step of `tokens` tokens reads, with uniform top-k routing:
    1 - (1 - k/E)^tokens (each token picks k of E experts)."""
    if model.moe is None:
        return 1.0
    miss = 1.0 - model.moe.top_k / model.moe.experts
    return 1.0 - miss**tokens


def weight_bytes_read(model: ModelSpec, bytes_per_value: float, tokens: float) -> float:
    """Weight bytes one step reads: everything except routed experts, plus the routed experts it touches."""
    routed = routed_expert_params(model)
    dense = total_params(model) - routed
    return (dense + routed * experts_touched_fraction(model, tokens)) * bytes_per_value


def attention_flop_per_token(model: ModelSpec, kv_len: float) -> float:
    """Attention score and value FLOPs for one query token over `kv_len` cached tokens: 4 x layers x heads x
    head_dim x kv_len (QK^T and AV, 2 FLOPs per multiply-add; PaLM, arXiv:2204.02311 App. B, forward share)."""
    return 4.0 * model.layers * model.heads * model.head_dim * kv_len


def hbm_bytes_per_s(hw: Hardware) -> float:
    """Achieved HBM bandwidth: the datasheet figure x efficiency.HBM_EFFICIENCY."""
    return hw.hbm_bandwidth_bytes_per_s * efficiency.HBM_EFFICIENCY


def gemm_flop_per_s(model: ModelSpec, lay: Layout, hw: Hardware) -> float:
    """Achieved GEMM rate: efficiency.gemm_efficiency with the token dimension m saturated, n = ffn_hidden/tp
    (output columns per TP rank) and k = hidden, of the GPU's measured matmul ceiling."""
    ffn = model.moe.expert_ffn_hidden if model.moe is not None else model.ffn_hidden
    gemm = float(
        hw.matmul_ceiling
        * efficiency.FRAMEWORK_GEMM_FRACTION
        * efficiency.shape_factor(ffn / lay.tp)  # n: output columns per TP rank
        * efficiency.shape_factor(float(model.hidden))  # k: inner dimension
    )
    return hw.peak_flop_per_s * gemm


def attention_flop_per_s(hw: Hardware) -> float:
    """Achieved attention rate: the FlashAttention-2 fraction of the matmul ceiling."""
    return hw.peak_flop_per_s * float(efficiency.flash_attention_efficiency(hw.matmul_ceiling))


def scaleup_link_bytes_per_s(hw: Hardware) -> float:
    """Achieved scale-up bandwidth per direction: (catalog figure / 2) x comm.SCALEUP_EFFICIENCY."""
    return hw.scaleup_bytes_per_s * comm.SCALEUP_EFFICIENCY


@dataclass(frozen=True)
class AchievedRates:
    """What one GPU of a serving replica achieves: the shared Hardware's datasheet figures times the engine's
    achieved fractions, derived once per estimate (achieved_rates) because the batch search re-times often."""

    hbm_bytes_per_s: float
    gemm_flop_per_s: float
    attention_flop_per_s: float
    scaleup_link_bytes_per_s: float  # one direction
    scaleout_link_bytes_per_s: float  # one direction, for pipeline hand-offs


def achieved_rates(model: ModelSpec, lay: Layout, hw: Hardware) -> AchievedRates:
    return AchievedRates(
        hbm_bytes_per_s=hbm_bytes_per_s(hw),
        gemm_flop_per_s=gemm_flop_per_s(model, lay, hw),
        attention_flop_per_s=attention_flop_per_s(hw),
        scaleup_link_bytes_per_s=scaleup_link_bytes_per_s(hw),
        scaleout_link_bytes_per_s=hw.scaleout_bytes_per_s * hw.scaleout_efficiency,
    )


def _stage_time_s(
    rates: AchievedRates, bytes_per_gpu: float, gemm_flop_per_gpu: float, attention_flop_per_gpu: float
) -> tuple[float, str]:
    """Roofline of one pipeline stage on one GPU: max(memory time, compute time)."""
    memory_s = bytes_per_gpu / rates.hbm_bytes_per_s
    compute_s = (
        gemm_flop_per_gpu / rates.gemm_flop_per_s + attention_flop_per_gpu / rates.attention_flop_per_s
    )
    return (compute_s, "compute") if compute_s >= memory_s else (memory_s, "memory")


def _comm_s(model: ModelSpec, lay: Layout, hw: Hardware, rates: AchievedRates, tokens: float) -> float:
    """Two TP all-reduces per layer (attention, MLP) of tokens x hidden x 2 bytes on the scale-up link, plus
    (pp-1) point-to-point hand-offs of the same activations between stages on the scale-out network."""
    message_bytes = tokens * (model.hidden * ACTIVATION_BYTES)
    tp_s = (
        2
        * model.layers
        * comm.all_reduce_s(
            message_bytes, lay.tp, rates.scaleup_link_bytes_per_s, comm.SCALEUP_STEP_LATENCY_S
        )
    )
    pp_s = (lay.pp - 1) * comm.p2p_s(message_bytes, rates.scaleout_link_bytes_per_s, hw.scaleout_latency_s)
    return float(tp_s + pp_s)


def prefill_time_s(
    model: ModelSpec,
    lay: Layout,
    hw: Hardware,
    rates: AchievedRates,
    batch: int,
    context_len: int,
    weight_bpv: float,
    kv_bytes_per_token_per_gpu: float,
) -> tuple[float, str]:
    """Prefill of `batch` prompts: FLOPs = 2 x N_active x tokens + causal attention (average kv_len = s/2);
    bytes = weights touched + KV written; per GPU / (tp x pp), stages in sequence (x pp)."""
    tokens = batch * context_len
    gpus = lay.tp * lay.pp
    gemm_flop = 2.0 * active_params(model) * tokens
    attention_flop = tokens * attention_flop_per_token(model, context_len / 2.0)
    weight_bytes_per_gpu = weight_bytes_read(model, weight_bpv, tokens) / gpus
    kv_written_bytes_per_gpu = tokens * kv_bytes_per_token_per_gpu
    stage_s, bound = _stage_time_s(
        rates, weight_bytes_per_gpu + kv_written_bytes_per_gpu, gemm_flop / gpus, attention_flop / gpus
    )
    return lay.pp * stage_s + _comm_s(model, lay, hw, rates, tokens), bound


def decode_step_time_s(
    model: ModelSpec,
    lay: Layout,
    hw: Hardware,
    rates: AchievedRates,
    batch: int,
    kv_len: float,
    weight_bpv: float,
    kv_bytes_per_token_per_gpu: float,
) -> tuple[float, str]:
    """One decode step for `batch` sequences of `kv_len` cached tokens: read the weights touched and every
    sequence's KV cache once; 2 x N_active FLOPs per token plus attention."""
    gpus = lay.tp * lay.pp
    gemm_flop = batch * 2.0 * active_params(model)
    attention_flop = batch * attention_flop_per_token(model, kv_len)
    weight_bytes_per_gpu = weight_bytes_read(model, weight_bpv, batch) / gpus
    kv_bytes_per_gpu = batch * kv_len * kv_bytes_per_token_per_gpu
    stage_s, bound = _stage_time_s(
        rates, weight_bytes_per_gpu + kv_bytes_per_gpu, gemm_flop / gpus, attention_flop / gpus
    )
    return lay.pp * stage_s + _comm_s(model, lay, hw, rates, batch), bound


def _check(serving: ServingSpec, precision: str, tp: int, pp: int, gpus: int, overhead_bytes: float) -> None:
    problems: list[Problem] = []
    for name in ("batch", "context_len", "output_len"):
        if getattr(serving, name) < 1:
            problems.append(Problem(f"{_PATH}.{name}", f"must be at least 1 (got {getattr(serving, name)})"))
    for name in ("target_tokens_per_s", "max_ttft_s", "max_tpot_s"):
        value = getattr(serving, name)
        if value is not None and not value > 0:
            problems.append(Problem(f"{_PATH}.{name}", "must be greater than 0"))
    if precision not in BYTES_PER_VALUE:
        problems.append(Problem("workload.precision", f"unknown precision {precision!r}"))
    if serving.kv_precision is not None and serving.kv_precision not in BYTES_PER_VALUE:
        problems.append(Problem(f"{_PATH}.kv_precision", f"unknown precision {serving.kv_precision!r}"))
    if tp < 1:
        problems.append(Problem("workload.parallelism.tp", "must be at least 1"))
    if pp < 1:
        problems.append(Problem("workload.parallelism.pp", "must be at least 1"))
    if gpus < 1:
        problems.append(Problem("cluster.nodes", "need at least one GPU"))
    if not overhead_bytes >= 0:
        problems.append(Problem("workload.overhead", "framework overhead must not be negative"))
    if problems:
        raise SpecError(problems)


def _peak(gpu: GpuSpec, precision: str, warnings: list[str]) -> float:
    peak = gpu.peak_for(precision)
    if peak:
        return peak
    for fallback in _PEAK_FALLBACK:
        peak = gpu.peak_for(fallback)
        if peak:
            warnings.append(
                f"the {gpu.name} has no {precision} tensor peak; compute timed at its {fallback} peak"
            )
            return peak
    raise SpecError.at("cluster.gpu.tflops", f"the {gpu.name} has no tensor peak for {precision} or 16-bit")


def _largest_feasible_batch(fits_latency: Any, limit: int) -> int:
    """Largest b in [1, limit] with fits_latency(b), given latency grows with b (0 if none)."""
    if limit < 1 or not fits_latency(1):
        return 0
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits_latency(mid) else (lo, mid - 1)
    return lo


def estimate_inference(
    *,
    model: ModelSpec,
    gpu: GpuSpec,
    serving: ServingSpec,
    precision: str,
    tp: int,
    pp: int,
    gpus: int,
    overhead_bytes: float,
    scaleout_bytes_per_s: float = SCALEOUT_BYTES_PER_S_DEFAULT,
    scaleout_latency_s: float = SCALEOUT_LATENCY_S_DEFAULT,
    gpus_per_node: int | None = None,
) -> InferenceResult:
    """Memory fit, latency and throughput of serving `model` with `tp` x `pp` GPUs per replica on `gpus` GPUs.
    `scaleout_*` (one direction, per GPU) time the pipeline hand-offs between nodes, at the network's default
    efficiency. `gpus_per_node` (default: all `gpus` in one node) completes the shared Hardware; the roofline
    does not read it."""
    _check(serving, precision, tp, pp, gpus, overhead_bytes)
    warnings: list[str] = []
    weight_bpv = BYTES_PER_VALUE[precision]
    kv_bpv = BYTES_PER_VALUE[serving.kv_precision or precision]
    hw = hardware_for(
        gpu,
        _peak(gpu, precision, warnings),
        gpus_per_node=gpus_per_node or gpus,
        scaleout_bytes_per_s=scaleout_bytes_per_s,
        scaleout_latency_s=scaleout_latency_s,
        scaleout_efficiency=SCALEOUT_EFFICIENCY_DEFAULT,
        efficiency_scale=serving.kernel_efficiency,
    )
    lay = layout_for(ParallelismSpec(tp=tp, pp=pp, dp=max(gpus // (tp * pp), 1)))
    rates = achieved_rates(model, lay, hw)
    kv_per_token = kv_cache_bytes_per_token(model, kv_bpv)
    kv_per_token_per_gpu = kv_per_token * kv_tp_share(model, tp) / pp
    request_tokens = serving.context_len + serving.output_len
    kv_per_request_per_gpu = request_tokens * kv_per_token_per_gpu
    weights_per_gpu = total_params(model) * weight_bpv / (tp * pp)
    free_bytes = gpu.hbm_bytes - overhead_bytes - weights_per_gpu
    max_concurrent = (
        max(0, math.floor(free_bytes / kv_per_request_per_gpu)) if kv_per_request_per_gpu > 0 else 0
    )
    fits = free_bytes > 0 and serving.batch <= max_concurrent
    if not fits:
        need = (weights_per_gpu + overhead_bytes + serving.batch * kv_per_request_per_gpu) / GiB
        warnings.append(
            f"needs {need:.1f} GiB per GPU for batch {serving.batch}, the {gpu.name} has "
            f"{gpu.hbm_bytes / GiB:.0f} GiB; at most {max_concurrent} requests fit per replica"
        )
    replicas = gpus // (tp * pp)
    if replicas == 0:
        warnings.append(f"{gpus} GPUs hold no replica of tp x pp = {tp * pp} GPUs")

    kv_len_avg = serving.context_len + serving.output_len / 2.0  # average cached length while decoding

    def latency(batch: int) -> tuple[float, str, float, str]:
        ttft, p_bound = prefill_time_s(
            model, lay, hw, rates, batch, serving.context_len, weight_bpv, kv_per_token_per_gpu
        )
        tpot, d_bound = decode_step_time_s(
            model, lay, hw, rates, batch, kv_len_avg, weight_bpv, kv_per_token_per_gpu
        )
        return ttft, p_bound, tpot, d_bound

    def replica_tokens_per_s(batch: int) -> float:
        ttft, _, tpot, _ = latency(batch)
        return batch * serving.output_len / (ttft + serving.output_len * tpot)

    def within_bounds(batch: int) -> bool:
        ttft, _, tpot, _ = latency(batch)
        return (serving.max_ttft_s is None or ttft <= serving.max_ttft_s) and (
            serving.max_tpot_s is None or tpot <= serving.max_tpot_s
        )

    ttft, prefill_bound, tpot, decode_bound = latency(serving.batch)
    tokens_per_s = replicas * replica_tokens_per_s(serving.batch) if fits else 0.0

    gpus_needed: int | None = None
    best_batch: int | None = None
    if serving.target_tokens_per_s is not None:
        best = _largest_feasible_batch(within_bounds, max_concurrent)
        if best == 0:
            warnings.append("no batch size fits in memory within the latency bounds; target cannot be met")
        else:
            best_batch = best
            replicas_needed = math.ceil(serving.target_tokens_per_s / replica_tokens_per_s(best))
            gpus_needed = max(1, replicas_needed) * tp * pp
    meets = fits and replicas > 0 and within_bounds(serving.batch)
    if serving.target_tokens_per_s is not None:
        meets = meets and tokens_per_s >= serving.target_tokens_per_s
    return InferenceResult(
        weights_bytes_per_gpu=weights_per_gpu,
        kv_cache_bytes_per_gpu=serving.batch * kv_per_request_per_gpu,
        kv_cache_bytes_per_request=request_tokens * kv_per_token,
        overhead_bytes=overhead_bytes,
        capacity_bytes=gpu.hbm_bytes,
        fits=fits,
        max_concurrent_requests=max_concurrent,
        batch=serving.batch,
        replicas=replicas,
        gpus=gpus,
        ttft_s=ttft,
        tpot_s=tpot,
        tokens_per_s=tokens_per_s,
        prefill_bound=prefill_bound,
        decode_bound=decode_bound,
        gpus_needed=gpus_needed,
        best_batch=best_batch,
        meets_target=meets,
        warnings=tuple(warnings),
        assumptions=assumptions(),
    )


def assumptions() -> dict[str, dict[str, Any]]:
    """Every inference default with its source (achieved rates are the engine's shared ones)."""
    return {
        "inference.hbm_efficiency": {
            "value": efficiency.HBM_EFFICIENCY,
            "unit": "fraction of peak HBM bandwidth",
            "source": "engine efficiency.HBM_EFFICIENCY (stas00/ml-engineering accelerator memory notes)",
        },
        "inference.gemm_efficiency": {
            "value": "efficiency.mamf_fraction(gpu) x FRAMEWORK_GEMM_FRACTION x shape factors (n, k)",
            "unit": "fraction of dense tensor peak",
            "source": "engine efficiency.py (measured matmul ceilings; calibrated once on training cases)",
        },
        "inference.scaleup_efficiency": {
            "value": comm.SCALEUP_EFFICIENCY,
            "unit": "fraction of per-direction scale-up bandwidth",
            "source": "engine comm.SCALEUP_EFFICIENCY (nccl-tests bus bandwidth)",
        },
        "inference.pp_handoff": {
            "value": SCALEOUT_BYTES_PER_S_DEFAULT,
            "unit": "bytes/s per GPU, one direction",
            "source": "contract default scaleout_gbps_per_gpu 400 (catalog ib_ndr), x network efficiency "
            "(planning assumption)",
        },
        "inference.batching": {
            "value": "static",
            "unit": "",
            "source": "modelling choice: each batch is prefilled, then decoded to output_len (conservative)",
        },
    }
