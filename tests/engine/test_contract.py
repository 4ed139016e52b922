"""The command line keeps docs/engine-contract.md: every listed key, exit 2 with field paths, never a traceback."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.engine.conftest import INFER, TRAIN

CONTRACT_KEYS = {
    "model": ["params_b", "flop_per_token"],
    "memory": [
        "weights_gib",
        "gradients_gib",
        "optimizer_gib",
        "activations_gib",
        "kv_cache_gib",
        "other_gib",
        "per_gpu_gib",
        "capacity_gib",
        "fits",
    ],
    "time": ["step_s", "tokens_per_s", "mfu", "model_tflops_per_gpu", "days", "gpu_hours", "breakdown_s"],
    "power": ["it_kw", "facility_kw", "pue", "energy_mwh"],
    "cost": [
        "capex_usd",
        "opex_usd_per_year",
        "tco_usd",
        "usd_per_gpu_hour",
        "run_cost_usd",
        "cloud_run_cost_usd",
    ],
}
# docs/engine-contract.md extensions that pages and reports read.
API_KEYS = {
    "model": ["active_params_b", "name"],
    "memory": ["headroom_gib", "message", "breakdown_gib"],
    "time": [
        "hfu",
        "hardware_tflops_per_gpu",
        "days_low",
        "days_high",
        "gpu_hours_low",
        "gpu_hours_high",
        "goodput",
        "steady_days",
    ],
    "network": [
        "tiers",
        "topology",
        "switches",
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "nics",
        "transceivers",
        "cables",
        "power_kw",
        "capex_usd",
        "max_endpoints",
        "bom",
    ],
    "power": ["breakdown_kw", "racks", "rack_density_kw", "energy_mwh_per_year", "co2_t", "co2_t_per_year"],
    "cost": [
        "capex_breakdown_usd",
        "opex_breakdown_usd_per_year",
        "yearly",
        "breakeven_month",
        "monthly_own_vs_rent",
        "tco_usd_low",
        "tco_usd_high",
        "run_cost_usd_low",
        "run_cost_usd_high",
    ],
}
BREAKDOWN = [
    "compute",
    "recompute",
    "tp_comm",
    "cp_comm",
    "ep_comm",
    "pp_bubble",
    "pp_p2p",
    "dp_comm",
    "zero_comm",
    "optimizer",
    "host",
    "ceiling",
]
INFERENCE_KEYS = [
    "ttft_s",
    "tpot_s",
    "tokens_per_s",
    "tokens_per_s_per_gpu",
    "max_concurrent_requests",
    "kv_cache_gib_per_request",
    "gpus_needed",
    "meets_target",
]


def run_cli(verb: str, payload: Any = None, raw: str | None = None) -> subprocess.CompletedProcess[str]:
    text = raw if raw is not None else json.dumps(payload)
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    args = [sys.executable, "-m", "planner.engine", verb] + ([] if verb == "validate" else ["-"])
    return subprocess.run(args, input=text, capture_output=True, text=True, timeout=120, env=env)


def test_training_output_has_every_contract_and_api_key():
    done = run_cli("estimate", TRAIN)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for key in ("engine_version", "kind", "assumptions", "warnings"):
        assert key in out
    for keys in (CONTRACT_KEYS, API_KEYS):
        for section, names in keys.items():
            missing = [n for n in names if n not in out[section]]
            assert not missing, f"{section} lacks {missing}"
    assert sorted(out["time"]["breakdown_s"]) == sorted(BREAKDOWN)
    for part in ("weights", "gradients", "optimizer", "activations", "kv_cache", "other"):
        assert part in out["memory"]["breakdown_gib"]


def test_inference_output_has_kv_cache_and_the_inference_section():
    done = run_cli("estimate", INFER)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["memory"]["kv_cache_gib"] > 0
    assert [k for k in INFERENCE_KEYS if k not in out["inference"]] == []


def test_a_job_estimate_has_the_job_section():
    payload = {
        "cluster": {"gpu": TRAIN["cluster"]["gpu"], "nodes": 1},
        "workload": {"kind": "job", "job": {"single_gpu_hours": 12, "parallel_fraction": 0.9}},
    }
    done = run_cli("estimate", payload)
    assert done.returncode == 0, done.stderr
    job = json.loads(done.stdout)["job"]
    assert job["speedup"] == pytest.approx(1 / (0.1 + 0.9 / 8))
    assert {"time_s", "days", "gpu_hours", "speedup", "parallel_efficiency"} <= set(job)


def _with_parallelism(**changes: Any) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["parallelism"].update(changes)
    return payload


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        (_with_parallelism(pp=64, dp=1), "workload.parallelism.pp"),
        ({**TRAIN, "clustr": {}}, "clustr"),
        (
            {**TRAIN, "economics": {**TRAIN["economics"], "electricity_usd_per_kwh": -0.1}},
            "economics.electricity_usd_per_kwh",
        ),
        (_with_parallelism(tp=3, dp=None), "workload.parallelism.tp"),
        (_with_parallelism(global_batch=100), "workload.parallelism.global_batch"),
    ],
)
def test_bad_input_exits_2_naming_the_field(payload, field):
    done = run_cli("estimate", payload)
    assert done.returncode == 2
    assert field in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_tp_that_does_not_divide_the_gpus_says_so_with_numbers():
    done = run_cli("estimate", _with_parallelism(tp=3, dp=None))
    assert "workload.parallelism.tp: must divide gpus (got 3 for 32 GPUs)" in done.stderr.splitlines()


def test_a_misspelt_key_gets_a_did_you_mean_hint():
    payload = copy.deepcopy(TRAIN)
    payload["cluster"]["gpus_per_nod"] = 8
    done = run_cli("estimate", payload)
    assert done.returncode == 2
    assert "cluster.gpus_per_nod: unknown field; did you mean 'gpus_per_node'?" in done.stderr


@pytest.mark.parametrize("raw", ["not json", "{", "", "[1, 2]", '{"cluster": NaN}', "null"])
def test_invalid_json_exits_2_without_a_traceback(raw):
    done = run_cli("estimate", raw=raw)
    assert done.returncode == 2
    assert done.stderr.strip()
    assert "Traceback" not in done.stderr


def test_a_missing_file_exits_2():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-m", "planner.engine", "estimate", "/nonexistent/x.json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2
    assert "no such file" in done.stderr


def test_an_unknown_verb_prints_usage_and_exits_2():
    done = run_cli("frobnicate", {})
    assert done.returncode == 2
    assert "usage" in done.stderr


def test_a_model_that_does_not_fit_is_a_result_not_an_error():
    payload = copy.deepcopy(TRAIN)
    payload["workload"]["model"] = "llama3.1-405b"
    payload["workload"]["parallelism"] = {
        "tp": 8,
        "pp": 1,
        "zero_stage": 0,
        "micro_batch": 1,
        "global_batch": 512,
    }
    done = run_cli("estimate", payload)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["memory"]["fits"] is False
    assert any("does not fit" in w for w in out["warnings"])
    assert "H100 SXM5 80GB has 80 GiB" in out["memory"]["message"]


def test_tp_larger_than_a_node_is_a_valid_result_with_a_warning():
    done = run_cli("estimate", _with_parallelism(tp=16, dp=2))
    assert done.returncode == 0, done.stderr
    assert any("larger than a node" in w for w in json.loads(done.stdout)["warnings"])


def test_search_prints_the_contract_keys():
    payload = {**copy.deepcopy(TRAIN), "search": {"objective": "min_time", "max_results": 5}}
    payload["workload"]["parallelism"] = {"global_batch": 512}
    done = run_cli("search", payload)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for key in ("evaluated", "feasible", "elapsed_s", "objective", "best", "pareto"):
        assert key in out
    assert 0 < len(out["best"]) <= 5
    for key in ("config", "step_s", "per_gpu_gib", "tokens_per_s", "days", "tco_usd"):
        assert key in out["best"][0]


def test_estimate_rejects_a_search_object():
    done = run_cli("estimate", {**TRAIN, "search": {}})
    assert done.returncode == 2
    assert "search" in done.stderr


def test_validate_prints_every_shipped_case_with_its_error():
    from planner.engine.accuracy.validation import load_rows

    done = run_cli("validate", raw="")
    assert done.returncode in (0, 1)
    for row in load_rows():
        assert row["id"] in done.stdout
    assert "median error" in done.stdout
