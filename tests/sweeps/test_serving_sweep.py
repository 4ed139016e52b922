"""Serving sweeps: an inference scenario over GPU models x node counts x TP x request rates, each configuration the
engine's own estimate of the scenario moved there; ranked by meeting the targets, then cost per million tokens;
bad sweep input is a 400 with field messages; another user's scenario is a 404; the CSV has the same rows."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from django.urls import reverse

from planner import adapters
from planner.engine import api as engine
from planner.services import scenario_on_gpu
from planner.sweeps import serving
from planner.sweeps.columns import SERVING_SWEEP_COLUMNS
from tests.planner.conftest import load_catalog, make_scenario

pytestmark = pytest.mark.django_db

H100, B200 = "nvidia_h100_sxm5_80gb", "nvidia_b200_hgx"


@pytest.fixture
def serving_scenario(db, alice):
    load_catalog()
    return make_scenario(alice, "llama8b-serving", name="8B serving", max_tpot_s=0.02)


def _query(**overrides) -> dict:
    return {"run": "1", "gpus": [H100, B200], "nodes": "1", "tp": "1, 2, 3", "rates": "10, 40", **overrides}


def test_each_row_is_the_engines_estimate_of_the_scenario_moved_there(client, alice, serving_scenario):
    client.force_login(alice)
    response = client.get(reverse("sweeps:serving", args=[serving_scenario.pk]), _query())
    assert response.status_code == 200
    sweep = response.context["sweep"]
    assert len(sweep.rows) == 2 * 1 * 3 * 2
    refused = [r for r in sweep.rows if r["output"] is None]
    assert {r["tp"] for r in refused} == {3} and all(
        r["problem"] for r in refused
    )  # 3 does not divide 8 GPUs
    row = next(r for r in sweep.rows if r["gpu_id"] == B200 and r["tp"] == 2 and r["requests_per_s"] == 40)
    copy = scenario_on_gpu(
        serving_scenario, next(g for g in response.context["form"].cleaned_data["gpus"] if g.pk == B200)
    )
    copy.tp, copy.requests_per_s = 2, 40
    expected = engine.estimate(adapters.scenario_payload(copy))["inference"]
    assert row["output"]["inference"]["ttft_s_p90"] == pytest.approx(expected["ttft_s_p90"])
    assert row["output"]["inference"]["usd_per_million_tokens"] == pytest.approx(
        expected["usd_per_million_tokens"]
    )
    html = response.content.decode()
    assert 'data-testid="serving-sweep-table"' in html and "Meets the targets" in html
    assert "Time per output token, p90" in html


def test_rows_meeting_the_targets_come_first_cheapest_first(client, alice, serving_scenario):
    client.force_login(alice)
    sweep = client.get(reverse("sweeps:serving", args=[serving_scenario.pk]), _query()).context["sweep"]
    verdicts = [r["output"]["inference"]["meets_target"] if r["output"] else None for r in sweep.rows]
    met = [r for r in sweep.rows if r["output"] and r["output"]["inference"]["meets_target"]]
    assert met and verdicts[: len(met)] == [True] * len(met)
    costs = [r["output"]["inference"]["usd_per_million_tokens"]["own"] for r in met]
    assert costs == sorted(costs)
    assert verdicts[-1] is None  # the refused configurations last


def test_the_csv_has_the_same_rows_with_raw_values(client, alice, serving_scenario):
    client.force_login(alice)
    url = reverse("sweeps:serving", args=[serving_scenario.pk])
    sweep = client.get(url, _query()).context["sweep"]
    response = client.get(url, _query(format="csv"))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    frame = pd.read_csv(io.BytesIO(b"".join(response.streaming_content)))
    assert list(frame.columns) == [c.raw_header for c in SERVING_SWEEP_COLUMNS]
    assert len(frame) == len(sweep.rows)
    first = sweep.rows[0]["output"]["inference"]
    assert frame.iloc[0]["Time to first token, p90 (s)"] == pytest.approx(first["ttft_s_p90"])


BAD_SWEEPS = [
    ("no GPU", {"gpus": []}, "gpus", "required"),
    ("rate zero", {"rates": "0, 10"}, "rates", "above 0"),
    ("rate a word", {"rates": "many"}, "rates", "numbers"),
    ("rate huge", {"rates": "1e12"}, "rates", "at most"),
    ("TP a word", {"tp": "eight"}, "tp", "whole numbers"),
    ("too many configurations", {"nodes": "1-40", "tp": "1, 2, 4, 8"}, "rates", "at most 256"),
]


@pytest.mark.parametrize(("case", "overrides", "field", "words"), BAD_SWEEPS, ids=[c[0] for c in BAD_SWEEPS])
def test_bad_sweep_input_is_a_400_with_a_field_message(
    client, alice, serving_scenario, case, overrides, field, words
):
    client.force_login(alice)
    response = client.get(reverse("sweeps:serving", args=[serving_scenario.pk]), _query(**overrides))
    assert response.status_code == 400, case
    errors = response.context["form"].errors
    assert words in " ".join(errors[field]), (case, errors.as_json())
    assert "sweep" not in response.context


def test_another_users_scenario_is_a_404_and_a_training_scenario_goes_to_the_training_sweep(
    client, alice, bob, serving_scenario
):
    client.force_login(bob)
    assert client.get(reverse("sweeps:serving", args=[serving_scenario.pk]), _query()).status_code == 404
    client.force_login(alice)
    training = make_scenario(alice)
    response = client.get(reverse("sweeps:serving", args=[training.pk]))
    assert response.status_code == 302 and response["Location"] == reverse(
        "sweeps:create", args=[training.pk]
    )
    page = client.get(serving_scenario.get_absolute_url()).content.decode()
    assert reverse("sweeps:serving", args=[serving_scenario.pk]) in page


def test_the_form_starts_around_the_scenario(serving_scenario):
    initial = serving.initial_for(serving_scenario)
    assert initial["gpus"] == [H100] and initial["rates"] == "10, 20" and initial["nodes"] == "1, 2"
