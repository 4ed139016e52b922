""" "What fits in this power and budget?" (planner/reverse_sizing.py, planner/views_fit.py): each GPU type's
largest cluster within the budget, judged by the engine, ranked; the pages' access rules and bad inputs."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from planner import reverse_sizing as rs
from tests.planner.conftest import make_scenario

H100 = "nvidia_h100_sxm5_80gb"
B200 = "nvidia_b200_hgx"


def _inputs(power_mw=None, budget_usd=None, **kw) -> rs.FitInputs:
    return rs.FitInputs(
        power_mw, kw.pop("power_basis", "facility"), budget_usd, kw.pop("money_basis", "capex"), **kw
    )


@pytest.mark.django_db
def test_the_issue_example_fits_each_gpu_within_2_mw_and_50_million(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    page = rs.fit_scenario(scenario, _inputs(2.0, 50e6))
    answered = [r for r in page.rows if r.get("work")]
    assert {r["gpu_id"] for r in page.rows} == set(rs.DEFAULT_GPU_IDS)
    assert len(answered) >= 8 and page.work_unit == "B tokens/day"
    for row in answered:
        assert row["facility_kw"] <= 2000 and row["capex_usd"] <= 50e6
        assert row["nodes"] <= row["nodes_within"] and row["binding"] in {"power", "money", "power and money"}
        assert row["per_musd"] == pytest.approx(row["work"] / (row["capex_usd"] / 1e6))
        assert row["per_mw"] == pytest.approx(row["work"] / (row["facility_kw"] / 1000))
        assert row["redundancy"] and row["racks"] >= 1 and row["price_kind"]
        assert row["price_estimate"] == (row["price_kind"] == "estimate")
    works = [r["work"] for r in answered]
    assert works == sorted(works, reverse=True)
    assert any(r["price_estimate"] for r in answered) and not all(r["price_estimate"] for r in answered)
    assert [c["key"] for c in page.charts] == ["fit-efficiency", "fit-work"]
    assert len(page.charts[0]["figure"]["data"][0]["x"]) == len(answered)


@pytest.mark.django_db
def test_the_budget_that_binds_is_the_one_reported(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    money = rs.fit_scenario(scenario, _inputs(100.0, 10e6, gpu_ids=(H100, B200))).rows
    power = rs.fit_scenario(scenario, _inputs(0.5, 1e9, gpu_ids=(H100, B200))).rows
    assert all(r["binding"] == "money" and r["capex_usd"] <= 10e6 for r in money)
    assert all(r["binding"] == "power" and r["facility_kw"] <= 500 for r in power)
    tco = rs.fit_scenario(scenario, _inputs(None, 10e6, money_basis="tco", gpu_ids=(H100,))).rows[0]
    assert (
        tco["tco_usd"] <= 10e6 < tco["tco_usd"] + tco["capex_usd"]
    )  # TCO, not capex, was held to the budget
    assert tco["nodes"] < money[[r["gpu_id"] for r in money].index(H100)]["nodes"]


@pytest.mark.django_db
def test_doubling_the_power_budget_never_lowers_the_delivered_work(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    works = [
        rs.fit_scenario(scenario, _inputs(mw, gpu_ids=(H100,))).rows[0]["work"]
        for mw in (0.5, 1.0, 2.0, 4.0, 10_000.0)
    ]
    assert works == sorted(works) and works[3] > 4 * works[0]
    # 10 GW is past what one run with a 1,024-sequence batch can use: fewer nodes than the cap, the most work
    huge = rs.fit_scenario(scenario, _inputs(10_000.0, gpu_ids=(H100,))).rows[0]
    assert huge["binding"] == "node cap" and huge["nodes"] < huge["nodes_within"] and huge["rounded"]


@pytest.mark.django_db
def test_it_power_basis_fits_more_than_facility_power(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    facility = rs.fit_scenario(scenario, _inputs(1.0, gpu_ids=(H100,))).rows[0]
    it = rs.fit_scenario(scenario, _inputs(1.0, power_basis="it", gpu_ids=(H100,))).rows[0]
    assert it["it_kw"] <= 1000 < it["facility_kw"]
    assert it["nodes_within"] > facility["nodes_within"]


@pytest.mark.django_db
def test_a_gpu_that_cannot_hold_the_model_is_listed_with_the_reason(alice, catalog):
    scenario = make_scenario(
        alice, "llama8b-serving", model_preset="llama3.1-70b", tp=1, context_len=2048, output_len=256
    )
    rows = {r["gpu_id"]: r for r in rs.fit_scenario(scenario, _inputs(1.0, gpu_ids=("nvidia_l4", B200))).rows}
    assert "does not fit" in rows["nvidia_l4"]["reason"] and not rows["nvidia_l4"].get("work")
    assert rows[B200]["work"] > 0
    assert rs.fit_scenario(scenario, _inputs(1.0)).work_unit == "output tokens/s"


@pytest.mark.django_db
def test_a_budget_below_one_node_says_so(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    row = rs.fit_scenario(scenario, _inputs(None, 100_000.0, gpu_ids=(H100,))).rows[0]
    assert row["nodes_within"] == 0 and "one node already needs" in row["reason"]


@pytest.mark.django_db
def test_answers_are_cached_per_scenario_version_and_inputs(alice, catalog, django_assert_max_num_queries):
    scenario = make_scenario(alice, "llama70b-h100")
    inputs = _inputs(1.0, gpu_ids=(H100,))
    first = rs.fit_scenario(scenario, inputs).rows
    with django_assert_max_num_queries(3):
        assert rs.fit_scenario(scenario, inputs).rows == first
    scenario.version += 1
    assert rs._cache_key(scenario, inputs, [H100]) != rs._cache_key(
        scenario, _inputs(2.0, gpu_ids=(H100,)), [H100]
    )


# ------------------------------------------------------------------------------------------------ pages


@pytest.mark.django_db
def test_the_page_shows_the_table_and_charts_and_is_linked(alice_client, alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    url = reverse("scenario_fit", args=[scenario.pk])
    response = alice_client.get(url, {"power_mw": "2", "budget_musd": "50", "gpus": [H100, B200]})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="fit-table"' in html and "H100 SXM5 80GB" in html and "B200" in html
    charts = json.loads(html.split('id="chart-data"')[1].split(">", 1)[1].split("</script>")[0])
    assert [c["key"] for c in charts] == ["fit-efficiency", "fit-work"]
    facility = response.context["page"].facility
    assert f"PUE {facility['pue']:.2f} and {facility['redundancy']} feeds" in html
    assert "vendor/plotly.min.js" in html and "cdn" not in html.lower()
    assert (
        html.count('data-testid="fit-price"') == 2 and "street price" in html
    )  # both GPUs say what their price is
    detail = alice_client.get(scenario.get_absolute_url()).content.decode()
    assert url in detail and reverse("fit_pick") in detail
    empty = alice_client.get(url)
    assert empty.status_code == 200 and 'data-testid="fit-intro"' in empty.content.decode()


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"power_mw": "-1"}, "power_mw", "greater than 0"),
        ({"power_mw": "0"}, "power_mw", "greater than 0"),
        ({"power_mw": "abc"}, "power_mw", "power budget must be a number"),
        ({"power_mw": "nan"}, "power_mw", "power budget must be a number"),
        ({"power_mw": "1e12"}, "power_mw", "at most 10,000 MW"),
        ({"budget_musd": "-5"}, "budget_musd", "money budget must be a number greater than 0"),
        ({"budget_musd": "inf"}, "budget_musd", "money budget must be a number"),
        ({"budget_musd": "1e300"}, "budget_musd", "at most 1,000,000 USD million"),
        ({"power_mw": "", "budget_musd": ""}, "__all__", "Give a power budget (MW) or a money budget"),
        ({"power_mw": "2", "power_basis": "grid"}, "power_basis", "facility or the IT load"),
        ({"power_mw": "2", "money_basis": "rent"}, "money_basis", "capex or the TCO"),
        ({"power_mw": "2", "gpus": "google_tpu_v4"}, "gpus", "not a priced catalog GPU"),
        ({"power_mw": "2", "gpus": "no_such_gpu"}, "gpus", "not a priced catalog GPU"),
        ({"power_mw": "2", "rank": "cheapest"}, "rank", "Rank by"),
    ],
)
@pytest.mark.django_db
def test_bad_inputs_answer_400_naming_the_field(alice_client, alice, catalog, query, field, message):
    scenario = make_scenario(alice, "llama70b-h100")
    response = alice_client.get(reverse("scenario_fit", args=[scenario.pk]), query)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert field in errors and any(message in e for e in errors[field]), errors
    assert message.split("(")[0] in response.content.decode().replace("&#x27;", "'")


@pytest.mark.django_db
def test_only_the_owner_sees_the_page(client, alice, bob, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    url = reverse("scenario_fit", args=[scenario.pk])
    assert client.get(url).status_code == 302  # sign in first
    client.force_login(bob)
    assert client.get(url, {"power_mw": "2"}).status_code == 404
    assert client.get(reverse("scenario_fit", args=[999_999]), {"power_mw": "2"}).status_code == 404
    assert client.get(reverse("fit_pick"), {"scenario": scenario.pk}).status_code == 404
    assert client.get(reverse("fit_pick"), {"scenario": "abc"}).status_code == 404


@pytest.mark.django_db
def test_the_entry_page_lists_your_scenarios_and_goes_to_the_answer(alice_client, alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")
    page = alice_client.get(reverse("fit_pick"))
    assert page.status_code == 200 and scenario.name in page.content.decode()
    response = alice_client.get(
        reverse("fit_pick"), {"scenario": scenario.pk, "power_mw": "2", "gpus": [H100]}
    )
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("scenario_fit", args=[scenario.pk]) + "?")
    assert "power_mw=2" in response["Location"] and f"gpus={H100}" in response["Location"]


@pytest.mark.django_db
def test_the_default_gpus_are_shown_ticked_and_tried(alice_client, alice, catalog):
    scenario = make_scenario(alice, "llama70b-b200")
    response = alice_client.get(reverse("scenario_fit", args=[scenario.pk]), {"budget_musd": "20"})
    form = response.context["form"]
    assert (
        form.cleaned_data["gpus"] == rs.default_gpu_ids(scenario) and rs.default_gpu_ids(scenario)[0] == B200
    )
    assert {r["gpu_id"] for r in response.context["page"].rows} == set(rs.default_gpu_ids(scenario))
    html = response.content.decode()
    ticked = set(re.findall(r'<input type="checkbox" name="gpus" value="([^"]+)"[^>]*checked', html))
    assert ticked == set(rs.default_gpu_ids(scenario))


def test_labels_of_nearby_points_take_different_positions():
    positions = rs.label_positions([(1.0, 30.0), (1.05, 30.5), (1.1, 30.2), (5.0, 60.0)])
    assert len(set(positions[:3])) == 3 and positions[3] == "top center"


@pytest.mark.django_db
def test_a_job_scenario_is_pointed_to_the_hpc_page(alice_client, alice, catalog):
    scenario = make_scenario(alice, "md-job")
    response = alice_client.get(reverse("scenario_fit", args=[scenario.pk]), {"power_mw": "1"})
    assert response.status_code == 200 and response.context["page"].rows == []
    html = response.content.decode()
    assert 'data-testid="fit-problem"' in html and reverse("hpc_presets") in html


@pytest.mark.parametrize("starter", ["llama70b-h100", "llama8b-serving"])
@pytest.mark.django_db
def test_every_priced_gpu_gives_an_answer_or_a_reason(alice, catalog, starter):
    from planner.forms.budget import BudgetFitForm

    scenario = make_scenario(alice, starter)
    every = tuple(gpu_id for gpu_id, _ in BudgetFitForm().fields["gpus"].choices)
    rows = rs.fit_scenario(scenario, _inputs(1.0, 30e6, gpu_ids=every)).rows
    assert len(rows) == len(every) >= 20
    for row in rows:
        assert (row.get("work") or 0) > 0 or row["reason"], row
    assert sum(1 for r in rows if r.get("work")) >= len(rows) // 2
