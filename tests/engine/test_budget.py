"""Reverse sizing (planner/engine/search/budget.py): the largest cluster within a power and/or money budget,
judged by the engine's estimate, and the work it delivers."""

from __future__ import annotations

import copy
import math

import pytest

from planner.engine.api import estimate
from planner.engine.inputs.errors import SpecError
from planner.engine.search import budget as b
from tests.engine.conftest import TRAIN


def _train(**cluster) -> dict:
    payload = copy.deepcopy(TRAIN)
    payload["cluster"].update(cluster)
    return payload


@pytest.mark.parametrize("nodes", [1, 2, 16, 64])
def test_a_probe_prices_and_powers_a_cluster_as_the_real_layout_does(nodes):
    payload = _train()
    real = estimate(b.with_nodes(payload, nodes))
    probe = estimate(b.probe_payload(payload, nodes))
    assert probe["power"]["provisioning"] == real["power"]["provisioning"]
    for key in ("capex_usd", "tco_usd", "opex_usd_per_year"):
        assert probe["cost"][key] == pytest.approx(real["cost"][key], rel=1e-12)


@pytest.mark.parametrize(
    ("power_kw", "money_usd", "binding"),
    [(500.0, None, ("power",)), (None, 5e6, ("money",)), (500.0, 1e9, ("power",)), (1e5, 5e6, ("money",))],
)
def test_the_largest_count_is_within_the_budget_and_one_more_node_is_not(power_kw, money_usd, binding):
    payload = _train()
    budget = b.Budget(power_kw=power_kw, money_usd=money_usd)
    probe = b.facility_probe(payload)
    limit = b.largest_within(probe, budget)
    assert limit.nodes >= 1
    assert b.exceeded(b.spend(probe(limit.nodes), budget), budget) == []
    assert b.exceeded(b.spend(probe(limit.nodes + 1), budget), budget) == list(binding)
    assert limit.binding == binding


def test_each_basis_reads_its_own_engine_figure():
    out = estimate(b.probe_payload(_train(), 10))
    facility = b.spend(out, b.Budget(power_kw=1.0, money_usd=1.0))
    it_tco = b.spend(out, b.Budget(power_kw=1.0, money_usd=1.0, power_basis="it", money_basis="tco"))
    assert facility.power_kw == pytest.approx(it_tco.power_kw * out["power"]["pue"])
    assert it_tco.power_kw == out["power"]["provisioning"]["it_nameplate_kw"]
    assert it_tco.money_usd == out["cost"]["tco_usd"] > facility.money_usd == out["cost"]["capex_usd"]


def test_doubling_the_power_budget_never_lowers_the_delivered_work():
    payload = _train()
    works = []
    for power_kw in (100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0):
        fit = b.fit_budget(payload, b.Budget(power_kw=power_kw))
        assert fit.work is not None, fit.reason
        works.append(fit.work.value)
        assert b.spend(fit.output, b.Budget(power_kw=power_kw)).power_kw <= power_kw
    assert works == sorted(works) and works[-1] > 10 * works[0]


def test_a_bigger_money_budget_never_lowers_the_delivered_work():
    payload = _train()
    works = [
        b.fit_budget(payload, b.Budget(money_usd=m)).work.value for m in (2e6, 4e6, 8e6, 16e6, 32e6, 64e6)
    ]
    assert works == sorted(works)


def test_the_best_of_the_candidate_counts_is_chosen_and_each_is_within_the_budget():
    fit = b.fit_budget(_train(), b.Budget(power_kw=700.0))
    assert fit.nodes in b.candidate_counts(fit.limit.nodes)
    assert fit.work.value == max(w for _, w in fit.tried if w is not None)
    counts = b.candidate_counts(fit.limit.nodes)
    assert [n for n, _ in fit.tried][: len(counts)] == counts


@pytest.mark.parametrize("nodes", [1, 2, 3, 5, 7, 12, 91, 100, 118, 131_071])
def test_candidate_counts_include_the_count_and_a_power_of_two_below_it(nodes):
    counts = b.candidate_counts(nodes)
    assert counts[0] == nodes and all(1 <= c <= nodes for c in counts) and len(counts) <= 5
    assert counts == sorted(set(counts), reverse=True)
    assert any(c & (c - 1) == 0 and 2 * c > nodes for c in counts)


def test_candidate_counts_of_118_nodes():
    assert b.candidate_counts(118) == [118, 112, 96, 80, 64]


def test_a_budget_below_one_node_says_what_one_node_needs():
    fit = b.fit_budget(_train(), b.Budget(power_kw=5.0, money_usd=1e9))
    assert fit.nodes == 0 and fit.work is None
    assert fit.limit.binding == ("power",)
    assert "one node already needs" in fit.reason and "kW" in fit.reason


def test_a_model_that_does_not_fit_in_memory_gives_the_reason():
    payload = _train(gpu={**TRAIN["cluster"]["gpu"], "memory_gb": 8})
    payload["workload"]["parallelism"].update(tp=1, zero_stage=0)
    fit = b.fit_budget(payload, b.Budget(power_kw=300.0))
    assert fit.nodes == 0 and fit.work is None
    assert "memory" in fit.reason.lower() or "fit" in fit.reason.lower()


def test_past_the_node_cap_the_cap_binds():
    limit = b.largest_within(b.facility_probe(_train()), b.Budget(money_usd=1e12), max_nodes=16)
    assert limit.nodes == 16 and limit.binding == ("node cap",)


@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({}, "budget"),
        ({"power_kw": -1.0}, "power_kw"),
        ({"power_kw": 0.0}, "power_kw"),
        ({"money_usd": math.nan}, "money_usd"),
        ({"money_usd": math.inf}, "money_usd"),
        ({"power_kw": 1.0, "power_basis": "grid"}, "power_basis"),
        ({"money_usd": 1.0, "money_basis": "rent"}, "money_basis"),
    ],
)
def test_a_bad_budget_is_refused_naming_the_field(kwargs, path):
    with pytest.raises(SpecError) as error:
        b.Budget(**kwargs)
    assert path in error.value.as_dict()


def test_inference_delivers_output_tokens_per_second():
    from tests.engine.conftest import INFER

    fit = b.fit_budget(copy.deepcopy(INFER), b.Budget(power_kw=200.0))
    assert fit.work is not None and fit.work.unit == "output tokens/s"
    smaller = b.fit_budget(copy.deepcopy(INFER), b.Budget(power_kw=100.0))
    assert fit.work.value > smaller.work.value


def test_past_the_layouts_limit_a_bigger_budget_still_delivers_the_most_work_found_below():
    # tp 2 and a global batch of 512 sequences: data parallelism stops at 512, i.e. 128 nodes of 8 GPUs
    payload = _train()
    works = []
    for money_usd in (5e6, 5e7, 5e8, 5e9, 5e11):
        fit = b.fit_budget(payload, b.Budget(money_usd=money_usd))
        assert fit.work is not None, fit.reason
        works.append(fit.work.value)
    assert works == sorted(works)
    huge = b.fit_budget(payload, b.Budget(money_usd=5e11))
    assert huge.limit.binding == ("node cap",) and huge.nodes == 128
    assert len(huge.tried) < 40  # a walk down the powers of two, not a scan


@pytest.mark.parametrize("nodes", [1, 3, 10])
def test_a_probe_powers_a_service_as_its_own_layout_does(nodes):
    from tests.engine.conftest import INFER

    real = estimate(b.with_nodes(copy.deepcopy(INFER), nodes))
    probe = estimate(b.probe_payload(copy.deepcopy(INFER), nodes))
    assert probe["power"]["provisioning"] == real["power"]["provisioning"]
    assert probe["power"]["racks"] == real["power"]["racks"]
