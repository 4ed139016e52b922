"""Goodput: calibrated on Llama 3 405B (arXiv:2407.21783 §3.3.4: 466 interruptions in 54 days on 16,384 GPUs,
more than 90% effective training time)."""

import pytest

from planner.engine.training.goodput import MTBF_GPU_HOURS_DEFAULT, GoodputSpec, estimate_goodput


def test_the_default_failure_rate_is_llama_3_s():
    assert pytest.approx(16384 * 54 * 24 / 466) == MTBF_GPU_HOURS_DEFAULT


def test_llama_3_s_cluster_keeps_90_percent_goodput():
    assert estimate_goodput(GoodputSpec(), 16384, 54 * 86400).fraction == pytest.approx(0.90, abs=0.005)


def test_goodput_falls_as_the_cluster_grows():
    fractions = [estimate_goodput(GoodputSpec(), n, 1e6).fraction for n in (8, 512, 8192, 65536)]
    assert fractions == sorted(fractions, reverse=True)
    assert fractions[0] > 0.99


def test_a_measured_goodput_replaces_the_model():
    assert estimate_goodput(GoodputSpec(fraction=0.8), 1024, 1e6).fraction == 0.8


def test_a_huge_cluster_is_floored_and_warned_about():
    result = estimate_goodput(GoodputSpec(restart_s=3600), 10_000_000, 1e6)
    assert result.fraction == 0.01
    assert result.warnings
