"""What each workload needs from each pool, from the engine's own models.

* training: GPU-hours of the whole run on the pool's GPU, from the engine's layout search (search/layouts.py,
  objective min_cost = fewest GPU-hours) on a reference cluster of `reference_gpus` GPUs;
* inference: GPUs per period from the service sizer (inference/sizing.py: the continuous-batching load model) for
  the period's requests/s and latency targets: per layout, replicas = ceil(rate / rate one replica sustains within
  the targets), the layout needing fewest GPUs taken per period;
* service: the measured footprint packed per period (mig.py: MIG layouts, whole GPUs or time-slicing);
* jobs: GPU-hours per period = jobs x GPUs per job x single-GPU hours / Amdahl speed-up (job/scaling.py), held
  as their average GPUs but at least one job's width.

A workload a pool cannot run (the model does not fit, no layout meets the latency targets) gets no entry for
that pool and the reason is kept for the `unserved` report.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from planner.engine.fleet.mig import Packing, pack_service
from planner.engine.fleet.spec import FleetSpec, Pool, Workload
from planner.engine.inference.sizing import size_gpu
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.service import parse_service_request
from planner.engine.job.scaling import amdahl_speedup
from planner.engine.search.layouts import run_search

#: Reference cluster on which a training run's GPU-hours are estimated. Planning assumption: GPU-hours change
#: little with the cluster size at fixed batch (the search reports them); 512 GPUs is a typical pre-training
#: allocation of the sizes this planner sees. Override per workload with `reference_gpus`.
REFERENCE_GPUS_DEFAULT = 512
#: Tokens per optimizer step when the input gives no global_batch: 4M tokens, Llama 3 405B's first stage
#: (Dubey et al. 2024, arXiv:2407.21783, Section 3.4.1).
BATCH_TOKENS_DEFAULT = 4 * 1024 * 1024
#: Degrees the fleet's training search tries (a smaller space than `search`'s free one, for speed).
SEARCH_SPACE = {
    "tp": [1, 2, 4, 8],
    "cp": [1],
    "virtual_stages": [1],
    "micro_batch": [1, 2],
    "zero_stage": [1],
    "recompute": ["selective", "full"],
}


@dataclass(frozen=True)
class PoolDemand:
    """One workload on one pool: GPUs per period (rate workloads) or GPU-hours of the run (training)."""

    gpus: tuple[float, ...] = ()  # per period, whole GPUs the workload occupies
    gpu_hours: float = 0.0  # training: the whole run
    packing: tuple[Packing | None, ...] = ()  # service: per period
    whole_gpus: tuple[
        float, ...
    ] = ()  # service: per period, GPUs without sharing (for the utilisation gained)
    busy_gpus: tuple[float, ...] = ()  # per period, GPUs' worth of compute actually used
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Demand:
    by_pool: dict[str, dict[str, PoolDemand]]  # workload id -> pool id -> demand
    failures: dict[str, dict[str, str]]  # workload id -> pool id -> why it cannot run there
    assumptions: dict[str, Any]
    warnings: list[str]


def _rewrite(err: SpecError, mapping: dict[str, str]) -> SpecError:
    """Problems of an engine call re-pathed to the fleet input's fields (longest prefix first)."""
    out = []
    for p in err.problems:
        path = p.path
        for old in sorted(mapping, key=len, reverse=True):
            if path == old or path.startswith(old + ".") or path.startswith(old + "["):
                path = mapping[old] + path[len(old) :]
                break
        out.append(Problem(path, p.message))
    return SpecError(out)


def _pools_for(spec: FleetSpec, w: Workload) -> list[tuple[int, Pool]]:
    return [(j, p) for j, p in enumerate(spec.pools) if not w.pools or p.id in w.pools]


def _service(spec: FleetSpec, w: Workload, pool: Pool) -> PoolDemand:
    mem = pool.gpu.hbm_bytes / 2**30
    packs = tuple(
        pack_service(r, w.gpu_memory_gib, w.gpu_share, mem, mode=pool.sharing, gpu_id=pool.gpu_id)
        for r in w.replicas
    )
    whole = tuple(
        pack_service(r, w.gpu_memory_gib, w.gpu_share, mem, mode="whole", gpu_id=None) for r in w.replicas
    )
    if any(p is None for p in packs):
        raise ValueError("unpackable")
    return PoolDemand(
        gpus=tuple(float(p.gpus) for p in packs if p is not None),
        packing=packs,
        whole_gpus=tuple(float(p.gpus) for p in whole if p is not None),
        busy_gpus=tuple(r * w.gpu_share for r in w.replicas),
    )


def job_gpu_hours(w: Workload, period: int) -> float:
    """GPU-hours of a period's jobs: n GPUs each for single_gpu_hours / Amdahl speed-up (job/scaling.py)."""
    speedup = amdahl_speedup(w.parallel_fraction, w.gpus_per_job)
    return w.jobs_per_period[period] * w.gpus_per_job * w.single_gpu_hours / speedup


def _jobs(spec: FleetSpec, w: Workload) -> PoolDemand:
    """GPUs a queue holds in a period: its average (GPU-hours / period hours), and at least one job's width, so
    that the GPUs left to it can start its widest job (the queue simulation then gives the wait)."""
    h = spec.horizon.period_h
    busy = tuple(job_gpu_hours(w, t) / h for t in range(spec.horizon.periods))
    held = tuple(max(b, float(w.gpus_per_job)) if b > 0 else 0.0 for b in busy)
    speedup = amdahl_speedup(w.parallel_fraction, w.gpus_per_job)
    return PoolDemand(gpus=held, busy_gpus=busy, detail={"speedup": speedup})


def _size_payload(w: Workload, pool: Pool, rate: float) -> dict[str, Any]:
    raw = w.raw
    serving: dict[str, Any] = {
        "requests_per_s": rate,
        "context_len": raw["input_tokens"],
        "output_len": raw["output_tokens"],
    }
    for key in ("max_ttft_s", "max_tpot_s", "latency_percentile"):
        if key in raw and raw[key] is not None:
            serving[key] = raw[key]
    return {
        "model": raw["model"],
        "precision": raw.get("precision") or "bf16",
        "serving": serving,
        "candidates": [{"gpu": pool.gpu_id or _gpu_object(pool), "gpus_per_node": pool.gpus_per_node}],
        "max_gpus_per_replica": min(16, pool.gpus_per_node * 2),
        "disaggregation": False,
    }


def _gpu_object(pool: Pool) -> dict[str, Any]:
    g = pool.gpu
    return {
        "name": g.name,
        "memory_gb": g.hbm_bytes / 2**30,
        "memory_bandwidth_tbs": g.hbm_bandwidth_bytes_per_s / 1e12,
        "tflops": {k: v / 1e12 for k, v in g.peak_flop_per_s.items()},
        "tdp_w": g.tdp_w,
        "scaleup_bandwidth_gbs": g.scaleup_bandwidth_bytes_per_s / 1e9,
    }


def _inference(
    spec: FleetSpec, i: int, j: int, w: Workload, pool: Pool
) -> tuple[PoolDemand | None, str | None]:
    peak = max(w.requests_per_s) or 1.0
    payload = _size_payload(w, pool, peak)
    mapping = {
        "workload.model": f"workloads[{i}].model",
        "model": f"workloads[{i}].model",
        "precision": f"workloads[{i}].precision",
        "serving.requests_per_s": f"workloads[{i}].requests_per_s",
        "serving.context_len": f"workloads[{i}].input_tokens",
        "serving.output_len": f"workloads[{i}].output_tokens",
        "serving": f"workloads[{i}]",
        "candidates[0].gpu": f"pools[{j}].gpu",
        "candidates[0]": f"pools[{j}]",
    }
    try:
        sized = parse_service_request(payload)
    except SpecError as err:
        raise _rewrite(err, mapping) from None
    answer = _sized(sized.request, 0)
    options = [o for o in answer.options if o.meets]
    if not options:
        return None, answer.failure or "no layout meets the latency targets"
    per_period: list[float] = []
    chosen: list[str] = []
    for rate in w.requests_per_s:
        if rate <= 0:
            per_period.append(0.0)
            chosen.append("")
            continue
        best = min(options, key=lambda o: math.ceil(rate / o.max_rate_per_replica) * o.layout.gpus)
        per_period.append(float(math.ceil(rate / best.max_rate_per_replica) * best.layout.gpus))
        chosen.append(best.layout.label())
    busy = tuple(
        g * min(1.0, rate / (g / o_gpus * o_rate)) if g else 0.0
        for g, rate, (o_gpus, o_rate) in zip(
            per_period,
            w.requests_per_s,
            [_layout_rate(options, c) for c in chosen],
            strict=True,
        )
    )
    return PoolDemand(gpus=tuple(per_period), busy_gpus=busy, detail={"layouts": chosen}), None


def _layout_rate(options: list[Any], label: str) -> tuple[float, float]:
    for o in options:
        if o.layout.label() == label:
            return float(o.layout.gpus), float(o.max_rate_per_replica)
    return 1.0, 1.0


def _sized(request: Any, index: int) -> Any:
    return size_gpu(request, request.candidates[index])


def _training(
    spec: FleetSpec, i: int, j: int, w: Workload, pool: Pool, notes: dict[str, Any]
) -> tuple[PoolDemand | None, str | None]:
    raw = w.raw
    ref_gpus = int(raw.get("reference_gpus") or REFERENCE_GPUS_DEFAULT)
    nodes = max(1, math.ceil(ref_gpus / pool.gpus_per_node))
    parallelism = dict(SEARCH_SPACE)
    given = raw.get("parallelism")
    if isinstance(given, dict):
        parallelism.update(given)
    workload: dict[str, Any] = {
        "kind": "training",
        "model": raw["model"],
        "tokens_b": raw["tokens_b"],
        "precision": raw.get("precision") or "bf16",
        "parallelism": parallelism,
    }
    mapping = {
        "workload.parallelism": f"workloads[{i}].parallelism",
        "workload": f"workloads[{i}]",
        "cluster.gpu": f"pools[{j}].gpu",
        "cluster.nodes": f"workloads[{i}].reference_gpus",
        "cluster": f"pools[{j}]",
        "search": f"workloads[{i}]",
    }
    if "global_batch" not in parallelism:
        parallelism["global_batch"] = _default_batch(raw["model"], i)
        notes[f"workloads[{i}].parallelism.global_batch"] = {
            "value": parallelism["global_batch"],
            "unit": "sequences",
            "source": "4M tokens per step (Llama 3, Dubey et al. 2024 Section 3.4.1) / the model's seq_len",
        }
    payload = {
        "cluster": {
            "gpu": pool.gpu_id or _gpu_object(pool),
            "gpus_per_node": pool.gpus_per_node,
            "nodes": nodes,
        },
        "workload": workload,
        "search": {"objective": "min_cost", "max_results": 1},
    }
    try:
        result = run_search(payload)
    except SpecError as err:
        raise _rewrite(err, mapping) from None
    best = result["best"]
    if not best:
        return (
            None,
            f"{w.raw['model'] if isinstance(w.raw['model'], str) else 'the model'} fits on no layout of {nodes * pool.gpus_per_node} {pool.gpu.name} GPUs",
        )
    entry = best[0]
    detail = {
        "reference_gpus": nodes * pool.gpus_per_node,
        "days_on_reference": entry["days"],
        "mfu": entry.get("mfu"),
    }
    return PoolDemand(gpu_hours=float(entry["gpu_hours"]), detail=detail), None


def _default_batch(model: Any, i: int) -> int:
    from planner.engine.inputs.fields import Fields
    from planner.engine.inputs.model import parse_model

    problems: list[Problem] = []
    spec = parse_model(Fields({"model": model}, "", problems, ("model",)), problems, {})
    if spec is None or problems:
        raise _rewrite(
            SpecError(problems or [Problem("workload.model", "is invalid")]), {"workload": f"workloads[{i}]"}
        )
    seq = spec.seq_len or 2048
    return max(1, 2 ** round(math.log2(BATCH_TOKENS_DEFAULT / seq)))


def workload_demand(spec: FleetSpec, progress: Callable[[float], None] | None = None) -> Demand:
    """Every workload's demand on every pool it may use (module docstring); `progress` gets the share done."""
    by_pool: dict[str, dict[str, PoolDemand]] = {}
    failures: dict[str, dict[str, str]] = {}
    notes: dict[str, Any] = {}
    problems: list[Problem] = []
    for i, w in enumerate(spec.workloads):
        if progress is not None:
            progress(i / max(len(spec.workloads), 1))
        by_pool[w.id], failures[w.id] = {}, {}
        for j, pool in _pools_for(spec, w):
            try:
                if w.kind == "service":
                    by_pool[w.id][pool.id] = _service(spec, w, pool)
                    continue
                if w.kind == "jobs":
                    by_pool[w.id][pool.id] = _jobs(spec, w)
                    continue
                if w.kind == "inference":
                    d, why = _inference(spec, i, j, w, pool)
                else:
                    d, why = _training(spec, i, j, w, pool, notes)
            except SpecError as err:
                problems.extend(p for p in err.problems if p not in problems)
                continue
            if d is None:
                failures[w.id][pool.id] = why or "cannot run"
            else:
                by_pool[w.id][pool.id] = d
    if problems:
        raise SpecError(problems)
    return Demand(by_pool, failures, notes, [])
