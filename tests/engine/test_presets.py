"""Every preset's parameter count, derived from its shape, matches the published count within 2%."""

import pytest

from planner.engine.api import estimate, presets
from planner.engine.inputs.model import MODEL_KEYS
from planner.engine.inputs.presets import PRESETS, preset_model, preset_names
from tests.engine.conftest import TRAIN

PUBLISHED_TOLERANCE = 0.02
REQUIRED = [
    "gpt3-175b",
    "llama2-7b",
    "llama2-13b",
    "llama2-70b",
    "llama3.1-8b",
    "llama3.1-70b",
    "llama3.1-405b",
    "mixtral-8x7b",
    "deepseek-v3",
    "nemotron-4-340b",
    "mpt-7b",
    "mpt-30b",
    "mpt-70b",
    "bloom-176b",
]


def _params_b(name: str) -> dict:
    payload = {
        **TRAIN,
        "workload": {
            **TRAIN["workload"],
            "model": name,
            "parallelism": {"tp": 1, "pp": 1, "global_batch": 32},
        },
    }
    return estimate(payload)["model"]


def test_the_issue_s_presets_all_ship():
    assert [n for n in REQUIRED if n not in PRESETS] == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_parameter_count_matches_the_published_count(name):
    model = _params_b(name)
    published = PRESETS[name]["published_params_b"]
    assert model["params_b"] == pytest.approx(published, rel=PUBLISHED_TOLERANCE)


@pytest.mark.parametrize("name", [n for n, p in PRESETS.items() if "published_active_params_b" in p])
def test_moe_preset_active_parameters_match_the_published_count(name):
    # Mixtral 12.9B; DeepSeek-V3 "37B activated" (the shape gives 37.5B: within the 2% tolerance).
    model = _params_b(name)
    assert model["active_params_b"] == pytest.approx(
        PRESETS[name]["published_active_params_b"], rel=PUBLISHED_TOLERANCE
    )


def test_every_preset_names_its_source_and_the_api_exposes_it():
    listed = presets()
    for entry in listed.values():
        assert entry["source"] and entry["label"]
        assert set(entry) <= set(MODEL_KEYS)
    assert listed["gpt3-175b"]["layers"] == 96


def test_mpt_70b_says_that_no_such_model_was_released():
    assert "never released" in PRESETS["mpt-70b"]["source"]


def test_a_preset_entry_from_the_api_can_be_sent_back_as_the_model():
    payload = {
        **TRAIN,
        "workload": {
            **TRAIN["workload"],
            "model": presets()["llama2-7b"],
            "parallelism": {"tp": 1, "global_batch": 32},
        },
    }
    assert estimate(payload)["model"]["params_b"] == pytest.approx(6.738, rel=1e-3)


@pytest.mark.parametrize("name", preset_names())
def test_preset_model_returns_a_copy_the_caller_may_change(name):
    """Preset values are scalars or flat dicts of scalars, which is what preset_model's two-level copy needs."""
    for value in PRESETS[name]["model"].values():
        nested = value.values() if isinstance(value, dict) else ()
        assert isinstance(value, bool | int | float | str | dict)
        assert all(isinstance(inner, bool | int | float | str) for inner in nested)
    copy = preset_model(name)
    for key, value in copy.items():
        if isinstance(value, dict):
            value["changed"] = True
        copy[key] = "changed"
    assert all(v != "changed" for v in PRESETS[name]["model"].values())
    assert all("changed" not in v for v in PRESETS[name]["model"].values() if isinstance(v, dict))
