"""Throughput of a cluster on many copies of a generic GPU job (HPC, rendering), and the GPUs a target needs.

Two ways to use G GPUs for a stream of independent jobs, each job measured on one GPU (T(1)) and scaled by
Amdahl's or Gustafson's law (planner/engine/job/scaling.py):

* spread: every job runs on all G GPUs, one job after another; jobs/day = DAY / T(G). Amdahl caps this at
  DAY / (T(1) (1 - p)) however many GPUs are added.
* packed: jobs of M GPUs each run side by side, floor(G / M) at once; jobs/day = floor(G / M) x DAY / T(M).
  With p < 1, the narrowest jobs (M = 1) give the most jobs per GPU; wider jobs finish each job sooner.

Since the parallel efficiency S(M)/M never rises with M under either law, GPUs (and so cost) per job are lowest
at M = 1: the cheapest way to a throughput target is the packed one with the narrowest job that meets the
time-to-solution the person asks for. Every option is reported so that the trade-off is visible.

Cross-GPU: a job measured on a reference GPU runs on another GPU in T_ref(1) / speed, `speed` being the other
GPU's speed relative to the reference (the caller states where it comes from); the parallel fraction is taken
to be the same on both GPUs (an assumption, stated on every result that uses another GPU).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from planner.engine.facility.power import power_cap_throughput_fraction
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.units import DAY, HOUR
from planner.engine.job.scaling import JobSpec, estimate_job

Mode = Literal["spread", "packed"]

#: Widths tried for packed jobs: powers of two up to the node (GPU counts a job scheduler hands out on one node).
PACK_WIDTHS: tuple[int, ...] = (1, 2, 4, 8)
#: Largest GPU count searched for a target (a planning bound, about the largest GPU clusters built: 100k GPUs).
MAX_GPUS = 100_000
#: Relative float slack when a speed-up meets a target exactly (7.999999 counts as 8).
_EPS = 1e-9


@dataclass(frozen=True)
class JobRate:
    """Jobs of `gpus_per_job` GPUs, `concurrent_jobs` at once on `gpus` GPUs."""

    mode: Mode
    gpus: int  # GPUs in use (idle ones left out)
    gpus_per_job: int
    concurrent_jobs: int
    job_time_s: float  # wall time of one job
    jobs_per_day: float
    parallel_fraction: float

    @property
    def job_hours(self) -> float:
        return self.job_time_s / HOUR

    @property
    def gpu_hours_per_job(self) -> float:
        """GPU-hours each job holds (what a rented or owned GPU-hour is paid for)."""
        return self.gpus_per_job * self.job_time_s / HOUR


@dataclass(frozen=True)
class TargetAnswer:
    """The GPUs one way of running reaches a jobs/day target with (None with the reason when it cannot)."""

    mode: Mode
    gpus_per_job: int | None
    rate: JobRate | None
    reason: str = ""

    @property
    def gpus(self) -> int | None:
        return None if self.rate is None else self.rate.gpus


def job_on_gpu(spec: JobSpec, speed: float) -> JobSpec:
    """The job on a GPU `speed` times as fast as the one it was measured on: T(1) / speed, same scaling."""
    if not speed > 0:
        raise SpecError([Problem("workload.job.relative_speed", f"must be greater than 0; got {speed}")])
    return JobSpec(
        single_gpu_time_s=spec.single_gpu_time_s / speed,
        parallel_fraction=spec.parallel_fraction,
        measured_speedup=spec.measured_speedup,
        measured_gpus=spec.measured_gpus,
        scaling=spec.scaling,
    )


def job_under_power_cap(spec: JobSpec, limit_w: float | None, tdp_w: float | None) -> JobSpec:
    """The job on GPUs capped at `limit_w` (None: uncapped): its measured single-GPU time, taken at full power,
    stretches by 1 / facility/power.py power_cap_throughput_fraction (the one home of that relation)."""
    if limit_w is None or tdp_w is None:
        return spec
    return job_on_gpu(spec, power_cap_throughput_fraction(limit_w, tdp_w))


def relative_speed_fp32(gpu_fp32_tflops: float, reference_fp32_tflops: float) -> float:
    """A GPU's speed relative to a reference from their FP32 vector peaks (GROMACS and Cycles run in single
    precision on GPUs). A planning proxy, not a measurement: memory-bound work (large MD systems) gains less,
    RT-core ray tracing (Cycles OptiX on RTX/L-series GPUs) more."""
    if not (gpu_fp32_tflops > 0 and reference_fp32_tflops > 0):
        raise SpecError([Problem("cluster.gpu.tflops.fp32", "both GPUs need an FP32 peak above 0")])
    return gpu_fp32_tflops / reference_fp32_tflops


def rate(spec: JobSpec, *, gpus: int, gpus_per_job: int) -> JobRate:
    """Jobs per day on `gpus` GPUs running jobs of `gpus_per_job` GPUs side by side (spread when equal)."""
    if gpus_per_job < 1:
        raise SpecError([Problem("workload.job.gpus_per_job", f"must be at least 1; got {gpus_per_job}")])
    if gpus < gpus_per_job:
        raise SpecError(
            [Problem("cluster.gpus", f"need at least {gpus_per_job} GPUs for one job; got {gpus}")]
        )
    one = estimate_job(spec, gpus_per_job)
    concurrent = gpus // gpus_per_job
    return JobRate(
        mode="spread" if concurrent == 1 else "packed",
        gpus=concurrent * gpus_per_job,
        gpus_per_job=gpus_per_job,
        concurrent_jobs=concurrent,
        job_time_s=one.time_s,
        jobs_per_day=concurrent * DAY / one.time_s,
        parallel_fraction=one.parallel_fraction,
    )


def cluster_rates(spec: JobSpec, *, gpus: int, widths: tuple[int, ...] = PACK_WIDTHS) -> list[JobRate]:
    """The cluster's jobs/day for each packed width that fits, and with every job spread over all GPUs."""
    chosen = sorted({w for w in widths if w <= gpus} | {gpus})
    return [rate(spec, gpus=gpus, gpus_per_job=w) for w in chosen]


def _check_target(target_jobs_per_day: float) -> None:
    if not (target_jobs_per_day > 0 and math.isfinite(target_jobs_per_day)):
        raise SpecError(
            [Problem("target_jobs_per_day", f"must be greater than 0; got {target_jobs_per_day}")]
        )


def spread_for_target(spec: JobSpec, target_jobs_per_day: float) -> TargetAnswer:
    """Fewest GPUs that, running one job at a time over all of them, reach the target (jobs/day).

    Needs S(N) >= S* = target x T(1) / DAY. Amdahl: 1 / ((1 - p) + p/N) >= S*  =>  N >= p / (1/S* - (1 - p)),
    unreachable when 1/S* <= 1 - p. Gustafson: 1 + p (N - 1) >= S*  =>  N >= 1 + (S* - 1) / p.
    """
    _check_target(target_jobs_per_day)
    p = estimate_job(spec, 1).parallel_fraction
    needed_speedup = target_jobs_per_day * spec.single_gpu_time_s / DAY
    if not math.isfinite(needed_speedup):
        gpus = MAX_GPUS + 1
    elif needed_speedup <= 1.0 + _EPS:
        gpus = 1
    elif spec.scaling == "gustafson":
        gpus = math.ceil(1.0 + (needed_speedup - 1.0) / p - _EPS) if p > 0 else MAX_GPUS + 1
    else:
        slack = 1.0 / needed_speedup - (1.0 - p)
        gpus = math.ceil(p / slack - _EPS) if slack > 0 and math.isfinite(p / slack) else MAX_GPUS + 1
    if gpus > MAX_GPUS:
        ceiling = DAY / (spec.single_gpu_time_s * (1.0 - p)) if p < 1.0 else math.inf
        reason = (
            f"one job spread over any number of GPUs tops out at {ceiling:,.2f} jobs/day "
            f"(Amdahl: the serial {1.0 - p:.1%} of the single-GPU time)"
            if spec.scaling == "amdahl" and p < 1.0
            else f"needs more than {MAX_GPUS:,} GPUs"
        )
        return TargetAnswer(mode="spread", gpus_per_job=None, rate=None, reason=reason)
    return TargetAnswer(mode="spread", gpus_per_job=gpus, rate=rate(spec, gpus=gpus, gpus_per_job=gpus))


def packed_for_target(spec: JobSpec, target_jobs_per_day: float, gpus_per_job: int) -> TargetAnswer:
    """GPUs for the target with jobs of `gpus_per_job` GPUs side by side: M x ceil(target / (DAY / T(M)))."""
    _check_target(target_jobs_per_day)
    per_slot = DAY / estimate_job(spec, gpus_per_job).time_s  # jobs/day of one M-GPU slot
    slots_needed = target_jobs_per_day / per_slot
    gpus = (
        MAX_GPUS + 1
        if not math.isfinite(slots_needed)
        else max(1, math.ceil(slots_needed - _EPS)) * gpus_per_job
    )
    if gpus > MAX_GPUS:
        return TargetAnswer(
            mode="packed", gpus_per_job=gpus_per_job, rate=None, reason=f"needs more than {MAX_GPUS:,} GPUs"
        )
    return TargetAnswer(
        mode="packed", gpus_per_job=gpus_per_job, rate=rate(spec, gpus=gpus, gpus_per_job=gpus_per_job)
    )


def target_answers(
    spec: JobSpec, target_jobs_per_day: float, widths: tuple[int, ...] = PACK_WIDTHS
) -> list[TargetAnswer]:
    """Every way of reaching the target: one job spread over N GPUs, and packed jobs of each width."""
    return [spread_for_target(spec, target_jobs_per_day)] + [
        packed_for_target(spec, target_jobs_per_day, w) for w in widths
    ]


def cheapest(answers: list[TargetAnswer]) -> TargetAnswer | None:
    """The answer with the fewest GPUs (cost scales with GPUs held); ties go to the shorter job time."""
    reachable = [a for a in answers if a.rate is not None]
    if not reachable:
        return None
    return min(reachable, key=lambda a: (a.rate.gpus, a.rate.job_time_s))  # type: ignore[union-attr]
