"""The busiest GPU's expert load under expert parallelism (engine/inference/expert_load.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from planner.engine.accuracy.serving import CASES_PATH, _rows, deployment_for
from planner.engine.inference import rates
from planner.engine.inference.expert_load import busiest_gpu_share, expert_load_imbalance
from planner.engine.inference.service import prepare
from planner.engine.inference.step import cycle_time_s

DEEPSEEK_EXPERTS = 256


def test_the_busiest_gpu_share_grows_with_the_ep_degree():
    shares = [busiest_gpu_share(DEEPSEEK_EXPERTS, ep) for ep in (1, 2, 4, 8, 16, 32, 64)]
    assert shares[0] == 1.0
    assert all(b > a for a, b in zip(shares, shares[1:], strict=False))


def test_a_uniform_popularity_loads_every_gpu_alike(monkeypatch):
    monkeypatch.setattr(rates, "EXPERT_POPULARITY_LOG_SIGMA", 0.0)
    assert [busiest_gpu_share(DEEPSEEK_EXPERTS, ep) for ep in (2, 8, 32)] == [1.0, 1.0, 1.0]


def test_a_wider_popularity_spread_loads_the_busiest_gpu_more(monkeypatch):
    wide = busiest_gpu_share(DEEPSEEK_EXPERTS, 8)
    monkeypatch.setattr(rates, "EXPERT_POPULARITY_LOG_SIGMA", rates.EXPERT_POPULARITY_LOG_SIGMA / 2)
    assert 1.0 < busiest_gpu_share(DEEPSEEK_EXPERTS, 8) < wide


def test_the_spread_gives_the_measured_busiest_gpu_at_ep_32():
    """TensorRT-LLM tech blog 4, Table 1 (DeepSeek-R1, EP 32, no EPLB): the hottest of 32 GPUs carries 2.564x the
    mean, averaged over layers and iterations."""
    assert busiest_gpu_share(DEEPSEEK_EXPERTS, 32) == pytest.approx(2.564, rel=0.05)


def test_eplb_lowers_the_busiest_share_and_never_raises_it():
    assert busiest_gpu_share(DEEPSEEK_EXPERTS, 32, eplb=True) == rates.EPLB_LOAD_IMBALANCE
    assert busiest_gpu_share(DEEPSEEK_EXPERTS, 32, eplb=True) < busiest_gpu_share(DEEPSEEK_EXPERTS, 32)
    two = busiest_gpu_share(DEEPSEEK_EXPERTS, 2)
    assert two < rates.EPLB_LOAD_IMBALANCE
    assert busiest_gpu_share(DEEPSEEK_EXPERTS, 2, eplb=True) == two


def test_no_expert_parallelism_no_imbalance():
    assert expert_load_imbalance(DEEPSEEK_EXPERTS, 1) == 1.0
    assert expert_load_imbalance(DEEPSEEK_EXPERTS, 8) == pytest.approx(
        busiest_gpu_share(DEEPSEEK_EXPERTS, 8) * rates.EXPERT_LOAD_SCALE
    )


def _case(case_id: str) -> dict[str, str]:
    return next(r for r in _rows(CASES_PATH) if r["id"] == case_id)


def _step(coef, tokens: float) -> float:
    zero = np.asarray([0.0])
    return float(
        cycle_time_s(
            coef,
            decode_tokens=zero,
            prefill_tokens=np.asarray([tokens]),
            cached_tokens=zero,
            prefill_pairs=zero,
        )[0]
    )


def test_an_eplb_server_runs_a_compute_bound_moe_step_faster():
    """SGLang's EP 32 prefill (C055) with and without its load balancer: the same step, the busiest GPU's load
    1.11x the mean with it and the popularity spread's without."""
    balanced = prepare(deployment_for({**_case("C055"), "eplb": "true"})).coef
    unbalanced = prepare(deployment_for({**_case("C055"), "eplb": ""})).coef
    assert float(balanced.expert_imbalance[0]) < float(unbalanced.expert_imbalance[0])
    assert _step(balanced, 32 * 16384) < _step(unbalanced, 32 * 16384)


def test_the_imbalance_costs_nothing_while_the_experts_are_memory_bound():
    """A busy GPU streams the same local experts' weights whatever its share of a few tokens."""
    coef = prepare(deployment_for(_case("C055"))).coef
    heavier = replace(
        coef, expert_imbalance=coef.expert_imbalance * 2.0, comm_s_per_token=coef.comm_s_per_token
    )
    few = 32.0  # 32 x 8 routed tokens over 256 experts: one per expert, far below the ridge point
    assert _step(heavier, few) == pytest.approx(_step(coef, few), rel=1e-9)
    assert _step(heavier, 32 * 16384) > _step(coef, 32 * 16384)
