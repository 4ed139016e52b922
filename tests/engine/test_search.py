"""Search: every valid layout evaluated with the same functions as estimate (identical to 1e-9), ranked, and a
correct Pareto front."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from planner.engine.api import estimate, search
from planner.engine.inputs.errors import SpecError
from tests.engine.conftest import TRAIN

SEARCH: dict[str, Any] = {
    **copy.deepcopy(TRAIN),
    "search": {
        "objective": "min_time",
        "max_results": 1000,
        "nodes": [2, 4],
        "gpus": [TRAIN["cluster"]["gpu"], "nvidia_a100_sxm4_80gb"],
    },
}
SEARCH["workload"]["parallelism"] = {"global_batch": 256}
SEARCH["workload"]["tokens_b"] = 100
RELATIVE = 1e-9


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    return search(copy.deepcopy(SEARCH))


def _estimate_config(config: dict[str, Any]) -> dict[str, Any]:
    payload = copy.deepcopy(SEARCH)
    del payload["search"]
    gpu = config["gpu"]
    payload["cluster"]["gpu"] = TRAIN["cluster"]["gpu"] if gpu == TRAIN["cluster"]["gpu"]["name"] else gpu
    payload["cluster"]["nodes"] = config["nodes"]
    keys = (
        "tp",
        "pp",
        "dp",
        "cp",
        "ep",
        "virtual_stages",
        "micro_batch",
        "zero_stage",
        "recompute",
        "sequence_parallel",
        "flash_attention",
        "dp_overlap",
    )
    payload["workload"]["parallelism"] = {**{k: config[k] for k in keys}, "global_batch": 256}
    return estimate(payload)


def test_search_equals_estimate_on_a_sample_of_configurations(result):
    rng = random.Random(7)
    entries = result["best"]
    sample = rng.sample(entries, 25) + entries[:3] + entries[-3:]
    for entry in sample:
        out = _estimate_config(entry["config"])
        assert out["time"]["step_s"] == pytest.approx(entry["step_s"], rel=RELATIVE)
        assert out["time"]["tokens_per_s"] == pytest.approx(entry["tokens_per_s"], rel=RELATIVE)
        assert out["time"]["days"] == pytest.approx(entry["days"], rel=RELATIVE)
        assert out["time"]["mfu"] == pytest.approx(entry["mfu"], rel=RELATIVE)
        assert out["memory"]["per_gpu_gib"] == pytest.approx(entry["per_gpu_gib"], rel=RELATIVE)
        assert out["cost"]["tco_usd"] == pytest.approx(entry["tco_usd"], rel=RELATIVE)
        assert out["memory"]["fits"] is True


def test_counts_and_ranking(result):
    assert result["evaluated"] >= result["feasible"] > len(result["best"]) > 100
    days = [b["days"] for b in result["best"]]
    assert days == sorted(days)


def test_the_pareto_front_is_not_dominated(result):
    front = result["pareto"]
    assert front
    for a in front:
        for b in front:
            if a is not b:
                assert not (b["days"] <= a["days"] and b["tco_usd"] < a["tco_usd"])
    fastest = min(result["best"], key=lambda e: e["days"])
    assert front[0]["days"] == fastest["days"]


def test_min_cost_ranks_by_run_cost():
    payload = copy.deepcopy(SEARCH)
    payload["search"] = {**payload["search"], "objective": "min_cost", "max_results": 20}
    best = search(payload)["best"]
    costs = [b["run_cost_usd"] for b in best]
    assert costs == sorted(costs)


def test_fixed_and_listed_degrees_are_respected():
    payload = copy.deepcopy(SEARCH)
    payload["workload"]["parallelism"] = {"global_batch": 256, "tp": [2, 4], "pp": 1, "recompute": ["full"]}
    out = search(payload)
    assert out["best"]
    for entry in out["best"]:
        c = entry["config"]
        assert c["tp"] in (2, 4) and c["pp"] == 1 and c["recompute"] == "full"


def test_search_rejects_bad_input_with_paths():
    payload = copy.deepcopy(SEARCH)
    payload["search"]["objective"] = "fastest"
    payload["workload"]["parallelism"]["tp"] = [0, 2]
    with pytest.raises(SpecError) as err:
        search(payload)
    paths = {p.path for p in err.value.problems}
    assert {"search.objective", "workload.parallelism.tp"} <= paths


def test_a_layout_that_fits_nowhere_gives_an_empty_answer_with_a_warning():
    payload = copy.deepcopy(SEARCH)
    payload["workload"]["model"] = "llama3.1-405b"
    payload["search"] = {"nodes": [1]}
    out = search(payload)
    assert out["feasible"] == 0 and out["best"] == []
    assert out["warnings"]
