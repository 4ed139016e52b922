"""`workload.efficiency_scale`: the user's statement of their framework's kernel efficiency against the
Megatron-LM-class efficiency the engine is validated on. It scales compute time only."""

import copy

import pytest

from planner.engine.api import estimate
from planner.engine.inputs.errors import SpecError


def _with_scale(payload: dict, scale: float) -> dict:
    out = copy.deepcopy(payload)
    out["workload"]["efficiency_scale"] = scale
    return out


def test_a_less_efficient_framework_takes_longer_and_lowers_mfu(train):
    base = estimate(train)
    slower = estimate(_with_scale(train, 0.7))
    assert slower["time"]["days"] > base["time"]["days"]
    assert slower["time"]["mfu"] < base["time"]["mfu"]
    # only compute gets slower, by at most 1/0.7 (memory-bound parts such as the optimizer step do not scale)
    compute, base_compute = slower["time"]["breakdown_s"]["compute"], base["time"]["breakdown_s"]["compute"]
    assert base_compute < compute <= base_compute / 0.7 * (1 + 1e-9)
    assert slower["time"]["breakdown_s"]["tp_comm"] == pytest.approx(base["time"]["breakdown_s"]["tp_comm"])


def test_the_default_is_echoed_as_an_assumption(train):
    result = estimate(train)
    assert result["assumptions"]["workload.efficiency_scale"]["value"] == 1.0


@pytest.mark.parametrize("bad", [0, -0.5, 2.0, "fast"])
def test_it_rejects_an_impossible_scale_naming_the_field(train, bad):
    with pytest.raises(SpecError) as err:
        estimate(_with_scale(train, bad))
    assert any(p.path == "workload.efficiency_scale" for p in err.value.problems)
