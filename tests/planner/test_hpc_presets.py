"""The HPC and rendering presets page: jobs/frames per day on a chosen cluster, the derived Amdahl fraction,
GPUs for a target (spread and packed, cheapest named), flagged cross-GPU speed, and bad input as a 400."""

from __future__ import annotations

import pytest
from django.urls import reverse

from planner.engine.job.presets import GROMACS_100K
from planner.forms.hpc import HpcPresetForm, query_with_defaults
from planner.hpc import hpc_page
from tests.planner.conftest import make_scenario

A100 = "nvidia_a100_sxm4_80gb"
H100 = "nvidia_h100_sxm5_80gb"


def _page(**query):
    form = HpcPresetForm(query_with_defaults(query))
    assert form.is_valid(), form.errors.as_json()
    return hpc_page(form.cleaned_data)


@pytest.mark.django_db
def test_gromacs_on_its_reference_gpu_reproduces_the_measured_times(catalog):
    page = _page(preset="gromacs_100k", gpu=A100, gpu_count=8)
    assert page.speed == 1.0 and not page.speed_flagged
    assert page.parallel_fraction["mid"] == pytest.approx(GROMACS_100K.parallel_fraction(2.5))
    assert page.parallel_fraction["low"] < page.parallel_fraction["mid"] < page.parallel_fraction["high"]
    rows = {row.mid.gpus_per_job: row for row in page.rates}
    assert rows[1].mid.jobs_per_day == pytest.approx(16.0)  # 8 x 24 h / 12 h
    assert rows[8].mid.job_hours == pytest.approx(2.5)
    assert rows[8].jobs_per_day_low == pytest.approx(8.0) and rows[8].jobs_per_day_high == pytest.approx(12.0)


@pytest.mark.django_db
def test_another_gpu_uses_the_fp32_ratio_and_says_it_is_an_assumption(catalog):
    page = _page(preset="gromacs_100k", gpu=H100, gpu_count=8)
    assert page.speed_flagged and "ASSUMPTION" in page.speed_source
    assert page.speed == pytest.approx(page.gpu.fp32_tflops / page.reference_gpu.fp32_tflops)
    typed = _page(preset="gromacs_100k", gpu=H100, gpu_count=8, relative_speed="1.8")
    assert typed.speed == 1.8 and not typed.speed_flagged
    assert typed.rates[0].mid.jobs_per_day == pytest.approx(16.0 * 1.8)


@pytest.mark.django_db
def test_blender_frames_per_day_and_target_in_frames(catalog):
    page = _page(
        preset="blender_cycles", gpu=A100, gpu_count=8, work_per_job="240", target="19200", target_unit="work"
    )
    rows = {row.mid.gpus_per_job: row for row in page.rates}
    assert rows[1].work_per_day == pytest.approx(8 * 240)  # 8 shots/day of 240 frames
    assert page.target_jobs_per_day == pytest.approx(80.0)
    assert page.cheapest is not None and page.cheapest.answer.gpus == 80
    assert sum(row.cheapest for row in page.target_rows) == 1


@pytest.mark.django_db
def test_page_shows_p_rates_target_and_sources(alice_client, catalog):
    response = alice_client.get(
        reverse("hpc_presets"), {"preset": "gromacs_100k", "gpu": H100, "gpu_count": 16, "target": 100}
    )
    assert response.status_code == 200
    html = response.content.decode()
    for testid in ("hpc-p", "hpc-rates", "hpc-target", "hpc-cheapest", "hpc-sources"):
        assert f'data-testid="{testid}"' in html
    assert "assumption" in html and "planning issue" in html
    assert "?starter=job-gromacs_100k" in html


@pytest.mark.django_db
def test_first_visit_shows_the_default_preset(alice_client, catalog):
    response = alice_client.get(reverse("hpc_presets"))
    assert response.status_code == 200 and b'data-testid="hpc-rates"' in response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"gpu_count": "0"}, "gpu_count", "greater than or equal to 1"),
        ({"gpu_count": "many"}, "gpu_count", "whole number"),
        ({"gpu_count": ""}, "gpu_count", "required"),
        ({"target": "-5"}, "target", "greater than 0"),
        ({"target": "0"}, "target", "greater than 0"),
        ({"target": "inf"}, "target", "number"),
        ({"work_per_job": "0"}, "work_per_job", "greater than 0"),
        ({"relative_speed": "0"}, "relative_speed", "above 0"),
        ({"relative_speed": "1e9"}, "relative_speed", "at most"),
        ({"preset": "quake"}, "preset", "valid choice"),
        ({"gpu": "nvidia_nope"}, "gpu", "valid choice"),
        ({"target": "50", "target_unit": "work"}, "work_per_job", "ns per simulation"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(alice_client, catalog, query, field, message):
    response = alice_client.get(reverse("hpc_presets"), query)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert field in errors and message in " ".join(errors[field])
    assert f'id="errors-{field}"' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(("starter", "hours_on_8"), [("job-gromacs_100k", 2.5), ("job-blender_cycles", 3.0)])
def test_preset_starters_fill_the_job_fields_and_reproduce_the_measured_time(
    alice, catalog, starter, hours_on_8
):
    scenario = make_scenario(alice, starter)
    assert scenario.workload_kind == "job" and scenario.total_gpus == 8
    job = scenario.latest_result.output["job"]
    assert job["time_s"] / 3600 == pytest.approx(hours_on_8, rel=1e-3)


@pytest.mark.django_db
def test_extreme_but_valid_numbers_answer_without_a_crash(alice_client, catalog):
    query = {
        "preset": "gromacs_100k",
        "gpu": H100,
        "gpu_count": 100000,
        "target": "1e300",
        "relative_speed": "1e-300",
    }
    response = alice_client.get(reverse("hpc_presets"), query)
    assert response.status_code == 200
    assert (
        b'data-testid="hpc-unreachable"' in response.content
        and b'data-testid="hpc-cheapest"' not in response.content
    )


@pytest.mark.django_db
def test_the_chart_shows_both_ways_the_ceiling_and_the_target(catalog):
    page = _page(preset="gromacs_100k", gpu=A100, gpu_count=8, target="30")
    (chart,) = page.charts
    spread, packed, ceiling, target = chart["figure"]["data"]
    assert spread["x"][0] == 1 and spread["x"][-1] == 64
    assert spread["y"][3] == pytest.approx(24 / 2.5)  # 8 GPUs: one 2.5 h simulation at a time
    assert packed["y"][3] == pytest.approx(16.0)
    assert all(y < ceiling["y"][0] for y in spread["y"])  # Amdahl's ceiling is never reached
    assert target["y"] == [30.0, 30.0]
    blender = _page(preset="blender_cycles", gpu=A100, gpu_count=8)
    assert len(blender.charts[0]["figure"]["data"]) == 2  # p = 1: no ceiling, no target


@pytest.mark.django_db
def test_a_preset_whose_gpu_left_the_catalog_asks_for_the_reference_gpu(alice_client, catalog):
    from catalog.models import Gpu

    Gpu.objects.filter(pk=A100).update(fp32_tflops=None)
    response = alice_client.get(reverse("hpc_presets"), {"preset": "gromacs_100k", "gpu": H100})
    assert response.status_code == 400
    assert "not in the catalog" in " ".join(response.context["form"].errors["reference_gpu"])
    chosen = alice_client.get(
        reverse("hpc_presets"), {"preset": "gromacs_100k", "gpu": H100, "reference_gpu": H100}
    )
    assert chosen.status_code == 200
