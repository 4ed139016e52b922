"""Pipeline stages as a real split places them (issue 13 physics, part 2): the slowest stage sets the step, the first
stage pays the input embedding, the last the output layer and loss, and by default the embedding and the output
layer + loss count as one layer each when layers are placed (Megatron-LM --account-for-embedding/loss-in-pipeline-
split; Llama 3 405B, Dubey et al. 2024 §3.3.2: "we reduce one Transformer layer each from the first and the last
stages", 126 layers on 16 stages: 7, 8 × 14, 7). The most loaded GPU is the heaviest of the first, second and last
stage under 1F1B (stage i holds min(p - i, m) micro-batches in flight)."""

from __future__ import annotations

import copy
from typing import Any

import numpy
import pytest

from planner.engine.api import estimate
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.parse import parse
from planner.engine.perf.layout import layout_for
from planner.engine.training.memory import stage_layers
from planner.engine.transformer.shape import shape_of

H100 = "nvidia_h100_sxm5_80gb"


def _payload(model: str, nodes: int, **parallelism: Any) -> dict[str, Any]:
    return {
        "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": nodes, "scaleout_gbps_per_gpu": 400},
        "workload": {
            "kind": "training",
            "model": model,
            "tokens_b": 1000,
            "parallelism": {"micro_batch": 1, "global_batch": 1024, **parallelism},
        },
    }


def _split(model: str, nodes: int, **parallelism: Any) -> tuple[float, float, float]:
    sc = parse(_payload(model, nodes, **parallelism))
    assert sc.model is not None and sc.parallelism is not None
    return tuple(float(x) for x in stage_layers(shape_of(sc.model), layout_for(sc.parallelism)))  # type: ignore[return-value]


def test_llama3_405b_on_16_stages_is_meta_s_split():
    assert _split("llama3.1-405b", 128, tp=8, pp=16) == (7.0, 8.0, 7.0)
    assert _split("llama3.1-405b", 128, tp=8, pp=16, pipeline_split="even") == (8.0, 8.0, 6.0)


@pytest.mark.parametrize("layers", [2, 5, 16, 32, 61, 80, 126])
def test_the_balanced_split_places_every_layer_on_at_most_ceil_l_plus_2_over_p_units(layers):
    from planner.engine.perf.layout import Layout

    pp = numpy.arange(1.0, layers + 1.0)
    ones = numpy.ones_like(pp)
    lay = Layout(
        tp=ones,
        pp=pp,
        dp=ones,
        cp=ones,
        ep=ones,
        virtual_stages=ones,
        micro_batch=ones,
        global_batch=ones * 64,
        zero_stage=ones,
        recompute=0 * ones,
        sequence_parallel=ones,
        flash_attention=2 * ones,
        dp_overlap=ones,
    )

    class Shape:  # only the layer count matters to the split
        pass

    shape = Shape()
    shape.layers = float(layers)  # type: ignore[attr-defined]
    first, middle, last = stage_layers(shape, lay)  # type: ignore[arg-type]
    units = numpy.ceil((layers + 2.0) / pp)
    multi = pp > 1
    assert numpy.all(first[multi] + last[multi] + numpy.maximum(pp[multi] - 2, 0) * middle[multi] >= layers)
    assert numpy.all(first[multi] <= units[multi] - 1) and numpy.all(last[multi] <= units[multi] - 1)
    assert numpy.all(middle <= units) and numpy.all(first >= 1) and numpy.all(last >= 0)
    assert first[0] == last[0] == layers and middle[0] == 0  # one stage holds everything


def test_the_slowest_stage_sets_the_step_and_the_output_layer_is_charged_on_the_last():
    """Llama 3.1 8B (32 layers, 128k vocabulary: the output layer is about 2.4 layers) on 4 stages: both splits
    put 8 layers on every stage (34/4 units do not divide), so the last stage (8 layers + output + loss) is the
    slowest; the step equals the one-stage step of those layers plus the bubble, not 8 layers alone."""
    balanced = estimate(_payload("llama3.1-8b", 4, tp=1, pp=4, dp=8))
    even = estimate(_payload("llama3.1-8b", 4, tp=1, pp=4, dp=8, pipeline_split="even"))
    assert _split("llama3.1-8b", 4, tp=1, pp=4, dp=8) == (8.0, 8.0, 8.0)
    assert balanced["time"]["step_s"] == pytest.approx(even["time"]["step_s"], rel=1e-12)
    # the output layer's compute is in the step: one more layer on the last stage (pp 4 over 33 layers is not
    # possible, so compare the compute share with pp 1, where the one stage pays embedding + output too)
    one = estimate(_payload("llama3.1-8b", 4, tp=1, pp=1, dp=32))
    per_layer_mb = one["time"]["breakdown_s"]["compute"] / one["parallelism"]["microbatches"]
    stage_mb = balanced["time"]["breakdown_s"]["compute"] / balanced["parallelism"]["microbatches"]
    assert stage_mb > per_layer_mb * 8 / 32 * 1.1  # the output layer adds more than 10% to an 8-layer stage


def test_balanced_405b_is_no_slower_and_holds_less_memory_than_even():
    """Under the even split the first stage holds 8 layers × 16 micro-batches in flight and the embedding; under
    the balanced one the second stage is the heaviest (8 layers × 15) and the slowest (8 layers, no embedding)."""
    kwargs = {"tp": 8, "pp": 16, "recompute": "full"}
    balanced = estimate(_payload("llama3.1-405b", 128, **kwargs))
    even = estimate(_payload("llama3.1-405b", 128, **kwargs, pipeline_split="even"))
    assert balanced["time"]["step_s"] <= even["time"]["step_s"]
    assert balanced["memory"]["activations_gib"] < even["memory"]["activations_gib"]
    assert "second pipeline stage" in balanced["memory"]["message"]
    assert "first pipeline stage" in even["memory"]["message"]
    assert balanced["parallelism"]["pipeline_split"] == "balanced"
    assert even["parallelism"]["pipeline_split"] == "even"
    assert "workload.parallelism.pipeline_split" in balanced["assumptions"]
    assert "workload.parallelism.pipeline_split" not in even["assumptions"]


@pytest.mark.parametrize("bad", ["uneven", "Balanced", 1, True, ["balanced"]])
def test_a_bad_pipeline_split_names_the_field(bad):
    payload = _payload("llama3.1-8b", 4, tp=1, pp=4, dp=8)
    payload["workload"]["parallelism"]["pipeline_split"] = bad
    with pytest.raises(SpecError) as err:
        parse(copy.deepcopy(payload))
    assert any(p.path == "workload.parallelism.pipeline_split" for p in err.value.problems), (
        err.value.problems
    )


def test_search_and_estimate_agree_under_both_splits():
    from planner.engine.api import search

    for split in ("balanced", "even"):
        fixed = {
            "tp": 4,
            "pp": 8,
            "dp": 4,
            "cp": 1,
            "virtual_stages": 1,
            "zero_stage": 1,
            "recompute": "none",
        }
        one = estimate(_payload("llama3.1-70b", 16, **fixed, pipeline_split=split))
        space = _payload("llama3.1-70b", 16, **fixed, pipeline_split=split)
        space["search"] = {"gpus": [H100], "nodes": [16], "max_results": 5}
        best = search(space)["best"][0]
        assert best["config"]["pipeline_split"] == split and best["config"]["micro_batch"] == 1
        assert best["step_s"] == pytest.approx(one["time"]["step_s"], rel=1e-12)
