"""The fleet planner end to end (docs/fleet-contract.md, issue 16's acceptance): MIG packing, a deadline blocked
by the facility's power limit, purchases spread over time for growing traffic, the contract's keys."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from planner.engine.fleet import plan

EXAMPLE = json.loads((Path(__file__).parent / "example.json").read_text())


def services_on_a100(mig: bool) -> dict[str, Any]:
    """Fourteen small services (8 GiB, an eighth of a GPU each) on an A100-80GB pool of one-GPU nodes."""
    return {
        "horizon": {"periods": 2, "period": "quarter"},
        "pools": [{"id": "a100", "gpu": "nvidia_a100_sxm4_80gb", "gpus_per_node": 1, "mig": mig}],
        "workloads": [
            {"id": f"svc{i}", "kind": "service", "gpu_memory_gib": 8, "gpu_share": 0.125, "replicas": 1}
            for i in range(14)
        ]
        + [{"id": "embed", "kind": "service", "gpu_memory_gib": 8, "gpu_share": 0.125, "replicas": 14}],
    }


def test_fourteen_small_services_fit_on_two_a100s_with_mig_and_take_fourteen_without() -> None:
    only_embed = services_on_a100(mig=True)
    only_embed["workloads"] = only_embed["workloads"][-1:]
    with_mig = plan(only_embed)
    whole = copy.deepcopy(only_embed)
    whole["pools"][0]["mig"] = False
    without = plan(whole)
    for out, gpus in ((with_mig, 2), (without, 14)):
        assert out["feasible"]
        held = [u["allocated_gpus"] for u in out["utilisation"] if u["period"] == 0]
        assert held == [pytest.approx(gpus)]
        assert [i["nodes"] for i in out["installed"] if i["period"] == 0] == [gpus]
    mig_rows = [p for p in with_mig["placements"] if p["period"] == 0]
    assert [(p["mig_profile"], p["slices"]) for p in mig_rows] == [("1g.10gb", 14)]
    assert mig_rows[0]["gpus"] == pytest.approx(14 / 7)  # whole-GPU equivalents: a 1g slice is 1/7
    (gain,) = with_mig["sharing"]
    assert (gain["gpus"], gain["whole_gpus"]) == (2, 14)
    assert gain["busy_share"] == pytest.approx(14 * 0.125 / 2)
    assert gain["whole_busy_share"] == pytest.approx(0.125)


def _pretrain(power_mw: float) -> dict[str, Any]:
    return {
        "horizon": {"periods": 2, "period": "quarter", "start": "2027-Q1"},
        "pools": [{"id": "h100", "gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8}],
        "workloads": [
            {
                "id": "pretrain",
                "kind": "training",
                "model": "llama3.1-8b",
                "tokens_b": 15000,
                "start_period": 0,
                "deadline_period": 0,
                "reference_gpus": 256,
            }
        ],
        "facility": {"power_mw": power_mw, "cooling": "dlc_cold_plate"},
        "economics": {"cloud_burst": False},
    }


def test_a_deadline_the_power_limit_cannot_meet_is_unserved_with_the_limit_named_and_more_power_serves_it() -> (
    None
):
    tight = plan(_pretrain(0.1))
    assert not tight["feasible"]
    (row,) = tight["unserved"]
    assert row["workload"] == "pretrain" and row["period"] == 0
    assert "facility power_mw 0.1" in row["why"]
    assert 0 < row["share"] < 1  # part of the run fits under the limit
    facility_kw = max(p["peak_facility_kw"] for p in tight["per_period"])
    assert facility_kw <= 100.0 + 1e-6
    loose = plan(_pretrain(2.0))
    assert loose["feasible"] and loose["unserved"] == []
    done = sum(p["share"] for p in loose["placements"] if p["workload"] == "pretrain")
    assert done == pytest.approx(1.0)


def _growing(budget_first_only: bool) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "horizon": {"periods": 8, "period": "quarter", "start": "2027-Q1"},
        "pools": [{"id": "h100", "gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8}],
        "workloads": [
            {
                "id": "api",
                "kind": "service",
                "gpu_memory_gib": 60,
                "gpu_share": 1,
                "replicas": [8, 16, 24, 32, 40, 48, 56, 64],
            }
        ],
        "economics": {"discount_rate": 0.08, "life_years": 5},
    }
    if budget_first_only:
        payload["economics"]["budget_usd"] = [None, 0, 0, 0, 0, 0, 0, 0]
    return payload


def test_growing_traffic_buys_in_steps_when_that_is_cheaper_than_one_purchase_up_front() -> None:
    spread = plan(_growing(budget_first_only=False))
    periods = [p["period"] for p in spread["purchases"]]
    assert len(set(periods)) == 8  # one node more each quarter, as the replicas grow
    assert sum(p["nodes"] for p in spread["purchases"]) == 8
    upfront = plan(_growing(budget_first_only=True))
    assert [p["period"] for p in upfront["purchases"]] == [0]
    assert spread["cost"]["npv_usd"] < upfront["cost"]["npv_usd"]


CONTRACT_KEYS = {
    "engine_version",
    "feasible",
    "purchases",
    "installed",
    "placements",
    "utilisation",
    "queues",
    "per_period",
    "chargeback",
    "unserved",
    "cost",
    "solver",
    "assumptions",
    "warnings",
}


def test_the_contract_example_plans_with_every_key_of_the_contract() -> None:
    out = plan(copy.deepcopy(EXAMPLE))
    assert set(out) >= CONTRACT_KEYS
    assert {"period", "pool", "nodes", "gpus", "capex_usd"} <= set(out["purchases"][0])
    assert {"period", "workload", "pool", "gpus", "mig_profile", "slices", "cloud_gpu_hours"} <= set(
        out["placements"][0]
    )
    assert {"period", "workload", "mean_wait_h", "p90_wait_h"} <= set(out["queues"][0])
    assert {"period", "it_kw", "facility_kw", "racks", "capex_usd", "opex_usd", "cloud_usd"} <= set(
        out["per_period"][0]
    )
    assert {"tco_usd", "npv_usd", "capex_usd", "opex_usd", "cloud_usd"} <= set(out["cost"])
    assert {"name", "status", "elapsed_s", "gap"} <= set(out["solver"])
    assert {c["team"] for c in out["chargeback"]} == {"research", "product", "science"}
    json.dumps(out, allow_nan=False)
    # the plan keeps every limit it was given
    for row in out["per_period"]:
        assert row["peak_facility_kw"] <= row["power_limit_kw"] + 1e-6
    budget = EXAMPLE["economics"]["budget_usd"]
    for t, row in enumerate(out["per_period"]):
        assert row["capex_usd"] <= budget[t] + 1e-6
    h100 = [u for u in out["utilisation"] if u["pool"] == "h100"]
    product = [
        p
        for p in out["placements"]
        if p["team"] == "product" and p["pool"] == "h100" and p["where"] == "owned"
    ]
    for t in range(8):
        assert sum(p["occupied_gpus"] for p in product if p["period"] == t) <= 64 + 1e-6
        assert h100[t]["allocated_gpus"] <= h100[t]["gpus"] + 1e-6
