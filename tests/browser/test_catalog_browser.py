"""The catalog pages in a real browser: the compare charts render from our own static files."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from catalog.models import Gpu

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def loaded_catalog(transactional_db) -> None:
    call_command("load_catalog", stdout=io.StringIO())


def watch_page(page, live_server) -> tuple[list[str], list[str]]:
    """Collect console errors and any request that leaves our server (there must be none: no CDN)."""
    errors: list[str] = []
    foreign: list[str] = []

    def on_console(message) -> None:
        # base.html has no favicon; the browser's own request for one is not a page error.
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "request",
        lambda request: None if request.url.startswith(live_server.url) else foreign.append(request.url),
    )
    return errors, foreign


def test_the_compare_page_draws_both_charts(page, live_server, login, screenshot, alice, loaded_catalog):
    login(page, alice)
    errors, foreign = watch_page(page, live_server)  # from here on: the catalog pages only
    page.goto(f"{live_server.url}/catalog/gpus/compare/")
    page.wait_for_selector("#chart-bandwidth.js-plotly-plot svg.main-svg")
    page.wait_for_selector("#chart-efficiency.js-plotly-plot svg.main-svg")
    plotted = Gpu.objects.exclude(bf16_tflops=None).exclude(mem_bandwidth_tbs=None).count()
    assert page.locator("#chart-bandwidth .scatterlayer .point").count() == plotted
    with_power = Gpu.objects.exclude(bf16_tflops=None).exclude(tdp_w=None).count()
    assert page.locator("#chart-efficiency .barlayer .point").count() == with_power
    assert (
        page.locator("#chart-bandwidth .gtitle")
        .text_content()
        .startswith("Dense BF16 throughput vs memory bandwidth")
    )
    assert "Memory bandwidth (TB/s)" in page.locator("#chart-bandwidth .xtitle").text_content()
    assert "Dense BF16 (TFLOPS)" in page.locator("#chart-bandwidth .ytitle").text_content()
    assert "TFLOPS per watt" in page.locator("#chart-efficiency .xtitle").text_content()
    box = page.locator("#chart-bandwidth .scatterlayer .point").first.bounding_box()
    page.mouse.move(
        box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    )  # Plotly's drag layer is on top
    page.wait_for_selector("#chart-bandwidth .hoverlayer .hovertext")
    assert "TFLOPS" in page.locator("#chart-bandwidth .hoverlayer").text_content()
    screenshot(page, "catalog-compare")
    assert errors == []
    assert foreign == []


def test_the_gpu_table_sorts_when_a_header_is_clicked(
    page, live_server, login, screenshot, alice, loaded_catalog
):
    login(page, alice)
    errors, foreign = watch_page(page, live_server)  # from here on: the catalog pages only
    page.goto(f"{live_server.url}/catalog/gpus/")
    page.click("#gpu-table th[data-field='tdp_w'] a")
    page.wait_for_url("**sort=-tdp_w**")
    first_ids = page.locator("#gpu-table tbody tr").evaluate_all(
        "rows => rows.slice(0, 2).map(r => r.dataset.id)"
    )
    top_tdp = max(Gpu.objects.exclude(tdp_w=None).values_list("tdp_w", flat=True))
    assert {Gpu.objects.get(pk=gpu_id).tdp_w for gpu_id in first_ids} == {top_tdp}
    screenshot(page, "catalog-gpu-list")
    page.click(f"#gpu-table tbody tr[data-id='{first_ids[0]}'] a.model")
    page.wait_for_selector("h1")
    assert page.locator("ol.sources a").count() >= 1
    screenshot(page, "catalog-gpu-detail")
    assert errors == [] and foreign == []
