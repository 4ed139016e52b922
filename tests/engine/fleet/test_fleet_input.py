"""Bad fleet input exits 2 with one line per problem naming the field path, never a traceback."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from planner.engine.__main__ import main
from planner.engine.fleet.parse import parse_fleet
from planner.engine.inputs.errors import SpecError

EXAMPLE = json.loads((Path(__file__).parent / "example.json").read_text())


def run(payload: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["fleet", "-"], stdin=io.StringIO(json.dumps(payload)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def changed(path: list[Any], value: Any) -> dict[str, Any]:
    payload = copy.deepcopy(EXAMPLE)
    node = payload
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return payload


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            changed(["workloads", 0, "start_period"], 5),
            "workloads[0].deadline_period: must not be before start_period (got 3 < 5)",
        ),
        (
            changed(["pools", 1, "gpus_per_nod"], 8),
            "pools[1].gpus_per_nod: unknown field; did you mean 'gpus_per_node'?",
        ),
        (changed(["pools", 0, "gpu"], "nvidia_h100"), "pools[0].gpu: unknown catalog GPU id 'nvidia_h100'"),
        (changed(["pools", 2, "mig"], True), "pools[2].mig: L40S"),
        (
            changed(["workloads", 1, "requests_per_s"], [1, 2, 3]),
            "workloads[1].requests_per_s: must have one value per period (8), got 3",
        ),
        (
            changed(["workloads", 1, "requests_per_s"], [1, 2, 3, 4, -5, 6, 7, 8]),
            "workloads[1].requests_per_s[4]: must be at least 0",
        ),
        (
            changed(["workloads", 3, "kind"], "batch"),
            "workloads[3].kind: must be one of training, inference, service, jobs",
        ),
        (changed(["workloads", 0, "model"], "llama9"), "workloads[0].model: unknown model preset 'llama9'"),
        (changed(["workloads", 1, "model"], "llama9"), "workloads[1].model: unknown model preset 'llama9'"),
        (changed(["teams", 1, "max_gpus"], {"a100": 4}), "teams[1].max_gpus.a100: unknown field"),
        (changed(["facility", "power_mw"], "lots"), "facility.power_mw: must be a number"),
        (changed(["economics", "discount_rate"], 1.5), "economics.discount_rate: must be less than 1"),
        (changed(["horizon", "start"], "2027Q1"), "horizon.start: must look like '2027-Q1'"),
        (changed(["workloads", 2, "id"], "chat"), "workloads[2].id: 'chat' is used twice"),
        (changed(["workloads", 3, "gpus_per_job"], 0), "workloads[3].gpus_per_job: must be at least 1"),
        (changed(["colour"], "red"), "colour: unknown field"),
    ],
)
def test_bad_input_exits_2_naming_the_field(payload: dict[str, Any], expected: str) -> None:
    code, out, err = run(payload)
    assert code == 2
    assert out == ""
    assert expected in err, err
    assert "Traceback" not in err


def test_every_problem_is_reported_at_once() -> None:
    payload = changed(["pools", 0, "existing_nodes"], -1)
    payload["workloads"][2]["gpu_share"] = 0
    with pytest.raises(SpecError) as caught:
        parse_fleet(payload)
    paths = {p.path for p in caught.value.problems}
    assert {"pools[0].existing_nodes", "workloads[2].gpu_share"} <= paths


@pytest.mark.parametrize("payload", [None, [], "fleet", 3, {"horizon": {"periods": 0}}])
def test_not_a_fleet_exits_2(payload: Any) -> None:
    code, _, err = run(payload)
    assert code == 2 and err and "Traceback" not in err


def test_a_per_period_figure_may_be_one_number_for_all_periods() -> None:
    spec = parse_fleet(changed(["workloads", 2, "replicas"], 3))
    assert spec.workloads[2].replicas == (3,) * 8
    assert spec.horizon.labels[:5] == ("2027-Q1", "2027-Q2", "2027-Q3", "2027-Q4", "2028-Q1")


def test_the_cli_prints_one_json_object() -> None:
    code, out, _ = run(EXAMPLE)
    assert code == 0
    answer = json.loads(out)
    assert answer["feasible"] is True


def test_too_many_model_sizings_are_refused_naming_the_workloads() -> None:
    payload = copy.deepcopy(EXAMPLE)
    payload["pools"] = [{"id": f"p{i}", "gpu": "nvidia_h100_sxm5_80gb"} for i in range(20)]
    payload["teams"] = []
    payload["workloads"] = [
        {"id": f"t{i}", "kind": "training", "model": "llama3.1-8b", "tokens_b": 10} for i in range(9)
    ]
    code, _, err = run(payload)
    assert code == 2 and "workloads: asks for 180 model sizings" in err
