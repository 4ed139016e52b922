"""Sweep pages: ownership on every URL, the form (list/range parsing, errors, limits), the progress JSON, cancel,
the results page and "open as scenario"."""

from __future__ import annotations

import json
import re

import pytest
from django.test import override_settings
from django.urls import reverse

from planner.models import Scenario
from planner.sweeps import services
from planner.sweeps.models import SweepRun, SweepStatus
from tests.sweeps.conftest import A100, H100

pytestmark = pytest.mark.django_db

FORM = {
    "name": "Which GPU for the 8B run",
    "gpus": [H100, A100],
    "nodes": "2-4 step 2",
    "precision": "bf16",
    "virtual_stages": "1",
    "cp": "1, 2",
    "micro_batch": "1, 2, 4",
    "objective": "min_time",
    "deadline_days": "400",
}


def _post_form(client, scenario, **overrides):
    data = {**FORM, **overrides}
    with override_settings(SWEEP_CHUNK_CONFIGS=2000):
        return client.post(reverse("sweeps:create", args=[scenario.pk]), data)


@pytest.fixture
def done_run(alice_client, alice_scenario, eager, django_capture_on_commit_callbacks) -> SweepRun:
    with django_capture_on_commit_callbacks(execute=True):
        response = _post_form(alice_client, alice_scenario)
    assert response.status_code == 302, response.content.decode()[:2000]
    return SweepRun.objects.get()


@pytest.fixture
def pending_run(alice_client, alice_scenario) -> SweepRun:
    response = _post_form(alice_client, alice_scenario)
    assert response.status_code == 302
    return SweepRun.objects.get()


def _urls(run: SweepRun) -> list[tuple[str, str]]:
    return [
        ("get", reverse("sweeps:detail", args=[run.pk])),
        ("get", reverse("sweeps:status", args=[run.pk])),
        ("get", reverse("sweeps:create", args=[run.scenario_id])),
        ("post", reverse("sweeps:cancel", args=[run.pk])),
        ("post", reverse("sweeps:resume", args=[run.pk])),
        ("post", reverse("sweeps:open", args=[run.pk])),
    ]


def test_every_sweep_url_is_the_owners_only(client, alice, bob, pending_run):
    client.force_login(bob)
    for method, url in _urls(pending_run):
        assert getattr(client, method)(url).status_code == 404, url
    assert SweepRun.objects.get().status == SweepStatus.PENDING  # bob's cancel did nothing
    client.logout()
    for method, url in [*_urls(pending_run), ("get", reverse("sweeps:list"))]:
        response = getattr(client, method)(url)
        assert response.status_code == 302 and response.url.startswith(reverse("login")), url
    client.force_login(alice)
    for method, url in [("get", reverse("sweeps:list")), *_urls(pending_run)[:3]]:
        assert getattr(client, method)(url).status_code == 200, url


def test_another_users_sweeps_are_not_listed(client, bob, pending_run):
    client.force_login(bob)
    assert pending_run.name not in client.get(reverse("sweeps:list")).content.decode()


def test_the_list_page_runs_a_fixed_number_of_queries(
    alice_client, alice, alice_scenario, django_assert_max_num_queries
):
    spec_run = dict(owner=alice, scenario=alice_scenario, spec={"gpus": []}, engine_version="x")
    SweepRun.objects.create(name="one", **spec_run)
    with django_assert_max_num_queries(4) as one:
        alice_client.get(reverse("sweeps:list"))
    SweepRun.objects.bulk_create([SweepRun(name=f"run {i}", **spec_run) for i in range(10)])
    with django_assert_max_num_queries(len(one.captured_queries)):
        response = alice_client.get(reverse("sweeps:list"))
    assert response.content.decode().count("/sweeps/") >= 11


def test_the_form_starts_a_sweep_and_redirects_to_its_page(alice_client, alice_scenario):
    response = _post_form(alice_client, alice_scenario)
    run = SweepRun.objects.get()
    assert response.status_code == 302 and response.url == run.get_absolute_url()
    assert run.spec["nodes"] == [2, 4] and run.spec["constraints"] == {"days_max": 400.0}
    assert run.spec["space"] == {"cp": [1, 2], "virtual_stages": [1], "micro_batch": [1, 2, 4]}
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="sweep-progress"' in page and 'id="sweep-status-data"' in page and "Cancel the sweep" in page
    assert not re.search(r"<script(?![^>]*(?:application/json|src=))", page)  # no inline scripts


@pytest.mark.parametrize(
    ("overrides", "field", "text"),
    [
        ({"nodes": "eight"}, "nodes", "is not a node count"),
        ({"nodes": "64-8"}, "nodes", "must go up"),
        ({"tp": "1, two"}, "tp", "whole numbers"),
        ({"zero_stage": "4"}, "zero_stage", "between 0 and 3"),
        ({"gpus": []}, "gpus", "required"),
        ({"precision": "fp8"}, "precision", "A100 SXM4 80GB"),
        ({"gpus": [H100, "google_tpu_v5p"]}, "gpus", "no node price"),
    ],
)
def test_bad_input_names_the_field_and_saves_nothing(alice_client, alice_scenario, overrides, field, text):
    response = _post_form(alice_client, alice_scenario, **overrides)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert any(text in e for e in errors.get(field, [])), errors
    assert not SweepRun.objects.exists()


def test_a_sweep_too_large_is_refused_on_the_form(alice_client, alice_scenario):
    with override_settings(SWEEP_MAX_CONFIGS=500):
        response = _post_form(alice_client, alice_scenario)
    assert response.status_code == 400
    text = " ".join(response.context["form"].errors["nodes"])
    assert "limit is 500" in text and "Narrow it" in text
    assert not SweepRun.objects.exists()


def test_a_non_training_scenario_cannot_be_swept(alice_client, alice, catalog):
    from tests.sweeps.conftest import make_scenario

    scenario = make_scenario(alice, workload_kind="job", job_single_gpu_hours=10.0, job_parallel_fraction=0.9)
    response = _post_form(alice_client, scenario)
    assert response.status_code == 400 and "training scenarios only" in response.content.decode()


def test_the_status_endpoint_reads_the_run_row(alice_client, pending_run):
    data = alice_client.get(reverse("sweeps:status", args=[pending_run.pk])).json()
    assert data["status"] == "pending" and data["active"] is True and data["percent"] == 0.0
    assert (
        data["total_configs"] == pending_run.total_configs
        and data["chunks_total"] == pending_run.chunks_total
    )
    services.sweep_chunk_run(run_id=pending_run.pk, index=0)
    data = alice_client.get(reverse("sweeps:status", args=[pending_run.pk])).json()
    assert data["status"] == "running" and 0 < data["percent"] < 100 and data["chunks_done"] == 1
    assert data["configs_per_s"] > 0 and data["eta_s"] is not None and data["text"]["eta"] != "—"


def test_cancel_is_a_post_that_stops_the_sweep(alice_client, pending_run):
    url = reverse("sweeps:cancel", args=[pending_run.pk])
    assert alice_client.get(url).status_code == 405
    response = alice_client.post(url)
    assert response.status_code == 302
    pending_run.refresh_from_db()
    assert pending_run.status == SweepStatus.CANCELLED
    assert "Cancel the sweep" not in alice_client.get(pending_run.get_absolute_url()).content.decode()


def test_the_results_page_shows_the_pareto_chart_tables_and_summaries(alice_client, done_run):
    response = alice_client.get(done_run.get_absolute_url())
    page = response.content.decode()
    assert done_run.status == SweepStatus.DONE
    assert 'data-chart="pareto"' in page and 'id="sweep-chart-data"' in page
    chart = json.loads(re.search(r'id="sweep-chart-data"[^>]*>(.*?)</script>', page, re.S)[1])
    names = [trace["name"] for trace in chart["figure"]["data"]]
    assert names == ["A100 SXM4 80GB", "H100 SXM5 80GB", "Pareto front"]  # catalog order
    assert chart["figure"]["layout"]["xaxis"]["title"]["text"] == "Training time (days)"
    assert "USD" in chart["figure"]["layout"]["yaxis"]["title"]["text"]
    for heading in (
        "Shortest training time",
        "Lowest total cost of ownership",
        "Per GPU model",
        "Open as scenario",
    ):
        assert heading in page
    best = done_run.result["best"]["min_time"][0]
    assert f"{best['nodes']:,}" in page


def test_open_as_scenario_creates_the_copy_and_redirects_to_it(alice_client, done_run):
    row = done_run.result["best"]["min_tco"][0]
    response = alice_client.post(
        reverse("sweeps:open", args=[done_run.pk]), {"chunk": row["chunk"], "row": row["row"]}
    )
    scenario = Scenario.objects.exclude(pk=done_run.scenario_id).get()
    assert response.status_code == 302 and response.url == scenario.get_absolute_url()
    assert scenario.latest_result.output["time"]["days"] == pytest.approx(row["days"], rel=1e-12)


def test_open_as_scenario_with_a_bad_row_says_so(alice_client, done_run):
    response = alice_client.post(
        reverse("sweeps:open", args=[done_run.pk]), {"chunk": 0, "row": "x"}, follow=True
    )
    assert "Pick a configuration" in response.content.decode()
    response = alice_client.post(
        reverse("sweeps:open", args=[done_run.pk]), {"chunk": 999, "row": 0}, follow=True
    )
    assert "not among the sweep" in response.content.decode()
