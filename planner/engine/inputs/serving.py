"""`workload.serving` and an inference workload's `parallelism` -> ServingSpec and the serving layout, every problem
named by its field path (docs/engine-contract.md, "Inference")."""

from __future__ import annotations

from typing import Any

from planner.engine.inference.rates import KERNEL_EFFICIENCY_DEFAULT, MAX_KERNEL_EFFICIENCY
from planner.engine.inference.workload import (
    BATCHING,
    LATENCY_PERCENTILES,
    LENGTH_DISTRIBUTIONS,
    SPECULATIVE_METHODS,
    DisaggregationSpec,
    ServingSpec,
    Speculation,
)
from planner.engine.inputs.errors import Problem
from planner.engine.inputs.fields import Fields, join
from planner.engine.inputs.parallelism import PARALLELISM_KEYS
from planner.engine.inputs.specs import PRECISIONS, ModelSpec

SERVING_KEYS = (
    "batch",
    "context_len",
    "output_len",
    "target_tokens_per_s",
    "max_ttft_s",
    "max_tpot_s",
    "kv_precision",
    "batching",
    "requests_per_s",
    "latency_percentile",
    "input_distribution",
    "input_cv",
    "output_distribution",
    "output_cv",
    "prefix_cache_hit_rate",
    "attention_precision",
    "dense_precision",
    "max_running_requests",
    "max_batched_tokens",
    "gpu_memory_utilization",
    "kv_block_tokens",
    "chunked_prefill",
    "overlap_scheduling",
    "fused_gemm_swiglu",
    "eplb",
    "scheduler_steps",
    "kernel_efficiency",
    "cuda_graphs",
    "speculative",
    "disaggregated",
)
SPECULATIVE_KEYS = (
    "method",
    "draft_tokens",
    "acceptance_rate",
    "acceptance_length",
    "draft_cost_fraction",
    "acceptance_source",
)
DISAGGREGATED_KEYS = ("prefill_gpus", "decode_gpus")
INFERENCE_PARALLELISM_KEYS = (*PARALLELISM_KEYS, "dp_attention")
#: Precisions the serving model knows (weights may also be INT4, e.g. AWQ, run weight-only on 16-bit tensor cores).
SERVING_PRECISIONS = (*PRECISIONS, "int4")
#: Draft cost of an MTP or EAGLE head when the input gives none: one transformer layer of the target per draft pass
#: (DeepSeek-V3's MTP module is one layer, arXiv:2412.19437 §2.2; EAGLE's head one decoder layer, arXiv:2401.15077).
#: Per layer of the target: 1 / layers.
ONE_LAYER = "one layer of the target"
#: The acceptance DeepSeek-V3 reports for its MTP head (85-90% for the second token, arXiv:2412.19437 §5.4.3):
#: the default when an MTP input states no acceptance.
MTP_ACCEPTANCE_RATE_DEFAULT = 0.85
MTP_ACCEPTANCE_SOURCE = "DeepSeek-V3 technical report arXiv:2412.19437 §5.4.3: 85-90% for the second token"


def parse_inference_layout(p: Fields | None, problems: list[Problem]) -> tuple[int, int, int, bool]:
    """(tp, pp, ep, dp_attention) of an inference workload; other parallelism keys are training's."""
    tp = pp = ep = 1
    dp_attention = False
    if p is None or not p.ok:
        return tp, pp, ep, dp_attention
    tp = p.number("tp", integer=True, minimum=1, default=1) or 1
    pp = p.number("pp", integer=True, minimum=1, default=1) or 1
    ep = p.number("ep", integer=True, minimum=1, default=1) or 1
    dp_attention = bool(p.boolean("dp_attention", default=False))
    for key in PARALLELISM_KEYS:
        if key not in ("tp", "pp", "ep") and p.has(key):
            p.problem(key, "inference takes only tp, pp, ep and dp_attention")
    return tp, pp, ep, dp_attention


def _speculative(s: Fields | None, model: ModelSpec | None) -> Speculation | None:
    if s is None or not s.ok:
        return None
    method = s.string("method", required=True, choices=SPECULATIVE_METHODS)
    k = s.number("draft_tokens", required=True, integer=True, minimum=1, maximum=16)
    rate = s.number("acceptance_rate", minimum=0, below=1)
    length = s.number("acceptance_length", minimum=1)
    cost = s.number("draft_cost_fraction", minimum=0, maximum=1)
    source = s.string("acceptance_source", default="")
    if rate is not None and length is not None:
        s.problem("acceptance_length", "give acceptance_rate or acceptance_length, not both")
    if length is not None and k is not None and length > k + 1:
        s.problem("acceptance_length", f"cannot exceed draft_tokens + 1 ({k + 1})")
    if method == "draft_model" and cost is None:
        s.problem("draft_cost_fraction", "is required for a draft model (its cost per pass / the target's)")
    if method is None or k is None:
        return None
    if cost is None:
        cost = 0.0 if method == "ngram" else 1.0 / (model.layers if model is not None else 1)
    if rate is None and length is None:
        if method != "mtp":
            s.problem("acceptance_rate", "is required (the measured per-token acceptance of this draft)")
            return None
        rate, source = MTP_ACCEPTANCE_RATE_DEFAULT, source or MTP_ACCEPTANCE_SOURCE
    if length is not None:
        return Speculation(method, k, float(length), float(cost), source or "input")
    return Speculation.from_rate(method, k, float(rate or 0.0), float(cost), source or "input")


def _disaggregated(d: Fields | None) -> DisaggregationSpec | None:
    if d is None or not d.ok:
        return None
    prefill = d.number("prefill_gpus", integer=True, minimum=1)
    decode = d.number("decode_gpus", integer=True, minimum=1)
    if (prefill is None) != (decode is None):
        d.problem("prefill_gpus", "give both prefill_gpus and decode_gpus, or neither (the sizer splits)")
    return DisaggregationSpec(prefill, decode)


def parse_serving(
    s: Fields,
    model: ModelSpec | None,
    layout: tuple[int, int, int, bool],
    problems: list[Problem],
    assumptions: dict[str, Any] | None = None,
) -> ServingSpec | None:
    """The `serving` object (docs/engine-contract.md); defaults the engine cannot know are echoed in
    `assumptions` when given."""
    if assumptions is not None and not s.has("kernel_efficiency"):
        path = join(s.path, "kernel_efficiency")
        assumptions[path] = {
            "value": KERNEL_EFFICIENCY_DEFAULT,
            "unit": "x the calibrated kernel speed (compute side of GEMMs and attention)",
            "source": "the average of the published serving stacks in the calibration set (python -m "
            "planner.engine validate); the same GPU and model differ by software release (H200 Llama 2 70B "
            "TensorRT-LLM, MLPerf v4.0/v4.1/v5.1: 3,467/3,913/4,352 tokens/s per GPU); state your own stack's in "
            f"{path}, (0, {MAX_KERNEL_EFFICIENCY:g}]",
        }
    batching = s.string("batching", default="continuous", choices=BATCHING)
    batch = s.number("batch", required=batching == "static", integer=True, minimum=1)
    context = s.number("context_len", required=True, integer=True, minimum=1)
    output = s.number("output_len", required=True, integer=True, minimum=1)
    target = s.number("target_tokens_per_s", above=0)
    ttft = s.number("max_ttft_s", above=0)
    tpot = s.number("max_tpot_s", above=0)
    kv_precision = s.string("kv_precision", choices=PRECISIONS)
    rate = s.number("requests_per_s", above=0)
    percentile = s.number("latency_percentile", default=90)
    if percentile is not None and float(percentile) not in LATENCY_PERCENTILES:
        s.problem("latency_percentile", "must be 50, 90 or 99")
        percentile = None
    dists: dict[str, Any] = {}
    for side in ("input", "output"):
        dists[side] = s.string(f"{side}_distribution", default="fixed", choices=LENGTH_DISTRIBUTIONS)
        dists[f"{side}_cv"] = s.number(f"{side}_cv", default=0.0, minimum=0, maximum=10)
        if dists[side] == "lognormal" and not s.has(f"{side}_cv"):
            s.problem(
                f"{side}_cv", "is required with a lognormal distribution (its coefficient of variation)"
            )
    engine: dict[str, Any] = {
        "prefix_cache_hit_rate": s.number("prefix_cache_hit_rate", default=0.0, minimum=0, below=1),
        "attention_precision": s.string("attention_precision", choices=("bf16", "fp16", "fp8")),
        "dense_precision": s.string("dense_precision", choices=SERVING_PRECISIONS),
        "max_running_requests": s.number("max_running_requests", integer=True, minimum=1, maximum=1_000_000),
        "max_batched_tokens": s.number("max_batched_tokens", integer=True, minimum=16, maximum=10_000_000),
        "gpu_memory_utilization": s.number("gpu_memory_utilization", above=0, maximum=1),
        "kv_block_tokens": s.number("kv_block_tokens", integer=True, minimum=1, maximum=1024),
        "chunked_prefill": s.boolean("chunked_prefill", default=True),
        "overlap_scheduling": s.boolean("overlap_scheduling", default=False),
        "fused_gemm_swiglu": s.boolean("fused_gemm_swiglu", default=False),
        "eplb": s.boolean("eplb", default=False),
        "scheduler_steps": s.number("scheduler_steps", integer=True, default=1, minimum=1, maximum=64),
        "kernel_efficiency": s.number(
            "kernel_efficiency",
            default=KERNEL_EFFICIENCY_DEFAULT,
            above=0,
            maximum=MAX_KERNEL_EFFICIENCY,
        ),
        "cuda_graphs": s.boolean("cuda_graphs", default=True),
    }
    speculative = _speculative(s.child("speculative", SPECULATIVE_KEYS), model)
    if speculative is not None and batching == "static":
        s.problem("speculative", "is modelled for continuous batching only")
    disaggregated = _disaggregated(s.child("disaggregated", DISAGGREGATED_KEYS))
    if disaggregated is not None and batching == "static":
        s.problem("disaggregated", "is modelled for continuous batching only")
    _, _, ep, dp_attention = layout
    if (
        None in (batching, context, output, percentile)
        or None in dists.values()
        or None
        in (
            engine["prefix_cache_hit_rate"],
            engine["chunked_prefill"],
            engine["overlap_scheduling"],
            engine["fused_gemm_swiglu"],
            engine["eplb"],
            engine["scheduler_steps"],
            engine["kernel_efficiency"],
            engine["cuda_graphs"],
        )
    ):
        return None
    if batching == "static" and batch is None:
        return None
    return ServingSpec(
        batch,
        context,
        output,
        target,
        ttft,
        tpot,
        kv_precision,
        batching=batching,
        requests_per_s=rate,
        latency_percentile=float(percentile),
        input_distribution=dists["input"],
        input_cv=float(dists["input_cv"]),
        output_distribution=dists["output"],
        output_cv=float(dists["output_cv"]),
        speculative=speculative,
        disaggregated=disaggregated,
        ep=ep,
        dp_attention=dp_attention,
        **engine,
    )
