"""Output-length spread in the serving model: the running requests are length-biased (workload.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from planner.engine.accuracy.serving import (
    CASES_PATH,
    DATASET_INPUT,
    DATASET_OUTPUT_CV,
    _gpu,
    _model,
    _rows,
    deployment_for,
)
from planner.engine.inference.drain import residual_survival
from planner.engine.inference.layout import ServingLayout
from planner.engine.inference.service import Deployment, Offline, Rate, evaluate, prepare
from planner.engine.inference.workload import Lengths, Workload

H100 = _gpu("nvidia_h100_sxm5_80gb")
LLAMA70 = _model("llama3.1-70b")
PROMPT, OUTPUT = 4096.0, 4096.0


def deploy(output: Lengths) -> Deployment:
    return Deployment(
        model=LLAMA70,
        gpu=H100,
        layout=ServingLayout(tp=8),
        replicas=1,
        workload=Workload(Lengths(PROMPT), output),
        weight_precision="fp8",
        kv_precision="fp8",
    )


def test_running_context_is_length_biased_by_the_output_spread():
    for cv in (0.0, 0.5, 1.0, 2.0):
        wl = Workload(Lengths(PROMPT), Lengths(OUTPUT, "lognormal", cv))
        # E[o^2] / (2 E[o]) for a lognormal of mean m and cv: (1 + cv^2) m / 2
        assert wl.mean_context_tokens == pytest.approx(PROMPT + (1.0 + cv**2) * OUTPUT / 2.0)
    exponential = Workload(Lengths(PROMPT), Lengths(OUTPUT, "exponential"))
    assert exponential.mean_context_tokens == pytest.approx(PROMPT + OUTPUT)  # cv 1


def test_a_wider_output_spread_lowers_the_running_request_limit():
    limits = []
    for cv in (0.0, 1.0, 2.0):
        mem = prepare(deploy(Lengths(OUTPUT, "lognormal", cv))).memories[0]
        blocks = mem.kv_capacity_tokens / 16
        context = PROMPT + (1.0 + cv**2) * OUTPUT / 2.0
        assert mem.max_running_requests == min(mem.engine_limit, math.floor(blocks / (context / 16 + 0.5)))
        limits.append(mem.max_running_requests)
    assert limits[0] > limits[1] > limits[2]
    offline = [
        evaluate(deploy(Lengths(OUTPUT, "lognormal", cv)), Offline()).output_tokens_per_s for cv in (0, 2)
    ]
    assert offline[1] < offline[0]


def test_a_wider_output_spread_raises_the_attention_time_per_step_at_the_same_running_count():
    narrow = prepare(deploy(Lengths(OUTPUT, "lognormal", 0.3))).model
    wide = prepare(deploy(Lengths(OUTPUT, "lognormal", 1.5))).model
    x = np.asarray([0.01, 0.05])  # requests arriving per step
    a, b = narrow.state(x), wide.state(x)
    np.testing.assert_allclose(a.running, b.running)  # lambda * E[o] * T: the same count at the same state
    assert np.all(b.step_s > a.step_s)


def test_output_cv_zero_reproduces_fixed_lengths():
    fixed, zero = deploy(Lengths(OUTPUT)), deploy(Lengths(OUTPUT, "lognormal", 0.0))
    assert zero.workload.mean_context_tokens == fixed.workload.mean_context_tokens
    assert prepare(zero).memories[0] == prepare(fixed).memories[0]
    rate = 0.5 * float(prepare(fixed).model.max_rate_per_s()[0])
    one, other = evaluate(fixed, Rate(rate)).state, evaluate(zero, Rate(rate)).state
    for p in (50.0, 90.0, 99.0):
        assert float(other.ttft_s[p][0]) == pytest.approx(float(one.ttft_s[p][0]), rel=1e-12)
        assert float(other.tpot_s[p][0]) == pytest.approx(float(one.tpot_s[p][0]), rel=1e-12)
    assert float(other.step_s[0]) == pytest.approx(float(one.step_s[0]), rel=1e-12)


def test_mlperf_cases_take_their_dataset_s_output_spread_and_published_lengths_stay_fixed():
    seen = set()
    for case in _rows(CASES_PATH):
        output = deployment_for(case).workload.output
        assert output.mean == float(case["output_len"])
        kind, _, dataset = case["input_basis"].partition(":")
        if kind in ("estimate", "dataset"):
            assert (output.distribution, output.cv) == ("lognormal", DATASET_OUTPUT_CV[dataset])
            seen.add(dataset)
        else:
            assert output.distribution == "fixed"
    assert seen == set(DATASET_OUTPUT_CV)


def test_mlperf_cases_run_their_dataset_s_measured_prompt_mean_and_spread_and_none_is_an_estimate():
    seen = set()
    for case in _rows(CASES_PATH):
        kind, _, dataset = case["input_basis"].partition(":")
        assert kind != "estimate", case["id"]
        prompt = deployment_for(case).workload.input
        if kind == "dataset":
            mean, cv = DATASET_INPUT[dataset]
            assert (prompt.mean, prompt.distribution, prompt.cv) == (mean, "lognormal", cv), case["id"]
            seen.add(dataset)
    assert seen == set(DATASET_INPUT) == set(DATASET_OUTPUT_CV)


def test_the_equilibrium_residual_output_is_length_biased_and_capped():
    t = np.asarray([0.0, 1024.0, 2048.0, 4096.0, 5000.0])
    np.testing.assert_allclose(residual_survival(Lengths(OUTPUT), t), [1.0, 0.75, 0.5, 0.0, 0.0])
    np.testing.assert_allclose(residual_survival(Lengths(OUTPUT, "exponential"), t), np.exp(-t / OUTPUT))
    wide = residual_survival(Lengths(OUTPUT, "lognormal", 1.5), t)
    assert wide[0] == pytest.approx(1.0) and np.all(np.diff(wide) < 0)
    # E[R] = integral of P(R > t) = E[o^2] / (2 E[o]) = (1 + cv^2) E[o] / 2
    grid = np.linspace(0.0, 200 * OUTPUT, 400_001)
    s = residual_survival(Lengths(OUTPUT, "lognormal", 1.5), grid)
    assert np.trapezoid(s, grid) == pytest.approx((1 + 1.5**2) * OUTPUT / 2, rel=2e-3)
    capped = residual_survival(Lengths(OUTPUT, "lognormal", 1.5), t, cap=4096.0)
    assert capped[0] == pytest.approx(1.0) and capped[3] == 0.0 and np.all(capped[1:3] < wide[1:3])


def test_a_finite_offline_run_loses_its_drain_more_with_a_wider_output_spread():
    def served(output: Lengths, load: Offline) -> float:
        return evaluate(deploy(output), load).output_tokens_per_s

    fixed = Lengths(OUTPUT)
    saturated = served(fixed, Offline())
    small, large = served(fixed, Offline(2_000)), served(fixed, Offline(200_000))
    assert small < large < saturated and large == pytest.approx(saturated, rel=0.01)
    spread = Lengths(OUTPUT, "lognormal", 1.5)
    assert served(spread, Offline(2_000)) / served(spread, Offline()) < small / saturated
    # LoadGen sizes the run to outlast min_duration: a tiny query count is raised to 1.1 x 600 s x the rate
    assert served(fixed, Offline(10, 600.0)) == pytest.approx(
        served(fixed, Offline(1.1 * 600.0 * evaluate(deploy(fixed), Offline()).requests_per_s)), rel=1e-9
    )
