"""import_scenarios refuses results whose JSON the pages could not read (an `output` that is a string, a
section of the wrong type) and an imported `javascript:` source is shown as text, never as a link."""

from __future__ import annotations

import json

import pytest
from django.core.management.base import CommandError

from planner.models import Scenario, ScenarioResult
from tests.api.test_scenario_portability import export, import_file, plans  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

HOSTILE = {
    "output is a string": (lambda f: f.update(output="hello"), "fields.output: must be an object (got str)"),
    "memory is a string": (
        lambda f: f["output"].update(memory="lots"),
        "fields.output.memory: must be an object (got str)",
    ),
    "warnings is a number": (
        lambda f: f["output"].update(warnings=3),
        "fields.output.warnings: must be an array",
    ),
    "a figure is a string": (
        lambda f: f["output"]["power"].update(it_kw="12 kW"),
        "fields.output.power.it_kw: must be a number",
    ),
    "no engine version": (
        lambda f: f["output"].pop("engine_version"),
        "fields.output.engine_version: is required",
    ),
    "snapshot sources not a list": (
        lambda f: next(iter(f["catalog_snapshot"].values())).update(sources="http://x"),
        ".sources: must be an array",
    ),
    "assumptions a string": (
        lambda f: f.update(input_assumptions="none"),
        "fields.input_assumptions: must be",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_result_the_pages_cannot_read_is_refused(plans, tmp_path, case):  # noqa: F811
    mutate, expected = HOSTILE[case]
    document = export()
    mutate(document["scenarios"][0]["results"][0]["fields"])
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(document))
    counts = (Scenario.objects.count(), ScenarioResult.objects.count())
    with pytest.raises(CommandError) as error:
        import_file(path)
    assert "nothing imported" in str(error.value) and expected in str(error.value), str(error.value)
    assert (Scenario.objects.count(), ScenarioResult.objects.count()) == counts


def test_an_imported_javascript_source_is_text_not_a_link(plans, tmp_path, alice, client):  # noqa: F811
    document = export("--owner", "alice")
    scenario = document["scenarios"][0]
    latest = next(r for r in scenario["results"] if r["latest"])["fields"]
    for entry in latest["catalog_snapshot"].values():
        entry["sources"] = ["javascript:alert(document.cookie)"]
    for note in latest["input_assumptions"]:
        note["source"] = "javascript:alert(1)"
    for key in latest["output"]["assumptions"]:
        if isinstance(latest["output"]["assumptions"][key], dict):
            latest["output"]["assumptions"][key]["source"] = "javascript:alert(2)"
    document["scenarios"] = [scenario]
    path = tmp_path / "js.json"
    path.write_text(json.dumps(document))
    import_file(path, "--owner", "alice")
    imported = Scenario.objects.filter(owner=alice).order_by("-pk").first()
    client.force_login(alice)
    page = client.get(imported.get_absolute_url())
    html = page.content.decode()
    assert page.status_code == 200 and "javascript:alert(document.cookie)" in html
    assert 'href="javascript:' not in html.replace(" ", "")
