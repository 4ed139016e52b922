"""The contract's JSON input -> a validated Scenario in SI units, with every problem collected at once.

Units convert here and only here: GB (vendor label, treated as GiB per the contract) -> bytes, TB/s -> bytes/s,
TFLOPS -> FLOP/s, Gb/s -> bytes/s, GB/s -> bytes/s, kW -> W, µs -> s, minutes -> s, hours -> s, billions -> count.
Unknown keys are rejected with their path and a "did you mean" hint; cross-field rules (tp·pp·dp·cp = GPUs,
divisibility of heads, layers, experts and batch; parallelism.py) name the field to change.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.engine.inference.layout import ServingLayout, compute_precision
from planner.engine.inference.layout import layout_problems as serving_layout_problems
from planner.engine.inference.shape import serving_shape
from planner.engine.inputs.cluster import (
    ECONOMICS_KEYS,
    GOODPUT_KEYS,
    PLACEHOLDER_CLUSTER,
    assume,
    cluster_valid,
    gpu_spec_from_object,
    parse_cluster,
    parse_economics,
    parse_goodput,
    parse_search,
    resolve_gpu,
)
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.fields import Fields
from planner.engine.inputs.model import MODEL_PATH, parse_model
from planner.engine.inputs.parallelism import (
    PARALLELISM_KEYS,
    layout_problems,
    parse_auto_layout,
    parse_parallelism,
    parse_search_space,
    wants_auto_layout,
)
from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.serving import (
    INFERENCE_PARALLELISM_KEYS,
    SERVING_KEYS,
    SERVING_PRECISIONS,
    parse_inference_layout,
    parse_serving,
)
from planner.engine.inputs.specs import FRAMEWORK_DEFAULT, FRAMEWORKS, PRECISIONS, GpuSpec, ParallelismSpec
from planner.engine.inputs.units import HOUR
from planner.engine.job.scaling import SCALINGS, JobSpec

#: Upper bound of `workload.efficiency_scale`: the matmul ceiling times the scale stays a plausible fraction.
MAX_EFFICIENCY_SCALE = 1.25
#: `workload.efficiency_scale` when the input leaves it out: the calibrated efficiency as it is.
EFFICIENCY_SCALE_DEFAULT = 1.0
TOP_KEYS = ("cluster", "workload", "economics", "search")
WORKLOAD_KEYS = (
    "kind",
    "model",
    "tokens_b",
    "efficiency_scale",
    "precision",
    "optimizer",
    "parallelism",
    "goodput",
    "serving",
    "job",
    "framework",
)
JOB_KEYS = ("single_gpu_hours", "parallel_fraction", "measured_speedup", "measured_gpus", "scaling")
KINDS = ("training", "inference", "job")
OPTIMIZERS = ("adam", "adamw", "sgd_momentum", "adam_8bit")

#: Defaults of optional inputs (echoed under `assumptions` when used).
PRECISION_DEFAULT = "bf16"
OPTIMIZER_DEFAULT = "adam"


def parse(payload: Any, *, allow_search: bool = False) -> Scenario:
    """Validate `payload` (the contract's input as a dict) and build a Scenario; SpecError lists every problem."""
    problems: list[Problem] = []
    assumptions: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    top = Fields(payload, "", problems, TOP_KEYS)
    if not top.ok:
        raise SpecError(problems)
    if top.has("search") and not allow_search:
        top.problem("search", "only the search command takes a 'search' object")
    cluster = parse_cluster(top, problems, assumptions)
    workload = top.child("workload", WORKLOAD_KEYS, required=True)
    economics = parse_economics(top.child("economics", ECONOMICS_KEYS), problems, assumptions)
    if workload is None or not workload.ok:
        raise SpecError(problems)
    kind = workload.string("kind", default="training", choices=KINDS)
    gp = parse_goodput(workload.child("goodput", GOODPUT_KEYS), problems)
    search = parse_search(top, problems) if allow_search else None
    scenario = Scenario(
        kind=kind or "training",
        cluster=cluster or PLACEHOLDER_CLUSTER,  # an invalid cluster: keep checking the workload
        precision=PRECISION_DEFAULT,
        goodput=gp,
        economics=economics,
        search=search,
    )
    if kind == "training":
        scenario = _training(
            workload, scenario, problems, assumptions, warnings, searching=search is not None
        )
    elif kind == "inference":
        scenario = _inference(workload, scenario, problems, assumptions)
    elif kind == "job":
        for key in (
            "model",
            "tokens_b",
            "efficiency_scale",
            "precision",
            "optimizer",
            "parallelism",
            "serving",
            "goodput",
            "framework",
        ):
            if workload.has(key):
                workload.problem(key, "not used by kind 'job'")
        scenario = replace(scenario, job=_job(workload.child("job", JOB_KEYS, required=True), problems))
    if problems:
        raise SpecError(problems)
    return replace(scenario, assumptions=assumptions, warnings=tuple(warnings))


# --- workload -----------------------------------------------------------------------------------------------------


def _precision(w: Fields, gpu: GpuSpec, assumptions: dict[str, Any]) -> str | None:
    precision = w.string("precision", default=PRECISION_DEFAULT, choices=PRECISIONS)
    if not w.has("precision"):
        assume(
            assumptions, "workload.precision", PRECISION_DEFAULT, "", "mixed-precision BF16 training default"
        )
    if precision is not None and gpu.peak_flop_per_s and gpu.peak_for(precision) is None:
        have = ", ".join(gpu.peak_flop_per_s) or "none"
        w.problem("precision", f"the {gpu.name} has no {precision} peak in its datasheet (it has: {have})")
        return None
    return precision


def _training(
    w: Fields,
    sc: Scenario,
    problems: list[Problem],
    assumptions: dict[str, Any],
    warnings: list[str],
    *,
    searching: bool,
) -> Scenario:
    model = parse_model(w, problems, assumptions)
    tokens_b = w.number("tokens_b", required=True, above=0)
    efficiency_scale = w.number(
        "efficiency_scale", default=EFFICIENCY_SCALE_DEFAULT, above=0, maximum=MAX_EFFICIENCY_SCALE
    )
    if not w.has("efficiency_scale"):
        assume(
            assumptions,
            "workload.efficiency_scale",
            1.0,
            "fraction",
            "achieved matmul efficiency as validated on Megatron-LM-class kernels (1.0); lower it for a "
            "less optimised framework (see `validate`: the Pythia runs on GPT-NeoX)",
        )
    precision = _precision(w, sc.cluster.gpu, assumptions)
    optimizer = w.string("optimizer", default=OPTIMIZER_DEFAULT, choices=OPTIMIZERS)
    if not w.has("optimizer"):
        assume(
            assumptions, "workload.optimizer", OPTIMIZER_DEFAULT, "", "AdamW, mixed precision (16 B/param)"
        )
    framework = w.string("framework", default=FRAMEWORK_DEFAULT, choices=FRAMEWORKS)
    if not w.has("framework"):
        assume(
            assumptions,
            "workload.framework",
            FRAMEWORK_DEFAULT,
            "",
            "framework-neutral: Megatron-style kernels for tensor/pipeline layouts, PyTorch FSDP-style for ZeRO-3 "
            "(perf/framework.py)",
        )
    p = w.child("parallelism", PARALLELISM_KEYS)
    if searching:
        par, space = parse_search_space(p, problems)
        sc = replace(sc, search={**(sc.search or {}), "space": space})
    elif wants_auto_layout(p):
        par, space = parse_auto_layout(p, model, problems, assumptions)
        sc = replace(sc, auto_layout=space)
    else:
        par = parse_parallelism(p, sc, model, problems, assumptions, warnings)
    if w.has("serving"):
        w.problem("serving", "only for kind 'inference'")
    if w.has("job"):
        w.problem("job", "only for kind 'job'")
    return replace(
        sc,
        model=model,
        tokens=None if tokens_b is None else tokens_b * 1e9,
        precision=precision or PRECISION_DEFAULT,
        optimizer=optimizer or OPTIMIZER_DEFAULT,
        parallelism=replace(par or ParallelismSpec(), framework=framework or FRAMEWORK_DEFAULT),
        efficiency_scale=efficiency_scale or 1.0,
    )


def _inference(w: Fields, sc: Scenario, problems: list[Problem], assumptions: dict[str, Any]) -> Scenario:
    model = parse_model(w, problems, assumptions)
    precision = _serving_precision(w, sc.cluster.gpu, assumptions)
    layout = parse_inference_layout(w.child("parallelism", INFERENCE_PARALLELISM_KEYS), problems)
    tp, pp, ep, dp_attention = layout
    gpus = sc.cluster.gpus
    if cluster_valid(sc) and gpus % (tp * pp):
        problems.append(Problem("workload.parallelism.tp", f"tp·pp = {tp * pp} must divide gpus ({gpus})"))
    if model is not None:
        shape = serving_shape(model)
        problems.extend(serving_layout_problems(shape, ServingLayout(tp, pp, ep, dp_attention)))
    s = w.child("serving", SERVING_KEYS, required=True)
    serving = parse_serving(s, model, layout, problems, assumptions) if s is not None and s.ok else None
    for key in ("tokens_b", "optimizer", "job", "framework"):
        if w.has(key):
            w.problem(key, "not used by kind 'inference'")
    par = ParallelismSpec(tp=tp, pp=pp, dp=max(gpus // (tp * pp), 1), ep=ep)
    return replace(
        sc, model=model, precision=precision or PRECISION_DEFAULT, serving=serving, parallelism=par
    )


def _serving_precision(w: Fields, gpu: GpuSpec, assumptions: dict[str, Any]) -> str | None:
    """Weights of a served model: any precision the serving model knows; a format without a tensor peak on this GPU
    runs weight-only (de-quantised to 16-bit for the math), which the result says."""
    precision = w.string("precision", default=PRECISION_DEFAULT, choices=SERVING_PRECISIONS)
    if not w.has("precision"):
        assume(assumptions, "workload.precision", PRECISION_DEFAULT, "", "16-bit (BF16) weights")
    if precision is not None and gpu.peak_flop_per_s and compute_precision(gpu, precision) is None:
        have = ", ".join(gpu.peak_flop_per_s) or "none"
        w.problem(
            "precision",
            f"the {gpu.name} has no tensor peak to compute {precision} weights with (it has: {have})",
        )
        return None
    return precision


def _job(j: Fields | None, problems: list[Problem]) -> JobSpec | None:
    if j is None or not j.ok:
        return None
    hours = j.number("single_gpu_hours", required=True, above=0)
    fraction = j.number("parallel_fraction", minimum=0, maximum=1.0)
    speedup = j.number("measured_speedup", minimum=1.0)
    measured = j.number("measured_gpus", integer=True, minimum=2)
    scaling = j.string("scaling", default="amdahl", choices=SCALINGS)
    if (
        fraction is None
        and (speedup is None or measured is None)
        and not any(j.has(k) for k in ("parallel_fraction", "measured_speedup", "measured_gpus"))
    ):
        j.problem(
            "parallel_fraction", "give parallel_fraction, or measured_speedup together with measured_gpus"
        )
    if speedup is not None and measured is not None and speedup > measured:
        j.problem("measured_speedup", f"must not exceed measured_gpus ({measured}); got {speedup}")
    if hours is None or scaling is None:
        return None
    return JobSpec(
        single_gpu_time_s=hours * HOUR,
        parallel_fraction=fraction,
        measured_speedup=speedup,
        measured_gpus=measured,
        scaling=scaling,
    )


__all__ = ["parse", "layout_problems", "resolve_gpu", "gpu_spec_from_object", "MODEL_PATH"]
