"""The serving kernel efficiency on the inference form and API (`kernel_efficiency`, engine
`workload.serving.kernel_efficiency`): saved on the scenario, read back, sent to the engine and the sizer, bad values
refused on the field with nothing saved, and the results page saying in words what was assumed and how to change it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from planner import adapters, serving_size
from planner.forms import ScenarioForm
from planner.forms.inputs import initial_from_scenario
from planner.models import Scenario, ScenarioResult
from tests.api.conftest import token_client
from tests.planner.conftest import form_data, make_scenario

pytestmark = pytest.mark.django_db

SERVING = "llama8b-serving"


def _text(html: bytes) -> str:
    return html.decode().replace("\xa0", " ")


def test_left_blank_the_engine_assumes_the_calibrated_average_and_the_page_says_so(client, alice, catalog):
    client.force_login(alice)
    scenario = make_scenario(alice, SERVING)
    assert scenario.kernel_efficiency is None
    assert "kernel_efficiency" not in adapters.workload_payload(scenario)["serving"]
    output = scenario.latest_result.output
    assert output["inference"]["engine"]["kernel_efficiency"] == 1.0
    assert "workload.serving.kernel_efficiency" in output["assumptions"]
    html = _text(client.get(scenario.get_absolute_url()).content)
    panel = html.split('data-testid="kernel-efficiency"')[1].split("</section>")[0]
    assert "assumed 1×" in panel, panel
    assert "cannot know" in panel and "calibrated on" in panel
    assert "Kernel efficiency (× calibrated)" in panel and "workload.serving.kernel_efficiency" in panel


def test_a_stated_value_is_saved_reaches_the_engine_and_reads_back(client, alice, catalog):
    client.force_login(alice)
    base = make_scenario(alice, SERVING)
    faster = make_scenario(alice, SERVING, kernel_efficiency=1.2)
    assert faster.kernel_efficiency == 1.2
    assert adapters.workload_payload(faster)["serving"]["kernel_efficiency"] == 1.2
    assert serving_size.sizing_payload(faster)["serving"]["kernel_efficiency"] == 1.2
    out, before = faster.latest_result.output, base.latest_result.output
    assert out["inference"]["engine"]["kernel_efficiency"] == 1.2
    assert "workload.serving.kernel_efficiency" not in out["assumptions"]
    assert out["inference"]["max_requests_per_s"] > before["inference"]["max_requests_per_s"]
    assert initial_from_scenario(faster)["kernel_efficiency"] == 1.2  # the edit form shows it again
    edit = _text(client.get(reverse("scenario_edit", args=[faster.pk])).content)
    assert 'name="kernel_efficiency"' in edit and 'value="1.2"' in edit
    panel = _text(client.get(faster.get_absolute_url()).content).split('data-testid="kernel-efficiency"')[1]
    assert "1.2× (your figure)" in panel.split("</section>")[0]


BAD = [
    ("zero", 0, "must be more than 0"),
    ("negative", -1, "greater than or equal to 0"),
    ("a word", "fast", "Enter a number"),
    ("not a number", "nan", "Enter a number"),
    ("above the bound", 1.3, "less than or equal to 1.25"),
]


@pytest.mark.parametrize(("case", "value", "words"), BAD, ids=[c[0] for c in BAD])
def test_bad_values_are_refused_on_the_field_and_nothing_is_saved(client, alice, catalog, case, value, words):
    client.force_login(alice)
    response = client.post(reverse("scenario_create"), form_data(SERVING, kernel_efficiency=value))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "kernel_efficiency" in errors and words in " ".join(errors["kernel_efficiency"]), (case, errors)
    assert not Scenario.objects.exists() and not ScenarioResult.objects.exists()


@pytest.mark.parametrize(("case", "value", "words"), BAD, ids=[c[0] for c in BAD])
def test_the_api_round_trips_it_and_answers_bad_values_with_a_400_on_the_field(
    alice, catalog, case, value, words
):
    api = token_client(alice)
    bad = api.post("/api/scenarios/", {"starter": SERVING, "kernel_efficiency": value}, format="json")
    assert bad.status_code == 400, (case, bad.content)
    assert words in " ".join(bad.json()["errors"]["kernel_efficiency"]), (case, bad.json())
    assert not Scenario.objects.exists()
    ok = api.post("/api/scenarios/", {"starter": SERVING, "kernel_efficiency": 0.8}, format="json")
    assert ok.status_code == 201, ok.content
    body = ok.json()
    assert body["inputs"]["kernel_efficiency"] == 0.8
    assert (
        Scenario.objects.get(pk=body["id"]).latest_result.output["inference"]["engine"]["kernel_efficiency"]
        == 0.8
    )


def test_the_form_field_sits_with_the_serving_inputs(catalog):
    form = ScenarioForm(form_data(SERVING, kernel_efficiency=1.1))
    assert form.is_valid(), form.errors.as_json()
    assert form.scenario_inputs()["kernel_efficiency"] == 1.1
