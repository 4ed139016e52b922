"""planner.engine.search.sweep without a database: the plan, the chunk evaluation against `estimate`, the stored
precision and the merge."""

from __future__ import annotations

import random

import numpy as np
import pytest

from planner.engine.api import estimate
from planner.engine.inputs.errors import SpecError
from planner.engine.search import sweep
from planner.engine.search.layouts import enumerate_layouts
from tests.sweeps.conftest import engine_spec

#: float32 rounds to nearest: relative error at most 2^-24 (engine/search/sweep/rows.py, "Stored precision").
FLOAT32_REL = 2.0**-24
#: Same formulas on the same float64 inputs; energy multiplies by days x 86400 s instead of the run time itself.
FLOAT64_REL = 1e-12


def _all_chunks(spec, chunk_configs=3000):
    plan = sweep.plan_sweep(spec, chunk_configs=chunk_configs)
    results = [sweep.evaluate_chunk(spec, chunk) for chunk in plan.chunks]
    return plan, results


def _concat(results):
    return {key: np.concatenate([r.rows[key] for r in results]) for key, _ in sweep.ROW_COLUMNS}


def _estimate_of(spec, rows, i):
    layout = {key: rows[key][i] for key in sweep.DEGREES}
    return estimate(sweep.payload_for(spec, int(rows["gpu"][i]), int(rows["nodes"][i]), layout))


def _pairs(rows, i, out):
    return {
        "step_s": (rows["step_s"][i], out["time"]["step_s"]),
        "days": (rows["days"][i], out["time"]["days"]),
        "mfu": (rows["mfu"][i], out["time"]["mfu"]),
        "per_gpu_gib": (rows["per_gpu_gib"][i], out["memory"]["per_gpu_gib"]),
        "tco_usd": (rows["tco_usd"][i], out["cost"]["tco_usd"]),
        "capex_usd": (rows["capex_usd"][i], out["cost"]["capex_usd"]),
        "run_cost_usd": (rows["run_cost_usd"][i], out["cost"]["run_cost_usd"]),
        "energy_mwh": (rows["energy_mwh"][i], out["power"]["energy_mwh"]),
        "facility_mw": (rows["facility_mw"][i], out["power"]["facility_kw"] / 1000),
    }


def test_sweep_figures_equal_estimate_on_sampled_configurations():
    spec = engine_spec()
    _, results = _all_chunks(spec)
    rows = _concat(results)
    picks = random.Random(5).sample(range(len(rows["gpu"])), 40)
    picks += [int(np.argmin(rows["days"])), int(np.nonzero(~rows["feasible"])[0][0])]
    for i in picks:
        out = _estimate_of(spec, rows, i)
        assert bool(rows["feasible"][i]) is out["memory"]["fits"]
        assert int(rows["racks"][i]) == out["power"]["racks"]
        if not rows["feasible"][i]:
            # a layout that does not fit has no time, energy or run cost (docs/engine-contract.md)
            assert out["time"] is None
            assert rows["per_gpu_gib"][i] == pytest.approx(out["memory"]["per_gpu_gib"], rel=FLOAT64_REL)
            continue
        for name, (ours, theirs) in _pairs(rows, i, out).items():
            assert ours == pytest.approx(theirs, rel=FLOAT64_REL), (name, i)


def test_stored_rows_keep_degrees_exact_and_figures_within_float32_rounding():
    spec = engine_spec(nodes=[4])
    _, results = _all_chunks(spec)
    stored = sweep.unpack_rows(sweep.pack_rows(results[0].rows))
    full = results[0].rows
    for key in ("gpu", "nodes", "gpus", *sweep.DEGREES, "racks"):
        assert np.array_equal(stored[key], full[key]), key
    assert np.array_equal(stored["feasible"], full["feasible"])
    for key in ("per_gpu_gib", "step_s", "mfu", "days", "tco_usd", "capex_usd", "run_cost_usd", "energy_mwh"):
        assert stored[key].dtype == np.float32
        np.testing.assert_allclose(stored[key], full[key], rtol=FLOAT32_REL, atol=0)


def test_chunks_cover_every_cluster_layout_once_in_order():
    spec = engine_spec()
    plan, results = _all_chunks(spec, chunk_configs=1000)
    assert len(plan.chunks) > plan.clusters  # clusters were split across chunks
    assert sum(c["size"] for c in plan.chunks) == plan.total_configs
    assert sum(r.enumerated for r in results) == plan.total_configs
    rows = _concat(results)
    evaluated = 0
    for gi in range(len(spec["gpus"])):
        sc = sweep.scenario_for(spec, gi, spec["nodes"][0])
        for nodes in spec["nodes"]:
            grid, _ = enumerate_layouts(sc.model, sc.search["space"], 8 * nodes, 512, 10**9)
            mine = (rows["gpu"] == gi) & (rows["nodes"] == nodes)
            for key in sweep.DEGREES:
                assert np.array_equal(rows[key][mine], grid[key]), (gi, nodes, key)
            evaluated += len(grid["tp"])
    assert len(rows["gpu"]) == evaluated


def test_plan_is_deterministic():
    assert sweep.plan_sweep(engine_spec(), 2000).chunks == sweep.plan_sweep(engine_spec(), 2000).chunks


def _merged(spec, results, order=None):
    summaries = [sweep.summarize_chunk(r.rows, spec, i, r.enumerated) for i, r in enumerate(results)]
    if order is not None:
        summaries = [summaries[i] for i in order]
    return sweep.merge_summaries(summaries, spec)


def test_merge_does_not_depend_on_chunk_order():
    spec = engine_spec()
    _, results = _all_chunks(spec, chunk_configs=1000)
    order = list(range(len(results)))
    random.Random(3).shuffle(order)
    assert _merged(spec, results) == _merged(spec, results, order)


def test_ranked_lists_and_pareto_front_match_a_brute_force_over_every_row():
    spec = engine_spec(constraints={"days_max": 40.0}, per_cluster=2)
    _, results = _all_chunks(spec, chunk_configs=1000)
    result = _merged(spec, results)
    rows = _concat(results)
    offsets = np.cumsum([0] + [len(r.rows["gpu"]) for r in results])
    ok = rows["feasible"] & (rows["days"] <= 40.0)
    assert result["eligible"] == int(ok.sum()) > 0
    assert result["evaluated"] == len(rows["gpu"])
    for objective, column in sweep.OBJECTIVES.items():
        best = result["best"][objective]
        assert best[0][column] == rows[column][ok].min()
        assert [r[column] for r in best] == sorted(r[column] for r in best)
        clusters = [(r["gpu"], r["nodes"]) for r in best]
        assert max(clusters.count(c) for c in clusters) <= 2
        for r in best:  # each listed row is the stored row it points to
            assert rows[column][offsets[r["chunk"]] + r["row"]] == r[column]
    # Pareto: no eligible row is faster and cheaper than a front point; the front is sorted by time.
    front = result["pareto"]
    assert front and [p["days"] for p in front] == sorted(p["days"] for p in front)
    for point in front:
        assert not np.any(ok & (rows["days"] < point["days"]) & (rows["tco_usd"] < point["tco_usd"]))
    # Every eligible row is matched or beaten by some front point on both axes.
    days, tco = rows["days"][ok], rows["tco_usd"][ok]
    covered = np.zeros(len(days), dtype=bool)
    for point in front:
        covered |= (point["days"] <= days) & (point["tco_usd"] <= tco)
    assert covered.all()


def test_constraints_that_nothing_meets_leave_empty_lists_and_say_why():
    spec = engine_spec(constraints={"capex_usd_max": 1.0})
    _, results = _all_chunks(spec, chunk_configs=5000)
    result = _merged(spec, results)
    assert result["eligible"] == 0 and result["feasible"] > 0
    assert all(rows == [] for rows in result["best"].values())
    assert "none meets the constraints" in result["warnings"][0]


def test_size_message_says_how_large_and_how_to_narrow():
    spec = engine_spec(space={})
    plan = sweep.plan_sweep(spec)
    message = sweep.size_message(plan, spec, 1000)
    assert f"{plan.total_configs:,} configurations" in message
    assert "2 GPU models × 3 node counts" in message and "limit is 1,000" in message
    assert "Narrow it" in message


@pytest.mark.parametrize(
    ("overrides", "path", "text"),
    [
        ({"nodes": [0, 4]}, "sweep.nodes", "at least 1"),
        ({"objective": "fastest"}, "sweep.objective", "must be one of"),
        ({"constraints": {"days_max": -3}}, "sweep.constraints.days_max", "greater than 0"),
        ({"space": {"tp": [0]}}, "workload.parallelism.tp", "at least 1"),
        ({"gpus": []}, "sweep.gpus", "at least one GPU"),
    ],
)
def test_plan_rejects_a_bad_spec_naming_the_field(overrides, path, text):
    with pytest.raises(SpecError) as err:
        sweep.plan_sweep(engine_spec(**overrides))
    assert any(p.path == path and text in p.message for p in err.value.problems), err.value.problems


def test_a_gpu_without_the_precision_is_refused_with_its_name():
    spec = engine_spec()
    spec["base"]["workload"]["precision"] = "fp8"
    with pytest.raises(SpecError) as err:
        sweep.plan_sweep(spec)
    assert [p.path for p in err.value.problems] == ["workload.precision"]
    assert "A100 SXM4 80GB" in err.value.problems[0].message


def test_a_space_beyond_the_limit_is_counted_without_cutting_it_into_chunks():
    spec = engine_spec(nodes=list(range(1, 501)), space={})
    plan = sweep.plan_sweep(spec, max_configs=50_000_000)
    assert plan.total_configs > 50_000_000 and plan.chunks == [] and plan.clusters == 1000
    assert plan.plan_s < 5.0


@pytest.mark.parametrize(
    ("gpus", "nodes", "top_n", "expected"), [(2, 3, 20, 4), (2, 10, 20, 1), (1, 1, 20, 20)]
)
def test_ranked_lists_show_each_cluster_once_when_there_are_enough_clusters(gpus, nodes, top_n, expected):
    spec = engine_spec(nodes=list(range(1, nodes + 1)), top_n=top_n)
    spec["gpus"] = spec["gpus"][:gpus]
    assert sweep.rows_per_cluster(spec) == expected
    assert sweep.rows_per_cluster({**spec, "per_cluster": 2}) == 2
