"""Property tests (hypothesis): random valid inputs never give NaN, infinite or negative outputs; random invalid
inputs always raise SpecError with field paths, and through the CLI exit 2 with no traceback."""

from __future__ import annotations

import copy
import io
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.engine.__main__ import main
from planner.engine.api import estimate
from planner.engine.inputs.errors import SpecError
from tests.engine.conftest import H100, TRAIN

#: Outputs that may legitimately be negative (a shortfall) or are not quantities.
SIGNED = {"headroom_gib"}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _walk(value: Any, path: str = "") -> list[tuple[str, float]]:
    if isinstance(value, dict):
        return [x for k, v in value.items() if k != "assumptions" for x in _walk(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _walk(v, f"{path}[{i}]")]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return []
    return [(path, float(value))]


def _check_numbers(out: dict[str, Any]) -> None:
    for path, number in _walk(out):
        assert math.isfinite(number), f"{path} = {number}"
        if path.rsplit(".", 1)[-1] not in SIGNED:
            assert number >= 0, f"{path} = {number}"


@st.composite
def training_payloads(draw: st.DrawFn) -> dict[str, Any]:
    gpn = draw(st.sampled_from([1, 2, 4, 8]))
    nodes = draw(st.integers(1, 64))
    gpus = gpn * nodes
    head_dim = draw(st.sampled_from([32, 64, 128]))
    heads = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64]))
    kv_heads = draw(st.sampled_from([k for k in (1, 2, 4, 8, heads) if heads % k == 0]))
    layers = draw(st.integers(1, 96))
    seq_len = draw(st.sampled_from([128, 512, 2048, 8192]))
    tp_choices = [
        t
        for t in (1, 2, 4, 8)
        if gpus % t == 0
        and heads % t == 0
        and ((t <= kv_heads and kv_heads % t == 0) or (t > kv_heads and t % kv_heads == 0))
    ]
    tp = draw(st.sampled_from(tp_choices))
    pp = draw(st.sampled_from([p for p in (1, 2, 3, 4, 8) if (gpus // tp) % p == 0 and p <= layers]))
    cp = draw(st.sampled_from([c for c in (1, 2) if (gpus // (tp * pp)) % c == 0]))
    dp = gpus // (tp * pp * cp)
    mb = draw(st.sampled_from([1, 2, 4]))
    v_choices = [1] + [v for v in (2, 3) if pp > 1 and layers % (pp * v) == 0]
    model: dict[str, Any] = {
        "layers": layers,
        "hidden": heads * head_dim,
        "heads": heads,
        "kv_heads": kv_heads,
        "ffn_type": draw(st.sampled_from(["gelu", "swiglu"])),
        "vocab": draw(st.integers(1000, 200_000)),
        "seq_len": seq_len,
        "tied_embeddings": draw(st.booleans()),
        "bias": draw(st.booleans()),
    }
    payload: dict[str, Any] = {
        "cluster": {
            "gpu": draw(st.sampled_from([H100, "nvidia_a100_sxm4_80gb", "nvidia_b200_hgx"])),
            "gpus_per_node": gpn,
            "nodes": nodes,
            "scaleout_gbps_per_gpu": draw(st.sampled_from([25, 100, 400, 800])),
        },
        "workload": {
            "kind": "training",
            "model": draw(st.sampled_from([model, model, "mixtral-8x7b", "llama2-7b"])),
            "tokens_b": draw(st.floats(0.001, 20_000)),
            "optimizer": draw(st.sampled_from(["adam", "sgd_momentum", "adam_8bit"])),
            "parallelism": {
                "tp": tp,
                "pp": pp,
                "cp": cp,
                "virtual_stages": draw(st.sampled_from(v_choices)),
                "micro_batch": mb,
                "global_batch": mb * dp * draw(st.integers(1, 64)),
                "zero_stage": draw(st.integers(0, 3)),
                "recompute": draw(st.sampled_from(["none", "selective", "full"])),
                "sequence_parallel": draw(st.booleans()),
                "flash_attention": draw(st.sampled_from([True, False, "v1", "v2"])),
                "dp_overlap": draw(st.booleans()),
            },
        },
    }
    if isinstance(payload["workload"]["model"], str):
        preset_layers = 32
        p = payload["workload"]["parallelism"]
        ok = (
            p["pp"] <= preset_layers and preset_layers % (p["pp"] * p["virtual_stages"]) == 0 and 32 % tp == 0
        )
        if not ok or (payload["workload"]["model"] == "mixtral-8x7b" and 8 % tp):
            payload["workload"]["model"] = model
    if draw(st.booleans()):
        payload["economics"] = {
            "electricity_usd_per_kwh": draw(st.floats(0, 1)),
            "gpu_server_usd": 250000,
            "cloud_usd_per_gpu_hour": draw(st.floats(0, 10)),
            "discount_rate": draw(st.floats(0, 0.5)),
            "grid_kgco2_per_kwh": 0.4,
        }
    return payload


@SETTINGS
@given(training_payloads())
def test_valid_training_inputs_give_finite_non_negative_outputs(payload):
    _check_numbers(estimate(payload))


@SETTINGS
@given(
    batch=st.integers(1, 512),
    context=st.integers(1, 32768),
    output=st.integers(1, 4096),
    tp=st.sampled_from([1, 2, 4, 8]),
    model=st.sampled_from(["llama2-70b", "llama3.1-8b", "mixtral-8x7b"]),
)
def test_valid_inference_inputs_give_finite_non_negative_outputs(batch, context, output, tp, model):
    payload = {
        "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 2},
        "workload": {
            "kind": "inference",
            "model": model,
            "parallelism": {"tp": tp},
            "serving": {
                "batch": batch,
                "context_len": context,
                "output_len": output,
                "target_tokens_per_s": 1000,
            },
        },
    }
    _check_numbers(estimate(payload))


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    return [path]


def _set(payload: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


# Values no field accepts where a number, string or object is expected (null is "absent": invalid only for
# required fields).
BAD_VALUES = [-1, -0.5, "x", [], {"a": 1}, True, 10**400, None]
REQUIRED = {
    "nodes",
    "tokens_b",
    "layers",
    "hidden",
    "heads",
    "vocab",
    "global_batch",
    "memory_gb",
    "tdp_w",
    "memory_bandwidth_tbs",
    "scaleup_bandwidth_gbs",
    "gpu_server_usd",
    "cloud_usd_per_gpu_hour",
    "bf16",
}
NUMERIC_LEAVES = [
    p
    for p in _leaves(TRAIN)
    if isinstance(p[-1], str)
    and p[-1] not in ("kind", "ffn_type", "precision", "optimizer", "recompute", "name")
]


@st.composite
def invalid_payloads(draw: st.DrawFn) -> dict[str, Any]:
    payload = copy.deepcopy(TRAIN)
    how = draw(st.sampled_from(["bad_value", "unknown_key", "bad_choice", "cross_field"]))
    if how == "bad_value":
        path = draw(st.sampled_from(NUMERIC_LEAVES))
        bad = draw(st.sampled_from(BAD_VALUES))
        if bad is None and path[-1] not in REQUIRED:
            bad = -1
        _set(payload, path, bad)
    elif how == "unknown_key":
        section = draw(
            st.sampled_from(
                [
                    (),
                    ("cluster",),
                    ("workload",),
                    ("workload", "parallelism"),
                    ("economics",),
                    ("cluster", "gpu"),
                    ("workload", "model"),
                ]
            )
        )
        _set(payload, (*section, draw(st.sampled_from(["tpp", "nodez", "colour", "x"]))), 1)
    elif how == "bad_choice":
        path = draw(
            st.sampled_from(
                [
                    ("workload", "kind"),
                    ("workload", "precision"),
                    ("workload", "optimizer"),
                    ("workload", "parallelism", "recompute"),
                    ("workload", "model", "ffn_type"),
                ]
            )
        )
        _set(payload, path, draw(st.sampled_from(["", "fast", "BF16"])))
    else:
        change = draw(
            st.sampled_from(
                [
                    {"tp": 3},
                    {"dp": 7},
                    {"global_batch": 513},
                    {"pp": 33, "dp": 1},
                    {"virtual_stages": 3, "pp": 2, "dp": 8},
                    {"cp": 3},
                ]
            )
        )
        payload["workload"]["parallelism"].update(change)
    return payload


TOP = ("cluster", "workload", "economics", "search", "(input)", "tpp", "nodez", "colour", "x")


@SETTINGS
@given(invalid_payloads())
def test_invalid_inputs_raise_spec_error_with_field_paths(payload):
    try:
        estimate(payload)
    except SpecError as err:
        assert err.problems
        for problem in err.problems:
            assert problem.path.split(".")[0] in TOP, problem.path
            assert problem.message
    else:
        raise AssertionError("invalid input was accepted")


@SETTINGS
@given(invalid_payloads())
def test_invalid_inputs_exit_2_through_the_cli_without_a_traceback(payload):
    import json

    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["estimate", "-"], stdin=io.StringIO(json.dumps(payload)), stdout=stdout, stderr=stderr)
    assert code == 2
    assert stdout.getvalue() == ""
    assert "Traceback" not in stderr.getvalue()
    lines = stderr.getvalue().strip().splitlines()
    assert lines and all(": " in line for line in lines)
