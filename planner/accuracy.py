"""The engine-accuracy page: every published case the engine ships, grouped, with its error and its source.

The figures come from planner.engine.accuracy.validation (the same computation as
`python -m planner.engine validate`), evaluated once per process: the cases and the engine do not change while it runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from planner.engine.accuracy import uncertainty
from planner.engine.accuracy.cases import CaseResult
from planner.engine.accuracy.serving import (
    HIGH_PERCENTILE,
    LOW_PERCENTILE,
    TARGET_MEDIAN_ERROR,
    ServingAccuracy,
    ServingRow,
    serving_accuracy,
)
from planner.engine.accuracy.validation import AccuracyReport, accuracy_report
from planner.selectors import linked_parts

#: Group id -> (title, what is compared). Order is the page's order.
GROUPS: dict[str, tuple[str, str]] = {
    "korthikanti2022": (
        "Iteration time, Korthikanti et al. 2022 (Megatron-LM, Table 5)",
        "Seconds per training step of GPT models from 22B to 1T parameters on A100s, with full or selective "
        "activation recomputation. Tolerance 10% each, 5% for the median.",
    ),
    "megatron2021": (
        "Throughput per GPU, Narayanan et al. 2021 (Megatron-LM, Table 1)",
        "TFLOP/s per A100 counting recomputation, 1.7B to 1T parameters on up to 3,072 GPUs. Tolerance 15%.",
    ),
    "whole_run": (
        "Whole training runs (GPU-hours)",
        "Published GPU-hours of complete runs against the engine's whole-run time: the steady state plus "
        "evaluation passes, stragglers and other run losses (fitted on these runs), checkpoints, failures and "
        "restarts (training/goodput.py). Tolerance 25%.",
    ),
    "benchmark": (
        "Other published throughput",
        "Tokens per second per GPU, model FLOPs utilisation or TFLOP/s per GPU as published: MosaicML's llm-foundry "
        "on A100 and H100 (FSDP), torchtitan (FSDP2) on A100 and H100, GPT-NeoX-20B and Llama 3.1 405B "
        "pre-training. Tolerance 25%.",
    ),
    "holdout": (
        "Whole runs held out (independent check, never calibrated)",
        "Published GPU-hours of Llama 1, Llama 2, Llama 3.1, Falcon-180B, BloombergGPT and SmolLM3, named in issue "
        "13 as an independent check: no constant was fitted to them and they are not in the range's fit. Their "
        "layouts and GPU counts are mostly unpublished; what was assumed is written beside each source.",
    ),
    "formula": (
        "Memory formulas",
        "ZeRO model-state bytes, activation bytes per layer (Korthikanti et al. 2022, Table 2) and KV-cache "
        "bytes per token: closed forms the engine must reproduce to within 1% (KV cache exactly).",
    ),
}
METRIC_LABELS: dict[str, str] = {
    "iteration_s": "step time (s)",
    "hardware_tflops_per_gpu": "TFLOP/s per GPU",
    "gpu_hours": "GPU-hours",
    "mfu": "MFU",
    "tokens_per_s_per_gpu": "tokens/s per GPU",
    "model_state_gb": "model states (GB)",
    "activation_bytes_per_layer": "activation bytes per layer",
    "kv_kib_per_token": "KV cache (KiB per token)",
    "kv_gib_per_sequence": "KV cache (GiB per sequence)",
}


@dataclass(frozen=True)
class AccuracyRow:
    case: CaseResult
    metric_label: str
    source_parts: list[tuple[str, str]]  # (text, link or ""), selectors.linked_parts
    #: The engine with its calibrated constants refitted without this case (accuracy/loo.py); None for the
    #: closed-form checks.
    loo_engine: float | None = None

    @property
    def loo_error(self) -> float | None:
        return None if self.loo_engine is None else self.loo_engine / self.case.published - 1.0


@dataclass(frozen=True)
class AccuracyGroup:
    key: str
    title: str
    intro: str
    rows: tuple[AccuracyRow, ...]


#: Serving metric -> what the page calls it.
SERVING_METRIC_LABELS: dict[str, str] = {
    "output_tokens_per_s_per_gpu": "output tokens/s per GPU",
    "decode_tokens_per_s_per_gpu": "decode tokens/s per GPU",
    "input_tokens_per_s_per_gpu": "prefill tokens/s per GPU",
    "requests_per_s": "requests/s",
    "ttft_p50_s": "TTFT p50 (s)",
    "tpot_p50_s": "TPOT p50 (s)",
    "ttft_mean_s": "TTFT mean (s)",
    "tpot_mean_s": "TPOT mean (s)",
}
#: Serving group -> (title, what it is).
SERVING_GROUPS: dict[str, tuple[str, str]] = {
    "calibration": (
        "Serving, calibration group",
        "MLPerf Inference v4.0/v5.0/v5.1, TensorRT-LLM perf-overview tables after 1.0, vLLM, SGLang and AMD "
        "serving posts. The engine's few fitted serving constants were fitted on these, all at once; the "
        "leave-one-out column is the engine with that measurement left out of the fit, which the ranges come from.",
    ),
    "holdout": (
        "Serving, hold-out group (never fitted)",
        "MLPerf Inference v4.1, TensorRT-LLM perf-overview tables up to 1.0 and NVIDIA NIM 1.x benchmark pages: an "
        "independent check the engine was never tuned to.",
    ),
}


#: Summary key of the serving report -> what the page calls it.
SERVING_SUMMARY_LABELS: dict[str, str] = {
    "calibration.throughput": "Calibration: throughput",
    "calibration.latency": "Calibration: p50 latency",
    "holdout.throughput": "Hold-out: throughput",
    "holdout.latency": "Hold-out: latency",
}


@dataclass(frozen=True)
class ServingGroup:
    key: str
    title: str
    intro: str
    rows: tuple[tuple[ServingRow, str, list[tuple[str, str]]], ...]  # (row, metric label, source parts)


@dataclass(frozen=True)
class AccuracyPage:
    report: AccuracyReport
    groups: tuple[AccuracyGroup, ...]
    serving: ServingAccuracy
    serving_groups: tuple[ServingGroup, ...]
    serving_summary: tuple[tuple[str, dict[str, object]], ...] = ()
    serving_target: float = TARGET_MEDIAN_ERROR
    serving_percentiles: tuple[float, float] = (LOW_PERCENTILE, HIGH_PERCENTILE)


def page_group(case: CaseResult) -> str:
    """The page's group of a case: the holdout apart from the cases the engine was calibrated and validated on."""
    return "holdout" if case.holdout else case.group


@lru_cache(maxsize=1)
def accuracy_page() -> AccuracyPage:
    """Every shipped case in its group (groups in GROUPS order; an unknown group goes last under its id)."""
    report = accuracy_report()
    loo = {c.id: c.engine_leave_one_out for c in uncertainty.loo_cases()}
    keys = list(GROUPS) + sorted({page_group(c) for c in report.cases} - set(GROUPS))
    groups = []
    for key in keys:
        rows = tuple(
            AccuracyRow(c, METRIC_LABELS.get(c.metric, c.metric), linked_parts(c.source), loo.get(c.id))
            for c in report.cases
            if page_group(c) == key
        )
        if rows:
            title, intro = GROUPS.get(key, (key, ""))
            groups.append(AccuracyGroup(key, title, intro, rows))
    serving = serving_accuracy()
    serving_groups = tuple(
        ServingGroup(
            key,
            title,
            intro,
            tuple(
                (r, SERVING_METRIC_LABELS.get(r.case.metric, r.case.metric), linked_parts(r.case.source))
                for r in serving.rows
                if r.case.group == key
            ),
        )
        for key, (title, intro) in SERVING_GROUPS.items()
    )
    summary = tuple((SERVING_SUMMARY_LABELS.get(k, k), v) for k, v in serving.summary.items())
    return AccuracyPage(report, tuple(groups), serving, serving_groups, summary)
