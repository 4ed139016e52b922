"""`estimate` for a serving cluster with continuous batching: the `inference` section of the contract.

The contract's original keys keep their meaning "for the given batch": `batch` requests in flight per replica,
each sending its next request when the last one finishes (a closed loop), so `ttft_s` is one request's first-token
time under that load (its wait and its own prefill, never the whole batch's prefill), `tpot_s` its time per output
token and `tokens_per_s` the cluster's output rate. The new keys describe the service at a request rate (workload
`requests_per_s`, or `target_tokens_per_s` / `output_len`): TTFT and TPOT percentiles, the rate served and the
most the cluster sustains, the queue, whether the targets hold, and `gpus_needed`, the GPUs of this type and
layout that serve that rate within the targets (it follows the rate, never `batch`).

Disaggregated serving splits the cluster's replicas into a prefill and a decode pool (the split given, or chosen to
serve the most requests within the targets); TTFT comes from the prefill pool plus the KV transfer, TPOT from the
decode pool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from planner.engine.inference import rates
from planner.engine.inference.layout import ServingLayout
from planner.engine.inference.load import PERCENTILES, LoadModel, LoadState
from planner.engine.inference.service import Deployment, EngineSettings, Prepared, prepare
from planner.engine.inference.sizing import Candidate, ServiceRequest, _kv_transfer_s, _options
from planner.engine.inference.workload import Lengths, ServingSpec
from planner.engine.inputs.specs import GpuSpec, ModelSpec
from planner.engine.inputs.units import GiB


@dataclass(frozen=True)
class ContinuousResult:
    section: dict[str, Any]  # the contract's `inference` section
    memory: dict[str, float]  # per-GPU GiB for the memory section
    fits: bool
    gpus: int
    output_tokens_per_s: float  # what $/million tokens is computed on
    warnings: tuple[str, ...] = ()
    assumptions: dict[str, dict[str, Any]] = field(default_factory=dict)


def engine_settings(s: ServingSpec) -> EngineSettings:
    return EngineSettings(
        max_running_requests=s.max_running_requests,
        max_batched_tokens=s.max_batched_tokens,
        gpu_memory_utilization=s.gpu_memory_utilization or rates.GPU_MEMORY_UTILIZATION_DEFAULT,
        kv_block_tokens=s.kv_block_tokens or rates.KV_BLOCK_TOKENS_DEFAULT,
        chunked_prefill=s.chunked_prefill,
        overlap_scheduling=s.overlap_scheduling,
        scheduler_steps=s.scheduler_steps,
        fused_gemm_swiglu=s.fused_gemm_swiglu,
        kernel_efficiency=s.kernel_efficiency,
        eplb=s.eplb,
        cuda_graphs=s.cuda_graphs,
    )


def deployment(
    *,
    model: ModelSpec,
    gpu: GpuSpec,
    serving: ServingSpec,
    precision: str,
    layout: ServingLayout,
    replicas: int,
    gpus_per_node: int,
    scaleout_bytes_per_s: float,
) -> Deployment:
    return Deployment(
        model=model,
        gpu=gpu,
        layout=layout,
        replicas=max(replicas, 1),
        workload=serving.workload(),
        weight_precision=precision,
        dense_weight_precision=serving.dense_precision,
        kv_precision=serving.kv_precision or precision,
        attention_precision=serving.attention_precision or "bf16",
        gpus_per_node=gpus_per_node,
        scaleout_bytes_per_s=scaleout_bytes_per_s,
        engine=engine_settings(serving),
    )


def _scalar(a: Any) -> float:
    return float(np.asarray(a).ravel()[0])


def _percentiles(state: LoadState, kind: str) -> dict[str, float | None]:
    """TTFT or TPOT percentiles; TTFT is unbounded (None) when the load exceeds what the replicas sustain."""
    source = state.ttft_s if kind == "ttft" else state.tpot_s
    if kind == "ttft" and bool(_scalar(state.saturated)):
        return {f"{kind}_s_p{p:g}": None for p in PERCENTILES}
    return {f"{kind}_s_p{p:g}": _scalar(source[p]) for p in PERCENTILES}


def _bounds(p: Prepared, batch: float, context_len: int) -> tuple[str, str]:
    """Whether a prompt's prefill and a decode step at `batch` are bound by compute or by memory (the dense GEMMs'
    roofline, which dominates both)."""
    c = p.coef
    prefill = "compute" if context_len * c.dense_flop_s_per_token[0] > c.dense_weight_s[0] else "memory"
    decode = "compute" if batch * c.dense_flop_s_per_token[0] > c.dense_weight_s[0] else "memory"
    return prefill, decode


def _request(serving: ServingSpec, d: Deployment, rate: float) -> ServiceRequest:
    return ServiceRequest(
        model=d.model,
        workload=d.workload,
        requests_per_s=rate,
        candidates=(),
        ttft_target_s=serving.max_ttft_s,
        tpot_target_s=serving.max_tpot_s,
        percentile=serving.latency_percentile,
        weight_precision=d.weight_precision,
        dense_weight_precision=d.dense_weight_precision,
        kv_precision=d.kv_precision,
        attention_precision=d.attention_precision,
        engine=d.engine,
    )


def estimate_continuous(d: Deployment, serving: ServingSpec, gpus: int) -> ContinuousResult:
    """The `inference` section for a colocated (or disaggregated) continuous-batching cluster (module docstring)."""
    if serving.disaggregated is not None:
        return _disaggregated(d, serving, gpus)
    warnings: list[str] = []
    p = prepare(d)
    mem = p.memories[0]
    lay = d.layout
    replicas = gpus // lay.gpus
    wl = d.workload
    batch = float(serving.batch) if serving.batch else float(max(mem.max_running_requests, 1))
    if not mem.fits:
        warnings.append(
            f"does not fit: {mem.weights_bytes_per_gpu / GiB:.1f} GiB of weights per GPU leave no room for the KV "
            f"cache on the {d.gpu.name} at {d.engine.gpu_memory_utilization:.0%} memory use ({lay.label()})"
        )
    elif serving.batch and serving.batch > mem.max_running_requests:
        warnings.append(
            f"batch {serving.batch} exceeds the {mem.max_running_requests} requests whose KV cache fits per replica: "
            "the rest wait in the queue"
        )
    if replicas == 0:
        warnings.append(f"{gpus} GPUs hold no replica of {lay.gpus} GPUs ({lay.label()})")
    lm = p.model
    at_batch = lm.at_concurrency(np.asarray([batch]))
    rate = serving.rate_per_s
    state = lm.at_rate(np.asarray([rate / max(replicas, 1)])) if rate is not None else at_batch
    saturated = bool(_scalar(state.saturated)) if rate is not None else False
    capacity = _scalar(lm.max_rate_per_s()) * replicas
    pct = serving.latency_percentile
    ttft_p = _scalar(state.ttft_s[pct])
    tpot_p = _scalar(state.tpot_s[pct])
    targets = _targets(serving, ttft_p, tpot_p, saturated)
    meets = mem.fits and replicas > 0 and all(t["met"] for t in targets.values())
    if rate is not None:
        meets = meets and not saturated
    gpus_needed = best_batch = None
    if rate is not None and mem.fits:
        req = _request(serving, d, rate)
        option = _options(req, p, lm, check_ttft=True, check_tpot=True)[0]
        if option.meets:
            needed_replicas = _replicas_meeting(lm, serving, rate, option.replicas, replicas, meets)
            gpus_needed = needed_replicas * lay.gpus
            op = lm.at_rate(np.asarray([rate / needed_replicas]))
            best_batch = max(1, math.ceil(_scalar(op.running)))
        else:
            warnings.append(_bound_message(serving, option.best_ttft_s, option.best_tpot_s, lay))
    served = min(rate, capacity) if rate is not None else _scalar(at_batch.rate_per_s) * replicas
    if saturated:
        warnings.append(
            f"{rate:.4g} requests/s exceed the {capacity:.4g} this cluster sustains: the queue grows without bound"
        )
    prefill_bound, decode_bound = _bounds(p, batch, serving.context_len)
    batch_tokens_per_s = _scalar(at_batch.output_tokens_per_s) * replicas
    kv_per_request = (serving.context_len + serving.output_len) * mem.kv_bytes_per_token_per_gpu
    section = {
        "ttft_s": _scalar(at_batch.ttft_mean_s),
        "tpot_s": _scalar(at_batch.tpot_mean_s),
        "tokens_per_s": batch_tokens_per_s if replicas else 0.0,
        "tokens_per_s_per_gpu": batch_tokens_per_s / gpus if gpus else 0.0,
        "max_concurrent_requests": mem.max_running_requests,
        "kv_cache_gib_per_request": kv_per_request * lay.gpus / lay.attention_dp / GiB,
        "gpus_needed": gpus_needed,
        "meets_target": bool(meets),
        "fits": mem.fits,
        "batch": int(batch),
        "best_batch": best_batch,
        "replicas": replicas,
        "weights_gib_per_gpu": mem.weights_bytes_per_gpu / GiB,
        "kv_cache_gib_per_gpu": min(batch, mem.max_running_requests)
        * kv_per_request
        / lay.attention_dp
        / GiB,
        "per_gpu_gib": 0.0,  # filled below
        "prefill_bound": prefill_bound,
        "decode_bound": decode_bound,
        "warnings": warnings,
        "batching": "continuous",
        "requests_per_s": rate,
        "served_requests_per_s": served,
        "max_requests_per_s": capacity,
        "saturated": saturated,
        "latency_percentile": pct,
        **_percentiles(state, "ttft"),
        **_percentiles(state, "tpot"),
        "ttft_s_mean": None if saturated else _scalar(state.ttft_mean_s),
        "tpot_s_mean": _scalar(state.tpot_mean_s),
        "output_tokens_per_s_at_rate": served * wl.output.mean if rate is not None else None,
        "queue_requests": _scalar(state.queue_requests) * max(replicas, 1),
        "running_requests_per_replica": _scalar(state.running),
        "step_s": _scalar(state.step_s),
        "targets": targets,
        "engine": _engine_echo(p, d),
        "speculative": wl.speculation.as_dict() if serving.speculative else None,
        "disaggregated": None,
    }
    memory = _memory(mem, section)
    add_ranges(section, lay.gpus)
    tokens = section["output_tokens_per_s_at_rate"] if rate is not None else batch_tokens_per_s
    return ContinuousResult(
        section, memory, mem.fits, gpus, float(tokens or 0.0), tuple(warnings), rates.assumptions()
    )


def _memory(mem: Any, section: dict[str, Any]) -> dict[str, float]:
    """Per-GPU GiB for the memory section; fills the section's `per_gpu_gib`."""
    memory = {
        "weights": mem.weights_bytes_per_gpu / GiB,
        "kv_cache": section["kv_cache_gib_per_gpu"],
        "activations": mem.workspace_bytes_per_gpu / GiB,
        "other": mem.overhead_bytes_per_gpu / GiB,
    }
    section["per_gpu_gib"] = sum(memory.values())
    return memory


def add_ranges(section: dict[str, Any], gpus_per_replica: int) -> None:
    """Low/high of the throughput, latency and GPU-count figures from the validated leave-one-out ranges
    (rates.THROUGHPUT_RANGE, rates.LATENCY_RANGE): reality served more (high) or less (low) than the engine says,
    so fewer or more GPUs are needed."""
    t_low, t_high = rates.THROUGHPUT_RANGE
    l_low, l_high = rates.LATENCY_RANGE
    for key in ("tokens_per_s", "max_requests_per_s", "output_tokens_per_s_at_rate"):
        value = section.get(key)
        section[f"{key}_low"] = None if value is None else value * t_low
        section[f"{key}_high"] = None if value is None else value * t_high
    for kind in ("ttft", "tpot"):
        for q in (50, 90, 99):
            value = section.get(f"{kind}_s_p{q}")
            section[f"{kind}_s_p{q}_low"] = None if value is None else value * l_low
            section[f"{kind}_s_p{q}_high"] = None if value is None else value * l_high
    needed = section.get("gpus_needed")
    replicas = None if needed is None else needed / gpus_per_replica
    section["gpus_needed_low"] = None if replicas is None else math.ceil(replicas / t_high) * gpus_per_replica
    section["gpus_needed_high"] = None if replicas is None else math.ceil(replicas / t_low) * gpus_per_replica
    section["ranges"] = {"throughput": list(rates.THROUGHPUT_RANGE), "latency": list(rates.LATENCY_RANGE)}


def _engine_echo(p: Prepared, d: Deployment) -> dict[str, Any]:
    """The serving engine's limits as used (defaults filled in)."""
    running, tokens = d.engine.limits(p.hw)
    return {
        "max_running_requests": running,
        "max_batched_tokens": tokens,
        "gpu_memory_utilization": d.engine.gpu_memory_utilization,
        "kv_block_tokens": d.engine.kv_block_tokens,
        "chunked_prefill": d.engine.chunked_prefill,
        "overlap_scheduling": d.engine.overlap_scheduling,
        "fused_gemm_swiglu": d.engine.fused_gemm_swiglu,
        "eplb": d.engine.eplb,
        "scheduler_steps": d.engine.scheduler_steps,
        "cuda_graphs": d.engine.cuda_graphs,
        "kv_capacity_tokens_per_replica": p.memories[0].kv_capacity_tokens,
        "gemm_precision": p.hw.gemm_precision,
        "attention_precision": p.hw.attention_precision,
        **rates.kernel_efficiency_echo(d.engine.kernel_efficiency),
    }


def _meets_at(lm: LoadModel, serving: ServingSpec, rate_per_replica: float) -> bool:
    """Whether one replica at this share of the rate meets the targets, by the percentiles this result reports."""
    st = lm.at_rate(np.asarray([rate_per_replica]))
    saturated = bool(_scalar(st.saturated))
    pct = serving.latency_percentile
    targets = _targets(serving, _scalar(st.ttft_s[pct]), _scalar(st.tpot_s[pct]), saturated)
    return not saturated and all(t["met"] for t in targets.values())


#: How far the replica count may move from the sizer's scan when checked against this result's own percentiles.
REPLICA_CHECK_STEPS = 4


def _replicas_meeting(
    lm: LoadModel, serving: ServingSpec, rate: float, scanned: int, replicas: int, meets: bool
) -> int:
    """The sizer's replica count, made consistent with the percentiles this result reports (the sizer scans with
    fewer sampled requests): where the cluster's own `replicas` meet the targets the count is at most that, and
    where they miss it is more, checked one replica at a time."""
    if meets:
        return min(max(scanned, 1), replicas)
    needed = max(scanned, replicas + 1)
    for _ in range(REPLICA_CHECK_STEPS):
        if _meets_at(lm, serving, rate / needed):
            break
        needed += 1
    return needed


def _targets(serving: ServingSpec, ttft: float, tpot: float, saturated: bool) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, target, value in (("ttft", serving.max_ttft_s, ttft), ("tpot", serving.max_tpot_s, tpot)):
        if target is None:
            continue
        if saturated and name == "ttft":
            out[name] = {"target_s": target, "value_s": None, "met": False, "margin": None}
        else:
            met = value <= target and not saturated
            out[name] = {"target_s": target, "value_s": value, "met": met, "margin": 1.0 - value / target}
    return out


def _bound_message(serving: ServingSpec, best_ttft: float, best_tpot: float, lay: ServingLayout) -> str:
    """Why no number of replicas of this layout meets the targets."""
    pct = f"p{serving.latency_percentile:g}"
    parts = []
    if serving.max_ttft_s is not None and best_ttft > serving.max_ttft_s:
        parts.append(
            f"{pct} TTFT is {best_ttft:.3g} s even at the lightest load, "
            f"{best_ttft / serving.max_ttft_s - 1:+.0%} over the {serving.max_ttft_s:g} s target"
        )
    if serving.max_tpot_s is not None and best_tpot > serving.max_tpot_s:
        parts.append(
            f"{pct} TPOT is {best_tpot * 1e3:.3g} ms even at the lightest load, "
            f"{best_tpot / serving.max_tpot_s - 1:+.0%} over the {serving.max_tpot_s * 1e3:g} ms target"
        )
    reason = "; ".join(parts) or "the targets hold only at loads no replica sustains"
    return f"no number of {lay.label()} replicas meets the targets: {reason}"


def _disaggregated(d: Deployment, serving: ServingSpec, gpus: int) -> ContinuousResult:
    """Prefill and decode pools of the same layout; the split given or chosen (module docstring)."""
    spec = serving.disaggregated
    assert spec is not None
    lay = d.layout
    total = gpus // lay.gpus
    pre_wl = replace(d.workload, output=Lengths(1.0))
    cand = Candidate(d.gpu, d.gpus_per_node, d.scaleout_bytes_per_s)
    rate = serving.rate_per_s
    req = _request(serving, d, rate or 1.0)
    transfer = _kv_transfer_s(req, cand, lay)
    pp_ = prepare(replace(d, workload=pre_wl), extra_ttft_s=[transfer])
    pre_lm = pp_.pool_model(pre_wl, prefill=True)
    pd = prepare(d)
    dec_lm = pd.pool_model(d.workload, prefill=False)
    pre_opt = _options(req, pp_, pre_lm, check_ttft=True, check_tpot=False)[0]
    dec_opt = _options(req, pd, dec_lm, check_ttft=False, check_tpot=True)[0]
    pre_rate = pre_opt.max_rate_per_replica or _scalar(pre_lm.max_rate_per_s())
    dec_rate = dec_opt.max_rate_per_replica or _scalar(dec_lm.max_rate_per_s())
    if spec.prefill_gpus is not None and spec.decode_gpus is not None:
        n_pre, n_dec, chosen = spec.prefill_gpus // lay.gpus, spec.decode_gpus // lay.gpus, "input"
    else:
        # the split that serves the most requests: min(prefill capacity, decode capacity) over the splits
        n_pre = max(range(1, max(total, 2)), key=lambda k: min(k * pre_rate, (total - k) * dec_rate))
        n_dec, chosen = max(total - n_pre, 0), "sizer"
    capacity = min(n_pre * pre_rate, n_dec * dec_rate)
    served_rate = rate if rate is not None else capacity
    pre_state = pre_lm.at_rate(np.asarray([served_rate / max(n_pre, 1)]))
    dec_state = dec_lm.at_rate(np.asarray([served_rate / max(n_dec, 1)]))
    saturated = bool(_scalar(pre_state.saturated)) or bool(_scalar(dec_state.saturated))
    pct = serving.latency_percentile
    ttft_p, tpot_p = _scalar(pre_state.ttft_s[pct]), _scalar(dec_state.tpot_s[pct])
    targets = _targets(serving, ttft_p, tpot_p, saturated)
    mem = pd.memories[0]
    fits = mem.fits and pp_.memories[0].fits
    warnings = [] if fits else [f"does not fit on the {d.gpu.name} in {lay.label()}"]
    if n_pre < 1 or n_dec < 1:
        warnings.append("a disaggregated cluster needs at least one prefill and one decode replica")
    tokens = served_rate * d.workload.output.mean
    needed = None
    if rate is not None and pre_opt.meets and dec_opt.meets:
        needed = (
            math.ceil(rate / pre_opt.max_rate_per_replica) + math.ceil(rate / dec_opt.max_rate_per_replica)
        ) * lay.gpus
    section = {
        "ttft_s": _scalar(pre_state.ttft_mean_s),
        "tpot_s": _scalar(dec_state.tpot_mean_s),
        "tokens_per_s": tokens,
        "tokens_per_s_per_gpu": tokens / gpus if gpus else 0.0,
        "max_concurrent_requests": mem.max_running_requests,
        "kv_cache_gib_per_request": (serving.context_len + serving.output_len)
        * mem.kv_bytes_per_token_per_gpu
        * lay.gpus
        / lay.attention_dp
        / GiB,
        "gpus_needed": needed,
        "meets_target": bool(fits and not saturated and all(t["met"] for t in targets.values())),
        "fits": fits,
        "batch": int(serving.batch or mem.max_running_requests),
        "best_batch": max(1, math.ceil(_scalar(dec_state.running))),
        "replicas": total,
        "weights_gib_per_gpu": mem.weights_bytes_per_gpu / GiB,
        "kv_cache_gib_per_gpu": _scalar(dec_state.running)
        * (serving.context_len + serving.output_len)
        * mem.kv_bytes_per_token_per_gpu
        / lay.attention_dp
        / GiB,
        "per_gpu_gib": 0.0,
        "prefill_bound": "compute",
        "decode_bound": _bounds(pd, _scalar(dec_state.running), serving.context_len)[1],
        "warnings": warnings,
        "batching": "continuous",
        "requests_per_s": rate,
        "served_requests_per_s": min(served_rate, capacity),
        "max_requests_per_s": capacity,
        "saturated": saturated,
        "latency_percentile": pct,
        **_percentiles(pre_state, "ttft"),
        **_percentiles(dec_state, "tpot"),
        "ttft_s_mean": _scalar(pre_state.ttft_mean_s),
        "tpot_s_mean": _scalar(dec_state.tpot_mean_s),
        "output_tokens_per_s_at_rate": tokens if rate is not None else None,
        "queue_requests": _scalar(pre_state.queue_requests) * max(n_pre, 1),
        "running_requests_per_replica": _scalar(dec_state.running),
        "step_s": _scalar(dec_state.step_s),
        "targets": targets,
        "engine": _engine_echo(pd, d),
        "speculative": d.workload.speculation.as_dict() if serving.speculative else None,
        "disaggregated": {
            "prefill_replicas": n_pre,
            "decode_replicas": n_dec,
            "prefill_gpus": n_pre * lay.gpus,
            "decode_gpus": n_dec * lay.gpus,
            "chosen_by": chosen,
            "kv_transfer_s": transfer,
            "prefill_requests_per_s_per_replica": pre_rate,
            "decode_requests_per_s_per_replica": dec_rate,
        },
    }
    memory = _memory(mem, section)
    add_ranges(section, lay.gpus)
    return ContinuousResult(section, memory, fits, gpus, tokens, tuple(warnings), rates.assumptions())
