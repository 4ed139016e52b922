"""GPU power cap on the scenario form and API: watts or % of TDP, stated on the results page with its throughput
effect, and every bad value refused on the field with nothing saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from planner.engine.facility import power
from planner.forms import ScenarioForm
from planner.models import Scenario, ScenarioResult
from tests.api.conftest import token_client
from tests.planner.conftest import form_data, make_scenario


@pytest.mark.django_db
def test_a_cap_in_watts_lowers_power_and_throughput_and_is_shown(alice_client, alice, catalog):
    base = make_scenario(alice, "llama70b-h100", tokens_b=1000)
    capped = make_scenario(alice, "llama70b-h100", tokens_b=1000, gpu_power_limit_w=600)
    before, after = base.latest_result.output, capped.latest_result.output
    assert capped.gpu_power_limit_w == 600
    assert after["power"]["it_kw"] < before["power"]["it_kw"]
    assert after["power"]["peak_it_kw"] < before["power"]["peak_it_kw"]
    assert after["time"]["days"] > before["time"]["days"]
    cap = after["power"]["gpu_power_cap"]
    assert cap["throughput_fraction"] == pytest.approx(power.power_cap_throughput_fraction(600, 700))
    html = alice_client.get(capped.get_absolute_url()).content.decode()
    assert 'data-testid="power-cap"' in html and "GPUs capped at 600 W" in html


@pytest.mark.django_db
def test_a_cap_in_percent_of_tdp_becomes_watts(alice, catalog):
    form = ScenarioForm(form_data("llama70b-h100", gpu_power_limit_pct=80))
    assert form.is_valid(), form.errors.as_json()
    assert form.scenario_inputs()["gpu_power_limit_w"] == pytest.approx(560.0)  # 80 % of the H100's 700 W


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ({"gpu_power_limit_w": 0}, "gpu_power_limit_w", "more than 0 W"),
        ({"gpu_power_limit_w": -50}, "gpu_power_limit_w", "greater than or equal to 0"),
        ({"gpu_power_limit_w": "lots"}, "gpu_power_limit_w", "number"),
        ({"gpu_power_limit_w": 800}, "gpu_power_limit_w", "must not exceed the GPU's TDP (700 W)"),
        ({"gpu_power_limit_w": 200}, "gpu_power_limit_w", "half the TDP"),
        ({"gpu_power_limit_pct": 120}, "gpu_power_limit_pct", "at most 100 %"),
        ({"gpu_power_limit_pct": 0}, "gpu_power_limit_pct", "above 0"),
        ({"gpu_power_limit_w": 600, "gpu_power_limit_pct": 80}, "gpu_power_limit_pct", "not both"),
    ],
)
def test_bad_caps_are_refused_on_the_field_and_nothing_is_saved(alice_client, catalog, extra, field, words):
    response = alice_client.post(reverse("scenario_create"), form_data("llama70b-h100", **extra))
    assert response.status_code == 200  # the form again, with the message on the field
    errors = response.context["form"].errors
    assert field in errors and words in " ".join(errors[field]), errors
    assert not Scenario.objects.exists() and not ScenarioResult.objects.exists()


@pytest.mark.django_db
def test_the_api_takes_the_cap_and_refuses_one_above_tdp(alice, catalog):
    api = token_client(alice)
    ok = api.post("/api/scenarios/", {"starter": "llama70b-h100", "gpu_power_limit_w": 600}, format="json")
    assert ok.status_code == 201, ok.content
    assert ok.json()["inputs"]["gpu_power_limit_w"] == 600
    bad = api.post("/api/scenarios/", {"starter": "llama70b-h100", "gpu_power_limit_w": 900}, format="json")
    assert bad.status_code == 400 and "gpu_power_limit_w" in bad.json()["errors"]
    assert Scenario.objects.count() == 1
