"""Hypothesis on the estimate endpoint's input validation: whatever the body, the answer is 200 with finite
contract figures or 400 with well-formed field errors, never a 500."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ParseError

from planner.api.parsers import loads_strict
from tests.api.conftest import ESTIMATE_URL, catalog_payload, contract_payload

pytestmark = pytest.mark.django_db

UNTHROTTLED = {
    **django_settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"estimate": "100000/min", "sweep": "100000/min"},
}
HYPOTHESIS = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["training", "inference", "job", "bf16", "llama3.1-70b", "nvidia_h100_sxm5_80gb"])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["cluster", "workload", "economics", "gpu", "nodes", "model", "kind", "tp", "x"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


def leaf_paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path to a leaf or container inside a JSON value (dict keys and list indexes)."""
    paths = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            paths += leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += leaf_paths(item, (*path, index))
    return paths


def replaced(payload: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(payload)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return out


def all_finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(all_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(all_finite(v) for v in value)
    return True


def assert_clean_answer(response: Any) -> None:
    assert response.status_code in (200, 400), (response.status_code, response.content[:500])
    body = response.json()
    if response.status_code == 400:
        errors = body["errors"]
        assert errors and all(
            isinstance(path, str) and messages and all(isinstance(m, str) and m for m in messages)
            for path, messages in errors.items()
        ), errors
    else:
        assert body["engine_version"] and isinstance(body["warnings"], list)
        assert all_finite(body)


@override_settings(REST_FRAMEWORK=UNTHROTTLED)
@HYPOTHESIS
@given(body=json_values)
def test_any_json_body_gets_200_or_field_errors(alice_api, body):
    assert_clean_answer(alice_api.post(ESTIMATE_URL, body, format="json"))


@override_settings(REST_FRAMEWORK=UNTHROTTLED)
@HYPOTHESIS
@given(data=st.data(), base=st.sampled_from([contract_payload(), catalog_payload()]))
def test_one_changed_value_in_a_valid_payload_gets_200_or_field_errors(alice_api, data, base):
    path = data.draw(st.sampled_from(leaf_paths(base)[1:]), label="path")
    new = data.draw(json_values, label="new value")
    response = alice_api.post(ESTIMATE_URL, replaced(base, path, new), format="json")
    assert_clean_answer(response)
    if response.status_code == 400:
        sections = {p.split(".")[0] for p in response.json()["errors"]}
        assert sections <= {"cluster", "workload", "economics", "(input)"}, sections


@HYPOTHESIS
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_the_parser_returns_json_or_a_parse_error_for_any_bytes(raw):
    try:
        value = loads_strict(raw)
    except ParseError:
        return
    assert all_finite(value)
    assert loads_strict(json.dumps(value).encode()) == value
