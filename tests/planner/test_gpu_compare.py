""" "Compare GPUs": a saved scenario's workload moved onto 2-4 catalog GPUs and evaluated by the engine on each
(planner/gpu_compare.py); read-only."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from catalog.models import Gpu
from planner import adapters, gpu_compare, services, serving_size
from planner.engine import api as engine
from planner.engine.search import budget as budget_search
from planner.models import Scenario, ScenarioResult
from planner.reports import gpu_table
from planner.selectors import ComparisonRow
from tests.planner.conftest import make_scenario

FOUR = ["nvidia_h100_sxm5_80gb", "nvidia_h200_sxm_141gb", "nvidia_b200_hgx", "amd_mi300x"]
SERVING = {
    "model_preset": "llama3.1-70b",
    "tp": 8,
    "nodes": 4,
    "serving_batch": 32,
    "context_len": 4096,
    "output_len": 512,
    "requests_per_s": "",  # the rate as the issue gives it: output tokens/s
    "target_tokens_per_s": 20000,
    "max_ttft_s": 2,
}


def _gpus(ids: list[str]) -> list[Gpu]:
    return [Gpu.objects.get(pk=i) for i in ids]


def _row(page: gpu_compare.GpuComparison, key: str) -> ComparisonRow:
    return next(r for _, rows in gpu_table.comparison_rows(page) for r in rows if r.column.key == key)


def _direct_estimate(copy: Scenario, layout: dict) -> dict:
    """The engine's own estimate of the moved scenario at `layout` (no planner service in between)."""
    return engine.estimate(adapters.with_parallelism(adapters.scenario_payload(copy), layout))


@pytest.mark.django_db
def test_training_columns_equal_the_engine_on_the_moved_scenario_at_its_fastest_layout(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100-1t")
    page = gpu_compare.compare_gpus(scenario, _gpus(FOUR))
    assert [c.gpu.pk for c in page.columns] == FOUR
    for column in page.columns:
        assert column.problem is None and column.scenario.gpu_id == column.gpu.pk
        assert column.scenario.total_gpus == scenario.total_gpus == 256
        # the layout is the engine search's fastest for this GPU and node count
        found = engine.search(adapters.search_payload(column.scenario))
        best = {k: v for k, v in found["best"][0]["config"].items() if k in adapters.PARALLELISM_KEYS}
        direct = _direct_estimate(column.scenario, best)
        assert column.output["time"]["days"] == pytest.approx(direct["time"]["days"])
        assert column.output["cost"]["tco_usd"] == pytest.approx(direct["cost"]["tco_usd"])
        assert column.output["power"]["peak_it_kw"] == pytest.approx(direct["power"]["peak_it_kw"])
        assert column.layout.startswith(f"TP{best['tp']} · PP{best['pp']}")
    days = [c.output["time"]["days"] for c in page.columns]
    assert _row(page, "days").best == {days.index(min(days))}
    own = scenario.latest_result.output  # the scenario's own GPU (automatic layout) reads as its results page
    assert page.columns[0].output["time"]["days"] == pytest.approx(own["time"]["days"])
    assert page.columns[0].output["cost"]["tco_usd"] == pytest.approx(own["cost"]["tco_usd"])
    assert "2N" in _row(page, "peak_it_kw").cells[0]  # the redundancy is stated
    assert not ScenarioResult.objects.exclude(scenario=scenario).exists()  # nothing saved
    assert Scenario.objects.count() == 1


@pytest.mark.django_db
def test_inference_columns_use_the_sizers_layout_and_equal_the_engine(alice, catalog):
    scenario = make_scenario(alice, "llama8b-serving", **SERVING)
    page = gpu_compare.compare_gpus(scenario, _gpus(FOUR))
    sized = engine.size_service(serving_size.sizing_payload(scenario, FOUR))
    chosen = {a["gpu_id"]: a["colocated"]["layout"] for a in sized["answers"] if a["feasible"]}
    assert chosen
    for column in page.columns:
        assert column.scenario.total_gpus == 32
        layout = chosen.get(column.gpu.pk)
        if layout is not None:
            assert (column.scenario.tp, column.scenario.pp) == (layout["tp"], layout["pp"])
            assert column.layout.startswith(f"TP{layout['tp']}") and "own" not in column.layout
        direct = _direct_estimate(column.scenario, {"tp": column.scenario.tp, "pp": column.scenario.pp})
        inf = column.output["inference"]
        assert inf["tokens_per_s"] == pytest.approx(direct["inference"]["tokens_per_s"])
        assert inf["usd_per_million_tokens"] == pytest.approx(direct["inference"]["usd_per_million_tokens"])
    ttft = _row(page, "ttft_s_p90").cells
    for column, cell in zip(page.columns, ttft, strict=True):
        if column.output["inference"]["ttft_s_p90"] is None:  # 32 GPUs cannot serve the rate on this GPU
            assert column.output["inference"]["saturated"] and "saturated" in cell
    throughput = _row(page, "inf_tokens_per_s").cells
    for column, cell in zip(page.columns, throughput, strict=True):
        low, high = (
            column.output["inference"]["tokens_per_s_low"],
            column.output["inference"]["tokens_per_s_high"],
        )
        assert cell.endswith(f"({low:,.0f}–{high:,.0f})")  # the engine's validated range follows the estimate
    keys = {r.column.key for _, rows in gpu_table.comparison_rows(page) for r in rows}
    assert {"ttft_s_p90", "tpot_s_p90", "usd_per_m_tokens_own", "inf_tokens_per_s"} <= keys
    assert "days" not in keys


@pytest.mark.django_db
def test_a_rate_in_requests_per_s_lets_the_sizer_choose_and_without_a_rate_the_scenarios_layout_stays(
    alice, catalog
):
    scenario = make_scenario(alice, "llama8b-serving")  # 10 requests/s, p90 TTFT <= 2 s, TPOT <= 50 ms
    assert scenario.requests_per_s == 10 and gpu_compare.has_rate(scenario)
    page = gpu_compare.compare_gpus(scenario, _gpus(FOUR[:2]))
    assert all("own" not in c.layout for c in page.columns)
    no_rate = make_scenario(alice, "llama8b-serving", tp=2)
    no_rate.requests_per_s = no_rate.target_tokens_per_s = None  # a scenario saved before rates were required
    assert not gpu_compare.has_rate(no_rate)
    page = gpu_compare.compare_gpus(no_rate, _gpus(FOUR[:2]))
    assert all(c.layout.startswith("TP2 (the scenario's own") for c in page.columns)


@pytest.mark.django_db
def test_a_gpu_that_cannot_hold_the_model_says_why_and_the_others_still_show(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100-1t", nodes=1)
    page = gpu_compare.compare_gpus(scenario, _gpus(["nvidia_l4", "nvidia_b200_hgx"]))
    l4, b200 = page.columns
    assert l4.problem and "memory" in l4.problem.lower()
    assert "GiB" in l4.problem
    cells = _row(page, "problem").cells
    assert cells[0] == l4.problem
    assert _row(page, "tco_usd").cells[0] != "—"  # the cluster still has a price and power
    assert _row(page, "days").cells[0] == "—"
    assert "least memory" in l4.layout
    assert "cannot run" in gpu_table.comparison_charts(page)[0]["figure"]["data"][0]["x"][0]
    assert b200.output["memory"]["fits"] == (b200.problem is None)


@pytest.mark.django_db
def test_same_budget_gives_each_gpu_what_the_scenarios_capex_buys(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100-1t", nodes=8)
    capex = scenario.latest_result.output["cost"]["capex_usd"]
    page = gpu_compare.compare_gpus(scenario, _gpus(["nvidia_h100_sxm5_80gb", "amd_mi300x"]), "same_budget")
    assert page.budget.money_usd == capex and "capex" in page.budget_text
    h100, mi300x = page.columns
    assert h100.scenario.nodes == 8  # the scenario's own GPU at its own budget
    assert mi300x.scenario.nodes > 8  # a cheaper GPU buys more nodes
    assert mi300x.output["cost"]["capex_usd"] <= capex
    # the engine's reverse sizing is the judge: the same node count as fit_budget on the moved payload
    fit = budget_search.fit_budget(
        adapters.scenario_payload(gpu_compare.moved_scenario(scenario, mi300x.gpu)),
        budget_search.Budget(money_usd=capex),
        evaluate=lambda n: dict(
            services.scenario_evaluation_run(
                scenario=gpu_compare.moved_scenario(scenario, mi300x.gpu, nodes=n)
            ).output
        ),
    )
    assert mi300x.scenario.nodes == fit.nodes
    assert Scenario.objects.count() == 1


@pytest.mark.django_db
def test_same_power_stays_within_the_scenarios_facility_nameplate(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100-1t", nodes=8)
    kw = scenario.latest_result.output["power"]["provisioning"]["facility_nameplate_kw"]
    page = gpu_compare.compare_gpus(
        scenario, _gpus(["nvidia_h100_sxm5_80gb", "nvidia_b200_hgx"]), "same_power"
    )
    assert page.budget.power_kw == kw
    h100, b200 = page.columns
    assert h100.scenario.nodes == 8
    assert b200.output["power"]["provisioning"]["facility_nameplate_kw"] <= kw
    assert b200.scenario.nodes < 8  # a B200 node's 14.3 kW nameplate against a DGX H100's 10.2 kW


@pytest.mark.django_db
def test_csv_rows_carry_the_raw_values_of_the_table(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100-1t")
    page = gpu_compare.compare_gpus(scenario, _gpus(FOUR[:2]))
    header, rows = gpu_table.csv_rows(page)
    assert header[3:] == [c.gpu.model for c in page.columns]
    tco = next(r for r in rows if r[0] == "tco_usd")
    assert tco[3:] == [c.output["cost"]["tco_usd"] for c in page.columns]


# ------------------------------------------------------------------------------------------------ views


@pytest.mark.django_db
def test_the_page_compares_the_default_gpus_and_downloads_csv(client, alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100-1t")
    client.force_login(alice)
    url = reverse("scenario_compare_gpus", args=[scenario.pk])
    assert url in client.get(scenario.get_absolute_url()).content.decode()
    response = client.get(url)
    html = response.content.decode()
    assert response.status_code == 200 and 'data-testid="gpu-compare-table"' in html
    assert all(re.search(f'value="{i}"[^>]*checked', html) for i in FOUR)  # the default picks
    assert "H200" in html and "MI300X" in html
    assert html.count('data-row="tco_usd"') == 1 and html.count("★") >= 3
    charts = json.loads(html.split('id="chart-data"')[1].split(">", 1)[1].split("</script>")[0])
    assert [c["key"] for c in charts] == ["gpu-days", "gpu-tco"] and len(
        charts[0]["figure"]["data"][0]["y"]
    ) == 4
    query = "&".join(f"gpus={i}" for i in FOUR[:3])
    download = client.get(f"{url}?{query}&mode=same_gpus&format=csv")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    table = list(csv.reader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert len(table[0]) == 3 + 3 and any(r[0] == "tco_usd" for r in table)
    assert Scenario.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, message",
    [
        ("gpus=nvidia_h100_sxm5_80gb", "pick between 2 and 4 GPUs (got 1)"),
        ("&".join(f"gpus={i}" for i in [*FOUR, "nvidia_l4"]), "pick between 2 and 4 GPUs (got 5)"),
        ("gpus=nvidia_h100_sxm5_80gb&gpus=no_such_gpu", "“no_such_gpu” is not a catalog GPU"),
        ("gpus=nvidia_h100_sxm5_80gb&gpus=" + "x" * 5000, "“" + "x" * 40 + "…” is not a catalog GPU"),
        ("gpus=&gpus=", "pick between 2 and 4"),
        ("gpus=amd_mi300x&gpus=amd_mi300x", "pick between 2 and 4 GPUs (got 1)"),
        ("gpus=nvidia_h100_sxm5_80gb&gpus=%00%27%3Cscript%3E", "is not a catalog GPU"),
        (
            "gpus=nvidia_h100_sxm5_80gb&gpus=amd_mi300x&mode=same_rack",
            "Cluster for each GPU: “same_rack” is not an option",
        ),
    ],
)
def test_bad_picks_answer_400_naming_the_field(client, alice, catalog, query, message):
    scenario = make_scenario(alice, "llama8b-serving")
    client.force_login(alice)
    response = client.get(reverse("scenario_compare_gpus", args=[scenario.pk]) + "?" + query)
    html = response.content.decode()
    assert response.status_code == 400
    assert message in html.replace("&ldquo;", "“").replace("&rdquo;", "”") or message in html
    assert "GPUs to compare" in html


@pytest.mark.django_db
def test_someone_elses_scenario_is_404_and_signed_out_is_sent_to_sign_in(client, alice, bob, catalog):
    scenario = make_scenario(alice, "llama8b-serving")
    url = reverse("scenario_compare_gpus", args=[scenario.pk])
    response = client.get(url)
    assert response.status_code == 302 and "login" in response["Location"]
    client.force_login(bob)
    assert client.get(url).status_code == 404
    assert client.get(url + "?gpus=nvidia_h100_sxm5_80gb&gpus=amd_mi300x&format=csv").status_code == 404
    assert client.get(reverse("scenario_compare_gpus", args=[999999])).status_code == 404
    assert client.post(url).status_code == 405


@pytest.mark.django_db
def test_a_gpu_job_compares_its_job_time(client, alice, catalog):
    scenario = make_scenario(alice, "md-job")
    page = gpu_compare.compare_gpus(scenario, _gpus(FOUR[:2]))
    days = _row(page, "job_days")
    assert all(c.output["job"]["days"] > 0 for c in page.columns) and len(days.cells) == 2
    client.force_login(alice)
    assert client.get(reverse("scenario_compare_gpus", args=[scenario.pk])).status_code == 200


@pytest.mark.django_db
def test_a_run_longer_than_the_hardware_life_is_flagged_in_its_column(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100")  # 15T tokens on 64 GPUs: years on H100s
    page = gpu_compare.compare_gpus(scenario, _gpus(["nvidia_h100_sxm5_80gb", "nvidia_b200_hgx"]))
    cells = _row(page, "outlasts_life").cells
    for column, cell in zip(page.columns, cells, strict=True):
        longer = column.output["time"]["days"] > 365.25 * scenario.years
        assert ("longer than the hardware" in cell) == longer and (cell == "no") == (not longer)
    assert any("longer than the hardware" in c for c in cells)


@pytest.mark.django_db
def test_a_system_template_scenario_keeps_its_template_on_its_own_gpu_and_drops_it_on_another(alice, catalog):
    scenario = make_scenario(alice, "llama70b-h100-1t", gpu_source="system", system="nvidia_dgx_h100", gpu="")
    assert scenario.system_id == "nvidia_dgx_h100" and scenario.catalog_gpu_id == FOUR[0]
    page = gpu_compare.compare_gpus(scenario, _gpus([FOUR[0], "nvidia_b200_hgx"]))
    own, b200 = page.columns
    assert own.scenario.system_id == "nvidia_dgx_h100" and b200.scenario.system_id is None
    assert own.output["power"]["racks"] == scenario.latest_result.output["power"]["racks"]
    assert own.output["cost"]["capex_usd"] == pytest.approx(
        scenario.latest_result.output["cost"]["capex_usd"]
    )
    assert "catalog system price" in " ".join(own.price_notes)
