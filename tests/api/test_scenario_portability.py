"""export_scenarios / import_scenarios: every scenario with its results round-trips; a bad file changes nothing
and the error names each problem by its place in the file."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from planner.models import Scenario, ScenarioResult
from planner.services import scenario_reevaluate
from tests.planner.conftest import load_catalog, make_scenario

pytestmark = pytest.mark.django_db


def export(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("export_scenarios", *args, stdout=out)
    return json.loads(out.getvalue())


def import_file(path: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("import_scenarios", str(path), *args, stdout=out)
    return out.getvalue()


def comparable(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The scenarios of an export, without what an import legitimately changes (nothing but ids)."""
    return document["scenarios"]


@pytest.fixture
def plans(alice, bob) -> list[Scenario]:
    load_catalog()
    first = make_scenario(alice, name="Alice 70B plan")
    scenario_reevaluate(scenario=first)  # two results: the latest flag must survive
    return [first, make_scenario(bob, "llama8b-serving", name="Bob serving"), make_scenario(alice, "md-job")]


def test_an_export_lists_every_scenario_with_all_its_results(plans):
    document = export()
    assert document["format"] == "gpu-cluster-planner/scenarios" and document["version"] == 1
    assert [s["fields"]["name"] for s in document["scenarios"]] == [p.name for p in plans]
    assert [s["owner"] for s in document["scenarios"]] == ["alice", "bob", "alice"]
    first = document["scenarios"][0]
    assert len(first["results"]) == 2 and [r["latest"] for r in first["results"]] == [False, True]
    assert first["results"][1]["fields"]["output"]["engine_version"]
    assert first["fields"]["gpu"] == "nvidia_h100_sxm5_80gb"


def test_the_owner_option_exports_one_users_scenarios(plans):
    assert [s["owner"] for s in export("--owner", "bob")["scenarios"]] == ["bob"]


def test_export_then_import_round_trips_everything(plans, tmp_path):
    path = tmp_path / "scenarios.json"
    call_command("export_scenarios", "-o", str(path), stderr=io.StringIO())
    before = json.loads(path.read_text())
    Scenario.objects.all().delete()
    assert "Imported 3 scenarios and 4 results." in import_file(path)
    after = export()
    assert comparable(after) == comparable(before)
    for scenario in Scenario.objects.all():
        assert scenario.latest_result_id == scenario.results.order_by("created_at", "pk").last().pk


def test_import_with_owner_gives_every_scenario_to_that_user(plans, tmp_path, staff):
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps(export()))
    import_file(path, "--owner", "staff")
    assert Scenario.objects.filter(owner=staff).count() == 3


def _bad(document: dict[str, Any], mutate) -> dict[str, Any]:
    copy = json.loads(json.dumps(document))
    mutate(copy)
    return copy


BAD_FILES = {
    "wrong format marker": (lambda d: d.update(format="something else"), "format: must be"),
    "unknown owner": (
        lambda d: d["scenarios"][1].update(owner="carol"),
        "scenarios[1].owner: no user 'carol'",
    ),
    "negative nodes": (lambda d: d["scenarios"][2]["fields"].update(nodes=-1), "scenarios[2].fields.nodes"),
    "nodes as a word": (
        lambda d: d["scenarios"][2]["fields"].update(nodes="many"),
        "scenarios[2].fields.nodes",
    ),
    "unknown catalog GPU": (
        lambda d: d["scenarios"][1]["fields"].update(gpu="nvidia_h999"),
        "scenarios[1].fields.gpu",
    ),
    "unknown column": (
        lambda d: d["scenarios"][0]["fields"].update(colour="red"),
        "scenarios[0].fields.colour",
    ),
    "result without output": (
        lambda d: d["scenarios"][2]["results"][0]["fields"].update(output=None),
        "scenarios[2].results[0].fields.output",
    ),
    "bad timestamp": (
        lambda d: d["scenarios"][0]["fields"].update(created_at="yesterday"),
        "scenarios[0].fields.created_at",
    ),
    "two latest results": (
        lambda d: d["scenarios"][0]["results"][0].update(latest=True),
        "scenarios[0].results: 2 results are marked latest",
    ),
    "scenarios not a list": (lambda d: d.update(scenarios={}), "scenarios: must be a list"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_changes_nothing_and_names_the_problem(plans, tmp_path, case):
    mutate, expected = BAD_FILES[case]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_bad(export(), mutate)))
    counts = (Scenario.objects.count(), ScenarioResult.objects.count())
    with pytest.raises(CommandError) as error:
        import_file(path)
    assert "nothing imported" in str(error.value) and expected in str(error.value), str(error.value)
    assert (Scenario.objects.count(), ScenarioResult.objects.count()) == counts


def test_a_file_that_is_not_json_names_the_line(plans, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "gpu-cluster-planner/scenarios",\n "scenarios": [}')
    with pytest.raises(CommandError, match="not JSON: .* at line 2"):
        import_file(path)
    assert Scenario.objects.count() == 3


def test_a_dry_run_checks_and_writes_nothing(plans, tmp_path):
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps(export()))
    assert "is valid: 3 scenarios, 4 results" in import_file(path, "--dry-run")
    assert Scenario.objects.count() == 3
