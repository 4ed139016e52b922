"""An inference plan in Debian's chromium: the form asks requests/s, a zero rate gets a field message, the result
shows the percentiles and the verdict, a serving sweep lists its configurations, and the PDF's inference pages
render (pdftoppm). Screenshots (inference_*.png) go to the `screenshot` folder."""

from __future__ import annotations

import io
import re
import subprocess

import pytest
from django.core.management import call_command

from planner.models import Scenario
from planner.reports import pdf


@pytest.mark.django_db(transaction=True)
def test_an_inference_plan_with_a_request_rate_its_sweep_and_its_pdf(
    page, live_server, login, screenshot_dir, alice
):
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())
    login(page, alice)
    page.goto(live_server.url + "/scenarios/new/?starter=llama8b-serving")
    page.wait_for_selector("#id_requests_per_s")
    page.select_option("#id_model_preset", "llama3.1-70b")
    page.fill("#id_tp", "8")
    page.select_option("#id_precision", "fp8")
    page.fill("#id_name", "Llama 3.1 70B on 8 H100s at 4 requests/s")

    page.fill("#id_requests_per_s", "4")
    page.wait_for_selector('#live-headline [data-kpi="latency"]')
    page.locator("#field-requests_per_s").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "inference_form.png"))

    # A zero rate: the page says so next to the field, nothing saved.
    page.fill("#id_requests_per_s", "0")
    page.click("#save-button")
    page.wait_for_selector("#errors-requests_per_s li")
    assert "more than 0" in page.inner_text("#errors-requests_per_s")
    assert not Scenario.objects.exists()
    page.locator("#field-requests_per_s").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "inference_form_bad_rate.png"))

    page.fill("#id_requests_per_s", "4")
    page.click("#save-button")
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    headline = page.inner_text("[data-testid=headline]")
    assert "SERVED AT 4.00 REQUESTS/S" in headline.upper() and "LATENCY, P90" in headline.upper()
    assert "per million output tokens".upper() in headline.upper()
    page.screenshot(path=str(screenshot_dir / "inference_result.png"))
    page.locator(".figure-groups").screenshot(path=str(screenshot_dir / "inference_result_figures.png"))

    # "Size it for me": one row per GPU type from the shared sizing columns.
    result_url = page.url
    page.click("[data-testid=size-it]")
    page.wait_for_selector("[data-testid=sizing-table] tbody tr")
    assert "4.00 requests/s" in page.inner_text("[data-testid=sizing-request]")
    page.screenshot(path=str(screenshot_dir / "inference_size.png"), full_page=True)
    page.goto(result_url)

    # The serving sweep (stored, run on Celery: eagerly here): three GPU models x one node x TP 4, 8 x two rates.
    page.click("[data-testid=run-sweep]")
    page.wait_for_selector("[data-testid=serving-sweep-form]")
    for gpu in ("nvidia_b200_hgx", "amd_mi300x"):
        page.check(f'input[name=gpus][value="{gpu}"]')
    page.fill("#id_nodes", "1")
    page.fill("#id_tp", "4, 8")
    page.fill("#id_rates", "4, 8")
    from planner.celery import app

    app.conf.task_always_eager = True  # the stored sweep's chunks run inside the form's request
    try:
        page.click("[data-testid=serving-sweep-form] button[type=submit]")
        page.wait_for_url(re.compile(r"/sweeps/\d+/$"))
    finally:
        app.conf.task_always_eager = False
    page.wait_for_selector("[data-testid=serving-sweep-table] tbody tr")
    assert page.locator("[data-testid=serving-sweep-table] tbody tr").count() == 3 * 1 * 2 * 2
    page.screenshot(path=str(screenshot_dir / "inference_sweep.png"))
    page.locator("#serving-sweep-results").screenshot(path=str(screenshot_dir / "inference_sweep_table.png"))

    # The PDF's inference pages, rendered to PNG.
    scenario = Scenario.objects.get()
    content = pdf.scenario_pdf(scenario=scenario, share_url=pdf.NOT_SHARED).content
    source = screenshot_dir / "inference_report.pdf"
    source.write_bytes(content)
    text = subprocess.run(["pdftotext", "-layout", str(source), "-"], check=True, capture_output=True).stdout
    pages = text.decode().split("\f")
    wanted = [
        i + 1 for i, body in enumerate(pages) if "At 4.00 requests/s" in body or "Size it for me" in body
    ]
    assert wanted
    for number in wanted:
        stem = screenshot_dir / f"inference_pdf_page{number}"
        subprocess.run(
            [
                "pdftoppm",
                "-f",
                str(number),
                "-l",
                str(number),
                "-r",
                "70",
                "-png",
                "-singlefile",
                str(source),
                str(stem),
            ],
            check=True,
        )
        assert stem.with_suffix(".png").exists()
