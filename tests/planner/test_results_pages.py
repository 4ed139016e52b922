"""Results pages for each kind of workload and cluster source render the engine's figures and every chart."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from planner.reports import formatting as f
from tests.planner.conftest import make_scenario

pytestmark = pytest.mark.django_db


def _charts(html: str) -> set[str]:
    data = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', html, re.S)
    return {chart["key"] for chart in json.loads(data.group(1))}


def test_training_results_show_headline_figures_from_the_engine(client, alice, catalog):
    scenario = make_scenario(alice)
    output = scenario.latest_result.output
    client.force_login(alice)
    html = client.get(scenario.get_absolute_url()).content.decode()
    assert "Fits in GPU memory" in html
    assert f.sig(output["time"]["days"]).replace(",", ",") in html
    assert f.number(output["time"]["gpu_hours"]) in html
    assert (
        f.usd_compact(output["cost"]["tco_usd"]).replace("\u00a0", "&nbsp;") in html
        or f.usd_compact(output["cost"]["tco_usd"]) in html
    )
    assert _charts(html) == {"memory", "step_time", "power", "tco_category", "tco_year", "own_vs_rent"}
    assert "Automatic layout: TP" in html


def test_inference_results_show_serving_figures(client, alice, catalog):
    scenario = make_scenario(alice, "llama8b-serving")
    client.force_login(alice)
    html = client.get(scenario.get_absolute_url()).content.decode()
    output = scenario.latest_result.output
    assert f.number(output["inference"]["tokens_per_s"]) in html
    assert "Time to first token" in html or "to first token" in html
    assert "step_time" not in _charts(html) and "memory" in _charts(html)


def test_job_results_show_the_job_time(client, alice, catalog):
    scenario = make_scenario(alice, "md-job")
    client.force_login(alice)
    html = client.get(scenario.get_absolute_url()).content.decode()
    output = scenario.latest_result.output
    assert "Job time" in html
    # A two-hour job reads in hours, never as a fraction of a day or a count of seconds.
    assert f.duration_days(output["job"]["days"]) == "2.03\u00a0hours"
    assert f.duration_days(output["job"]["days"]) in html
    assert f.sig(output["job"]["days"]) not in html and f.number(output["job"]["time_s"]) not in html
    assert "memory" not in _charts(html) and "power" in _charts(html)


def test_system_template_and_custom_gpu_scenarios_evaluate(client, alice, catalog):
    system = make_scenario(alice, gpu_source="system", system="nvidia_dgx_b200")
    assert system.latest_result.input_payload["cluster"]["node_max_power_kw"] == 14.3
    custom = make_scenario(
        alice,
        gpu_source="custom",
        custom_gpu_name="Prototype X",
        custom_gpu_memory_gb=192,
        custom_gpu_bandwidth_tbs=8,
        custom_gpu_bf16_tflops=2000,
        custom_gpu_tdp_w=1000,
        custom_gpu_scaleup_gbs=1800,
        custom_gpu_price_usd=40_000,
        cloud_usd_per_gpu_hour=5,
    )
    assert custom.latest_result.input_payload["cluster"]["gpu"]["name"] == "Prototype X"
    client.force_login(alice)
    for scenario in (system, custom):
        assert client.get(scenario.get_absolute_url()).status_code == 200
        assert client.get(reverse("scenario_edit", args=[scenario.pk])).status_code == 200


def test_a_model_that_does_not_fit_says_so_with_the_numbers(client, alice, catalog):
    scenario = make_scenario(
        alice,
        name="405B on one node",
        model_preset="llama3.1-405b",
        nodes=1,
        parallelism_mode="manual",
        tp=8,
        pp=1,
        cp=1,
        ep=1,
        micro_batch=1,
        global_batch=1024,
    )
    output = scenario.latest_result.output
    assert output["memory"]["fits"] is False
    client.force_login(alice)
    html = client.get(scenario.get_absolute_url()).content.decode()
    assert "Does not fit in GPU memory" in html
    assert output["memory"]["message"].split(" (")[0] in html
