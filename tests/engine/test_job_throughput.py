"""HPC and rendering presets: Amdahl's p derived from the measured times, cluster jobs/day, GPUs for a target."""

from __future__ import annotations

import math

import pytest

from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.units import DAY, HOUR
from planner.engine.job import throughput
from planner.engine.job.presets import BLENDER_CYCLES, GROMACS_100K, PRESETS
from planner.engine.job.scaling import JobSpec, amdahl_speedup


def test_gromacs_preset_derives_p_from_the_measured_range() -> None:
    # 12 h on one GPU, 2-3 h on 8: speed-up 4-6, Amdahl p = (1 - 1/S) / (1 - 1/8).
    low, high = GROMACS_100K.parallel_fraction(3.0), GROMACS_100K.parallel_fraction(2.0)
    assert low == pytest.approx((1 - 1 / 4) / (1 - 1 / 8))
    assert high == pytest.approx((1 - 1 / 6) / (1 - 1 / 8))
    mid = GROMACS_100K.parallel_fraction(GROMACS_100K.measured_hours_mid)
    assert low < mid < high
    # The derived p reproduces the measured time on 8 GPUs.
    assert 12.0 / amdahl_speedup(mid, 8) == pytest.approx(2.5)


def test_blender_preset_is_linear() -> None:
    assert BLENDER_CYCLES.parallel_fraction(3.0) == pytest.approx(1.0)
    assert not BLENDER_CYCLES.is_range


def test_every_preset_names_its_source() -> None:
    for preset in PRESETS.values():
        assert preset.source and preset.reference_source
        assert preset.work_per_job is not None or preset.work_source


def test_packed_single_gpu_jobs_give_the_most_jobs_per_day() -> None:
    spec = GROMACS_100K.spec()
    rates = throughput.cluster_rates(spec, gpus=8)
    by_width = {r.gpus_per_job: r for r in rates}
    assert by_width[1].jobs_per_day == pytest.approx(8 * DAY / (12 * HOUR))  # 16 simulations/day
    assert by_width[8].jobs_per_day == pytest.approx(DAY / (2.5 * HOUR))  # 9.6/day, one at a time
    assert by_width[8].mode == "spread" and by_width[1].mode == "packed"
    jobs = [by_width[w].jobs_per_day for w in sorted(by_width)]
    assert jobs == sorted(jobs, reverse=True)


def test_faster_gpu_scales_single_gpu_time() -> None:
    spec = GROMACS_100K.spec()
    fast = throughput.job_on_gpu(spec, 2.0)
    assert throughput.rate(fast, gpus=8, gpus_per_job=1).jobs_per_day == pytest.approx(32.0)
    with pytest.raises(SpecError) as err:
        throughput.job_on_gpu(spec, 0.0)
    assert err.value.problems[0].path == "workload.job.relative_speed"


def test_spread_target_beyond_amdahls_ceiling_is_unreachable_with_reason() -> None:
    spec = GROMACS_100K.spec()
    p = GROMACS_100K.parallel_fraction(2.5)
    ceiling = DAY / (12 * HOUR * (1 - p))
    reachable = throughput.spread_for_target(spec, ceiling * 0.9)
    assert reachable.rate is not None and reachable.rate.jobs_per_day >= ceiling * 0.9
    # One GPU fewer would miss the target: it is the smallest count.
    n = reachable.rate.gpus
    assert throughput.rate(spec, gpus=n - 1, gpus_per_job=n - 1).jobs_per_day < ceiling * 0.9
    missed = throughput.spread_for_target(spec, ceiling * 1.1)
    assert missed.rate is None and "tops out" in missed.reason


def test_packed_target_and_cheapest() -> None:
    spec = GROMACS_100K.spec()
    answer = throughput.packed_for_target(spec, 100.0, 1)  # 2 jobs/day per GPU -> 50 GPUs
    assert answer.gpus == 50
    answers = throughput.target_answers(spec, 100.0)
    best = throughput.cheapest(answers)
    assert best is not None and best.gpus == min(a.gpus for a in answers if a.gpus is not None)
    assert best.mode == "packed" and best.gpus_per_job == 1


def test_linear_job_needs_the_same_gpus_spread_or_packed() -> None:
    spec = BLENDER_CYCLES.spec()
    spread = throughput.spread_for_target(spec, 8.0)  # 1 shot/day per GPU
    packed = throughput.packed_for_target(spec, 8.0, 1)
    assert spread.gpus == packed.gpus == 8


@pytest.mark.parametrize("target", [0.0, -1.0, math.inf, math.nan])
def test_bad_target_names_the_field(target: float) -> None:
    with pytest.raises(SpecError) as err:
        throughput.spread_for_target(GROMACS_100K.spec(), target)
    assert err.value.problems[0].path == "target_jobs_per_day"


def test_too_few_gpus_for_one_job_names_the_field() -> None:
    with pytest.raises(SpecError) as err:
        throughput.rate(JobSpec(single_gpu_time_s=HOUR, parallel_fraction=0.9), gpus=2, gpus_per_job=4)
    assert err.value.problems[0].path == "cluster.gpus"


@pytest.mark.parametrize("preset", [GROMACS_100K, BLENDER_CYCLES])
def test_an_absurd_target_is_unreachable_not_a_crash(preset) -> None:
    slow = throughput.job_on_gpu(preset.spec(), 1e-300)  # a GPU 10^300 times slower
    for answer in throughput.target_answers(slow, 1e308):
        assert answer.rate is None and answer.reason
    assert throughput.cheapest(throughput.target_answers(slow, 1e308)) is None
