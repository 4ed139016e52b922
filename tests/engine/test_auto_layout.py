"""`estimate` without a layout (issue 13's contract, issue 18 point 3): `workload.parallelism` omitted or
`{"auto": true}` (optional `global_batch`, fixed or listed degrees) gets the layout `search` ranks first for the
cluster's own GPU and node count, echoed under `parallelism` with `auto` true; a result that does not fit has
`"time": null`; a single node without a scale-out network (`scaleout_gbps_per_gpu` 0) is a valid cluster."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner.engine.api import estimate, search
from planner.engine.inputs.errors import SpecError
from tests.engine.conftest import TRAIN

LAYOUT_KEYS = ("tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch", "zero_stage", "recompute")


def _payload(parallelism: Any = None, **cluster: Any) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    del payload["economics"]
    payload["cluster"].update(cluster)
    if parallelism is None:
        del payload["workload"]["parallelism"]
    else:
        payload["workload"]["parallelism"] = parallelism
    return payload


def _search_best(payload: dict[str, Any], global_batch: int) -> dict[str, Any]:
    query = copy.deepcopy(payload)
    query["workload"]["parallelism"] = {"global_batch": global_batch}
    query["search"] = {"objective": "min_time", "max_results": 1}
    return search(query)["best"][0]["config"]


@pytest.mark.parametrize("parallelism", [None, {"auto": True}, {"auto": True, "global_batch": 256}])
def test_without_a_layout_estimate_picks_the_searchs_first_layout(parallelism):
    payload = _payload(parallelism)
    out = estimate(payload)
    chosen = out["parallelism"]
    assert chosen["auto"] is True
    assert chosen["tp"] * chosen["pp"] * chosen["dp"] * chosen["cp"] == 32
    best = _search_best(payload, chosen["global_batch"])
    assert {k: chosen[k] for k in LAYOUT_KEYS} == {k: best[k] for k in LAYOUT_KEYS}
    assert out["memory"]["fits"] is True and out["time"]["days"] > 0
    assert "automatic layout" in out["assumptions"]["workload.parallelism"]["source"]


def test_a_given_global_batch_is_kept_and_a_missing_one_is_assumed_with_its_source():
    assert estimate(_payload({"auto": True, "global_batch": 256}))["parallelism"]["global_batch"] == 256
    out = estimate(_payload())
    # 4M tokens of 8,192-token sequences
    assert out["parallelism"]["global_batch"] == 512
    assert "arXiv:2302.13971" in out["assumptions"]["workload.parallelism.global_batch"]["source"]


def test_degrees_given_beside_auto_are_fixed_or_restricted_in_its_search():
    fixed = estimate(_payload({"auto": True, "tp": 4, "zero_stage": 1}))["parallelism"]
    assert fixed["tp"] == 4 and fixed["zero_stage"] == 1
    listed = estimate(_payload({"auto": True, "pp": [2, 4]}))["parallelism"]
    assert listed["pp"] in (2, 4)


def test_auto_false_is_an_ordinary_fixed_layout():
    parallelism = {**TRAIN["workload"]["parallelism"], "auto": False}
    out = estimate(_payload(parallelism))
    assert out["parallelism"]["auto"] is False and out["parallelism"]["tp"] == 2


def test_auto_must_be_a_boolean():
    with pytest.raises(SpecError) as error:
        estimate(_payload({**TRAIN["workload"]["parallelism"], "auto": "yes"}))
    assert "workload.parallelism.auto" in str(error.value)


def test_a_model_no_layout_fits_reports_no_time_and_the_least_memory_layout():
    payload = _payload(nodes=1)
    payload["workload"]["model"] = "llama3.1-405b"
    out = estimate(payload)
    assert out["memory"]["fits"] is False
    assert out["time"] is None
    assert any("no parallel layout" in w for w in out["warnings"])
    assert out["power"]["energy_mwh"] is None  # no run, no energy of the run


def test_a_fixed_layout_that_does_not_fit_reports_no_time():
    payload = _payload({"tp": 8, "zero_stage": 0, "global_batch": 512})
    payload["workload"]["model"] = "llama3.1-405b"
    out = estimate(payload)
    assert out["memory"]["fits"] is False and out["time"] is None


def test_no_valid_layout_at_all_names_the_parallelism_field():
    with pytest.raises(SpecError) as error:
        estimate(_payload({"auto": True, "tp": 64}))  # 32 GPUs: tp 64 cannot divide them
    assert "workload.parallelism" in str(error.value)


def test_a_single_node_without_a_scale_out_network_is_a_valid_cluster():
    out = estimate(_payload({"auto": True, "global_batch": 64}, nodes=1, scaleout_gbps_per_gpu=0))
    assert out["time"]["days"] > 0
    layout = out["parallelism"]
    assert layout["tp"] * layout["pp"] * layout["dp"] * layout["cp"] == 8


def test_no_scale_out_network_for_several_nodes_names_the_field():
    with pytest.raises(SpecError) as error:
        estimate(_payload(nodes=2, scaleout_gbps_per_gpu=0))
    assert "cluster.scaleout_gbps_per_gpu" in str(error.value)


def test_a_parallelism_object_without_a_layout_is_automatic_unless_auto_is_false():
    batch_only = estimate(_payload({"global_batch": 256}))["parallelism"]
    assert batch_only["auto"] is True
    manual = estimate(_payload({"global_batch": 256, "auto": False}))["parallelism"]
    assert manual["auto"] is False and (manual["tp"], manual["dp"]) == (1, 32)  # the documented defaults
