"""The search's shortcuts give what sorting every layout gives: the best rows (best_rows against rank_order), the
Pareto front (pareto_front against the plain sort and running minimum), and the time model run only on the
layouts that fit (evaluate_fitting_layouts against evaluate_layouts)."""

import numpy as np
import pytest

from planner.engine.inputs.parse import parse
from planner.engine.search.layouts import (
    best_rows,
    enumerate_layouts,
    evaluate_fitting_layouts,
    evaluate_layouts,
    layout_arrays,
    pareto_front,
    rank_order,
)
from planner.engine.transformer.shape import shape_of


def _reference_front(days, cost):
    by_time = np.lexsort((cost, days))
    sorted_cost = cost[by_time]
    cheaper = sorted_cost < np.concatenate(([np.inf], np.minimum.accumulate(sorted_cost)[:-1]))
    return by_time[cheaper]


def _data(seed, n, clusters):
    """Days and costs with many ties (rounded values), grouped in clusters of constant or proportional cost."""
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, clusters, n)
    days = np.round(rng.uniform(10, 100, n) * (1 + cluster), 0)
    per_cluster = rng.uniform(1, 5, clusters)
    constant = np.round(per_cluster[cluster], 1)
    proportional = days * per_cluster[cluster]
    noisy = np.round(rng.uniform(1, 50, n), 0)
    return cluster, days, {"constant": constant, "proportional": proportional, "noisy": noisy}


def _pivots(cluster, days, cost):
    out = []
    for c in np.unique(cluster):
        rows = np.flatnonzero(cluster == c)
        out += [rows[np.argmin(days[rows])], rows[np.argmin(cost[rows])]]
    return np.asarray(out, dtype=np.int64)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["constant", "proportional", "noisy"])
def test_pareto_front_equals_sorting_every_layout(seed, kind):
    cluster, days, costs = _data(seed, 3000, 8)
    cost = costs[kind]
    expected = _reference_front(days, cost)
    assert len(expected) >= 1
    assert np.array_equal(pareto_front(days, cost, _pivots(cluster, days, cost)), expected)
    # Any pivots (none, one, random ones) give the same front: they only decide what is skipped.
    rng = np.random.default_rng(seed)
    for pivots in ([0], rng.integers(0, len(days), 50), np.arange(len(days))):
        assert np.array_equal(pareto_front(days, cost, np.asarray(pivots, dtype=np.int64)), expected)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("objective", ["min_time", "min_cost"])
@pytest.mark.parametrize("count", [1, 10, 200, 5000])
def test_best_rows_equal_the_head_of_the_full_ranking(seed, objective, count):
    _, days, costs = _data(seed, 3000, 8)
    run_cost = costs["noisy"]
    expected = rank_order(objective, days, run_cost)[:count]
    assert np.array_equal(best_rows(objective, days, run_cost, count), expected)


def test_best_rows_with_nan_days_fall_back_to_the_full_ranking():
    days = np.array([3.0, np.nan, 1.0, np.nan, 2.0])
    cost = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
    for count in range(1, 6):
        assert np.array_equal(
            best_rows("min_time", days, cost, count), rank_order("min_time", days, cost)[:count]
        )


@pytest.mark.parametrize(("model", "nodes"), [("llama3.1-70b", 8), ("mixtral-8x7b", 4), ("llama3.1-8b", 1)])
def test_time_model_on_the_fitting_layouts_equals_it_on_all(model, nodes):
    payload = {
        "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": nodes},
        "workload": {
            "kind": "training",
            "model": model,
            "tokens_b": 100,
            "parallelism": {"global_batch": 256},
        },
    }
    sc = parse(payload)
    grid, _ = enumerate_layouts(sc.model, {}, sc.cluster.gpus, 256, 10**9)
    lay = layout_arrays(grid, sc.parallelism)
    everything = evaluate_layouts(sc, shape_of(sc.model), lay)
    index, fitting, per_gpu_gib = evaluate_fitting_layouts(sc, shape_of(sc.model), lay)
    assert np.array_equal(index, np.flatnonzero(everything["fits"]))
    assert 0 < len(index) < len(grid["tp"])  # some fit, some do not: both branches are exercised
    assert np.array_equal(per_gpu_gib, everything["per_gpu_gib"])
    for key in ("step_s", "tokens_per_s", "mfu", "days", "gpu_hours", "per_gpu_gib"):
        assert np.array_equal(fitting[key], np.asarray(everything[key])[index]), key
