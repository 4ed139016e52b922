"""The inference form asks what a platform owner knows (requests/s or tokens/s, lengths, p90 targets, precision,
batching); bad serving input gets a message next to its field on the page and a 400 per field from the API, and
nothing is saved. The results page shows the latency percentiles, the throughput served, the cost per million
tokens and whether the targets hold, naming the bound that fails."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from planner import adapters
from planner.models import Scenario, ScenarioResult
from planner.reports import formatting
from tests.api.conftest import token_client
from tests.planner.conftest import form_data, make_scenario

pytestmark = pytest.mark.django_db

SERVING = "llama8b-serving"

BAD_SERVING = [
    # (case, overrides, field, words the message must contain)
    ("negative rate", {"requests_per_s": -3}, "requests_per_s", "greater than or equal to 0"),
    ("zero rate", {"requests_per_s": 0}, "requests_per_s", "must be more than 0"),
    ("rate not a number", {"requests_per_s": "ten"}, "requests_per_s", "Enter a number"),
    ("rate infinite", {"requests_per_s": "inf"}, "requests_per_s", "Enter a number"),
    ("huge rate", {"requests_per_s": 1e12}, "requests_per_s", "less than or equal to"),
    ("zero tokens/s", {"requests_per_s": "", "target_tokens_per_s": 0}, "target_tokens_per_s", "more than 0"),
    ("rate with no output length", {"output_len": ""}, "output_len", "required"),
    ("no input length", {"context_len": ""}, "context_len", "required"),
    ("huge input length", {"context_len": 10**9}, "context_len", "less than or equal to"),
    (
        "neither rate nor tokens/s",
        {"requests_per_s": "", "target_tokens_per_s": ""},
        "requests_per_s",
        "Give the request rate",
    ),
    (
        "rate and tokens/s disagree",
        {"requests_per_s": 10, "target_tokens_per_s": 20000},
        "target_tokens_per_s",
        "Disagrees with the request rate",
    ),
    ("TTFT target zero", {"max_ttft_s": 0}, "max_ttft_s", "must be more than 0"),
    ("TPOT target negative", {"max_tpot_s": -0.05}, "max_tpot_s", "greater than or equal to 0"),
    ("unknown batching", {"batching": "dynamic"}, "batching", "valid choice"),
    (
        "static batching without a batch",
        {"batching": "static", "serving_batch": ""},
        "serving_batch",
        "required",
    ),
]


@pytest.mark.parametrize(
    ("case", "overrides", "field", "words"), BAD_SERVING, ids=[c[0] for c in BAD_SERVING]
)
def test_bad_serving_input_gets_a_field_message_on_the_page_and_saves_nothing(
    client, alice, catalog, case, overrides, field, words
):
    client.force_login(alice)
    response = client.post(reverse("scenario_create"), form_data(SERVING, **overrides))
    errors = response.context["form"].errors
    assert field in errors, (case, errors.as_json())
    assert words in " ".join(errors[field]), (case, errors[field])
    assert re.search(rf'id="errors-{field}"', response.content.decode()), case
    assert not Scenario.objects.exists() and not ScenarioResult.objects.exists()


@pytest.mark.parametrize(
    ("case", "overrides", "field", "words"), BAD_SERVING, ids=[c[0] for c in BAD_SERVING]
)
def test_bad_serving_input_is_a_400_per_field_from_the_api(alice, catalog, case, overrides, field, words):
    body = {"starter": SERVING, "name": "API serving", **overrides}
    response = token_client(alice).post("/api/scenarios/", body, format="json")
    assert response.status_code == 400, (case, response.content)
    assert words in " ".join(response.json()["errors"][field]), (case, response.json())
    assert not Scenario.objects.exists() and not ScenarioResult.objects.exists()


def test_the_rate_and_batching_reach_the_engine(alice, catalog):
    scenario = make_scenario(alice, SERVING, requests_per_s=7.5, max_ttft_s=2, max_tpot_s=0.05)
    serving = adapters.workload_payload(scenario)["serving"]
    assert serving["requests_per_s"] == 7.5 and serving["batching"] == "continuous"
    assert "batch" not in serving  # the starter leaves the batch to the server's running limit
    inference = scenario.latest_result.output["inference"]
    assert inference["requests_per_s"] == 7.5 and inference["batching"] == "continuous"
    static = make_scenario(alice, SERVING, batching="static", serving_batch=16)
    assert static.latest_result.output["inference"]["batching"] == "static"
    assert static.latest_result.input_payload["workload"]["serving"]["batch"] == 16


def test_tokens_per_s_alone_gives_the_rate_and_both_may_agree(alice, catalog):
    by_tokens = make_scenario(alice, SERVING, requests_per_s="", target_tokens_per_s=5120)
    assert by_tokens.latest_result.output["inference"]["requests_per_s"] == pytest.approx(10)
    both = make_scenario(alice, SERVING, requests_per_s=10, target_tokens_per_s=5120)
    assert both.latest_result.output["inference"]["requests_per_s"] == 10


def test_the_api_takes_requests_per_s_and_returns_it_in_the_inputs(alice, catalog):
    api = token_client(alice)
    response = api.post(
        "/api/scenarios/", {"starter": SERVING, "name": "rate", "requests_per_s": 4}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["inputs"]["requests_per_s"] == 4 and body["inputs"]["batching"] == "continuous"
    scenario = Scenario.objects.get(pk=body["id"])
    assert scenario.latest_result.output["inference"]["requests_per_s"] == 4


def test_the_result_page_shows_percentiles_cost_per_token_and_the_failing_bound(client, alice, catalog):
    """8B on one H100 at 10 requests/s meets a 2 s TTFT; a 1 ms TPOT target fails and the page says by how much."""
    client.force_login(alice)
    scenario = make_scenario(alice, SERVING, max_tpot_s=0.001)
    inference = scenario.latest_result.output["inference"]
    assert inference["meets_target"] is False and inference["targets"]["tpot"]["met"] is False
    html = client.get(scenario.get_absolute_url()).content.decode().replace("\xa0", " ")
    headline = html.split('data-testid="headline"')[1].split('data-testid="warnings"')[0]
    assert "Served at 10.0 requests/s" in headline
    assert formatting.latency(inference["ttft_s_p90"]).replace("\xa0", " ") in headline
    assert formatting.latency(inference["tpot_s_p90"]).replace("\xa0", " ") in headline
    assert formatting.usd(inference["usd_per_million_tokens"]["own"]) in headline
    assert formatting.usd(inference["usd_per_million_tokens"]["cloud"]) in headline
    assert "missed" in headline and "TPOT p90" in headline and "&gt; 1.00 ms" in headline
    for header in ("Time to first token, p99", "Time per output token, p50", "Meets the targets"):
        assert header in html
    met = make_scenario(alice, SERVING, max_tpot_s=1)
    assert met.latest_result.output["inference"]["meets_target"] is True
    assert "kpi-good" in client.get(met.get_absolute_url()).content.decode()


def test_a_rate_beyond_what_the_cluster_sustains_says_so():
    inference = {
        "meets_target": False,
        "saturated": True,
        "requests_per_s": 50,
        "max_requests_per_s": 12.3,
        "latency_percentile": 90.0,
        "targets": {
            "ttft": {"target_s": 2, "value_s": None, "met": False, "margin": None},
            "tpot": {"target_s": 0.05, "value_s": 0.2, "met": False, "margin": -3.0},
        },
    }
    assert formatting.serving_verdict(inference).replace("\xa0", " ") == (
        "no: 50.0 requests/s is more than the 12.3 it sustains; TPOT p90 200 ms > 50.0 ms"
    )
    unsaturated = {**inference, "saturated": False}
    assert "TTFT p90 unbounded (the queue grows) > 2.00" in formatting.serving_verdict(unsaturated).replace(
        "\xa0", " "
    )
    assert formatting.serving_verdict({**inference, "meets_target": True}) == "yes"
    assert formatting.serving_verdict({"meets_target": None}) == formatting.MISSING
