"""perf/fastnp.py answers one number in Python: the same bits and type numpy gives, and the same estimates."""

import itertools
import math
import random
import struct

import numpy
import pytest

from planner.engine.api import SpecError, estimate, search
from planner.engine.perf import fastnp

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 1e300, -1e300, math.inf, -math.inf, math.nan, 5e-324]
RNG = random.Random(7)
VALUES = SPECIAL + [RNG.uniform(-1e6, 1e6) for _ in range(20)] + [numpy.float64(v) for v in SPECIAL[:8]]


def _bits(value):
    return struct.pack("<d", float(value))


def _same(expected, got):
    assert type(got) is numpy.float64
    assert _bits(expected) == _bits(got) or (math.isnan(expected) and math.isnan(got))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_and_minimum_of_two_floats_are_numpys_bits(name):
    for a, b in itertools.product(VALUES, VALUES):
        _same(getattr(numpy, name)(a, b), getattr(fastnp, name)(a, b))


@pytest.mark.parametrize("name", ["ceil", "floor"])
def test_ceil_and_floor_of_a_float_are_numpys_bits(name):
    for a in VALUES + [2.0**53 + 2, 79.99999999999999, -(2.0**60)]:
        _same(getattr(numpy, name)(a), getattr(fastnp, name)(a))


def test_where_on_one_condition_picks_numpys_value():
    for condition, a, b in itertools.product(
        (True, False, numpy.True_, numpy.False_), VALUES[:8], VALUES[:8]
    ):
        _same(numpy.where(condition, a, b), fastnp.where(condition, a, b))


def test_arrays_and_other_names_go_to_numpy():
    a = numpy.arange(6.0) - 2.5
    assert (fastnp.where(a > 0, a, 0.0) == numpy.where(a > 0, a, 0.0)).all()
    assert (fastnp.maximum(a, 0.5) == numpy.maximum(a, 0.5)).all()
    assert (fastnp.minimum(1.0, a) == numpy.minimum(1.0, a)).all()
    assert (fastnp.ceil(a) == numpy.ceil(a)).all() and (fastnp.floor(a) == numpy.floor(a)).all()
    assert fastnp.where(True, 1, 2) == 1  # integers are numpy's too
    assert fastnp.asarray is numpy.asarray and fastnp.ndarray is numpy.ndarray


def _train(model, nodes, parallelism):
    workload = {"kind": "training", "model": model, "tokens_b": 1000}
    if parallelism is not None:
        workload["parallelism"] = parallelism
    return {
        "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": nodes},
        "workload": workload,
    }


CASES = [
    _train("llama3.1-70b", 16, {"tp": 8, "pp": 2, "micro_batch": 1, "global_batch": 1024}),
    _train("llama3.1-8b", 4, {"tp": 1, "zero_stage": 3, "global_batch": 512, "reshard_after_forward": False}),
    _train(
        "llama3.1-70b", 8, {"tp": 4, "pp": 3, "dp": 1, "cp": 2, "global_batch": 64}
    ),  # pp must divide: refused
    _train("mixtral-8x7b", 4, {"tp": 2, "ep": 4, "zero_stage": 2, "recompute": "full", "global_batch": 256}),
    _train("gpt3-175b", 16, {"tp": 8, "pp": 8, "virtual_stages": 2, "hsdp": True, "global_batch": 512}),
    _train("llama3.1-70b", 8, None),  # automatic layout: a search over numpy arrays
]


def _answers():
    out = []
    for payload in CASES:
        try:
            out.append(estimate(payload))
        except SpecError as exc:  # the refusal itself is compared
            out.append(repr(exc))
    return out


def test_estimates_are_identical_with_plain_numpy(monkeypatch):
    fast = _answers()
    for name in ("where", "maximum", "minimum", "ceil", "floor"):
        monkeypatch.setattr(fastnp, name, getattr(numpy, name))
    assert _answers() == fast


def test_search_best_layouts_equal_their_estimates():
    payload = {
        **_train("llama3.1-8b", 2, {"global_batch": 256}),
        "search": {"objective": "min_time", "max_results": 3},
    }
    for entry in search(payload)["best"]:
        config = entry["config"]
        layout = {
            k: config[k]
            for k in (
                "tp",
                "pp",
                "dp",
                "cp",
                "ep",
                "virtual_stages",
                "micro_batch",
                "zero_stage",
                "recompute",
            )
        }
        out = estimate(_train("llama3.1-8b", 2, {**layout, "global_batch": 256}))
        assert out["time"]["step_s"] == entry["step_s"]
        assert out["time"]["mfu"] == entry["mfu"]
