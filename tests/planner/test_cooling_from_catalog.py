"""A catalog cooling row's numbers reach the engine: the catalog as shipped sends none (the engine's presets were
derived from it, so results stay as they were), an edited row sends the edited rack density, capex or water
figure, the results page says the catalog changed and names the field; PUE stays the engine's documented figure
per technology unless the scenario states one."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.urls import reverse

from catalog.models import Cooling
from planner import adapters, selectors, services
from planner import snapshot as snapshots
from planner.engine import api
from planner.engine.facility import power
from planner.forms.fields import COOLING_CATEGORY
from planner.models import Scenario
from tests.planner.conftest import make_scenario, scenario_inputs

pytestmark = pytest.mark.django_db

#: A hand-set layout, so each evaluation is one engine estimate (no layout search).
MANUAL = {"parallelism_mode": "manual", "tp": 8, "pp": 2}


def _unsaved(**overrides: Any) -> Scenario:
    scenario = Scenario()
    for name, value in scenario_inputs(**MANUAL, **overrides).items():
        setattr(scenario, name, value)
    return scenario


def _edit(pk: str, **values: Any) -> None:
    """Change a cooling row as the admin, a CSV import or the API do: through the model's save()."""
    row = Cooling.objects.get(pk=pk)
    for name, value in values.items():
        setattr(row, name, value)
    row.save()


def _reevaluated(scenario: Scenario) -> Scenario:
    """Re-evaluate as the results page does (the scenario read afresh, with today's catalog rows)."""
    services.scenario_reevaluate(scenario=selectors.scenario_get(user=scenario.owner, pk=scenario.pk))
    return selectors.scenario_get(user=scenario.owner, pk=scenario.pk)


def _cooling_notes(scenario: Scenario) -> list[dict[str, Any]]:
    notes = scenario.latest_result.input_assumptions
    return [note for note in notes if note["name"].startswith("cluster.cooling.")]


def _changed_fields(scenario: Scenario) -> list[str]:
    scenario = selectors.scenario_get(user=scenario.owner, pk=scenario.pk)
    return [change.field for change in selectors.result_page(scenario=scenario).catalog_changes]


def test_every_seeded_cooling_row_sends_no_numbers_so_results_stay_as_before(catalog):
    technologies = Cooling.objects.filter(category=COOLING_CATEGORY)
    assert technologies.count() >= 6
    for row in Cooling.objects.all():
        assert adapters.cooling_overrides(row) == {}, row.pk
    for row in technologies:
        assert row.pk in power.COOLING_PRESETS
        scenario = _unsaved(cooling=row.pk)
        payload = adapters.scenario_payload(scenario)
        bare = copy.deepcopy(payload)
        bare["cluster"]["cooling"] = {
            "name": row.pk
        }  # the engine's preset alone, as before catalog overrides
        assert api.estimate(payload) == api.estimate(bare), row.pk
        assert not [a for a in adapters.planning_inputs(scenario) if a["name"].startswith("cluster.cooling")]


def test_lower_rack_density_means_more_racks_and_the_page_names_the_field(client, catalog, alice):
    scenario = make_scenario(alice, cooling="dlc_cold_plate", **MANUAL)
    before = scenario.latest_result.output["power"]
    row = Cooling.objects.get(pk="dlc_cold_plate")
    lower_kw = row.rack_density_kw_typical_high / 4
    _edit("dlc_cold_plate", rack_density_kw_typical_high=lower_kw)

    client.force_login(alice)
    html = client.get(scenario.get_absolute_url()).content.decode()
    assert "The catalog changed since this result" in html
    label = Cooling._meta.get_field("rack_density_kw_typical_high").verbose_name
    assert f"{row.name} {label}" in html
    assert _changed_fields(scenario) == ["rack_density_kw_typical_high"]

    client.post(reverse("scenario_reevaluate", args=[scenario.pk]))
    scenario = selectors.scenario_get(user=alice, pk=scenario.pk)
    after = scenario.latest_result.output["power"]
    assert scenario.latest_result.input_payload["cluster"]["cooling"]["rack_density_kw"] == lower_kw
    assert after["rack_density_kw"] == lower_kw
    assert after["racks"] > before["racks"]
    assert after["facility_kw"] == before["facility_kw"]  # only the rack count depends on the density
    assert _changed_fields(scenario) == []

    [note] = _cooling_notes(scenario)
    assert note["name"] == "cluster.cooling.rack_density_kw" and note["value"] == lower_kw
    assert row.name in note["source"] and row.source_urls[0] in note["source"]
    html = client.get(scenario.get_absolute_url()).content.decode()
    assert "cluster.cooling.rack_density_kw" in html and f'href="{row.source_urls[0]}"' in html


def test_an_edited_pue_range_leaves_the_engines_documented_pue(catalog, alice):
    scenario = make_scenario(alice, cooling="immersion_1p", **MANUAL)
    row = Cooling.objects.get(pk="immersion_1p")
    _edit("immersion_1p", pue_low=row.pue_low + 0.1, pue_high=row.pue_high + 0.15)
    assert adapters.cooling_overrides(Cooling.objects.get(pk="immersion_1p")) == {}
    after = _reevaluated(scenario).latest_result.output["power"]
    assert after["pue"] == power.COOLING_PRESETS["immersion_1p"].pue


def test_higher_capex_raises_the_facility_capex_of_an_own_facility(catalog, alice):
    scenario = make_scenario(alice, cooling="air_crac_crah", facility="own", **MANUAL)
    before = scenario.latest_result.output["cost"]["capex_breakdown_usd"]["facility"]
    row = Cooling.objects.get(pk="air_crac_crah")
    _edit("air_crac_crah", capex_usd_per_kw_low=row.capex_usd_per_kw_low * 2)
    assert _changed_fields(scenario) == ["capex_usd_per_kw_low"]
    scenario = _reevaluated(scenario)
    expected = (row.capex_usd_per_kw_low * 2 + row.capex_usd_per_kw_high) / 2
    assert scenario.latest_result.input_payload["cluster"]["cooling"]["capex_usd_per_kw"] == expected
    assert scenario.latest_result.output["cost"]["capex_breakdown_usd"]["facility"] > before


def test_higher_wue_means_more_water(catalog, alice):
    scenario = make_scenario(alice, cooling="air_crac_crah", **MANUAL)
    before = scenario.latest_result.output["power"]["water_m3_per_year"]
    higher = Cooling.objects.get(pk="air_crac_crah").wue_l_per_kwh * 1.5
    _edit("air_crac_crah", wue_l_per_kwh=higher)
    assert _changed_fields(scenario) == ["wue_l_per_kwh"]
    after = _reevaluated(scenario).latest_result.output["power"]["water_m3_per_year"]
    assert after == pytest.approx(before * 1.5)


def test_a_pue_typed_on_the_scenario_wins_over_an_edited_row(catalog, alice):
    _edit("immersion_1p", rack_density_kw_typical=30)
    scenario = make_scenario(alice, cooling="immersion_1p", pue=1.15, **MANUAL)
    result = scenario.latest_result
    assert result.input_payload["cluster"]["cooling"] == {
        "name": "immersion_1p",
        "rack_density_kw": 30,
        "pue": 1.15,
    }
    assert result.output["power"]["pue"] == 1.15
    assert [note["name"] for note in _cooling_notes(scenario)] == ["cluster.cooling.rack_density_kw"]


def test_a_blank_catalog_value_never_overrides(catalog):
    _edit("immersion_2p", rack_density_kw_typical=None, rack_density_kw_typical_high=None, wue_l_per_kwh=None)
    assert adapters.cooling_overrides(Cooling.objects.get(pk="immersion_2p")) == {}
    payload = adapters.scenario_payload(_unsaved(cooling="immersion_2p"))
    assert payload["cluster"]["cooling"] == {"name": "immersion_2p"}


def test_results_stored_with_only_the_cooling_name_report_no_new_fields(catalog, alice):
    scenario = make_scenario(alice, cooling="dlc_cold_plate", **MANUAL)
    old = copy.deepcopy(scenario.latest_result.catalog_snapshot)
    old["cooling"]["values"] = {"name": old["cooling"]["values"]["name"]}  # before the numbers were recorded
    now = snapshots.catalog_snapshot(scenario)
    assert set(now["cooling"]["values"]) == set(snapshots.COOLING_FIELDS)
    assert snapshots.catalog_changes(old, now) == []
    _edit("dlc_cold_plate", rack_density_kw_typical_high=50)
    assert snapshots.catalog_changes(old, snapshots.catalog_snapshot(scenario)) == []
    _edit("dlc_cold_plate", name="Cold plate (renamed)")
    scenario = Scenario.objects.get(pk=scenario.pk)
    [change] = snapshots.catalog_changes(old, snapshots.catalog_snapshot(scenario))
    assert (change.role, change.field, change.new) == ("cooling", "name", "Cold plate (renamed)")
