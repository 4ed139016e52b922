"""`workload.serving.kernel_efficiency`: the user's statement of their serving stack's kernel speed against the
calibrated average of published stacks (1.0). It scales the compute side of GEMMs, grouped GEMMs and attention, never
what streams memory, and a result says what it used."""

from __future__ import annotations

import copy
import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from planner.engine.accuracy.serving import _gpu, _model
from planner.engine.api import estimate
from planner.engine.inference import rates
from planner.engine.inference.layout import ServingLayout
from planner.engine.inference.service import (
    Concurrency,
    Deployment,
    EngineSettings,
    Offline,
    evaluate,
    prepare,
)
from planner.engine.inference.step import _experts_s
from planner.engine.inference.workload import Lengths, Workload
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.service import parse_service_request

H100, H200 = _gpu("nvidia_h100_sxm5_80gb"), _gpu("nvidia_h200_sxm_141gb")
LLAMA70, DEEPSEEK = _model("llama3.1-70b"), _model("deepseek-v3")
PATH = "workload.serving.kernel_efficiency"

PAYLOAD: dict[str, Any] = {
    "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 1},
    "workload": {
        "kind": "inference",
        "model": "llama3.1-70b",
        "precision": "fp8",
        "parallelism": {"tp": 8},
        "serving": {"context_len": 4096, "output_len": 512, "requests_per_s": 2, "max_ttft_s": 2},
    },
}


def payload(**serving: Any) -> dict[str, Any]:
    out = copy.deepcopy(PAYLOAD)
    out["workload"]["serving"].update(serving)
    return out


def deploy(kernel_efficiency: float | None, *, lin: int = 1024, lout: int = 256, **kw: Any) -> Deployment:
    engine = (
        EngineSettings() if kernel_efficiency is None else EngineSettings(kernel_efficiency=kernel_efficiency)
    )
    base: dict[str, Any] = {
        "model": LLAMA70,
        "gpu": H100,
        "layout": ServingLayout(tp=8),
        "replicas": 1,
        "workload": Workload(Lengths(lin), Lengths(lout)),
        "weight_precision": "fp8",
        "kv_precision": "fp8",
        "engine": engine,
    }
    base.update(kw)
    return Deployment(**base)


def _without_echo(section: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in section.items() if k != "engine"}


def test_one_point_zero_is_the_default_and_changes_no_number():
    left_out = estimate(payload())
    stated = estimate(payload(kernel_efficiency=1.0))
    assert _without_echo(left_out["inference"]) == _without_echo(stated["inference"])
    assert left_out["power"] == stated["power"] and left_out["memory"] == stated["memory"]
    # the step model's coefficients are bit-for-bit those of a deployment that never heard of the setting
    plain, one = prepare(deploy(None)).coef, prepare(deploy(1.0)).coef
    for name in plain.__dataclass_fields__:
        assert np.array_equal(np.asarray(getattr(plain, name)), np.asarray(getattr(one, name))), name


def test_the_result_says_what_it_assumed_and_that_the_user_may_state_it():
    left_out = estimate(payload())
    echo = left_out["inference"]["engine"]
    assert echo["kernel_efficiency"] == 1.0
    assert "calibrated average" in echo["kernel_efficiency_basis"]
    assert echo["kernel_efficiency_calibration_range"] == list(rates.THROUGHPUT_RANGE)
    assumed = left_out["assumptions"][PATH]
    assert assumed["value"] == 1.0 and PATH in assumed["source"]
    stated = estimate(payload(kernel_efficiency=1.2))
    assert stated["inference"]["engine"]["kernel_efficiency"] == 1.2
    assert PATH not in stated["assumptions"]  # a value the user typed is not an assumption


def test_a_compute_bound_offline_case_gets_faster_by_at_most_the_factor():
    # long prompts, thousands of running requests: prefill and decode GEMMs are compute-bound on 8 H100s
    base = evaluate(deploy(1.0, lin=4096, lout=256), Offline()).output_tokens_per_s
    fast = evaluate(deploy(1.2, lin=4096, lout=256), Offline()).output_tokens_per_s
    slow = evaluate(deploy(0.8, lin=4096, lout=256), Offline()).output_tokens_per_s
    # the GEMMs' and attention's math is scaled; what a roofline kernel does not hide of its weight stream
    # (rates.ROOFLINE_EXPOSED_FRACTION), elementwise traffic and the per-step fixed cost are not: about +7% here
    assert 1.05 < fast / base < 1.2
    assert 0.8 < slow / base < 0.95


def test_a_memory_bound_single_request_decode_barely_moves():
    # one request: each step streams 70 GB of FP8 weights for one token; the math is a rounding error beside it
    base = float(evaluate(deploy(1.0, lin=128, lout=512), Concurrency(1)).state.tpot_mean_s[0])
    fast = float(evaluate(deploy(1.2, lin=128, lout=512), Concurrency(1)).state.tpot_mean_s[0])
    assert fast <= base
    assert fast / base > 0.98


def test_grouped_expert_gemms_speed_up_only_where_compute_bound():
    d = replace(deploy(1.0), model=DEEPSEEK, gpu=H200, layout=ServingLayout(tp=8))
    c1 = prepare(d).coef
    c12 = prepare(replace(d, engine=EngineSettings(kernel_efficiency=1.2))).coef
    few, many = np.asarray([[8.0]]), np.asarray([[2_000_000.0]])

    def experts(c: Any, tokens: np.ndarray) -> float:
        per_expert = float(tokens[0, 0]) * c.top_k / c.experts
        touched = 1.0 - math.pow(1.0 - c.top_k / c.experts, float(tokens[0, 0]))
        return float(
            np.asarray(_experts_s(c, tokens, np.asarray([[touched]]), tokens)).ravel()[0]
        ), per_expert

    (few_1, _), (few_12, _) = experts(c1, few), experts(c12, few)
    (many_1, _), (many_12, _) = experts(c1, many), experts(c12, many)
    assert few_12 == pytest.approx(few_1, rel=1e-9)  # a few tokens per expert: weights streamed, not scaled
    assert many_12 == pytest.approx(many_1 / 1.2, rel=1e-6)  # thousands per expert: the compute side, scaled


def test_static_batching_honours_it_too():
    static = {"batching": "static", "batch": 8, "requests_per_s": None}
    base = estimate(payload(**static))
    fast = estimate(payload(**static, kernel_efficiency=1.2))
    assert fast["inference"]["ttft_s"] < base["inference"]["ttft_s"]  # the batch's prefill is compute-bound
    assert fast["inference"]["engine"]["kernel_efficiency"] == 1.2


@pytest.mark.parametrize("bad", [0, -1, "fast", math.nan, math.inf, 1.26, 5, True, [1.2]])
def test_bad_values_name_the_field(bad):
    with pytest.raises(SpecError) as err:
        estimate(payload(kernel_efficiency=bad))
    problems = [p for p in err.value.problems if p.path == PATH]
    assert problems, [p.path for p in err.value.problems]


def test_the_sizer_takes_it_and_says_so():
    request = {
        "model": "llama3.1-70b",
        "precision": "fp8",
        "serving": {"context_len": 4096, "output_len": 512, "requests_per_s": 2},
        "candidates": ["nvidia_h100_sxm5_80gb"],
    }
    left_out = parse_service_request(copy.deepcopy(request))
    assert (
        left_out.request.engine.kernel_efficiency == 1.0
        and "serving.kernel_efficiency" in left_out.assumptions
    )
    request["serving"]["kernel_efficiency"] = 1.2
    assert parse_service_request(request).request.engine.kernel_efficiency == 1.2
    request["serving"]["kernel_efficiency"] = 2
    with pytest.raises(SpecError) as err:
        parse_service_request(request)
    assert any(p.path.endswith("serving.kernel_efficiency") for p in err.value.problems)
