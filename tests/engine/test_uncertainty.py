"""The time range (accuracy/uncertainty.py): the leave-one-out band, widened with the reason shown when a scenario
lies away from the validated cases (issue 13 point 4)."""

import pytest

from planner.engine.accuracy import uncertainty
from planner.engine.api import estimate


def _training(gpu="nvidia_h100_sxm5_80gb", model="llama3.1-70b", nodes=8, parallelism=None, precision="bf16"):
    layout = parallelism or {"tp": 8, "pp": 4, "micro_batch": 1, "global_batch": 512, "zero_stage": 1}
    return estimate(
        {
            "cluster": {"gpu": gpu, "gpus_per_node": 8, "nodes": nodes},
            "workload": {
                "kind": "training",
                "model": model,
                "tokens_b": 100,
                "precision": precision,
                "parallelism": layout,
            },
        }
    )["time"]


def test_gpu_generation_reads_ids_and_names():
    assert uncertainty.gpu_generation("nvidia_a100_sxm4_80gb") == "a100"
    assert uncertainty.gpu_generation(None, "NVIDIA H100 SXM5 80GB") == "h100"
    assert uncertainty.gpu_generation("amd_mi300x") == "mi300x"
    assert uncertainty.gpu_generation("", "NVIDIA GB200 NVL72") == "gb200"


def test_a_validated_scenario_gets_the_plain_band():
    t = _training()
    low, high, _ = uncertainty.band()
    assert t["range_reasons"] == []
    assert t["range_ratio"] == pytest.approx([low, high])
    assert t["days_low"] == pytest.approx(t["days"] * low) and t["days_high"] == pytest.approx(
        t["days"] * high
    )


def test_an_unvalidated_layout_family_on_h100_widens_with_its_reason():
    t = _training(
        parallelism={"tp": 1, "pp": 1, "cp": 4, "micro_batch": 1, "global_batch": 64, "zero_stage": 3}
    )
    reasons = " ".join(t["range_reasons"])
    assert "context parallelism not validated" in reasons
    low, high, widen = uncertainty.band()
    assert t["range_ratio"][1] == pytest.approx(high * widen ** len(t["range_reasons"]))
    assert t["range_ratio"][0] < low


def test_family_reason_names_the_gpu():
    cases = uncertainty.validated()
    assert not any(c.gpu == "h100" and c.family == "hybrid" for c in cases)
    t = _training(parallelism={"tp": 8, "pp": 1, "micro_batch": 1, "global_batch": 64, "zero_stage": 3})
    assert any("not validated on H100" in r for r in t["range_reasons"])


def test_size_scale_and_gpu_reasons():
    tiny = {"layers": 2, "hidden": 256, "heads": 4, "seq_len": 512, "vocab": 1000}
    t = _training(model=tiny, nodes=1, parallelism={"micro_batch": 1, "global_batch": 8, "zero_stage": 1})
    assert any(r.startswith("smaller than any validated model") for r in t["range_reasons"])
    big = _training(nodes=2048, parallelism={"tp": 8, "pp": 4, "micro_batch": 1, "global_batch": 4096})
    assert any(r.startswith("beyond the largest validated scale") for r in big["range_reasons"])
    other = _training(
        gpu="nvidia_b200_hgx", parallelism={"tp": 8, "pp": 4, "micro_batch": 1, "global_batch": 512}
    )
    assert any("not validated (published cases" in r for r in other["range_reasons"])


def test_the_widened_range_is_echoed_under_assumptions():
    out = estimate(
        {
            "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 8},
            "workload": {
                "kind": "training",
                "model": "llama3.1-70b",
                "tokens_b": 100,
                "precision": "fp8",
                "parallelism": {"tp": 8, "pp": 4, "micro_batch": 1, "global_batch": 512},
            },
        }
    )
    assert "precision fp8 not validated" in out["time"]["range_reasons"]
    assert "precision fp8 not validated" in out["assumptions"]["uncertainty.widened"]["source"]
