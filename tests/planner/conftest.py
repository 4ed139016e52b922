"""Planning-page helpers: a loaded catalog, the form data of a starter, and plain `make_*` factories."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command

from planner import services
from planner.forms import ScenarioForm
from planner.models import Scenario
from planner.starters import STARTERS_BY_KEY


def load_catalog() -> None:
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())


@pytest.fixture
def catalog(db) -> None:
    load_catalog()


def form_data(starter: str = "llama70b-h100", **overrides: Any) -> dict[str, Any]:
    """POST data of the scenario form as a person would submit it for a starter (blank values as '')."""
    data = {**STARTERS_BY_KEY[starter].initial, **overrides}
    return {k: ("" if v is None else v) for k, v in data.items()}


def scenario_inputs(starter: str = "llama70b-h100", **overrides: Any) -> dict[str, Any]:
    form = ScenarioForm(form_data(starter, **overrides))
    assert form.is_valid(), form.errors.as_json()
    return form.scenario_inputs()


def make_scenario(owner: Any, starter: str = "llama70b-h100", **overrides: Any) -> Scenario:
    """A saved, evaluated scenario (real engine) built through the form, as the create page does."""
    return services.scenario_create(owner=owner, inputs=scenario_inputs(starter, **overrides))


@pytest.fixture
def alice_scenario(catalog, alice) -> Scenario:
    return make_scenario(alice, name="Alice 70B plan")


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Each test starts with an empty cache (cached results sections and layouts never leak between tests)."""
    from django.core.cache import cache

    cache.clear()
