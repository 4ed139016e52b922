"""Inference scenarios in the reports: the PDF has the serving figures at the request rate and the "size it for
me" table with its throughput-latency curves; the results CSV carries the percentiles, the cost per million
tokens and the verdict; the sizing CSV has one row per GPU type with the sizer's own numbers; the comparison
shows the inference figures side by side."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from django.urls import reverse

from planner import serving_size
from planner.reports import formatting as f
from planner.reports import pdf
from planner.reports.sizing_columns import SIZING_COLUMNS, disaggregated_chosen
from tests.planner.conftest import make_scenario
from tests.reports.conftest import flat, pdf_pages, pdf_text

pytestmark = pytest.mark.django_db

#: The issue's example (Llama 3.1 70B on 8 H100s, 4K prompts / 512 outputs, p90 TTFT ≤ 2 s) at 4 requests/s.
SERVING = {
    "model_preset": "llama3.1-70b",
    "tp": 8,
    "precision": "fp8",
    "requests_per_s": 4,
    "context_len": 4096,
    "output_len": 512,
    "max_ttft_s": 2,
    "max_tpot_s": 0.05,
}


@pytest.fixture
def serving(catalog, alice):
    return make_scenario(alice, "llama8b-serving", name="70B serving", **SERVING)


def _csv(response) -> pd.DataFrame:
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv")
    return pd.read_csv(io.BytesIO(b"".join(response.streaming_content)))


def test_the_pdf_has_the_serving_figures_and_the_sizing_table(serving, tmp_path):
    rendered = pdf.scenario_pdf(scenario=serving, share_url=pdf.NOT_SHARED)
    text = pdf_text(rendered.content, tmp_path)
    inference = serving.latest_result.output["inference"]
    assert "At 4.00 requests/s" in text
    for figure in (
        f.latency(inference["ttft_s_p90"]),
        f.latency(inference["tpot_s_p90"]),
        f.usd(inference["usd_per_million_tokens"]["own"]),
        f.usd(inference["usd_per_million_tokens"]["cloud"]),
    ):
        assert flat(figure) in text, figure
    assert "Size it for me" in text
    answer = serving_size.size_scenario(serving).answer
    feasible = [a for a in answer["answers"] if a["feasible"]]
    assert feasible
    sizing = text.split("Size it for me", 1)[1]
    for entry in feasible:
        assert entry["gpu"].split(" (")[0] in sizing
        assert flat(f.usd(entry["usd_per_million_tokens"]["own"])) in sizing
    assert "Time to first token (p90) against throughput" in sizing  # the curves, as SVG figures
    assert pdf_pages(rendered.content, tmp_path) >= 6


def test_a_training_pdf_has_no_sizing_section(catalog, alice, tmp_path):
    training = make_scenario(alice)
    text = pdf_text(pdf.scenario_pdf(scenario=training, share_url=pdf.NOT_SHARED).content, tmp_path)
    assert "Size it for me" not in text


def test_the_results_csv_has_the_percentiles_cost_per_token_and_verdict(client, alice, serving):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:scenario_metrics_csv", args=[serving.pk])))
    values = dict(zip(frame["key"], frame["value"], strict=True))
    units = dict(zip(frame["key"], frame["unit"], strict=True))
    inference = serving.latest_result.output["inference"]
    for pct in (50, 90, 99):
        for kind in ("ttft", "tpot"):
            key = f"{kind}_s_p{pct}"
            assert float(values[key]) == pytest.approx(inference[key]) and units[key] == "s"
    assert float(values["usd_per_million_tokens_own"]) == pytest.approx(
        inference["usd_per_million_tokens"]["own"]
    )
    assert float(values["requests_per_s"]) == 4
    assert values["serving_verdict"] == f.serving_verdict(inference)


def test_the_sizing_csv_has_one_row_per_gpu_type_with_the_sizers_numbers(client, alice, serving):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:scenario_sizing_csv", args=[serving.pk])))
    assert list(frame.columns) == [c.raw_header for c in SIZING_COLUMNS]
    answer = serving_size.size_scenario(serving).answer
    assert list(frame["GPU"]) == [a["gpu"] for a in answer["answers"]]
    for row, entry in zip(frame.to_dict("records"), answer["answers"], strict=True):
        if not entry["feasible"]:
            assert row["Why not"] == entry["reason"]
            continue
        assert row["GPUs"] == entry["gpus"]
        assert row["$ per M output tokens, owned (USD)"] == pytest.approx(
            entry["usd_per_million_tokens"]["own"]
        )
        assert row["IT power (kW)"] == pytest.approx(entry["power"]["it_kw"])
        pool = entry["disaggregated"]["prefill"] if disaggregated_chosen(entry) else entry["colocated"]
        assert row["TTFT p90 (s)"] == pytest.approx(pool["ttft_s_p90"])


def test_the_sizing_csv_of_a_training_scenario_is_a_400_and_of_another_user_a_404(
    client, alice, bob, catalog
):
    training = make_scenario(alice)
    client.force_login(alice)
    response = client.get(reverse("reports:scenario_sizing_csv", args=[training.pk]))
    assert response.status_code == 400 and b"inference" in response.content
    client.force_login(bob)
    assert client.get(reverse("reports:scenario_sizing_csv", args=[training.pk])).status_code == 404


def test_the_comparison_shows_inference_figures_side_by_side(client, alice, serving):
    other = make_scenario(
        alice, "llama8b-serving", name="70B on B200", **{**SERVING, "gpu": "nvidia_b200_hgx"}
    )
    client.force_login(alice)
    html = client.get(reverse("scenario_compare") + f"?ids={serving.pk}&ids={other.pk}").content.decode()
    for header in ("Request rate", "Time to first token, p90", "Cost per million output tokens, owned"):
        assert header in html
    assert "Training tokens" not in html and "Training time" not in html
    frame = _csv(client.get(reverse("reports:comparison_csv") + f"?ids={serving.pk}&ids={other.pk}"))
    row = frame[frame["key"] == "ttft_s_p90"].iloc[0]
    assert float(row.iloc[3]) == pytest.approx(serving.latest_result.output["inference"]["ttft_s_p90"])
    assert float(row.iloc[4]) == pytest.approx(other.latest_result.output["inference"]["ttft_s_p90"])
