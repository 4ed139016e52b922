"""planner/engine/results.py describes what `estimate` and `search` return: every key of every section, no more,
no less, with value types that match. Checked on results that between them carry every optional key."""

from __future__ import annotations

import copy
import types
import typing
from collections import defaultdict
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from planner.engine.api import estimate, search
from planner.engine.results import CostSection, EstimateResult, SearchResult

#: Keys seen per TypedDict over all checked results (a declared key no result carries is a stale type).
SEEN: dict[type, set[str]] = defaultdict(set)


def conforms(value: Any, tp: Any, path: str) -> list[str]:
    """Where `value` departs from the type `tp` (empty when it conforms)."""
    if tp is Any:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, expected {tp.__name__}"]
        keys = set(value)
        problems = [f"{path}.{k}: missing" for k in sorted(tp.__required_keys__ - keys)]
        problems += [f"{path}.{k}: not in {tp.__name__}" for k in sorted(keys - tp.__annotations__.keys())]
        hints = get_type_hints(tp)
        for key in keys & hints.keys():
            problems += conforms(value[key], hints[key], f"{path}.{key}")
        if not problems:
            SEEN[tp] |= keys
        return problems
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        attempts = [conforms(value, arg, path) for arg in get_args(tp)]
        return [] if any(not a for a in attempts) else min(attempts, key=len)
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{path}: {value!r} not one of {get_args(tp)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, expected a list"]
        (item,) = get_args(tp)
        return [p for i, v in enumerate(value) for p in conforms(v, item, f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, expected a dict"]
        _, item = get_args(tp)
        return [p for k, v in value.items() for p in conforms(v, item, f"{path}.{k}")]
    if tp is type(None):
        return [] if value is None else [f"{path}: {value!r}, expected null"]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, tp)
    return [] if ok else [f"{path}: {value!r} is not {tp.__name__}"]


def _all_typeddicts(tp: Any, found: set[type]) -> set[type]:
    if is_typeddict(tp):
        if tp in found:
            return found
        found.add(tp)
        for hint in get_type_hints(tp).values():
            _all_typeddicts(hint, found)
    for arg in get_args(tp):
        _all_typeddicts(arg, found)
    return found


@pytest.fixture
def payloads(train, infer):
    rich = copy.deepcopy(train)
    rich["economics"].update({"discount_rate": 0.07, "grid_kgco2_per_kwh": 0.4})
    rich["cluster"]["gpu_power_limit_w"] = 600  # carries power.gpu_power_cap
    bare = copy.deepcopy(train)
    del bare["economics"]
    served = copy.deepcopy(infer)
    served["workload"]["serving"]["target_tokens_per_s"] = 20_000
    served["economics"] = train["economics"]
    job = {
        # A GPU power cap (H100: 600 of 700 W) so the power.gpu_power_cap section is carried too.
        "cluster": {**train["cluster"], "gpu_power_limit_w": 600},
        "workload": {"kind": "job", "job": {"single_gpu_hours": 100, "parallel_fraction": 0.95}},
        "economics": train["economics"],
    }
    return {
        "training": rich,
        "training, no economics": bare,
        "inference": infer,
        "serving": served,
        "job": job,
    }


def test_estimate_results_match_their_types(payloads):
    for name, payload in payloads.items():
        result = estimate(payload)
        assert conforms(result, EstimateResult, name) == []
        sections = {"training": "time", "inference": "inference", "job": "job"}
        assert sections[result["kind"]] in result


def test_search_result_matches_its_type(train):
    payload = copy.deepcopy(train)
    payload["workload"]["parallelism"] = {"global_batch": 512, "tp": [1, 2], "pp": 1, "cp": 1}
    payload["search"] = {"nodes": [4, 8], "max_results": 3}
    result = search(payload)
    assert result["best"] and result["pareto"]
    assert conforms(result, SearchResult, "search") == []


def test_every_declared_key_is_carried_by_some_result(payloads, train):
    SEEN.clear()
    test_estimate_results_match_their_types(payloads)
    test_search_result_matches_its_type(train)
    stale = {
        tp.__name__: sorted(tp.__annotations__.keys() - SEEN[tp])
        for tp in _all_typeddicts(EstimateResult, set()) | _all_typeddicts(SearchResult, set())
        if tp.__annotations__.keys() - SEEN[tp]
    }
    assert stale == {}


def test_the_checker_catches_a_missing_an_extra_and_a_mistyped_key(train):
    cost = copy.deepcopy(estimate(train)["cost"])
    assert conforms(cost, CostSection, "cost") == []
    del cost["tco_usd_low"]
    cost["surprise"] = 1
    cost["capex_usd"] = "a lot"
    assert sorted(conforms(cost, CostSection, "cost")) == [
        "cost.capex_usd: 'a lot' is not float",
        "cost.surprise: not in CostSection",
        "cost.tco_usd_low: missing",
    ]
    assert typing.get_type_hints(CostSection)["npv_usd"] is float
