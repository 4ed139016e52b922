"""The PDFs: pdftotext finds the engine's headline figures with the page's rounding, page 1 renders to PNG, and
nothing is fetched from the network."""

from __future__ import annotations

import pytest
from PIL import Image

from planner import services as planner_services
from planner.reports import formatting as f
from planner.reports import pdf
from planner.reports.columns import _pct_change
from planner.reports.procurement import bom_total_usd, procurement_bom
from planner.sensitivity import sensitivity_table
from tests.reports.conftest import flat, page_png, pdf_pages, pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def scenario_pdf(alice_scenario):
    return pdf.scenario_pdf(scenario=alice_scenario, share_url=pdf.NOT_SHARED)


def test_scenario_pdf_summary_page_shows_the_engines_headline_figures_with_the_pages_rounding(
    alice_scenario, scenario_pdf, tmp_path
):
    output = alice_scenario.latest_result.output
    page_one = pdf_text(scenario_pdf.content, tmp_path, first=1, last=1)
    time, cost, power, memory = output["time"], output["cost"], output["power"], output["memory"]
    expected = [
        "Fits in GPU memory",
        f.quantity(time["days"], "days"),
        f"range {f.sig(time['days_low'])}–{f.sig(time['days_high'])} days",
        f.number(time["gpu_hours"]),
        f.percent(time["mfu"]),
        f.power_kw(power["it_kw"]),
        f.power_kw(power["facility_kw"]),
        f.usd_compact(cost["capex_usd"]),
        f.usd_compact(cost["tco_usd"]),
        f.usd(cost["capex_usd"]),
        f.usd(cost["opex_usd_per_year"]),
        f.usd(cost["tco_usd"]),
        f.usd(cost["run_cost_usd"]),
        f"{f.usd(cost['run_cost_usd_low'])}–{f.usd(cost['run_cost_usd_high'])}",
        f.usd(cost["cloud_run_cost_usd"]),
        f"month {f.number(cost['breakeven_month'])}",
        f.quantity(memory["per_gpu_gib"], "GiB"),
    ]
    for figure in expected:
        assert flat(figure) in page_one, figure


def test_scenario_pdf_has_every_section_the_bom_and_the_sensitivity_table(
    alice_scenario, scenario_pdf, tmp_path
):
    text = pdf_text(scenario_pdf.content, tmp_path)
    for heading in (
        "Inputs",
        "Assumptions",
        "Catalog rows used",
        "Memory",
        "Time",
        "Power, PUE, energy and carbon",
        "Total cost of ownership",
        "Bill of materials",
        "Sensitivity",
    ):
        assert heading in text, heading
    result = alice_scenario.latest_result
    lines = procurement_bom(result=result, scenario=alice_scenario)
    assert flat(f"Capex: total of the extended prices {f.usd(bom_total_usd(lines))}") in text
    assert flat(f"Capex in the TCO (engine) {f.usd(result.output['cost']['capex_usd'])}") in text
    opex_total = bom_total_usd(lines, "opex per year")
    assert opex_total == pytest.approx(result.output["cost"]["opex_usd_per_year"])
    assert flat(f"Opex per year: total of the extended prices {f.usd(opex_total)}") in text
    # The bill of materials comes right after the summary page, before the inputs.
    assert text.index("Bill of materials") < text.index("Inputs")
    for item in (
        "Servers",
        "GPUs",
        "Host parts",
        "NIC (one per GPU)",
        "Transceiver",
        "Cable",
        "Racks",
        "Cooling and power",
    ):
        assert item in text, item
    table = sensitivity_table(payload=result.input_payload, output=result.output)
    assert len(table.rows) == 8
    for row in table.rows:
        assert row.factor.split()[0] in text
        assert flat(f"{f.sig(row.days, 3)} {_pct_change(row.days_change)} {f.usd(row.tco_usd)}") in text
    raw = pdf_text(scenario_pdf.content, tmp_path, raw=True).replace(" ", "")
    for entry in result.catalog_snapshot.values():
        for url in entry["sources"]:
            assert url in raw, url


def test_scenario_pdf_numbers_its_pages_and_names_date_engine_and_share_state(
    alice_scenario, scenario_pdf, tmp_path
):
    pages = pdf_pages(scenario_pdf.content, tmp_path)
    text = pdf_text(scenario_pdf.content, tmp_path)
    assert pages == scenario_pdf.pages > 5
    assert f"Page 1 of {pages}" in text and f"Page {pages} of {pages}" in text
    assert f"engine {alice_scenario.latest_result.engine_version}" in text
    assert "Share link not shared" in text


def test_scenario_pdf_prints_the_active_share_link(alice_scenario, tmp_path):
    link = planner_services.share_link_create(scenario=alice_scenario)
    share_url = pdf.share_url_for(alice_scenario, base_url="https://planner.example.com/")
    assert share_url == f"https://planner.example.com{link.get_absolute_url()}"
    rendered = pdf.scenario_pdf(scenario=alice_scenario, share_url=share_url)
    assert link.token in pdf_text(rendered.content, tmp_path, first=1, last=1).replace(" ", "")
    planner_services.share_link_revoke(link=link)
    assert pdf.share_url_for(alice_scenario, base_url="https://planner.example.com/") == pdf.NOT_SHARED


def test_scenario_pdf_first_page_renders_to_an_a4_png(scenario_pdf, tmp_path):
    png = page_png(scenario_pdf.content, tmp_path, dpi=60)
    with Image.open(png) as image:
        width, height = image.size
        assert round(height / width, 2) == round(297 / 210, 2)
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert len(colours) > 50  # text, the verdict box and the figures, not a blank page


def test_comparison_pdf_shows_each_scenarios_figures(alice_scenario, alice_b200, tmp_path):
    rendered = pdf.comparison_pdf(scenarios=[alice_scenario, alice_b200])
    text = pdf_text(rendered.content, tmp_path)
    assert "Comparison of 2 cluster plans" in text
    for scenario in (alice_scenario, alice_b200):
        output = scenario.latest_result.output
        assert scenario.name in text
        assert flat(f.sig(output["time"]["days"], 3)) in text
        assert flat(f.usd(output["cost"]["tco_usd"])) in text
    assert "Time to finish" in text and "Capex by category" in text


def test_sweep_pdf_shows_constraints_the_pareto_chart_and_the_top_configurations(alice_sweep, tmp_path):
    rendered = pdf.sweep_pdf(run=alice_sweep)
    text = pdf_text(rendered.content, tmp_path)
    result = alice_sweep.result
    assert "Constraints used" in text and "Deadline (days) 400" in text
    assert "Pareto front of training time vs TCO" in text
    best = result["best"]["min_time"][0]
    assert flat(f"TP {best['tp']} · PP {best['pp']} · DP {best['dp']}") in text
    assert flat(f"{f.sig(best['days'], 3)} {f.usd(best['tco_usd'])}") in text
    assert flat(f.number(result["evaluated"])) in text


def test_reports_fetch_nothing_but_inline_data():
    fetcher = pdf._url_fetcher()
    for url in ("http://example.com/x.png", "https://example.com/x.css", "file:///etc/passwd"):
        with pytest.raises(ValueError, match="disallowed protocol"):
            fetcher.fetch(url)


def test_scenario_pdf_shows_the_whole_run_split_and_the_range_reason(alice_scenario, scenario_pdf, tmp_path):
    """Issue 13: the steady state and each non-zero overhead with its days, the whole run, and the range's source
    and reasons. Writes the PDF to $SCREENSHOT_DIR when set (for pdftoppm screenshots)."""
    import os
    from pathlib import Path

    time = alice_scenario.latest_result.output["time"]
    text = flat(pdf_text(scenario_pdf.content, tmp_path))
    assert flat("The whole run: steady state and overheads") in text
    assert flat(f"Steady-state training {f.quantity(time['steady_state_days'], 'days')}") in text
    assert flat("Stragglers and other run losses") in text and flat("Failures and restarts") in text
    assert flat("from the leave-one-out p2.5–p97.5 spread") in text
    for reason in time["range_reasons"]:
        assert flat(reason) in text
    if os.environ.get("SCREENSHOT_DIR"):
        Path(os.environ["SCREENSHOT_DIR"], "issue13-plan.pdf").write_bytes(scenario_pdf.content)
