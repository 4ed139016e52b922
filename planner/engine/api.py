"""The engine's Python entry points: estimate, search, presets, catalog_gpu, ENGINE_VERSION.

`estimate` parses the contract's input (inputs/parse.py), evaluates the workload (training: training/memory.py,
training/step_time.py and training/goodput.py; inference: inference/roofline.py; job: job/scaling.py) and the
facility around it (facility/sections.py: network, power and cost), and returns the contract's output dict of
plain JSON values. `search` is search/layouts.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from planner.engine.accuracy import nearest, uncertainty
from planner.engine.facility.sections import facility_sections
from planner.engine.inference import continuous
from planner.engine.inference.layout import ServingLayout
from planner.engine.inference.roofline import estimate_inference
from planner.engine.inference.service import Deployment
from planner.engine.inference.sizing_report import size_service_answer
from planner.engine.inputs.catalog import catalog_gpu as _catalog_gpu
from planner.engine.inputs.cluster import assume
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.parse import parse
from planner.engine.inputs.presets import presets as _presets
from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.service import parse_service_request
from planner.engine.inputs.units import BILLION, DAY, HOUR, TERA, GiB
from planner.engine.job.scaling import estimate_job
from planner.engine.job.throughput import job_under_power_cap
from planner.engine.perf import achieved, comm, efficiency, framework
from planner.engine.perf.hardware import gpu_key, hardware_of, published_ceiling
from planner.engine.perf.layout import layout_for, numerics_for
from planner.engine.results import (
    EstimateResult,
    MemoryBreakdownGib,
    MemorySection,
    ModelSection,
    SearchResult,
    StepBreakdownS,
    TimeSection,
    TrainingParallelismSection,
    TrainingSections,
)
from planner.engine.search.layouts import choose_layout, run_search
from planner.engine.training import goodput, memory
from planner.engine.training.step_time import step_breakdown, throughput
from planner.engine.transformer.flops import model_flop_per_token
from planner.engine.transformer.shape import ModelShape, shape_of
from planner.engine.version import ENGINE_VERSION

__all__ = [
    "ENGINE_VERSION",
    "estimate",
    "search",
    "size_service",
    "fleet",
    "presets",
    "catalog_gpu",
    "evaluate",
    "SpecError",
]


def presets() -> dict[str, dict[str, Any]]:
    return _presets()


def catalog_gpu(gpu_id: str) -> dict[str, Any]:
    return _catalog_gpu(gpu_id)


def estimate(payload: dict[str, Any]) -> EstimateResult:
    """The contract's `estimate`: SpecError on bad input, otherwise the full output dict."""
    return evaluate(parse(payload))


def size_service(payload: dict[str, Any]) -> dict[str, Any]:
    """Size a service (docs/engine-contract.md, "Sizing a service"): per candidate GPU type the cheapest layout
    and GPU count that serve `requests_per_s` within the latency targets. SpecError on bad input."""
    return size_service_answer(parse_service_request(payload))


def fleet(payload: dict[str, Any]) -> dict[str, Any]:
    """The fleet planner (docs/fleet-contract.md): what to buy each period and where each workload runs."""
    from planner.engine.fleet import plan

    return plan(payload)


def search(payload: dict[str, Any]) -> SearchResult:
    """The contract's `search` (search/layouts.py)."""
    return run_search(payload)


def evaluate(sc: Scenario, *, time_without_fit: bool = False) -> EstimateResult:
    """Evaluate a parsed scenario: the workload section(s), then network, power and cost.

    `time_without_fit` (validation only, accuracy/validation.py): give the training time of a published layout
    even when the memory model says it does not fit, so that the time model is still checked against it."""
    warnings: list[str] = list(sc.warnings)
    assumptions: dict[str, Any] = dict(sc.assumptions)
    out: dict[str, Any] = {"engine_version": ENGINE_VERSION, "kind": sc.kind}
    run_time_s: float | None = None
    time_band: tuple[float, float] | None = None
    if sc.kind == "training":
        sections, run_time_s, time_band = _training(sc, warnings, assumptions, time_without_fit)
        out.update(sections)
    elif sc.kind == "inference":
        out.update(_inference(sc, warnings, assumptions))
    else:
        assert sc.job is not None
        job = job_under_power_cap(sc.job, sc.cluster.gpu_power_limit_w, sc.cluster.gpu_tdp_uncapped_w)
        result = estimate_job(job, sc.cluster.gpus)
        out["job"] = result.as_dict()
        assumptions.update(result.assumptions)
        run_time_s = result.time_s
    out.update(facility_sections(sc, run_time_s, time_band, warnings, assumptions))
    if sc.kind == "inference":
        out["inference"]["usd_per_million_tokens"] = usd_per_million_tokens(out, sc)
    out["assumptions"] = assumptions
    out["warnings"] = list(dict.fromkeys(warnings))
    return cast(EstimateResult, out)


# --- training -------------------------------------------------------------------------------------------------


def _auto_layout(sc: Scenario, warnings: list[str], assumptions: dict[str, Any]) -> Scenario:
    """`workload.parallelism` omitted or `"auto": true`: the layout the search ranks first (search/layouts.py
    `choose_layout`, the planning page's automatic layout), echoed under `parallelism` with `auto` true."""
    choice = choose_layout(sc)
    p = choice.parallelism
    fixed = ", ".join(sorted(k for k, v in (sc.auto_layout or {}).items() if not isinstance(v, list)))
    assumptions["workload.parallelism"] = {
        "value": f"TP{p.tp} · PP{p.pp} · DP{p.dp} · CP{p.cp}"
        + (f" · EP{p.ep}" if p.ep > 1 else "")
        + f" · ZeRO-{p.zero_stage} · {p.recompute} recompute · micro-batch {p.micro_batch}",
        "unit": "",
        "source": f"automatic layout: the fastest of {choice.evaluated:,} valid layouts that fits "
        f"({choice.feasible:,} fit; search objective min_time)"
        + (f"; fixed by the input: {fixed}" if fixed else ""),
    }
    if not choice.fits:
        warnings.append(
            f"no parallel layout of the {sc.cluster.gpus:,} GPUs fits this model in GPU memory "
            f"({choice.evaluated:,} tried); shown: the layout that needs the least memory. Add GPUs, use a GPU "
            "with more memory, or shorten the sequences"
        )
    if sc.model is not None and p.tp > sc.model.kv_heads and sc.model.mla is None:
        assume(
            assumptions,
            "workload.parallelism.kv_heads_replicated",
            p.tp // sc.model.kv_heads,
            "copies",
            "tp > kv_heads: each KV head is replicated on tp/kv_heads ranks (Megatron-Core GQA)",
        )
    return replace(sc, parallelism=p)


def _training(
    sc: Scenario, warnings: list[str], assumptions: dict[str, Any], time_without_fit: bool = False
) -> tuple[TrainingSections, float | None, tuple[float, float] | None]:
    assert sc.model is not None and sc.tokens is not None
    if sc.auto_layout is not None:
        sc = _auto_layout(sc, warnings, assumptions)
    c = sc.cluster
    sh = shape_of(sc.model)
    num = numerics_for(sc.precision, sc.optimizer)
    hw = hardware_of(sc)
    lay = layout_for(sc.parallelism)
    mem = memory.memory_breakdown(sh, lay, num, hw)
    br = step_breakdown(sh, lay, num, hw)
    step_s = float(br["step_s"])
    th = throughput(sh, lay, hw, br["step_s"])
    tokens_per_step = sc.parallelism.global_batch * sc.model.seq_len
    steady_s = sc.tokens / tokens_per_step * step_s
    ramp_s, long_s = _whole_run_extras(sc, sh, num, hw, tokens_per_step / step_s, warnings)
    gp = goodput.estimate_goodput(sc.goodput, c.gpus, steady_s, ramp_s, long_s)
    total_s = gp.total_s
    band = uncertainty.range_for(_scope(sc, sh))
    low_s, high_s = total_s * band.low_ratio, total_s * band.high_ratio
    gpu_hours = c.gpus * total_s / HOUR
    memory_section = _memory_section(mem, c.gpu.name, warnings)
    assumptions.update(efficiency.assumptions())
    assumptions.update(framework.assumptions(sc.parallelism.framework))
    assumptions.update(achieved.assumptions(published_ceiling(sc)))
    assumptions.update(comm.assumptions())
    assumptions.update(memory.assumptions())
    assumptions.update(goodput.assumptions(sc.goodput, gp))
    assumptions.update(uncertainty.assumptions(band))
    sections: TrainingSections = {
        "model": _model_section(sc, sh),
        "parallelism": _parallelism_section(sc),
        "memory": memory_section,
        "time": None,
    }
    if not memory_section["fits"] and not time_without_fit:
        return sections, None, None  # a run that cannot start has no time (docs/engine-contract.md)
    warnings.extend(gp.warnings)
    _ceiling_warning(sc, br, step_s, warnings)
    if float(br["cross_node_tp"]):
        warnings.append("tensor parallelism spans nodes: its collectives run on the scale-out network")
    bubble = float(br["parts"]["pp_bubble"]) / step_s
    if bubble > 0.2:
        warnings.append(
            f"the pipeline bubble takes {bubble:.0%} of each step: raise global_batch or virtual_stages"
        )
    time_section: TimeSection = {
        "step_s": step_s,
        "tokens_per_s": float(th["tokens_per_s"]),
        "mfu": float(th["mfu"]),
        "hfu": float(th["hfu"]),
        "model_tflops_per_gpu": float(th["model_flop_per_s_per_gpu"]) / TERA,
        "hardware_tflops_per_gpu": float(th["hardware_flop_per_s_per_gpu"]) / TERA,
        "days": total_s / DAY,
        "gpu_hours": gpu_hours,
        "days_low": low_s / DAY,
        "days_high": high_s / DAY,
        "gpu_hours_low": c.gpus * low_s / HOUR,
        "gpu_hours_high": c.gpus * high_s / HOUR,
        "range_ratio": [band.low_ratio, band.high_ratio],
        "range_reasons": list(band.reasons),
        "goodput": gp.fraction,
        "steady_days": steady_s / DAY,
        "steady_state_days": steady_s / DAY,
        "overheads": goodput.overheads(gp),
        "steps": sc.tokens / tokens_per_step,
        "tokens": sc.tokens,
        "expected_interruptions": gp.failures,
        "breakdown_s": cast(StepBreakdownS, {k: float(v) for k, v in br["parts"].items()}),
        "nearest_validated_case": nearest.nearest_case(
            gpu_key(c.gpu),
            sc.parallelism.tp,
            sc.parallelism.pp,
            sc.parallelism.zero_stage,
            sh.total_params / BILLION,
            c.gpus,
        ),
    }
    sections["time"] = time_section
    return sections, total_s, (low_s, high_s)


def _scope(sc: Scenario, sh: ModelShape) -> uncertainty.Scope:
    """What the range's distance test reads of a training scenario (accuracy/uncertainty.py)."""
    assert sc.model is not None
    gpu, p = sc.cluster.gpu, sc.parallelism
    return uncertainty.Scope(
        gpu=uncertainty.gpu_generation(gpu.catalog_id, gpu.name),
        family=uncertainty.layout_family(p.tp, p.pp, p.zero_stage),
        params_b=sh.total_params / BILLION,
        gpus=sc.cluster.gpus,
        precision=sc.precision,
        cp=p.cp,
        moe=sc.model.moe is not None,
        gpu_name=gpu.name,
    )


def _whole_run_extras(
    sc: Scenario, sh: ModelShape, num: Any, hw: Any, tokens_per_s: float, warnings: list[str]
) -> tuple[float, float]:
    """Extra seconds of the batch ramp-up (its tokens at half the global batch) and of the long-context stage (its
    tokens at long_context_seq_len instead of seq_len) over the same tokens at the steady state
    (training/goodput.py). Both 0 unless the input states them."""
    assert sc.model is not None and sc.tokens is not None
    gp, p = sc.goodput, sc.parallelism
    per_step = p.micro_batch * p.dp
    ramp_s = long_s = 0.0
    if gp.ramp_up_tokens > 0:
        half = max(per_step, (p.global_batch // 2) // per_step * per_step)
        rate = _tokens_per_s(sh, replace(p, global_batch=half), num, hw, half * sc.model.seq_len)
        ramp_s = max(min(gp.ramp_up_tokens, sc.tokens) * (1.0 / rate - 1.0 / tokens_per_s), 0.0)
    if gp.long_context_tokens > 0 and gp.long_context_seq_len:
        seq = gp.long_context_seq_len
        batch = max(per_step, round(p.global_batch * sc.model.seq_len / seq / per_step) * per_step)
        long_sh = shape_of(replace(sc.model, seq_len=seq))
        rate = _tokens_per_s(long_sh, replace(p, global_batch=batch), num, hw, batch * seq)
        long_s = max(min(gp.long_context_tokens, sc.tokens) * (1.0 / rate - 1.0 / tokens_per_s), 0.0)
        if gp.long_context_tokens > sc.tokens:
            warnings.append(
                "long_context_tokens_b exceeds tokens_b: the whole run is timed at the long context"
            )
    return ramp_s, long_s


def _tokens_per_s(sh: ModelShape, parallelism: Any, num: Any, hw: Any, tokens_per_step: float) -> float:
    return tokens_per_step / float(step_breakdown(sh, layout_for(parallelism), num, hw)["step_s"])


def _ceiling_warning(sc: Scenario, br: dict[str, Any], step_s: float, warnings: list[str]) -> None:
    """Say when the step was held to the best published MFU of the generation (perf/achieved.py)."""
    found = published_ceiling(sc)
    held_s = float(br["parts"]["ceiling"])
    if found is None or held_s <= achieved.CEILING_WARNING_FRACTION * step_s:
        return
    unheld = (step_s - held_s) / step_s
    warnings.append(
        f"the step model gives this layout {1 / unheld:.2f}× the throughput the time assumes: no published "
        f"{sc.precision.upper()} run on this GPU generation has exceeded {found.mfu:.1%} MFU ({found.source}); "
        "each pipeline replica's work is held at that figure, and the data-parallel traffic and optimizer come "
        "on top"
    )


def _model_section(sc: Scenario, sh: ModelShape) -> ModelSection:
    return {
        "name": sc.model.name if sc.model else "",
        "params_b": sh.total_params / BILLION,
        "active_params_b": sh.active_params / BILLION,
        "flop_per_token": model_flop_per_token(sh),
    }


def _parallelism_section(sc: Scenario) -> TrainingParallelismSection:
    p = sc.parallelism
    return {
        "tp": p.tp,
        "pp": p.pp,
        "dp": p.dp,
        "cp": p.cp,
        "ep": p.ep,
        "virtual_stages": p.virtual_stages,
        "sequence_parallel": p.sequence_parallel,
        "zero_stage": p.zero_stage,
        "recompute": p.recompute,
        "flash_attention": p.flash_attention_input,
        "flash_attention_version": p.flash_attention_version if p.flash_attention else None,
        "dp_overlap": p.dp_overlap,
        "reshard_after_forward": p.reshard_after_forward,
        "hsdp": p.hsdp,
        "pipeline_split": p.pipeline_split,
        "framework": p.framework,
        "micro_batch": p.micro_batch,
        "global_batch": p.global_batch,
        "microbatches": p.global_batch // (p.dp * p.micro_batch),
        "gpus": sc.cluster.gpus,
        "auto": sc.auto_layout is not None,
    }


def _memory_section(mem: dict[str, Any], gpu_name: str, warnings: list[str]) -> MemorySection:
    gib = {
        k: float(mem[f"{k}_bytes"]) / GiB
        for k in ("weights", "gradients", "optimizer", "activations", "other")
    }
    per_gpu = float(mem["per_gpu_bytes"]) / GiB
    capacity = float(mem["capacity_bytes"]) / GiB
    fits = bool(mem["fits"])
    stage = ("first", "second", "last")[int(mem["most_loaded_stage"])]
    message = (
        f"needs {per_gpu:.1f} GiB per GPU (the {stage} pipeline stage), the {gpu_name} has {capacity:.0f} GiB"
    )
    if not fits:
        warnings.append(f"does not fit: {message}")
    return {
        "weights_gib": gib["weights"],
        "gradients_gib": gib["gradients"],
        "optimizer_gib": gib["optimizer"],
        "activations_gib": gib["activations"],
        "kv_cache_gib": 0.0,
        "other_gib": gib["other"],
        "per_gpu_gib": per_gpu,
        "capacity_gib": capacity,
        "fits": fits,
        "headroom_gib": capacity - per_gpu,
        "message": message,
        "breakdown_gib": cast(MemoryBreakdownGib, {**gib, "kv_cache": 0.0}),
    }


# --- inference --------------------------------------------------------------------------------------------------


def _inference(sc: Scenario, warnings: list[str], assumptions: dict[str, Any]) -> dict[str, Any]:
    assert sc.model is not None and sc.serving is not None
    if sc.serving.batching == "continuous":
        return _continuous(sc, warnings, assumptions)
    c = sc.cluster
    overhead = memory.CUDA_CONTEXT_BYTES + memory.NCCL_BUFFER_BYTES
    res = estimate_inference(
        model=sc.model,
        gpu=c.gpu,
        serving=sc.serving,
        precision=sc.precision,
        tp=sc.parallelism.tp,
        pp=sc.parallelism.pp,
        gpus=c.gpus,
        overhead_bytes=overhead,
        scaleout_bytes_per_s=c.scaleout_bytes_per_s_per_gpu,
        scaleout_latency_s=c.network.latency_s,
        gpus_per_node=c.gpus_per_node,
    )
    warnings.extend(res.warnings)
    assumptions.update(res.assumptions)
    assumptions.update(memory.assumptions())
    sh = shape_of(sc.model)
    breakdown = {
        "weights": res.weights_bytes_per_gpu / GiB,
        "gradients": 0.0,
        "optimizer": 0.0,
        "activations": 0.0,
        "kv_cache": res.kv_cache_bytes_per_gpu / GiB,
        "other": res.overhead_bytes / GiB,
    }
    return {
        "model": _model_section(sc, sh),
        "parallelism": _inference_parallelism(sc),
        "memory": _inference_memory(sc, breakdown, res.capacity_bytes / GiB, res.fits),
        "inference": {**res.as_dict(), **static_serving_keys(res.as_dict(), sc.serving)},
    }


def serving_deployment(sc: Scenario) -> Deployment:
    """The continuous-batching deployment of a parsed inference scenario (one replica per tp·pp GPUs)."""
    assert sc.model is not None and sc.serving is not None
    c, s, p = sc.cluster, sc.serving, sc.parallelism
    return continuous.deployment(
        model=sc.model,
        gpu=c.gpu,
        serving=s,
        precision=sc.precision,
        layout=ServingLayout(p.tp, p.pp, p.ep, s.dp_attention),
        replicas=c.gpus // (p.tp * p.pp),
        gpus_per_node=c.gpus_per_node,
        scaleout_bytes_per_s=c.scaleout_bytes_per_s_per_gpu,
    )


def _continuous(sc: Scenario, warnings: list[str], assumptions: dict[str, Any]) -> dict[str, Any]:
    """Continuous batching at a request rate (inference/continuous.py)."""
    assert sc.model is not None and sc.serving is not None
    c, s = sc.cluster, sc.serving
    res = continuous.estimate_continuous(serving_deployment(sc), s, c.gpus)
    warnings.extend(res.warnings)
    assumptions.update(res.assumptions)
    assumptions.update(memory.assumptions())
    breakdown = {"gradients": 0.0, "optimizer": 0.0, **res.memory}
    breakdown = {
        k: breakdown[k] for k in ("weights", "gradients", "optimizer", "activations", "kv_cache", "other")
    }
    return {
        "model": _model_section(sc, shape_of(sc.model)),
        "parallelism": _inference_parallelism(sc),
        "memory": _inference_memory(sc, breakdown, c.gpu.hbm_bytes / GiB, res.fits),
        "inference": res.section,
    }


def _inference_parallelism(sc: Scenario) -> dict[str, Any]:
    p, s = sc.parallelism, sc.serving
    assert s is not None
    return {"tp": p.tp, "pp": p.pp, "ep": p.ep, "dp_attention": s.dp_attention, "gpus": sc.cluster.gpus}


def _inference_memory(
    sc: Scenario, breakdown: dict[str, float], capacity: float, fits: bool
) -> dict[str, Any]:
    per_gpu = sum(breakdown.values())
    assert sc.serving is not None
    batch = sc.serving.batch
    what = f"batch {batch}" if batch else "the running requests"
    message = f"needs {per_gpu:.1f} GiB per GPU for {what}, the {sc.cluster.gpu.name} has {capacity:.0f} GiB"
    return {
        **{f"{k}_gib": v for k, v in breakdown.items()},
        "per_gpu_gib": per_gpu,
        "capacity_gib": capacity,
        "fits": fits,
        "headroom_gib": capacity - per_gpu,
        "message": message,
        "breakdown_gib": breakdown,
    }


def usd_per_million_tokens(out: dict[str, Any], sc: Scenario) -> dict[str, float | None] | None:
    """Cost of a million output tokens: the cluster's GPU-hours per hour at the owning cost per utilised GPU-hour
    (tco.py) and at the cloud price, over the output tokens it produces in an hour: at the request rate when one is
    given (what it serves of it), else at the given batch. None without economics."""
    cost = out.get("cost")
    if cost is None or sc.economics is None:
        return None
    section = out["inference"]
    tokens = section.get("output_tokens_per_s_at_rate") or section["tokens_per_s"]
    if not tokens:
        return {"own": None, "cloud": None}
    million_per_hour = tokens * HOUR / 1e6
    gpus = sc.cluster.gpus
    return {
        "own": gpus * cost["usd_per_gpu_hour"] / million_per_hour,
        "cloud": gpus * sc.economics.cloud_usd_per_gpu_hour / million_per_hour,
    }


def static_serving_keys(section: dict[str, Any], serving: Any) -> dict[str, Any]:
    """The continuous-batching keys for a static batch: every request of the batch sees the same TTFT (the batch's
    prefill) and TPOT, so each percentile is that value; the rate is the batch's throughput in requests."""
    ttft, tpot = section["ttft_s"], section["tpot_s"]
    return {
        "batching": "static",
        "requests_per_s": serving.rate_per_s,
        "latency_percentile": serving.latency_percentile,
        **{f"ttft_s_p{q}": ttft for q in (50, 90, 99)},
        **{f"tpot_s_p{q}": tpot for q in (50, 90, 99)},
        "speculative": None,
        "disaggregated": None,
        "engine": {
            "kernel_efficiency": serving.kernel_efficiency,
            "kernel_efficiency_basis": "static batching (roofline): multiplies the measured matmul ceiling, as "
            "workload.efficiency_scale does for training; 1.0 is the training calibration's kernel efficiency",
        },
    }
