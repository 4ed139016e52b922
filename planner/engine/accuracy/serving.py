"""The serving model against published serving measurements (planner/engine/accuracy/data/serving_*.csv).

* serving_measurements.csv: the published figures, one row per measurement, with model, GPU, precision, layout,
  lengths, load, throughput, TTFT/TPOT percentiles and the source (MLPerf Inference result logs, TensorRT-LLM
  perf-overview tables, vLLM/SGLang/AMD blogs, NVIDIA NIM pages). Group "calibration" may fit the constants in
  inference/rates.py; group "holdout" (MLPerf Inference v4.1, TensorRT-LLM <= 1.0, NVIDIA NIM 1.x) is never fitted to.
* serving_cases.csv: how the engine runs each measurement it can model: preset model, catalog GPU, precisions,
  layout, replicas, load kind, lengths, the serving engine's limits as the submitter configured them (or, where
  the source does not state them, the engine's documented defaults, said in `notes`), and which published
  figures to compare.

MLPerf rows take their prompt lengths from the dataset: `dataset:<dataset>` in `input_basis`, the mean and spread of
DATASET_INPUT (a lognormal with that mean and CV), measured per sample in MLCommons' own dataset files. Until issue
14's prompt-length pass four of them were estimates fixed before any fitting (`estimate:<dataset>`: OpenOrca 250,
Mixtral mix 500, CNN/DailyMail 900, Llama 3.1 405B 9,400, all at a fixed length); docs/serving-model.md section 4.
Output lengths of MLPerf rows are the measured means of the run (tokens/s / samples/s); their spread is the
coefficient of variation of the dataset's reference outputs (DATASET_OUTPUT_CV), as a lognormal around that mean.

Metrics: throughput (output tokens/s per GPU at saturation or at the offered concurrency, input tokens/s per GPU
of a prefill pool, requests/s) and latency (TTFT and TPOT at p50 under the published request rate; NIM's
tabulated TTFT/ITL, statistic not stated, against the engine's means). Under a fixed request rate the served
throughput is the rate itself, so server-scenario throughput is not counted as a case.
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TextIO

from planner.engine.accuracy.trtllm_bench import engine_setting
from planner.engine.inference.layout import ServingLayout
from planner.engine.inference.service import (
    Concurrency,
    DecodeOnly,
    Deployment,
    EngineSettings,
    Offline,
    PrefillOnly,
    Rate,
    ServingResult,
    evaluate,
    prepare,
)
from planner.engine.inference.workload import Lengths, Speculation, Workload
from planner.engine.inputs.catalog import catalog_gpu
from planner.engine.inputs.cluster import gpu_spec_from_object
from planner.engine.inputs.errors import Problem
from planner.engine.inputs.fields import Fields
from planner.engine.inputs.model import parse_model
from planner.engine.inputs.specs import GpuSpec, ModelSpec

DATA = Path(__file__).resolve().parent / "data"
MEASUREMENTS_PATH = DATA / "serving_measurements.csv"
CASES_PATH = DATA / "serving_cases.csv"
LOO_PATH = DATA / "serving_loo.csv"
THROUGHPUT_METRICS = (
    "output_tokens_per_s_per_gpu",
    "decode_tokens_per_s_per_gpu",
    "input_tokens_per_s_per_gpu",
    "requests_per_s",
)
LATENCY_METRICS = ("ttft_p50_s", "tpot_p50_s", "ttft_mean_s", "tpot_mean_s")
#: GPUs of published runs that the catalog does not carry, with their datasheet figures.
EXTRA_GPUS: dict[str, dict[str, Any]] = {
    "gh200_144gb": {
        "name": "GH200 144GB HBM3e",
        "vendor": "NVIDIA",
        "memory_gb": 144,
        "memory_bandwidth_tbs": 4.9,
        "tflops": {"bf16": 989, "fp16": 989, "fp8": 1979},
        "tdp_w": 1000,
        "scaleup_bandwidth_gbs": 900,
        "id": "gh200_144gb",
        # NVIDIA GH200 Grace Hopper Superchip datasheet: 144 GB HBM3e at 4.9 TB/s, H100 tensor cores.
    },
}


@dataclass(frozen=True)
class ServingCase:
    id: str
    group: str
    metric: str
    published: float
    engine: float
    source: str
    basis: str  # what the engine assumed that the source does not state
    description: str

    @property
    def kind(self) -> str:
        return "throughput" if self.metric in THROUGHPUT_METRICS else "latency"

    @property
    def error(self) -> float:
        return self.engine / self.published - 1.0

    @property
    def ratio(self) -> float:
        """Published / engine for throughput, engine / published for latency: > 1 when reality was better."""
        return self.published / self.engine if self.kind == "throughput" else self.engine / self.published


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@lru_cache(maxsize=64)
def _model(name: str) -> ModelSpec:
    problems: list[Problem] = []
    spec = parse_model(Fields({"model": name}, "workload", problems, ["model"]), problems, {})
    assert spec is not None and not problems, problems
    return spec


@lru_cache(maxsize=64)
def _gpu(gpu_id: str) -> GpuSpec:
    problems: list[Problem] = []
    obj = EXTRA_GPUS.get(gpu_id) or catalog_gpu(gpu_id)
    spec = gpu_spec_from_object(obj, "cluster.gpu", problems, catalog_id=gpu_id)
    assert spec is not None and not problems, problems
    return spec


#: Prompt lengths of the MLPerf datasets (mean tokens, coefficient of variation), from the per-sample token counts of
#: MLCommons' dataset files as extracted in openshift-psap/performance-dashboard mlperf-data/summaries/*.csv (commits
#: 7cd1065, 67033ba, 739352b, b04ea53; the extraction script generate_dataset_summaries.py reads the files' own
#: tokenised columns), statistics computed from those files. The same files' output columns reproduce MLCommons'
#: reference figures (Mixtral 144.84 and Llama 3.1 405B 684.68 tokens_per_sample, language/*/README.md; DeepSeek-R1
#: 3,886.2 mean-output-tok-len when capped at 20,000), so they are those datasets.
#: * openorca: open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz `tok_input_length` (Llama-2 tokens): 24,576
#:   prompts, mean 222.3, sd 171.5, median 152, 48-1,021 (processorca.py --seqlen_limit=1024);
#: * mixtral_mix: 09292024_mixtral_15k_mintoken2_v1.pkl `tok_input_len`: 15,000, mean 427.4, sd 328.6, median 283;
#: * cnn_dailymail: cnn_eval.json, the length of `tok_input` (Llama-3.1 token ids, prompt template included; only
#:   that file's output column is characters / 4): 13,368, mean 870.7, sd 430.1, median 784, 79-2,540;
#: * llama405b_mix: mlperf_llama3.1_405b_dataset_8313_processed_fp16_eval.pkl `tok_input_len`: 8,313, mean 9,428.6,
#:   sd 4,066.9, median 10,112, 476-19,988 (skewed to the long side: a lognormal understates its median);
#: * deepseek_r1_mix: mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl `tok_input_len`: 4,388, mean 803.8, sd 405.6,
#:   median 902, max 3,140.
DATASET_INPUT: dict[str, tuple[float, float]] = {
    "openorca": (222.3, 0.771),
    "mixtral_mix": (427.4, 0.769),
    "cnn_dailymail": (870.7, 0.494),
    "llama405b_mix": (9428.6, 0.431),
    "deepseek_r1_mix": (803.8, 0.505),
}


#: Output-length spread (coefficient of variation of the tokens per response) of the MLPerf datasets, from the
#: per-sample token counts of MLCommons' own dataset files as extracted in openshift-psap/performance-dashboard
#: (mlperf-data/summaries/*.csv at commits 7cd1065 and 67033ba: tok_ref_output_len, tok_output_length for
#: OpenOrca), statistics computed from those files.
#: * deepseek_r1_mix: 4,388 DeepSeek-R1 reference outputs capped at MLPerf's 20,000-token limit: mean 3,886
#:   (= the reference README's "mean-output-tok-len" 3886.2), sd 4,329, p50 2,192, p90 9,471, 83 at the cap;
#: * openorca: 24,576 GPT-4 reference answers in Llama-2 tokens: mean 219, sd 172, p90 449 (Llama-2-70B's own
#:   answers average 294, language/llama2-70b/README.md "Tokens per sample"; their spread is taken as the
#:   reference's);
#: * mixtral_mix: 15,000 reference outputs: mean 145 (the runs measure 144-146), sd 113, p90 279;
#: * llama405b_mix: 8,313 reference outputs: mean 685 (runs 646-656), sd 261, p90 974;
#: * cnn_dailymail: 13,368 reference summaries, tokens estimated there as characters / 4: mean 82, sd 37.
#: Prompt and output lengths are taken as independent (their correlation in these files is -0.34 to +0.29).
DATASET_OUTPUT_CV: dict[str, float] = {
    "deepseek_r1_mix": 1.11,
    "openorca": 0.79,
    "mixtral_mix": 0.78,
    "llama405b_mix": 0.38,
    "cnn_dailymail": 0.45,
}


#: MLPerf Offline runs: LoadGen issues max(min_query_count, 1.1 x min_duration x offline_expected_qps) samples as one
#: query and times it to the last completion (loadgen/test_settings_internal.cc); min_duration 600 s and the
#: min_query_count of loadgen/mlperf.conf, or of the submitter's configuration where the index holds it (NVIDIA v5.1
#: closed/NVIDIA/configs/{B200-SXM-180GBx8,GB200-NVL72_GB200-186GB_aarch64x72}/Offline/deepseek-r1.py: 26,328 and
#: 26,328 x 8). The expected QPS is taken as the engine's own saturated rate (a valid run lasts at least 600 s).
MLPERF_OFFLINE_MIN_DURATION_S = 600.0
MLPERF_OFFLINE_QUERIES: dict[str, float] = {
    "openorca": 24576,
    "mixtral_mix": 15000,
    "llama405b_mix": 8313,
    "cnn_dailymail": 13368,
    "deepseek_r1_mix": 4388,
}
MLPERF_OFFLINE_QUERIES_BY_GPU: dict[tuple[str, str], float] = {
    ("deepseek_r1_mix", "nvidia_b200_hgx"): 26328,
    ("deepseek_r1_mix", "nvidia_gb200_per_gpu"): 26328 * 8,
}
#: Longest output per dataset: MLPerf's 20,000-token limit for DeepSeek-R1 (MLCommons' DeepSeek-R1 benchmark page;
#: the NVIDIA configs' max_seq_len 3,140 + 20,000), OpenOrca's 1,024 (processorca.py --seqlen_limit=1024), else the
#: longest reference output in the dataset files of DATASET_OUTPUT_CV.
DATASET_MAX_OUTPUT: dict[str, float] = {
    "deepseek_r1_mix": 20000,
    "openorca": 1024,
    "mixtral_mix": 1024,
    "llama405b_mix": 1830,
    "cnn_dailymail": 2135,
}


def _offline(case: dict[str, str]) -> Offline:
    """An Offline case's load: a finite MLPerf run (drain included) for MLPerf datasets, else the saturated state."""
    dataset = _dataset(case)
    if dataset not in MLPERF_OFFLINE_QUERIES:
        return Offline()
    queries = MLPERF_OFFLINE_QUERIES_BY_GPU.get((dataset, case["gpu"]), MLPERF_OFFLINE_QUERIES[dataset])
    return Offline(queries, MLPERF_OFFLINE_MIN_DURATION_S, DATASET_MAX_OUTPUT[dataset])


def _dataset(case: dict[str, str]) -> str:
    """The MLPerf dataset a case's lengths come from, `estimate:<dataset>` or `dataset:<dataset>` in `input_basis`
    ("" when the lengths are published per run)."""
    kind, _, dataset = case["input_basis"].partition(":")
    return dataset if kind in ("estimate", "dataset") else ""


def _output_lengths(case: dict[str, str]) -> Lengths:
    """A case's output lengths: the measured mean, spread as its dataset's reference outputs (lognormal)."""
    cv = DATASET_OUTPUT_CV.get(_dataset(case))
    if cv is None:
        return Lengths(float(case["output_len"]))
    return Lengths(float(case["output_len"]), "lognormal", cv)


def _speculation(cell: str) -> Speculation | None:
    """ "mtp:<draft passes>:<acceptance length>" (the published mean accepted tokens per step)."""
    if not cell:
        return None
    method, passes, tau = cell.split(":")
    return Speculation(method, int(passes), float(tau), 1.0 / 61.0, "published acceptance length")


def _limits(case: dict[str, str]) -> tuple[int | None, int | None]:
    """(max running requests, max batched tokens) of a case; "trtllm-bench" cells take the limits trtllm-bench
    derives itself when its command line sets none (accuracy/trtllm_bench.py)."""
    running, tokens = case["max_running"], case["max_batched_tokens"]
    if "trtllm-bench" in (running, tokens):
        bs, num_tokens = engine_setting(
            _model(case["model"]),
            case["gpu"],
            case["precision"],
            int(case["tp"]),
            int(case["pp"]),
            float(case["input_len"]),
            float(case["output_len"]),
            chunked_prefill=False,  # the pytorch flow's default (trtllm_bench.py)
        )
        return bs, num_tokens
    return (int(running) if running else None), (int(tokens) if tokens else None)


@cache
def _engines() -> dict[str, str]:
    return {r["id"]: r["engine"] for r in _rows(MEASUREMENTS_PATH)}


def _engine_of(case_id: str) -> str:
    """The measurement's serving engine (serving_measurements.csv `engine`): TensorRT-LLM's overlap scheduler hides
    less than SGLang's or vLLM's (rates.OVERLAP_EXPOSED_PER_REQUEST_SHARE)."""
    return _engines().get(case_id, "")


def deployment_for(case: dict[str, str]) -> Deployment:
    """The Deployment the engine runs for one serving case."""
    spec = _speculation(case["speculative"])
    max_running, max_tokens = _limits(case)
    workload = Workload(
        input=Lengths(float(case["input_len"]), case["input_distribution"], float(case["input_cv"] or 0.0)),
        output=_output_lengths(case),
        **({"speculation": spec} if spec else {}),
    )
    return Deployment(
        model=_model(case["model"]),
        gpu=_gpu(case["gpu"]),
        layout=ServingLayout(
            tp=int(case["tp"]),
            pp=int(case["pp"]),
            ep=int(case["ep"]),
            dp_attention=case["dp_attention"] == "true",
        ),
        replicas=int(case["replicas"]),
        workload=workload,
        weight_precision=case["precision"],
        dense_weight_precision=case["dense_precision"] or None,
        kv_precision=case["kv_precision"],
        attention_precision=case["attention_precision"],
        gpus_per_node=int(case["gpus_per_node"]),
        scaleout_bytes_per_s=float(case["scaleout_gbps_per_gpu"] or 400) * 1e9 / 8.0,
        engine=EngineSettings(
            max_running_requests=max_running,
            max_batched_tokens=max_tokens,
            gpu_memory_utilization=float(case["memory_utilization"]),
            memory_fraction_of_free=case["memory_basis"] == "free",
            kv_block_tokens=int(case["kv_block"]),
            chunked_prefill=case["chunked_prefill"] == "true",
            overlap_scheduling=case["overlap_scheduling"] == "true",
            overlap_hides_scheduling=not _engine_of(case["id"]).startswith("TensorRT-LLM"),
            two_batch_overlap=case["two_batch_overlap"] == "true",
            scheduler_steps=int(case["scheduler_steps"] or 1),
            adp_balance_timeout_iters=int(case["adp_balance_timeout_iters"])
            if case["adp_balance_timeout_iters"]
            else None,
            adp_batching_wait_iters=int(case.get("adp_batching_wait_iters") or 0),
            fused_gemm_swiglu=case.get("fused_gemm_swiglu") == "true",
            eplb=case.get("eplb") == "true",
            cuda_graphs=case["cuda_graphs"] != "false",
        ),
    )


def run_case(case: dict[str, str]) -> ServingResult:
    d = deployment_for(case)
    kind = case["load"]
    if kind == "rate":
        return evaluate(d, Rate(float(case["rate_per_s"])))
    if kind == "concurrency":
        return evaluate(d, Concurrency(float(case["concurrency"])))
    if kind == "prefill_only":
        return evaluate(d, PrefillOnly())
    if kind == "decode_only":
        cell = case["running_per_replica"]
        running = float(prepare(d).memories[0].max_running_requests) if cell == "max" else float(cell)
        return evaluate(d, DecodeOnly(running))
    return evaluate(d, _offline(case))


def _engine_value(metric: str, res: ServingResult) -> float:
    gpus = res.deployment.gpus
    if metric in ("output_tokens_per_s_per_gpu", "decode_tokens_per_s_per_gpu"):
        return res.output_tokens_per_s / gpus
    if metric == "input_tokens_per_s_per_gpu":
        return res.input_tokens_per_s / gpus
    if metric == "requests_per_s":
        return res.requests_per_s
    assert res.state is not None
    if metric == "ttft_p50_s":
        return float(res.state.ttft_s[50.0].ravel()[0])
    if metric == "tpot_p50_s":
        return float(res.state.tpot_s[50.0].ravel()[0])
    if metric == "ttft_mean_s":
        return float(res.state.ttft_mean_s.ravel()[0])
    return float(res.state.tpot_mean_s.ravel()[0])


def _published(metric: str, m: dict[str, str], case: dict[str, str]) -> float:
    overrides = dict(x.split("=") for x in case["published_from_notes"].split(";") if x)
    if metric in overrides:
        return float(overrides[metric])
    if metric in ("output_tokens_per_s_per_gpu", "decode_tokens_per_s_per_gpu"):
        return float(m["output_tokens_per_s_per_gpu"])
    if metric == "input_tokens_per_s_per_gpu":
        per_node = "per node" in m["throughput_unit"]
        return float(m["throughput_tokens_per_s"]) / (8.0 if per_node else 1.0)
    if metric == "requests_per_s":
        return float(m["requests_per_s"])
    return float(m[metric])


def evaluate_cases(cases: list[dict[str, str]] | None = None) -> tuple[ServingCase, ...]:
    measurements = {r["id"]: r for r in _rows(MEASUREMENTS_PATH)}
    out = []
    for case in cases if cases is not None else _rows(CASES_PATH):
        m = measurements[case["id"]]
        res = run_case(case)
        basis = "; ".join(
            x
            for x in (
                f"input {case['input_len']} tokens ({case['input_basis']})"
                if case["input_basis"] != "published"
                else "",
                f"output lognormal cv {DATASET_OUTPUT_CV[_dataset(case)]} ({_dataset(case)} reference outputs)"
                if _dataset(case) in DATASET_OUTPUT_CV
                else "",
                case["notes"],
            )
            if x
        )
        for metric in case["metrics"].split(";"):
            out.append(
                ServingCase(
                    id=case["id"],
                    group=m["group"],
                    metric=metric,
                    published=_published(metric, m, case),
                    engine=_engine_value(metric, res),
                    source=m["source"],
                    basis=basis,
                    description=f"{m['model']} on {m['gpu_count'] or '?'} x {m['gpu']}, {m['scenario']}",
                )
            )
    return tuple(out)


@lru_cache(maxsize=1)
def run_cases() -> tuple[ServingCase, ...]:
    return evaluate_cases()


#: The issue's target for the serving model: median error of throughput and of p50 latency, each at most this.
TARGET_MEDIAN_ERROR = 0.10
#: Percentiles of the leave-one-out ratios that bound a result's range (as for training).
LOW_PERCENTILE, HIGH_PERCENTILE = 10.0, 90.0


@dataclass(frozen=True)
class ServingRow:
    case: ServingCase
    engine_leave_one_out: (
        float | None
    )  # calibration cases: the engine with this measurement left out of the fit

    @property
    def loo_error(self) -> float | None:
        if self.engine_leave_one_out is None:
            return None
        return self.engine_leave_one_out / self.case.published - 1.0


@dataclass(frozen=True)
class ServingAccuracy:
    """Every serving case with its error, the leave-one-out error of the calibration cases, and the ranges."""

    rows: tuple[ServingRow, ...]
    summary: dict[str, dict[str, Any]]
    bands: dict[str, tuple[float, float]]  # kind -> (low, high) multipliers of an engine figure
    holdout_inside: dict[str, tuple[int, int]]  # kind -> (hold-out cases inside the band, cases)

    def target_met(self, kind: str) -> bool:
        return all(
            v["median_error"] <= TARGET_MEDIAN_ERROR
            for k, v in self.summary.items()
            if k.endswith(f".{kind}")
        )


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 1.0
    rank = q / 100.0 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _band_of(kind: str, ratio: float, band: tuple[float, float]) -> bool:
    return band[0] <= ratio <= band[1]


def load_leave_one_out(path: Path = LOO_PATH) -> dict[tuple[str, str], float]:
    if not path.exists():
        return {}
    return {(r["id"], r["metric"]): float(r["engine_leave_one_out"]) for r in _rows(path)}


@lru_cache(maxsize=1)
def serving_accuracy() -> ServingAccuracy:
    """The serving validation as `validate` prints it and the accuracy page shows it.

    Range of a result: an engine throughput T becomes [T / p90, T / p10] of the leave-one-out ratios
    published / engine over the calibration throughput cases; a latency L becomes [L x p10, L x p90] of
    published / engine over the latency cases (p50 TTFT and TPOT). Saturated cases (an engine latency over
    `SATURATED_RATIO` x the published one: the engine says the rate cannot be served) are left out of the band and
    counted in the summary."""
    cases = run_cases()
    loo = load_leave_one_out()
    rows = tuple(
        ServingRow(c, loo.get((c.id, c.metric)) if c.group == "calibration" else None) for c in cases
    )
    bands: dict[str, tuple[float, float]] = {}
    inside: dict[str, tuple[int, int]] = {}
    for kind in ("throughput", "latency"):
        ratios = [
            r.case.published / r.engine_leave_one_out
            for r in rows
            if r.case.kind == kind
            and r.engine_leave_one_out
            and _usable(r.case.published / r.engine_leave_one_out)
        ]
        low, high = _percentile(ratios, LOW_PERCENTILE), _percentile(ratios, HIGH_PERCENTILE)
        bands[kind] = (low, high)
        held = [
            r.case.published / r.case.engine
            for r in rows
            if r.case.group == "holdout" and r.case.kind == kind
        ]
        inside[kind] = (sum(low <= x <= high for x in held), len(held))
    return ServingAccuracy(rows, summary(cases), bands, inside)


#: A latency the engine puts above this multiple of the published one means the engine cannot serve the published
#: rate (its queue grows): such cases count in the errors but not in the range.
SATURATED_RATIO = 10.0


def _usable(ratio: float) -> bool:
    return 1.0 / SATURATED_RATIO <= ratio <= SATURATED_RATIO


def print_serving(out: TextIO) -> None:
    """The serving half of `python -m planner.engine validate`."""
    r = serving_accuracy()
    print("\nserving (planner/engine/accuracy/data/serving_*.csv)", file=out)
    header = f"{'case':6} {'group':11} {'metric':30} {'published':>11} {'engine':>11} {'error':>9} {'loo error':>10}"
    print(header, file=out)
    print("-" * len(header), file=out)
    for row in r.rows:
        c = row.case
        loo = f"{100 * row.loo_error:+9.1f}%" if row.loo_error is not None else f"{'':>10}"
        print(
            f"{c.id:6} {c.group:11} {c.metric:30} {c.published:11.4g} {c.engine:11.4g} {100 * c.error:+8.1f}% {loo}",
            file=out,
        )
    print("-" * len(header), file=out)
    for key, v in r.summary.items():
        print(
            f"{key:24} cases {v['cases']:3}  median error {100 * v['median_error']:6.1f}%  worst "
            f"{100 * v['worst_error']:8.1f}% ({v['worst_case']})",
            file=out,
        )
    for kind, (low, high) in r.bands.items():
        held, total = r.holdout_inside[kind]
        print(
            f"{kind} range (leave-one-out published/engine, p{LOW_PERCENTILE:.0f}-p{HIGH_PERCENTILE:.0f}): "
            f"{low:.2f}-{high:.2f}; hold-out cases inside it: {held} of {total}",
            file=out,
        )
    for kind in ("throughput", "latency"):
        state = "met" if r.target_met(kind) else "NOT met"
        print(f"target median {kind} error <= {100 * TARGET_MEDIAN_ERROR:.0f}%: {state}", file=out)
    print(
        "serving cases are reported, not pass/fail: no per-case tolerance; the exit status is the training cases'",
        file=out,
    )


def summary(cases: tuple[ServingCase, ...]) -> dict[str, dict[str, Any]]:
    """Median and worst absolute error per (group, kind)."""
    out: dict[str, dict[str, Any]] = {}
    for group in ("calibration", "holdout"):
        for kind in ("throughput", "latency"):
            chosen = [c for c in cases if c.group == group and c.kind == kind]
            if not chosen:
                continue
            worst = max(chosen, key=lambda c: abs(c.error))
            out[f"{group}.{kind}"] = {
                "cases": len(chosen),
                "median_error": statistics.median(abs(c.error) for c in chosen),
                "worst_error": abs(worst.error),
                "worst_case": f"{worst.id} {worst.metric}",
            }
    return out
