"""Sizing a service: per GPU type the cheapest layout and GPU count, following the request rate."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner.engine.api import size_service
from planner.engine.inputs.errors import SpecError

REQUEST: dict[str, Any] = {
    "model": "llama3.1-70b",
    "precision": "fp8",
    "serving": {
        "requests_per_s": 20,
        "context_len": 2048,
        "output_len": 512,
        "max_ttft_s": 2,
        "max_tpot_s": 0.05,
    },
    "candidates": [
        "nvidia_h100_sxm5_80gb",
        {"gpu": "nvidia_h200_sxm_141gb", "cloud_usd_per_gpu_hour": 4.0, "gpu_server_usd": 300000},
    ],
    "economics": {
        "electricity_usd_per_kwh": 0.08,
        "years": 4,
        "utilization": 0.8,
        "gpu_server_usd": 250000,
        "cloud_usd_per_gpu_hour": 3.0,
    },
}


def size(**serving: Any) -> dict[str, Any]:
    payload = copy.deepcopy(REQUEST)
    payload["serving"].update(serving)
    return size_service(payload)


def test_each_gpu_type_gets_its_cheapest_layout_within_the_targets():
    out = size()
    for a in out["answers"]:
        assert a["feasible"] and a["gpus"] >= 1 and a["reason"] is None
        meeting = [o for o in a["options"] if o["max_requests_per_s_per_replica"] > 0]
        assert a["gpus"] <= min(o["gpus"] for o in meeting)
        best = a["colocated"] or a["disaggregated"]["decode"]
        assert best["tpot_s_p90"] <= 0.05
        assert a["power"]["it_kw"] > 0 and a["usd_per_million_tokens"]["cloud"] > 0
    assert out["answers"][1]["usd_per_gpu_hour"]["cloud"] == 4.0


def test_the_gpu_count_moves_with_the_rate():
    counts = [size(requests_per_s=r)["answers"][0]["gpus"] for r in (5, 20, 80)]
    assert counts[0] < counts[1] < counts[2]


def test_no_layout_meeting_a_target_is_explained_with_the_bound_and_the_excess():
    out = size(max_tpot_s=0.001)
    for a in out["answers"]:
        assert not a["feasible"] and a["gpus"] is None
        assert "TPOT" in a["reason"] and "over the 1 ms target" in a["reason"]


def test_a_model_that_fits_nowhere_says_so():
    payload = copy.deepcopy(REQUEST)
    payload["model"] = "llama3.1-405b"
    payload["precision"] = "bf16"
    payload["candidates"] = ["nvidia_l4"]
    payload["max_gpus_per_replica"] = 2
    answer = size_service(payload)["answers"][0]
    assert not answer["feasible"] and "does not fit" in answer["reason"]


def test_curves_for_the_pages_are_monotone_in_load():
    payload = copy.deepcopy(REQUEST)
    payload["curves"] = True
    curve = size_service(payload)["answers"][0]["curve"]
    rates = curve["requests_per_s_per_replica"]
    assert rates == sorted(rates) and curve["ttft_s_p90"][-1] > curve["ttft_s_p90"][0]
    assert len(rates) == len(curve["tpot_s_p50"]) == len(curve["output_tokens_per_s_per_gpu"])


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"candidates": []}, "candidates"),
        ({"candidates": ["nvidia_h9000"]}, "candidates[0]"),
        ({"serving": {"context_len": 100, "output_len": 10}}, "serving.requests_per_s"),
        ({"precision": "fp3"}, "precision"),
        ({"max_gpus_per_replica": 0}, "max_gpus_per_replica"),
    ],
)
def test_bad_sizing_input_names_the_field(change, path):
    payload = {**copy.deepcopy(REQUEST), **change}
    with pytest.raises(SpecError) as err:
        size_service(payload)
    assert path in [p.path for p in err.value.problems]
