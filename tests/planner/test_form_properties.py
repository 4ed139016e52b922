"""Property tests of the forms' cleaning (Hypothesis): whatever a person or a script types into the scenario
form, the sweep form's lists and the catalog filters, cleaning never raises, every message sits on a field the
form has (or on the form), and what passes is finite and in range."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django import forms
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from catalog.forms import GpuFilterForm
from planner.forms import ScenarioForm
from planner.sweeps.forms import MAX_DEGREE, parse_degree_list, parse_node_counts
from tests.planner.conftest import form_data

pytestmark = pytest.mark.django_db

#: Examples per property: enough to reach the odd corners (signs, exponents, text) in a few seconds.
EXAMPLES = 60
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples on every run and on CI
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

#: What people and scripts type into a number box: numbers of every sign and size, their text forms (with
#: exponents, separators, infinities and NaN) and plain junk.
typed_numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        ["", " ", "nan", "NaN", "inf", "-inf", "1e400", "-0", "0", "1,000", "1_000", "½", "٣", "0x10"]
    ),
    st.text(max_size=12),
)


def _scenario_number_fields() -> list[str]:
    form = ScenarioForm(form_data())
    return sorted(
        name
        for name, field in form.fields.items()
        if isinstance(field, forms.FloatField | forms.IntegerField | forms.DecimalField)
    )


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


@PROPERTY_SETTINGS
@given(data=st.data())
def test_the_scenario_form_never_raises_and_passes_only_finite_inputs(catalog, data):
    names = _scenario_number_fields()
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True))
    post = form_data(**{name: data.draw(typed_numbers, label=name) for name in chosen})
    form = ScenarioForm(post)
    valid = form.is_valid()
    event("valid" if valid else "rejected")
    assert set(form.errors) <= {*form.fields, forms.forms.NON_FIELD_ERRORS}
    if valid:
        inputs = form.scenario_inputs()
        assert _finite(inputs), inputs
    else:
        assert all(str(message).strip() for messages in form.errors.values() for message in messages)


@PROPERTY_SETTINGS
@given(text=st.one_of(st.text(max_size=30), st.lists(typed_numbers, max_size=6).map(", ".join)))
def test_node_counts_parse_to_sorted_positive_integers_or_say_why(text):
    try:
        nodes = parse_node_counts(text)
    except forms.ValidationError as error:
        assert error.messages and all(m.strip() for m in error.messages)
    else:
        assert nodes == sorted(set(nodes)) and all(isinstance(n, int) and n >= 1 for n in nodes)


@PROPERTY_SETTINGS
@given(text=st.one_of(st.text(max_size=30), st.lists(typed_numbers, max_size=6).map(", ".join)))
def test_degree_lists_parse_into_their_range_or_say_why(text):
    try:
        values = parse_degree_list(text, minimum=1)
    except forms.ValidationError as error:
        assert error.messages and all(m.strip() for m in error.messages)
    else:
        assert values is None or all(isinstance(v, int) and 1 <= v <= MAX_DEGREE for v in values)


@PROPERTY_SETTINGS
@given(
    query=st.fixed_dictionaries(
        {},
        optional={
            "vendor": st.text(max_size=20),
            "memory_type": st.text(max_size=20),
            "min_memory_gb": typed_numbers,
            "verified": st.text(max_size=5),
            "sort": st.text(max_size=20),
        },
    )
)
def test_the_gpu_filters_never_raise_and_keep_the_minimum_memory_finite(catalog, query):
    form = GpuFilterForm(query)
    form.is_valid()
    assert set(form.errors) <= set(form.fields)
    filters = form.to_filters()
    assert filters.min_memory_gb is None or math.isfinite(filters.min_memory_gb)
