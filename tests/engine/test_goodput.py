"""Whole-run time (training/goodput.py): failures and restarts calibrated on Llama 3 405B (arXiv:2407.21783
§3.3.4: 466 interruptions in 54 days on 16,384 GPUs, more than 90% effective training time), evaluation passes,
stragglers, stalls, batch ramp-up and long-context stages, and their split."""

import pytest

from planner.engine.api import estimate
from planner.engine.training import goodput
from planner.engine.training.goodput import (
    MTBF_GPU_HOURS_DEFAULT,
    PARTS,
    GoodputSpec,
    estimate_goodput,
    goodput_fraction,
)


def test_the_default_failure_rate_is_llama_3_s():
    assert pytest.approx(16384 * 54 * 24 / 466) == MTBF_GPU_HOURS_DEFAULT


def test_llama_3_s_cluster_keeps_90_percent_failure_goodput():
    assert estimate_goodput(GoodputSpec(), 16384, 54 * 86400).failure_goodput == pytest.approx(
        0.90, abs=0.005
    )


def test_goodput_falls_as_the_cluster_grows():
    fractions = [estimate_goodput(GoodputSpec(), n, 1e6).failure_goodput for n in (8, 512, 8192, 65536)]
    assert fractions == sorted(fractions, reverse=True)
    assert fractions[0] > 0.99


def test_a_measured_goodput_replaces_the_model():
    result = estimate_goodput(GoodputSpec(fraction=0.8), 1024, 1e6)
    assert result.fraction == 0.8 and result.total_s == pytest.approx(1e6 / 0.8)


def test_a_huge_cluster_is_floored_and_warned_about():
    result = estimate_goodput(GoodputSpec(restart_s=3600), 10_000_000, 1e6)
    assert result.failure_goodput == 0.01
    assert result.warnings


def test_the_parts_add_up_to_the_whole_run():
    spec = GoodputSpec(data_stall_fraction=0.02, straggler_per_doubling=0.01)
    result = estimate_goodput(spec, 2048, 30 * 86400, ramp_up_extra_s=3600.0, long_context_extra_s=7200.0)
    parts = dict(result.parts_s)
    assert tuple(parts) == PARTS
    assert all(v >= 0 for v in parts.values())
    assert result.steady_s + sum(parts.values()) == pytest.approx(result.total_s)
    assert parts["batch_ramp_up"] == 3600.0 and parts["long_context"] == 7200.0
    assert result.fraction == pytest.approx(result.steady_s / result.total_s)


def test_the_search_s_fraction_is_the_estimate_s_without_ramp_up_or_long_context():
    spec = GoodputSpec()
    for gpus in (8, 256, 16384):
        result = estimate_goodput(spec, gpus, 1e7)
        assert float(goodput_fraction(spec, float(gpus))) == pytest.approx(result.fraction)


def test_evaluation_default_is_gpt_neox_s_ten_batches_per_thousand_steps():
    result = estimate_goodput(GoodputSpec(straggler_fraction=0.0), 8, 1e6)
    assert dict(result.parts_s)["evaluation"] == pytest.approx(1e6 * 10 / 1000 / 3)


def test_stragglers_scale_with_nodes_only_when_asked():
    flat = [float(goodput.straggler_fraction(GoodputSpec(), n)) for n in (8, 1024)]
    assert flat[0] == flat[1] == goodput.STRAGGLER_FRACTION
    grow = [float(goodput.straggler_fraction(GoodputSpec(straggler_per_doubling=0.01), n)) for n in (8, 1024)]
    assert grow[1] == pytest.approx(grow[0] + 0.01 * 7)


def _run(goodput_input=None):
    workload = {
        "kind": "training",
        "model": "llama3.1-8b",
        "tokens_b": 1000,
        "precision": "bf16",
        "parallelism": {"tp": 1, "pp": 1, "micro_batch": 1, "global_batch": 256, "zero_stage": 1},
    }
    if goodput_input is not None:
        workload["goodput"] = goodput_input
    return estimate(
        {"cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 8}, "workload": workload}
    )


def test_estimate_reports_the_split_and_keeps_the_steady_state_figures():
    base, staged = (
        _run(),
        _run({"ramp_up_tokens_b": 50, "long_context_tokens_b": 100, "long_context_seq_len": 65536}),
    )
    t, s = base["time"], staged["time"]
    assert t["step_s"] == s["step_s"] and t["tokens_per_s"] == s["tokens_per_s"] and t["mfu"] == s["mfu"]
    assert t["steady_state_days"] == t["steady_days"] == s["steady_state_days"]
    assert t["days"] == pytest.approx(
        t["steady_state_days"] + sum(p["days"] for p in t["overheads"].values())
    )
    assert sum(p["share"] for p in t["overheads"].values()) == pytest.approx(1 - t["goodput"])
    assert t["overheads"]["batch_ramp_up"]["days"] == 0 and t["overheads"]["long_context"]["days"] == 0
    assert s["overheads"]["batch_ramp_up"]["days"] > 0 and s["overheads"]["long_context"]["days"] > 0
    assert s["days"] > t["days"]
    assert t["gpu_hours"] == pytest.approx(t["days"] * 24 * 64)


def test_bad_whole_run_inputs_name_their_field():
    from planner.engine.inputs.errors import SpecError

    with pytest.raises(SpecError) as err:
        _run({"long_context_tokens_b": 100})
    assert "workload.goodput.long_context_seq_len" in str(err.value)
    with pytest.raises(SpecError) as err:
        _run({"data_stall_fraction": -1})
    assert "workload.goodput.data_stall_fraction" in str(err.value)
