"""Generic GPU jobs: Amdahl (1967) and Gustafson (1988) scaling from a single-GPU time."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.units import DAY, HOUR
from planner.engine.job.scaling import (
    JobSpec,
    amdahl_parallel_fraction,
    amdahl_speedup,
    estimate_job,
    gustafson_speedup,
)


def test_a_render_with_p_099_runs_about_7_5_times_faster_on_8_gpus():
    result = estimate_job(JobSpec(single_gpu_time_s=80 * HOUR, parallel_fraction=0.99), 8)
    assert result.speedup == pytest.approx(1 / (0.01 + 0.99 / 8), rel=1e-12)
    assert round(result.speedup, 1) == 7.5
    assert result.time_s == pytest.approx(80 * HOUR / result.speedup, rel=1e-12)


@pytest.mark.parametrize(("hours_on_8", "p_expected"), [(3.0, 0.857), (2.0, 0.952)])
def test_a_12_hour_md_run_taking_2_to_3_hours_on_8_gpus_gives_p_between_086_and_095(hours_on_8, p_expected):
    spec = JobSpec(single_gpu_time_s=12 * HOUR, measured_speedup=12 / hours_on_8, measured_gpus=8)
    result = estimate_job(spec, 8)
    assert result.parallel_fraction == pytest.approx(p_expected, abs=5e-4)
    assert result.time_s == pytest.approx(hours_on_8 * HOUR, rel=1e-12)  # reproduces the measurement
    assert result.parallel_fraction_derived


def test_md_run_on_more_gpus_is_faster_but_bounded_by_the_serial_share():
    spec = JobSpec(single_gpu_time_s=12 * HOUR, measured_speedup=4.0, measured_gpus=8)
    on_8, on_64 = estimate_job(spec, 8), estimate_job(spec, 64)
    p = on_8.parallel_fraction
    assert on_64.time_s < on_8.time_s
    assert on_64.time_s > 12 * HOUR * (1 - p)  # never below the serial part
    assert on_64.parallel_efficiency < on_8.parallel_efficiency


def test_amdahl_inversion_round_trips():
    for p in (0.0, 0.5, 0.9, 0.999, 1.0):
        assert amdahl_parallel_fraction(amdahl_speedup(p, 16), 16) == pytest.approx(p, abs=1e-12)


def test_gustafson_scaled_speedup_is_n_minus_serial_times_n_minus_1():
    assert gustafson_speedup(0.99, 8) == pytest.approx(8 - 0.01 * 7, rel=1e-12)
    result = estimate_job(
        JobSpec(single_gpu_time_s=10 * HOUR, parallel_fraction=0.9, scaling="gustafson"), 10
    )
    assert result.speedup == pytest.approx(10 - 0.1 * 9, rel=1e-12)
    assert result.time_s == pytest.approx(10 * HOUR / 9.1, rel=1e-12)


def test_gustafson_from_a_measured_speedup_reproduces_it():
    spec = JobSpec(single_gpu_time_s=HOUR, measured_speedup=7.0, measured_gpus=8, scaling="gustafson")
    assert estimate_job(spec, 8).speedup == pytest.approx(7.0, rel=1e-12)


def test_result_dict_has_days_gpu_hours_and_efficiency():
    out = estimate_job(JobSpec(single_gpu_time_s=2 * DAY, parallel_fraction=1.0), 4).as_dict()
    assert out["days"] == pytest.approx(0.5)
    assert out["gpu_hours"] == pytest.approx(48.0)
    assert out["speedup"] == pytest.approx(4.0)
    assert out["parallel_efficiency"] == pytest.approx(1.0)


def test_it_rejects_a_superlinear_measured_speedup_naming_the_field():
    with pytest.raises(SpecError) as err:
        estimate_job(JobSpec(single_gpu_time_s=HOUR, measured_speedup=9.0, measured_gpus=8), 16)
    assert [p.path for p in err.value.problems] == ["workload.job.measured_speedup"]


def test_it_asks_for_a_parallel_fraction_or_a_measurement():
    with pytest.raises(SpecError) as err:
        estimate_job(JobSpec(single_gpu_time_s=HOUR, measured_speedup=3.0), 8)
    assert err.value.problems[0].path == "workload.job.parallel_fraction"


def test_it_rejects_a_parallel_fraction_above_one():
    with pytest.raises(SpecError) as err:
        estimate_job(JobSpec(single_gpu_time_s=HOUR, parallel_fraction=1.2), 8)
    assert err.value.problems[0].path == "workload.job.parallel_fraction"


@given(
    time_s=st.floats(min_value=1.0, max_value=1e9),
    p=st.floats(min_value=0.0, max_value=1.0),
    gpus=st.integers(min_value=1, max_value=100_000),
    scaling=st.sampled_from(["amdahl", "gustafson"]),
)
def test_random_valid_jobs_give_finite_speedups_between_1_and_n(time_s, p, gpus, scaling):
    result = estimate_job(JobSpec(single_gpu_time_s=time_s, parallel_fraction=p, scaling=scaling), gpus)
    for value in result.as_dict().values():
        if isinstance(value, float):
            assert math.isfinite(value) and value >= 0
    assert 1.0 - 1e-9 <= result.speedup <= gpus * (1 + 1e-12)
    assert result.time_s <= time_s * (1 + 1e-12)
