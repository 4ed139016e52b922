"""HPC and rendering presets page: a preset's measured scaling (planner/engine/job/presets.py) on a chosen cluster,
its jobs (and frames or ns) per day, and the GPUs a throughput target needs, spread or packed, the cheapest named.
Read-only: nothing is stored.

The chosen GPU's speed relative to the GPU the preset was measured on is the person's measured ratio when typed,
else the ratio of the catalog's FP32 vector peaks, flagged as an assumption on the page. Prices: the catalog's
planning rental price of the chosen GPU (adapters.cloud_price_reference), so $/job is GPU-hours x that price.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from catalog.models import Gpu
from planner import adapters
from planner.engine.inputs.units import DAY, HOUR
from planner.engine.job import throughput
from planner.engine.job.presets import PRESETS, JobPreset
from planner.engine.job.scaling import JobSpec, estimate_job
from planner.forms.hpc import TARGET_WORK
from planner.starters import STARTERS_BY_KEY

VARIANTS = ("low", "mid", "high")


@dataclass(frozen=True)
class RateRow:
    """One way to run the cluster: mid figures, with the low-high range of jobs/day when the preset has one."""

    mid: throughput.JobRate
    jobs_per_day_low: float
    jobs_per_day_high: float
    work_per_day: float | None
    usd_per_job: float | None


@dataclass(frozen=True)
class TargetRow:
    answer: throughput.TargetAnswer
    usd_per_day: float | None
    usd_per_job: float | None
    cheapest: bool = False


@dataclass(frozen=True)
class HpcPage:
    preset: JobPreset
    gpu: Gpu
    reference_gpu: Gpu
    gpus: int
    speed: float
    speed_source: str
    speed_flagged: bool
    parallel_fraction: dict[str, float]  # low / mid / high
    starter_parallel_fraction: (
        float  # what the scenario starter of this preset fills in (planner/starters.py)
    )
    single_gpu_hours: float  # on the chosen GPU
    work_per_job: float | None
    work_source: str
    rates: list[RateRow]
    target_jobs_per_day: float | None = None
    target_work_per_day: float | None = None  # the target as typed, when given in frames or ns per day
    target_rows: list[TargetRow] = field(default_factory=list)
    cheapest: TargetRow | None = None
    usd_per_gpu_hour: float | None = None
    price_source: str = ""
    charts: tuple[dict[str, Any], ...] = ()


def _speed(gpu: Gpu, reference: Gpu, typed: float | None) -> tuple[float, str, bool]:
    if typed is not None:
        return typed, f"your measured ratio to the {reference.model}", False
    if gpu.pk == reference.pk:
        return 1.0, "the GPU the preset was measured on", False
    ratio = throughput.relative_speed_fp32(gpu.fp32_tflops, reference.fp32_tflops)
    return (
        ratio,
        (
            f"ASSUMPTION, not measured: FP32 vector peak ratio {gpu.fp32_tflops:g} / {reference.fp32_tflops:g} "
            f"TFLOPS (catalog). No public per-GPU figure for this preset was found; memory-bound work (large MD "
            f"systems) gains less than this ratio, RT-core ray tracing (Cycles OptiX) can gain more. Type your "
            f"measured ratio to replace it"
        ),
        True,
    )


def _rate_rows(
    specs: dict[str, JobSpec], gpus: int, work: float | None, price: float | None
) -> list[RateRow]:
    by_variant = {v: throughput.cluster_rates(specs[v], gpus=gpus) for v in VARIANTS}
    rows = []
    for low, mid, high in zip(by_variant["low"], by_variant["mid"], by_variant["high"], strict=True):
        rows.append(
            RateRow(
                mid=mid,
                jobs_per_day_low=low.jobs_per_day,
                jobs_per_day_high=high.jobs_per_day,
                work_per_day=None if work is None else mid.jobs_per_day * work,
                usd_per_job=None if price is None else mid.gpu_hours_per_job * price,
            )
        )
    return rows


def _target_rows(
    spec: JobSpec, target: float, price: float | None
) -> tuple[list[TargetRow], TargetRow | None]:
    answers = throughput.target_answers(spec, target)
    best = throughput.cheapest(answers)
    rows = []
    for answer in answers:
        r = answer.rate
        rows.append(
            TargetRow(
                answer=answer,
                usd_per_day=None if r is None or price is None else r.gpus * 24.0 * price,
                usd_per_job=None if r is None or price is None else r.gpu_hours_per_job * price,
                cheapest=answer is best,
            )
        )
    return rows, next((row for row in rows if row.cheapest), None)


#: The chart's GPU counts stop here (a 4,096-GPU cluster shows Amdahl's ceiling for any p on the presets).
CHART_MAX_GPUS = 4096


def scaling_chart(spec: JobSpec, preset: JobPreset, gpus: int, target: float | None) -> dict[str, Any]:
    """Jobs/day against GPU count (log-log, powers of two up to 4x the cluster): one job spread over all of them
    and 1-GPU jobs packed, with the target and Amdahl's ceiling for the spread job, as a chart spec for
    static/js/planner_charts.js."""
    top = min(CHART_MAX_GPUS, max(64, 4 * gpus))
    counts = [2**k for k in range(top.bit_length()) if 2**k <= top]
    spread = [throughput.rate(spec, gpus=n, gpus_per_job=n).jobs_per_day for n in counts]
    packed = [throughput.rate(spec, gpus=n, gpus_per_job=1).jobs_per_day for n in counts]
    noun = f"{preset.job_noun}s/day"
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": f"one {preset.job_noun} spread over N GPUs",
            "x": counts,
            "y": spread,
            "hovertemplate": "%{x:,} GPUs: %{y:,.1f} " + noun + "<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": f"N {preset.job_noun}s of 1 GPU side by side",
            "x": counts,
            "y": packed,
            "hovertemplate": "%{x:,} GPUs: %{y:,.1f} " + noun + "<extra></extra>",
        },
    ]
    p = estimate_job(spec, 1).parallel_fraction
    if p < 1.0:
        ceiling = DAY / (spec.single_gpu_time_s * (1.0 - p))
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"Amdahl ceiling, spread ({ceiling:,.1f}/day)",
                "x": [counts[0], counts[-1]],
                "y": [ceiling, ceiling],
                "line": {"dash": "dot"},
            }
        )
    if target is not None:
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"target ({target:,.1f}/day)",
                "x": [counts[0], counts[-1]],
                "y": [target, target],
                "line": {"dash": "dash"},
            }
        )
    title = f"{preset.label}: {noun} against GPU count"
    return {
        "key": "hpc-scaling",
        "title": title,
        "figure": {
            "data": data,
            "layout": {
                "title": {"text": title},
                "xaxis": {"title": {"text": "GPUs"}, "type": "log", "dtick": 0.30102999566398},
                "yaxis": {"title": {"text": noun}, "type": "log", "dtick": "D2"},
                "legend": {"orientation": "h", "x": 0, "y": -0.25, "xanchor": "left", "yanchor": "top"},
                "margin": {"t": 50, "r": 10, "b": 110},
                "height": 440,
            },
        },
    }


def hpc_page(data: dict[str, Any]) -> HpcPage:
    """The page for a valid form's cleaned data (planner/forms/hpc.py)."""
    preset = PRESETS[data["preset"]]
    gpu: Gpu = data["gpu"]
    reference: Gpu = data["reference_gpu"]  # the form fills in the preset's GPU (forms/hpc.py)
    speed, speed_source, flagged = _speed(gpu, reference, data.get("relative_speed"))
    specs = {v: throughput.job_on_gpu(s, speed) for v, s in preset.variants().items()}
    work = data.get("work_per_job") or preset.work_per_job
    work_source = "input" if data.get("work_per_job") else preset.work_source
    reference_price = adapters.cloud_price_reference(gpu.pk)
    price = None if reference_price is None else reference_price.value
    gpus = data["gpu_count"]
    target = data.get("target")
    target_work = None
    if target is not None and data.get("target_unit") == TARGET_WORK and work:
        target_work, target = target, target / work
    target_rows, best = ([], None) if target is None else _target_rows(specs["mid"], target, price)
    return HpcPage(
        preset=preset,
        gpu=gpu,
        reference_gpu=reference,
        gpus=gpus,
        speed=speed,
        speed_source=speed_source,
        speed_flagged=flagged,
        parallel_fraction={v: estimate_job(specs[v], 1).parallel_fraction for v in VARIANTS},
        starter_parallel_fraction=STARTERS_BY_KEY[f"job-{preset.key}"].initial["job_parallel_fraction"],
        single_gpu_hours=specs["mid"].single_gpu_time_s / HOUR,
        work_per_job=work,
        work_source=work_source,
        rates=_rate_rows(specs, gpus, work, price),
        target_jobs_per_day=target,
        target_work_per_day=target_work,
        target_rows=target_rows,
        cheapest=best,
        usd_per_gpu_hour=price,
        price_source="" if reference_price is None else reference_price.source,
        charts=(scaling_chart(specs["mid"], preset, gpus, target),),
    )
