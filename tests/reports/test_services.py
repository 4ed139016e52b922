"""Report services: direct or worker rendering decided by measured render times, claims, reuse and failure; the
sensitivity table, the procurement BOM and the SVG charts."""

from __future__ import annotations

import copy

import pytest
from django.urls import reverse

from planner.engine.api import estimate
from planner.engine.inputs.errors import Problem, SpecError
from planner.models import FacilityKind
from planner.reports import charts, services, svg_charts
from planner.reports import formatting as f
from planner.reports.models import Report, ReportKind, ReportStatus
from planner.reports.procurement import bom_total_usd, procurement_bom
from planner.sensitivity import ENGINE_RERUN, MFU_SCALED, STEP_FRACTION, sensitivity_table
from tests.planner.conftest import make_scenario
from tests.reports.conftest import render_history

pytestmark = pytest.mark.django_db


def test_a_kind_that_renders_fast_is_returned_as_a_pdf_in_the_request(
    client, alice, alice_scenario, renders_fast
):
    client.force_login(alice)
    response = client.get(reverse("reports:scenario_pdf", args=[alice_scenario.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    report = Report.objects.get(owner=alice, kind=ReportKind.SCENARIO, params__scenario_id=alice_scenario.pk)
    assert report.rendered_inline and report.status == ReportStatus.DONE and report.pages > 5
    assert response["Server-Timing"].startswith("render;dur=")


def test_a_slow_kind_shows_preparing_then_a_download_link_rendered_by_the_worker(
    client, alice, alice_scenario, alice_b200, eager, django_capture_on_commit_callbacks
):
    render_history(ReportKind.COMPARISON, 2500.0, alice)
    client.force_login(alice)
    url = reverse("reports:comparison_pdf") + f"?ids={alice_scenario.pk}&ids={alice_b200.pk}"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.get(url)
    report = Report.objects.get(owner=alice, kind=ReportKind.COMPARISON, params__scenario_ids__isnull=False)
    # The click lands on the report's page, which starts the download by itself when the PDF is ready.
    assert response.status_code == 302 and response["Location"] == report.get_absolute_url() + "?download=1"
    page = client.get(response["Location"])
    assert b"Preparing" in page.content and b"data-download-when-ready" in page.content
    assert b'<noscript><meta http-equiv="refresh"' in page.content  # without JavaScript: reloads
    status_url = reverse("reports:report_status", args=[report.pk])
    waiting = client.get(status_url).json()
    assert waiting["active"] and not waiting["ready"] and waiting["download_url"] is None
    assert len(callbacks) == 1
    callbacks[0]()  # the enqueue that runs on commit; eager Celery renders it here
    report.refresh_from_db()
    assert report.status == ReportStatus.DONE and not report.rendered_inline
    done = client.get(status_url).json()
    assert done["ready"] and not done["active"] and done["pages"] == report.pages
    assert done["download_url"] == reverse("reports:report_download", args=[report.pk])
    page = client.get(report.get_absolute_url())
    assert b"Download the PDF" in page.content and b"http-equiv" not in page.content
    assert client.get(reverse("reports:report_download", args=[report.pk])).content.startswith(b"%PDF")
    assert client.get(url).status_code == 200  # the same figures again: the finished PDF, at once


def test_the_decision_follows_the_median_of_recent_render_times(alice):
    assert (
        services.expected_render_ms(kind=ReportKind.SWEEP)
        == services.EXPECTED_RENDER_MS_DEFAULT[ReportKind.SWEEP]
    )
    render_history(ReportKind.SWEEP, 400.0, alice, count=3)
    render_history(ReportKind.SWEEP, 4000.0, alice, count=1)
    assert services.expected_render_ms(kind=ReportKind.SWEEP) == 400.0


def test_a_report_is_claimed_once_even_when_delivered_twice(alice, alice_scenario):
    report = Report.objects.create(
        owner=alice,
        kind=ReportKind.SCENARIO,
        params=services.scenario_report_params(scenario=alice_scenario, base_url="http://testserver/"),
        fingerprint="x",
        title="t",
    )
    assert services.report_render(report_id=report.pk) is True
    assert services.report_render(report_id=report.pk) is False
    report.refresh_from_db()
    assert report.status == ReportStatus.DONE and report.attempts == 1


def test_asking_twice_for_the_same_figures_reuses_the_report(alice, alice_scenario):
    params = services.scenario_report_params(scenario=alice_scenario, base_url="http://testserver/")
    first = services.report_request(owner=alice, kind=ReportKind.SCENARIO, params=params, title="a")
    second = services.report_request(owner=alice, kind=ReportKind.SCENARIO, params=params, title="a")
    assert first.pk == second.pk and first.status == ReportStatus.PENDING


def test_a_report_whose_scenario_is_gone_fails_with_the_reason_and_can_be_retried(
    client, alice, alice_scenario
):
    params = services.scenario_report_params(scenario=alice_scenario, base_url="http://testserver/")
    report = services.report_request(owner=alice, kind=ReportKind.SCENARIO, params=params, title="gone")
    alice_scenario.latest_result = None
    alice_scenario.save()
    alice_scenario.delete()
    services.report_render(report_id=report.pk)
    report.refresh_from_db()
    assert report.status == ReportStatus.FAILED and "no longer exists" in report.error
    client.force_login(alice)
    assert b"could not be made" in client.get(report.get_absolute_url()).content
    client.post(reverse("reports:report_retry", args=[report.pk]))
    assert Report.objects.filter(owner=alice, fingerprint=report.fingerprint).count() == 2


# ------------------------------------------------------------------------------------------------ sensitivity


def test_sensitivity_reruns_the_engine_for_inputs_and_scales_time_for_mfu(alice_scenario):
    result = alice_scenario.latest_result
    table = sensitivity_table(payload=result.input_payload, output=result.output)
    base = table.baseline
    rerun = estimate(copy.deepcopy(result.input_payload))
    assert base.days == rerun["time"]["days"] and base.tco_usd == rerun["cost"]["tco_usd"]
    rows = {(r.factor, r.change): r for r in table.rows}
    cheaper = copy.deepcopy(result.input_payload)
    cheaper["economics"]["electricity_usd_per_kwh"] *= 1 - STEP_FRACTION
    assert rows[("Electricity price", -STEP_FRACTION)].tco_usd == estimate(cheaper)["cost"]["tco_usd"]
    assert (
        rows[("Electricity price", -STEP_FRACTION)].tco_usd
        < base.tco_usd
        < rows[("Electricity price", STEP_FRACTION)].tco_usd
    )
    assert rows[("PUE", STEP_FRACTION)].tco_usd > base.tco_usd
    slower = copy.deepcopy(result.input_payload)
    slower["workload"]["efficiency_scale"] = 1 - STEP_FRACTION
    slow_out = estimate(slower)
    slow = rows[("Model FLOPs utilisation (MFU)", -STEP_FRACTION)]
    assert slow.method == ENGINE_RERUN
    assert slow.days == slow_out["time"]["days"] > base.days
    assert slow.input_text.startswith(f.percent(slow_out["time"]["mfu"]))
    assert slow.tco_usd == base.tco_usd


def test_mfu_rows_scale_the_time_when_the_engine_has_no_efficiency_input(alice_scenario, monkeypatch):
    from planner import sensitivity

    real = sensitivity.estimate

    def old_engine(payload):
        if "efficiency_scale" in payload.get("workload", {}):
            raise SpecError([Problem("workload.efficiency_scale", "unknown key")])
        return real(payload)

    monkeypatch.setattr(sensitivity, "estimate", old_engine)
    result = alice_scenario.latest_result
    table = sensitivity_table(payload=result.input_payload, output=result.output)
    slow = {(r.factor, r.change): r for r in table.rows}[("Model FLOPs utilisation (MFU)", -STEP_FRACTION)]
    assert slow.method == MFU_SCALED
    assert slow.days == pytest.approx(table.baseline.days / (1 - STEP_FRACTION), rel=1e-12)
    assert slow.tco_usd == table.baseline.tco_usd
    assert any("scaled" in note for note in table.notes)


def test_sensitivity_holds_pue_and_utilisation_at_the_engines_limits(alice_scenario):
    payload = copy.deepcopy(alice_scenario.latest_result.input_payload)
    payload["cluster"]["pue"] = 1.1
    payload["economics"]["utilization"] = 0.95
    table = sensitivity_table(payload=payload, output=estimate(payload))
    rows = {(r.factor, r.change): r for r in table.rows}
    assert rows[("PUE", -STEP_FRACTION)].input_text == "1.00"
    assert "minimum" in rows[("PUE", -STEP_FRACTION)].note
    assert "maximum" in rows[("Utilisation", STEP_FRACTION)].note
    assert all(r.tco_usd is not None for r in table.rows)


# ------------------------------------------------------------------------------------------------ BOM


@pytest.mark.parametrize("facility", [FacilityKind.COLOCATION, FacilityKind.OWN])
def test_the_bills_extended_prices_add_up_to_the_engines_capex(alice, catalog, facility):
    scenario = make_scenario(
        alice, name=f"plan {facility}", facility=facility, cooling="dlc_cold_plate", storage_tb="500"
    )
    result = scenario.latest_result
    lines = procurement_bom(result=result, scenario=scenario)
    assert bom_total_usd(lines) == pytest.approx(result.output["cost"]["capex_usd"], rel=1e-12)
    items = [line["item"] for line in lines]
    for item in ("Servers", "GPUs", "Racks", "Storage"):
        assert item in items
    facility_line = next(line for line in lines if line["item"].startswith("Cooling and power"))
    assert facility_line["quantity"] == result.output["power"]["peak_it_kw"]
    opex = [line for line in lines if line["cost"] == "opex per year"]
    assert bom_total_usd(lines, "opex per year") == pytest.approx(result.output["cost"]["opex_usd_per_year"])
    assert opex and lines[-len(opex) :] == opex  # opex lines close the bill
    if facility == FacilityKind.OWN:
        assert facility_line["total_usd"] == result.output["cost"]["capex_breakdown_usd"]["facility"] > 0
    else:
        assert facility_line["unit_usd"] == result.input_payload["economics"]["colocation_usd_per_kw_month"]


# ------------------------------------------------------------------------------------------------ charts


def test_every_result_chart_renders_as_vector_svg_with_text_kept_as_text(alice_scenario):
    output = alice_scenario.latest_result.output
    specs = charts.result_charts(output, kind="training")
    assert len(specs) == 6
    for chart in svg_charts.charts_svg(specs):
        svg = chart["svg"]
        assert svg.startswith("<svg") and "<image" not in svg
        assert "<text" in svg  # svg.fonttype none: labels are text, not glyph outlines
    memory = svg_charts.chart_svg(specs[0])
    assert "GPU capacity" in memory and "Activations" in memory


def test_money_axes_use_one_scale_and_precision():
    ticks = svg_charts._AxisTicks(money=True)
    ticks.set_locs([0.0, 800_000.0, 1_600_000.0, 2_400_000.0])
    assert [ticks(t) for t in (0.0, 800_000.0, 1_600_000.0)] == ["$0.0M", "$0.8M", "$1.6M"]
    plain = svg_charts._AxisTicks(money=False)
    plain.set_locs([0.0, 20.0, 40.0])
    assert plain(20.0) == "20"
