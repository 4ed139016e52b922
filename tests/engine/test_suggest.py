"""Suggestions for unknown names: what a person most likely meant, never a wrong guess of another size."""

from __future__ import annotations

import pytest

from planner.engine.inputs import catalog
from planner.engine.inputs.presets import PRESETS
from planner.engine.inputs.suggest import closest, did_you_mean

GPUS = list(catalog.gpu_rows())
PRESET_NAMES = list(PRESETS)


@pytest.mark.parametrize(
    ("typed", "first"),
    [
        ("nvidia_h100", "nvidia_h100_sxm5_80gb"),  # a prefix: the catalog's flagship row first
        ("h100", "nvidia_h100_sxm5_80gb"),  # a part
        ("h20", "nvidia_h20_96gb"),  # a whole part beats a longer name that contains it (h200)
        ("nvidia_h100_sxm5_80g", "nvidia_h100_sxm5_80gb"),
        ("NVIDIA H100 SXM5 80GB", "nvidia_h100_sxm5_80gb"),  # the same name, written as on the datasheet
        ("mi300", "amd_mi300x"),
    ],
)
def test_gpu_ids(typed, first):
    assert closest(typed, GPUS)[0] == first


@pytest.mark.parametrize(
    ("typed", "first"),
    [
        ("llama3", "llama3.1-8b"),
        ("Llama 3.1 70B", "llama3.1-70b"),
        ("lama3.1-70b", "llama3.1-70b"),
        ("gpt3", "gpt3-175b"),
    ],
)
def test_model_presets(typed, first):
    assert closest(typed, PRESET_NAMES)[0] == first


def test_another_size_is_not_a_typo():
    assert closest("llama-99b", PRESET_NAMES) == []
    hint = did_you_mean("llama-99b", PRESET_NAMES, list_known=True)
    assert hint.startswith(" (known: ") and all(name in hint for name in PRESET_NAMES)


def test_field_names_and_choices():
    assert did_you_mean("gpus_per_nod", ["gpus_per_node", "nodes"]) == "; did you mean 'gpus_per_node'?"
    assert did_you_mean("microbatch", ["micro_batch", "global_batch"]) == "; did you mean 'micro_batch'?"
    assert did_you_mean("bf17", ["fp32", "bf16", "fp16"]) == "; did you mean 'bf16'?"
    assert did_you_mean("xyz", ["fp32", "bf16"]) == ""


def test_several_likely_names_are_all_offered_best_first():
    hint = did_you_mean("nvidia_h100", GPUS)
    assert hint == (
        "; did you mean 'nvidia_h100_sxm5_80gb'? (or 'nvidia_h100_pcie_80gb', 'nvidia_h100_nvl_94gb')"
    )
