"""The shipped serving validation set: groups kept apart, the required cases present, the fit inside its ranges."""

from __future__ import annotations

import csv
import math

import pytest

from planner.engine.accuracy.serving import (
    CASES_PATH,
    LOO_PATH,
    MEASUREMENTS_PATH,
    run_cases,
    serving_accuracy,
)
from planner.engine.accuracy.serving_calibrate import SEARCH_SPACE, calibration_rows, get
from planner.engine.inference import rates


def _rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


MEASUREMENTS = {r["id"]: r for r in _rows(MEASUREMENTS_PATH)}
CASES = _rows(CASES_PATH)


def test_every_case_is_a_sourced_measurement_and_holdout_families_are_never_calibrated():
    holdout_families = ("mlperf_inference_v4.1", "trtllm_perf_overview_le_1.0", "nvidia_nim_1.x")
    for case in CASES:
        m = MEASUREMENTS[case["id"]]
        assert m["source"].startswith("http"), case["id"]
        assert (m["group"] == "holdout") == (m["source_family"] in holdout_families + ("trtllm_blog_le_1.0",))
    calibration = {r["id"] for r in calibration_rows()}
    assert not any(MEASUREMENTS[i]["group"] == "holdout" for i in calibration)


def test_at_least_thirty_throughput_and_thirty_latency_cases():
    cases = run_cases()
    assert sum(c.kind == "throughput" for c in cases) >= 30
    assert sum(c.kind == "latency" and "p50" in c.metric for c in cases) >= 30


def test_the_required_deepseek_and_fp4_b200_cases_run_with_their_published_figures():
    cases = {(c.id, c.metric): c for c in run_cases()}
    deepseek = [
        c for c in CASES if c["model"] == "deepseek-v3" and c["dp_attention"] == "true" and c["ep"] == "8"
    ]
    assert any(c["gpu"] == "nvidia_b200_hgx" and c["tp"] == "8" for c in deepseek)
    assert any(c["gpu"] == "nvidia_h200_sxm_141gb" and c["tp"] == "8" for c in deepseek)
    c001 = cases[("C001", "output_tokens_per_s_per_gpu")]
    assert c001.published == float(MEASUREMENTS["C001"]["output_tokens_per_s_per_gpu"]) and c001.engine > 0
    fp4_b200 = [c for c in CASES if c["gpu"] == "nvidia_b200_hgx" and c["precision"] == "fp4"]
    assert len(fp4_b200) >= 10
    assert all(c.engine > 0 for k, c in cases.items() if k[0] in {x["id"] for x in fp4_b200})


def test_fitted_constants_stay_inside_the_ranges_they_were_searched_in():
    for name, (low, high, _n) in SEARCH_SPACE.items():
        assert low <= get(name) <= high, name
    assert 0.38 <= rates.GEMM_PEAK_FRACTION["fp8"] <= 0.78  # DeepGEMM M = 4,096 to its best


def test_leave_one_out_covers_every_calibration_case_and_the_ranges_hold_most_holdout_throughput():
    loo = {(r["id"], r["metric"]) for r in _rows(LOO_PATH)}
    calibration = {(c.id, c.metric) for c in run_cases() if c.group == "calibration"}
    assert calibration == loo
    acc = serving_accuracy()
    low, high = acc.bands["throughput"]
    assert low < 1.0 < high
    inside, total = acc.holdout_inside["throughput"]
    assert inside >= 0.8 * total


def test_the_ranges_on_every_result_are_the_validated_leave_one_out_percentiles():
    bands = serving_accuracy().bands
    for kind, shipped in (("throughput", rates.THROUGHPUT_RANGE), ("latency", rates.LATENCY_RANGE)):
        low, high = bands[kind]
        assert shipped[0] == pytest.approx(math.floor(low * 100) / 100)
        assert shipped[1] == pytest.approx(math.ceil(high * 100) / 100)
