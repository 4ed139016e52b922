"""The HPC and rendering presets page in a real browser: the tables fill, a bad input shows its field message."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def loaded_catalog(transactional_db) -> None:
    call_command("load_catalog", stdout=io.StringIO())


def test_hpc_presets_page(page, live_server, login, screenshot, alice, loaded_catalog):
    login(page, alice)
    page.goto(
        f"{live_server.url}/hpc/?preset=gromacs_100k&gpu=nvidia_h100_sxm5_80gb&gpu_count=8&target=100&target_unit=jobs"
    )
    assert page.locator("[data-testid=hpc-rates] tbody tr").count() == 4  # 1, 2, 4, 8 GPUs per job
    assert "p = 0.905" in page.locator("[data-testid=hpc-p]").inner_text()
    assert "Cheapest" in page.locator("[data-testid=hpc-cheapest]").inner_text()
    page.wait_for_selector("[data-chart=hpc-scaling].js-plotly-plot svg.main-svg")
    assert (
        page.locator("[data-chart=hpc-scaling] .scatterlayer .trace").count() == 4
    )  # 2 curves, ceiling, target
    screenshot(page, "hpc_presets")
    # The browser's own number check stops a typed 0; a link or an edited URL reaches the server.
    page.goto(f"{live_server.url}/hpc/?preset=blender_cycles&gpu=nvidia_l40s&gpu_count=0&target=-3")
    assert "greater than or equal to 1" in page.locator("#errors-gpu_count").inner_text()
    assert "greater than 0" in page.locator("#errors-target").inner_text()
    screenshot(page, "hpc_presets_bad_input")
    page.goto(
        f"{live_server.url}/hpc/?preset=blender_cycles&gpu=nvidia_l40s&gpu_count=16&target=5000&target_unit=work"
    )
    assert "Frames per day" in page.locator("[data-testid=hpc-rates]").inner_text()
    screenshot(page, "hpc_presets_blender")
