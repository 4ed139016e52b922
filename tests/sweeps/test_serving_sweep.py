"""Serving sweeps, stored and run in the background like training sweeps: an inference scenario over GPU models x
node counts x TP x request rates. The form stores a SweepRun (kind "serving") with its configurations in chunks;
the chunk service (the Celery task's one call) fills rows that are the engine's own estimate of the scenario moved
there; running it twice adds nothing; the page ranks the stored rows (meeting the targets first, then cost per
million output tokens), the CSV and the PDF carry them, a row opens as a scenario; bad input is a 400 naming the
field with nothing saved; another user's sweep or scenario is a 404."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from django.urls import reverse

from catalog.models import Gpu
from planner import adapters
from planner.engine import api as engine
from planner.models import Scenario
from planner.reports import pdf
from planner.sweeps import selectors, services, serving, serving_services
from planner.sweeps.columns import SERVING_SWEEP_CSV_COLUMNS
from planner.sweeps.models import SweepChunk, SweepKind, SweepRun, SweepStatus
from tests.planner.conftest import load_catalog, make_scenario

pytestmark = pytest.mark.django_db

H100, B200 = "nvidia_h100_sxm5_80gb", "nvidia_b200_hgx"
#: 2 GPU models x 1 node count x 3 TP x 2 rates.
CONFIGS = 12


@pytest.fixture
def serving_scenario(db, alice):
    load_catalog()
    return make_scenario(alice, "llama8b-serving", name="8B serving", max_tpot_s=0.02)


def _form(**overrides) -> dict:
    return {
        "name": "Which GPU serves 8B",
        "gpus": [H100, B200],
        "nodes": "1",
        "tp": "1, 2, 3",
        "rates": "10, 40",
    } | overrides


def _post(client, scenario, **overrides):
    return client.post(reverse("sweeps:serving", args=[scenario.pk]), _form(**overrides))


def _run_all(run: SweepRun) -> list[str]:
    return [services.sweep_chunk_run(run_id=run.pk, index=i).state for i in range(run.chunks_total)]


@pytest.fixture
def created(alice_client, serving_scenario) -> SweepRun:
    """A serving sweep created through the page (its on_commit enqueue never fires in a test transaction)."""
    response = _post(alice_client, serving_scenario)
    run = SweepRun.objects.get()
    assert response.status_code == 302 and response["Location"] == run.get_absolute_url()
    return run


@pytest.fixture
def done(created) -> SweepRun:
    _run_all(created)
    created.refresh_from_db()
    return created


def _expected(scenario: Scenario, row: dict) -> dict:
    """The engine's estimate of `scenario` moved to the row's GPU, node count, TP and rate (as "Clone on another
    GPU" does), computed here from the scenario, not from anything the sweep stored."""
    copy = serving.configuration_scenario(
        scenario,
        Gpu.objects.get(pk=row["gpu_id"]),
        nodes=row["nodes"],
        tp=row["tp"],
        rate=row["requests_per_s"],
    )
    return engine.estimate(adapters.scenario_payload(copy))


def test_the_form_stores_the_sweep_with_its_configurations_and_runs_nothing_yet(created):
    run = created
    assert run.kind == SweepKind.SERVING and run.status == SweepStatus.PENDING and run.result is None
    assert run.name == "Which GPU serves 8B" and run.total_configs == CONFIGS
    chunks = list(SweepChunk.objects.filter(run=run).order_by("index"))
    assert len(chunks) == run.chunks_total == -(-CONFIGS // serving.CHUNK_CONFIGS)
    configs = [c for chunk in chunks for c in chunk.pieces]
    ids = [run.spec["gpus"][c["gpu"]]["catalog_id"] for c in configs]
    assert sorted(
        zip(ids, [c["tp"] for c in configs], [c["requests_per_s"] for c in configs], strict=True)
    ) == sorted((g, tp, rate) for g in (H100, B200) for tp in (1, 2, 3) for rate in (10.0, 40.0))
    assert all(c["nodes"] == 1 and c["payload"]["workload"]["kind"] == "inference" for c in configs)
    assert run.spec["rates"] == [10.0, 40.0] and run.spec["tp"] == [1, 2, 3]


def test_each_stored_row_is_the_engines_estimate_of_that_configuration(done, serving_scenario):
    assert done.status == SweepStatus.DONE and done.chunks_done == done.chunks_total
    rows = done.result["rows"]
    assert len(rows) == CONFIGS == done.enumerated_configs
    refused = [r for r in rows if r["output"] is None]
    assert {r["tp"] for r in refused} == {3} and all(
        r["problem"] for r in refused
    )  # 3 does not divide 8 GPUs
    assert done.evaluated_configs == CONFIGS - len(refused) == done.result["evaluated"]
    for row in rows:
        if row["output"] is None:
            continue
        row["gpu_id"] = done.spec["gpus"][row["gpu"]]["catalog_id"]
        expected = _expected(serving_scenario, row)
        assert row["output"]["inference"] == expected["inference"], (row["gpu_label"], row["tp"])
        assert row["output"]["memory"]["fits"] == expected["memory"]["fits"]
    assert (
        done.feasible_configs
        == done.result["meeting"]
        == sum(1 for r in rows if r["output"] and r["output"]["inference"]["meets_target"])
    )


def test_rows_meeting_the_targets_come_first_cheapest_first_refused_last(done):
    rows = done.result["rows"]
    verdicts = [r["output"]["inference"]["meets_target"] if r["output"] else None for r in rows]
    met = [r for r in rows if r["output"] and r["output"]["inference"]["meets_target"]]
    assert met and verdicts[: len(met)] == [True] * len(met)
    costs = [r["output"]["inference"]["usd_per_million_tokens"]["own"] for r in met]
    assert costs == sorted(costs)
    assert verdicts[-1] is None


def test_running_the_chunks_again_adds_no_row(done):
    before = (done.result, done.chunks_done, done.enumerated_configs, done.evaluated_configs)
    assert set(_run_all(done)) == {"skipped"}
    assert services.sweep_chunk_run(run_id=done.pk, index=0, takeover=True).state == "skipped"
    done.refresh_from_db()
    assert (done.result, done.chunks_done, done.enumerated_configs, done.evaluated_configs) == before
    assert len(selectors.serving_sweep_rows(run=done)) == CONFIGS


def test_the_whole_flow_runs_on_the_celery_tasks_eagerly_and_twice_is_harmless(
    alice_client, serving_scenario, eager, django_capture_on_commit_callbacks
):
    from planner.sweeps.tasks import sweep_fan_out

    with django_capture_on_commit_callbacks(execute=True):
        response = _post(alice_client, serving_scenario)
    run = SweepRun.objects.get()
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == SweepStatus.DONE and len(run.result["rows"]) == CONFIGS
    assert sweep_fan_out.apply(args=[run.pk]).get() == 0  # nothing left to queue
    run.refresh_from_db()
    assert len(run.result["rows"]) == CONFIGS and run.chunks_done == run.chunks_total
    status = alice_client.get(reverse("sweeps:status", args=[run.pk])).json()
    assert status["percent"] == 100.0 and status["active"] is False


def test_the_page_shows_progress_then_the_ranked_rows(alice_client, created):
    html = alice_client.get(created.get_absolute_url()).content.decode()
    assert 'id="sweep-progress"' in html and "Waiting for a Celery worker" in html
    assert 'data-testid="serving-sweep-table"' not in html
    _run_all(created)
    response = alice_client.get(created.get_absolute_url())
    html = response.content.decode()
    assert response.status_code == 200 and 'data-testid="serving-sweep-table"' in html
    assert "TTFT p50" in html and "TPOT p99" in html and "Tokens/s per GPU" in html
    assert "Rented, per M tokens (USD)" in html and "Refused:" in html
    assert reverse("reports:sweep_csv", args=[created.pk]) in html
    listing = alice_client.get(reverse("sweeps:list")).content.decode()
    assert created.name in listing and "Serving" in listing


def test_cancel_keeps_the_rows_of_the_finished_chunks(alice_client, serving_scenario):
    _post(alice_client, serving_scenario, nodes="1, 2", rates="10, 20, 40, 80")  # 2 x 2 x 3 x 4 = 48
    run = SweepRun.objects.get()
    assert run.chunks_total == 2
    services.sweep_chunk_run(run_id=run.pk, index=0)
    response = alice_client.post(reverse("sweeps:cancel", args=[run.pk]))
    run.refresh_from_db()
    assert response.status_code == 302 and run.status == SweepStatus.CANCELLED
    assert len(run.result["rows"]) == serving.CHUNK_CONFIGS and {r["chunk"] for r in run.result["rows"]} == {
        0
    }
    assert services.sweep_chunk_run(run_id=run.pk, index=1).state == "skipped"
    html = alice_client.get(run.get_absolute_url()).content.decode()
    assert "results below cover the 1 of 2 chunks" in html and 'data-testid="serving-sweep-table"' in html


def test_the_csv_has_every_stored_row_with_raw_values(alice_client, done):
    response = alice_client.get(reverse("reports:sweep_csv", args=[done.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    frame = pd.read_csv(io.BytesIO(b"".join(response.streaming_content)))
    assert list(frame.columns) == [c.raw_header for c in SERVING_SWEEP_CSV_COLUMNS]
    rows = done.result["rows"]
    assert len(frame) == len(rows)
    first = rows[0]["output"]["inference"]
    assert frame.iloc[0]["Time to first token, p99 (s)"] == pytest.approx(first["ttft_s_p99"])
    assert frame.iloc[0]["Cost per million output tokens, owned (USD)"] == pytest.approx(
        first["usd_per_million_tokens"]["own"]
    )
    assert frame["Refused by the engine"].notna().sum() == sum(1 for r in rows if r["output"] is None)


def test_the_pdf_lists_the_best_rows(done, tmp_path):
    from planner.reports import formatting as f
    from tests.reports.conftest import pdf_text

    document = pdf.serving_sweep_document(run=done)
    assert document["rows"] == done.result["rows"][: pdf.SERVING_SWEEP_PDF_ROWS]
    text = pdf_text(pdf.sweep_pdf(run=done).content, tmp_path)
    best = done.result["rows"][0]
    assert "Serving sweep" in text and best["gpu_label"] in text
    assert f.usd(best["output"]["inference"]["usd_per_million_tokens"]["own"]) in text
    assert "Refused:" in text  # the TP 3 configurations


def test_a_row_opens_as_a_scenario_with_the_rows_figures(alice_client, alice, done):
    row = done.result["rows"][0]
    response = alice_client.post(
        reverse("sweeps:open", args=[done.pk]), {"chunk": row["chunk"], "row": row["row"]}
    )
    scenario = Scenario.objects.exclude(pk=done.scenario_id).get()
    assert response.status_code == 302 and response["Location"] == scenario.get_absolute_url()
    assert (scenario.nodes, scenario.tp, scenario.requests_per_s) == (
        row["nodes"],
        row["tp"],
        row["requests_per_s"],
    )
    assert scenario.latest_result.output["inference"] == row["output"]["inference"]
    refused = next(r for r in done.result["rows"] if r["output"] is None)
    with pytest.raises(services.SweepRefused):
        serving_services.serving_open_scenario(
            run=done, owner=alice, chunk=refused["chunk"], row=refused["row"]
        )


BAD_SWEEPS = [
    ("no GPU", {"gpus": []}, "gpus", "required"),
    ("rate zero", {"rates": "0, 10"}, "rates", "above 0"),
    ("rate a word", {"rates": "many"}, "rates", "numbers"),
    ("rate huge", {"rates": "1e12"}, "rates", "at most"),
    ("rate not a number", {"rates": "nan"}, "rates", "above 0"),
    ("TP a word", {"tp": "eight"}, "tp", "whole numbers"),
    ("TP zero", {"tp": "0"}, "tp", "between"),
    ("nodes a word", {"nodes": "lots"}, "nodes", "not a node count"),
    ("unknown GPU", {"gpus": ["no_such_gpu"]}, "gpus", "valid choice"),
    ("too many configurations", {"nodes": "1-40", "tp": "1, 2, 4, 8"}, "rates", "at most 256"),
]


@pytest.mark.parametrize(("case", "overrides", "field", "words"), BAD_SWEEPS, ids=[c[0] for c in BAD_SWEEPS])
def test_bad_sweep_input_is_a_400_naming_the_field_and_nothing_is_saved(
    alice_client, serving_scenario, case, overrides, field, words
):
    response = _post(alice_client, serving_scenario, **overrides)
    assert response.status_code == 400, case
    errors = response.context["form"].errors
    assert words in " ".join(errors[field]), (case, errors.as_json())
    assert not SweepRun.objects.exists() and not SweepChunk.objects.exists()


def test_an_old_link_with_the_sweep_in_its_query_fills_the_form_and_stores_nothing(
    alice_client, serving_scenario
):
    url = reverse("sweeps:serving", args=[serving_scenario.pk])
    response = alice_client.get(url, {"run": "1", **_form(rates="5, 15")})
    assert response.status_code == 200 and response.context["form"].cleaned_data["rates"] == [5.0, 15.0]
    assert 'method="post"' in response.content.decode()
    assert alice_client.get(url, {"run": "1", **_form(rates="0")}).status_code == 400
    assert not SweepRun.objects.exists()


def test_another_users_sweep_or_scenario_is_a_404(client, alice, bob, serving_scenario, done):
    client.force_login(bob)
    assert client.get(reverse("sweeps:serving", args=[serving_scenario.pk])).status_code == 404
    assert _post(client, serving_scenario).status_code == 404
    for method, url in (
        ("get", done.get_absolute_url()),
        ("get", reverse("sweeps:status", args=[done.pk])),
        ("get", reverse("reports:sweep_csv", args=[done.pk])),
        ("post", reverse("sweeps:open", args=[done.pk])),
        ("post", reverse("sweeps:cancel", args=[done.pk])),
    ):
        assert getattr(client, method)(url).status_code == 404, url
    assert SweepRun.objects.filter(owner=bob).count() == 0 and Scenario.objects.filter(owner=bob).count() == 0


def test_each_kind_of_scenario_reaches_its_own_sweep(alice_client, alice, serving_scenario):
    training = make_scenario(alice)
    response = alice_client.get(reverse("sweeps:serving", args=[training.pk]))
    assert response.status_code == 302 and response["Location"] == reverse(
        "sweeps:create", args=[training.pk]
    )
    response = alice_client.get(reverse("sweeps:create", args=[serving_scenario.pk]))
    assert response.status_code == 302 and response["Location"] == reverse(
        "sweeps:serving", args=[serving_scenario.pk]
    )
    page = alice_client.get(serving_scenario.get_absolute_url()).content.decode()
    assert reverse("sweeps:serving", args=[serving_scenario.pk]) in page


def test_the_service_refuses_what_the_form_would_refuse(alice, serving_scenario):
    gpus = list(Gpu.objects.filter(pk__in=[H100, B200]))
    too_many = serving.ServingSweepInputs(gpus, list(range(1, 34)), [1, 2, 4, 8], [10.0])  # 264 > 256
    with pytest.raises(services.SweepRefused) as refused:
        serving_services.serving_sweep_create(owner=alice, scenario=serving_scenario, inputs=too_many)
    assert refused.value.field == "rates" and "256" in refused.value.message
    assert not SweepRun.objects.exists()


def test_the_form_starts_around_the_scenario(serving_scenario):
    initial = serving.initial_for(serving_scenario)
    assert initial["gpus"] == [H100] and initial["rates"] == "10, 20" and initial["nodes"] == "1, 2"


def test_the_api_shows_the_kind_and_the_ranked_rows(alice_client, done):
    brief = alice_client.get(reverse("api_sweep_detail", args=[done.pk])).json()
    assert brief["kind"] == "serving" and brief["progress_pct"] == 100.0
    results = alice_client.get(reverse("api_sweep_results", args=[done.pk])).json()
    assert results["kind"] == "serving" and results["rows"] == done.result["rows"]


def test_an_inference_scenario_starts_a_serving_sweep_over_the_api(serving_scenario, alice):
    from tests.api.conftest import token_client

    api = token_client(alice)
    body = {"scenario": serving_scenario.pk, "gpus": [H100], "nodes": [1], "tp": [1, 2], "rates": [10, 40.5]}
    response = api.post("/api/sweeps/", body, format="json")
    assert response.status_code == 202, response.json()
    run = SweepRun.objects.get()
    assert response.json()["kind"] == "serving" and run.kind == SweepKind.SERVING
    assert run.total_configs == 4 and run.spec["rates"] == [10.0, 40.5]


API_BAD = [
    ("rate zero", {"rates": [0]}, "rates"),
    ("rate huge", {"rates": [1e12]}, "rates"),
    ("rate a word", {"rates": ["ten"]}, "rates"),
    ("rate of a huge integer", {"rates": [10**400]}, "rates"),
    ("a training field", {"precision": "bf16"}, "precision"),
    ("no GPU", {"gpus": []}, "gpus"),
    ("too many configurations", {"nodes": "1-40", "tp": [1, 2, 4, 8], "rates": [10, 20]}, "rates"),  # 320
]


@pytest.mark.parametrize(("case", "overrides", "field"), API_BAD, ids=[c[0] for c in API_BAD])
def test_bad_serving_sweeps_over_the_api_are_a_400_naming_the_field(
    serving_scenario, alice, case, overrides, field
):
    from tests.api.conftest import token_client

    body = {
        "scenario": serving_scenario.pk,
        "gpus": [H100],
        "nodes": [1],
        "tp": [1],
        "rates": [10],
        **overrides,
    }
    response = token_client(alice).post("/api/sweeps/", body, format="json")
    assert response.status_code == 400, case
    assert set(response.json()["errors"]) == {field}, (case, response.json())
    assert not SweepRun.objects.exists()


def test_serving_sweeps_count_towards_the_users_storage_limit(alice_client, alice, done):
    from django.test import override_settings

    from planner import retention

    stored = retention.user_sweep_storage_bytes(alice)
    chunks = SweepChunk.objects.filter(run=done)
    assert stored >= sum(len(json.dumps(c.pieces)) + len(json.dumps(c.summary)) for c in chunks) * 0.9
    chunks.filter(index=0).update(summary={**chunks.get(index=0).summary, "pad": "x" * 1_500_000})
    with override_settings(USER_SWEEP_STORAGE_MB=1):
        response = _post(alice_client, done.scenario)
    assert response.status_code == 400 and "over the 1 MB each user may keep" in response.content.decode()
    assert SweepRun.objects.count() == 1
