""" "Size it for me": an inference scenario sized on several GPU types by the engine's sizer, with its curves."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from planner.serving_size import SIZING_GPU_IDS, size_scenario, sizing_payload
from tests.planner.conftest import make_scenario

EXAMPLE = {
    "model_preset": "llama3.1-70b",
    "tp": 8,
    "serving_batch": 32,
    "context_len": 4096,
    "output_len": 512,
    "requests_per_s": "",
    "target_tokens_per_s": 20000,
    "max_ttft_s": 2,
}


@pytest.mark.django_db
def test_the_issue_example_is_sized_on_four_gpu_types_with_curves(client, alice, catalog):
    scenario = make_scenario(alice, "llama8b-serving", **EXAMPLE)
    payload = sizing_payload(scenario)
    assert payload["serving"]["target_tokens_per_s"] == 20000 and "requests_per_s" not in payload["serving"]
    assert {c["gpu"] for c in payload["candidates"]} == set(SIZING_GPU_IDS)
    page = size_scenario(scenario)
    assert page.problem is None
    assert page.answer["requests_per_s"] == pytest.approx(20000 / 512)  # the engine's rule: tokens/s ÷ output
    feasible = [e for e in page.answer["answers"] if e["feasible"]]
    assert feasible and all(e["gpus"] > 8 for e in feasible)  # 8 H100s do not serve 39 requests/s
    assert all(e["usd_per_million_tokens"]["cloud"] > 0 for e in feasible)
    assert [c["key"] for c in page.charts] == ["curve-ttft", "curve-tpot"]
    assert all(trace["x"] for trace in page.charts[0]["figure"]["data"])

    client.force_login(alice)
    html = client.get(reverse("scenario_size", args=[scenario.pk])).content.decode()
    assert 'data-testid="sizing-table"' in html and "H100" in html
    charts = html.split('id="chart-data"')[1].split(">", 1)[1].split("</script>")[0]
    assert len(json.loads(charts)) == 2
    detail = client.get(scenario.get_absolute_url()).content.decode()
    assert reverse("scenario_size", args=[scenario.pk]) in detail


@pytest.mark.django_db
def test_a_target_no_layout_meets_names_the_failing_bound(client, alice, catalog):
    scenario = make_scenario(alice, "llama8b-serving", **{**EXAMPLE, "max_ttft_s": 0.01})
    page = size_scenario(scenario)
    reasons = [e["reason"] for e in page.answer["answers"] if not e["feasible"]]
    assert reasons and all("TTFT" in r for r in reasons)


@pytest.mark.django_db
def test_without_a_rate_the_page_says_what_is_missing_and_others_get_404(client, alice, bob, catalog):
    scenario = make_scenario(
        alice,
        "llama8b-serving",
        batching="static",
        serving_batch=32,
        requests_per_s="",
        target_tokens_per_s="",
    )
    page = size_scenario(scenario)
    assert page.answer is None and "request rate" in page.problem and "target throughput" in page.problem
    client.force_login(bob)
    assert client.get(reverse("scenario_size", args=[scenario.pk])).status_code == 404
    training = make_scenario(alice)
    assert "inference" in size_scenario(training).problem


@pytest.mark.django_db
def test_a_typed_request_rate_is_what_the_sizer_serves(alice, catalog):
    """requests/s as the platform owner states it goes to the sizer unchanged and moves the answer."""
    answers = {}
    for rate in (5, 40):
        scenario = make_scenario(
            alice, "llama8b-serving", **{**EXAMPLE, "requests_per_s": rate, "target_tokens_per_s": ""}
        )
        assert sizing_payload(scenario)["serving"]["requests_per_s"] == rate
        answer = size_scenario(scenario).answer
        assert answer["requests_per_s"] == rate
        answers[rate] = {e["gpu_id"]: e["gpus"] for e in answer["answers"] if e["feasible"]}
    assert any(answers[40][g] > answers[5][g] for g in answers[5] if g in answers[40])
