"""The fleet page: editable tables -> a saved plan (owner only) -> solved in the request or on Celery with progress
-> results, CSV and PDF exports; bad cells come back on the cell with the engine's message."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from planner.celery import app
from planner.fleets.models import FleetPlan, FleetStatus
from planner.fleets.services import needs_worker, plan_create

pytestmark = pytest.mark.django_db

SERVICES_ONLY: dict[str, Any] = {
    "horizon": {"periods": 4, "period": "quarter", "start": "2027-Q1"},
    "pools": [{"id": "a100", "gpu": "nvidia_a100_sxm4_80gb", "gpus_per_node": 8, "mig": True}],
    "teams": [{"id": "product"}],
    "workloads": [
        {
            "id": "embed",
            "team": "product",
            "kind": "service",
            "gpu_memory_gib": 8,
            "gpu_share": 0.125,
            "replicas": 14,
        },
        {
            "id": "api",
            "team": "product",
            "kind": "service",
            "gpu_memory_gib": 60,
            "gpu_share": 1,
            "replicas": [8, 16, 24, 32],
        },
    ],
    "economics": {"discount_rate": 0.08},
}


@pytest.fixture
def alice(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("alice", password="pw-alice-123456")


@pytest.fixture
def client_alice(alice: Any) -> Client:
    c = Client()
    c.force_login(alice)
    return c


@pytest.fixture
def eager() -> Iterator[None]:
    """Celery in eager mode, the fleet task registered as a worker's autodiscovery registers it."""
    import planner.fleets.tasks  # noqa: F401

    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = before


def form_data(client: Client, url: str) -> dict[str, str]:
    """The form as the page renders it (every field with its initial value), for a POST."""
    from html.parser import HTMLParser

    data: dict[str, str] = {}

    class Parser(HTMLParser):
        select: str | None = None
        first: bool = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            a = dict(attrs)
            name = a.get("name")
            if tag == "input" and name and name != "csrfmiddlewaretoken":
                if a.get("type") == "checkbox":
                    if "checked" in a:
                        data[name] = "on"
                else:
                    data[name] = a.get("value") or ""
            elif tag == "select" and name:
                self.select, self.first = name, True
            elif tag == "option" and self.select:
                if self.first or "selected" in a:  # a browser sends the first option unless one is selected
                    data[self.select] = a.get("value") or ""
                self.first = False

        def handle_endtag(self, tag: str) -> None:
            if tag == "select":
                self.select = None

    Parser().feed(client.get(url).content.decode())
    return data


def test_a_new_plan_starts_from_the_example_and_saves_it(client_alice: Client, alice: Any) -> None:
    data = form_data(client_alice, reverse("fleets:create"))
    assert data["pools-0-pool_id"] == "h100" and data["pools-0-sharing"] == "mig"
    assert data["workloads-1-demand"] == "5, 10, 20, 40, 40, 60, 80, 80"
    data["name"] = "Example fleet"
    response = client_alice.post(reverse("fleets:create"), {**data, "save": "1"})
    assert response.status_code == 302
    plan = FleetPlan.objects.get(owner=alice)
    assert plan.name == "Example fleet" and plan.status == FleetStatus.DRAFT
    assert [p["id"] for p in plan.payload["pools"]] == ["h100", "b200", "l40s"]
    assert plan.payload["workloads"][1]["requests_per_s"] == [5, 10, 20, 40, 40, 60, 80, 80]
    assert plan.payload["teams"][1]["max_gpus"] == {"h100": 64}
    assert needs_worker(plan.payload)


def test_a_bad_cell_comes_back_on_that_cell(client_alice: Client, alice: Any) -> None:
    data = form_data(client_alice, reverse("fleets:create"))
    data["workloads-0-deadline_period"] = "0"
    data["workloads-0-start_period"] = "2"
    data["workloads-2-demand"] = "1, 2"
    response = client_alice.post(reverse("fleets:create"), {**data, "save": "1"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "must not be before start_period (got 0 &lt; 2)" in page
    assert "must have one value per period (8), got 2" in page
    assert not FleetPlan.objects.filter(owner=alice).exists()


def test_a_quick_plan_is_solved_in_the_request_and_shows_its_results(
    client_alice: Client, alice: Any
) -> None:
    plan = plan_create(owner=alice, name="Services", payload=SERVICES_ONLY)
    assert not needs_worker(plan.payload)
    response = client_alice.post(reverse("fleets:solve", args=[plan.pk]))
    assert response.status_code == 302
    plan.refresh_from_db()
    assert plan.status == FleetStatus.DONE and plan.result["feasible"]
    page = client_alice.get(plan.get_absolute_url()).content.decode()
    for marker in (
        'id="purchases-table"',
        'data-chart="purchases"',
        'data-chart="pool-a100"',
        'data-chart="cost"',
        "1g.10gb",
    ):
        assert marker in page
    bought = [p["period"] for p in plan.result["purchases"]]
    assert len(set(bought)) > 1  # the growing service is bought for in steps
    rows = list(
        csv.DictReader(
            io.StringIO(client_alice.get(reverse("fleets:csv", args=[plan.pk, "purchases"])).content.decode())
        )
    )
    assert [int(r["period"]) for r in rows] == bought
    assert rows[0]["catalog_gpu"] == "nvidia_a100_sxm4_80gb" and float(rows[0]["capex_usd"]) > 0
    charge = client_alice.get(reverse("fleets:csv", args=[plan.pk, "chargeback"])).content.decode()
    assert charge.startswith("team,gpu_hours,usd")
    pdf = client_alice.get(reverse("fleets:pdf", args=[plan.pk]))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_a_slow_plan_is_solved_on_celery_with_progress(
    client_alice: Client, alice: Any, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    payload = {
        **SERVICES_ONLY,
        "workloads": SERVICES_ONLY["workloads"]
        + [
            {
                "id": "chat",
                "kind": "inference",
                "model": "llama3.1-8b",
                "requests_per_s": [2, 4, 6, 8],
                "input_tokens": 500,
                "output_tokens": 100,
                "max_ttft_s": 1,
                "max_tpot_s": 0.05,
            }
        ],
    }
    plan = plan_create(owner=alice, name="With a model", payload=payload)
    assert needs_worker(plan.payload)
    with django_capture_on_commit_callbacks(execute=True) as queued:
        client_alice.post(reverse("fleets:solve", args=[plan.pk]))
    assert len(queued) == 1  # published when the request's transaction commits
    plan.refresh_from_db()
    assert plan.status == FleetStatus.DONE and plan.progress == 1.0 and plan.phase == "done"
    status = client_alice.get(reverse("fleets:status", args=[plan.pk])).json()
    assert status["done"] and status["status"] == "done"
    assert any(p["workload"] == "chat" for p in plan.result["placements"])


def test_another_users_plan_is_a_404(client_alice: Client, django_user_model: Any) -> None:
    bob = django_user_model.objects.create_user("bob", password="pw-bob-1234567")
    plan = plan_create(owner=bob, name="Bob's", payload=SERVICES_ONLY)
    for url in (
        plan.get_absolute_url(),
        reverse("fleets:edit", args=[plan.pk]),
        reverse("fleets:status", args=[plan.pk]),
        reverse("fleets:pdf", args=[plan.pk]),
    ):
        assert client_alice.get(url).status_code == 404
    assert client_alice.post(reverse("fleets:solve", args=[plan.pk])).status_code == 404
    assert "Bob" not in client_alice.get(reverse("fleets:list")).content.decode()


def test_editing_the_input_resets_the_answer(client_alice: Client, alice: Any) -> None:
    plan = plan_create(owner=alice, name="Services", payload=SERVICES_ONLY)
    client_alice.post(reverse("fleets:solve", args=[plan.pk]))
    data = form_data(client_alice, reverse("fleets:edit", args=[plan.pk]))
    data["workloads-0-demand"] = "7"
    response = client_alice.post(reverse("fleets:edit", args=[plan.pk]), {**data, "save": "1"})
    assert response.status_code == 302
    plan.refresh_from_db()
    assert plan.status == FleetStatus.DRAFT and plan.result is None
    assert plan.payload["workloads"][0]["replicas"] == 7


def test_solved_plans_compare_side_by_side_and_only_ones_own(
    client_alice: Client, alice: Any, django_user_model: Any
) -> None:
    cheap = plan_create(owner=alice, name="Small", payload=SERVICES_ONLY)
    bigger = {
        **SERVICES_ONLY,
        "workloads": [{**w, "replicas": 40} if w["id"] == "api" else w for w in SERVICES_ONLY["workloads"]],
    }
    big = plan_create(owner=alice, name="Big", payload=bigger)
    bob = django_user_model.objects.create_user("bob", password="pw-bob-1234567")
    bobs = plan_create(owner=bob, name="Bob's plan", payload=SERVICES_ONLY)
    for plan in (cheap, big):
        client_alice.post(reverse("fleets:solve", args=[plan.pk]))
    url = reverse("fleets:compare") + f"?ids={cheap.pk}&ids={big.pk}&ids={bobs.pk}"
    page = client_alice.get(url).content.decode()
    assert "Small" in page and "Big" in page and "Bob" not in page
    cheap.refresh_from_db()
    big.refresh_from_db()
    assert (
        f"{cheap.result['cost']['capex_usd']:,.0f}" in page
        and f"{big.result['cost']['capex_usd']:,.0f}" in page
    )
    assert big.result["cost"]["capex_usd"] > cheap.result["cost"]["capex_usd"]
    assert 'data-chart="totals"' in page and 'data-chart="per-period"' in page


def test_a_read_only_link_shows_the_results_to_anyone_until_revoked(client_alice: Client, alice: Any) -> None:
    plan = plan_create(owner=alice, name="Services", payload=SERVICES_ONLY)
    client_alice.post(reverse("fleets:solve", args=[plan.pk]))
    client_alice.post(reverse("fleets:share_create", args=[plan.pk]))
    link = plan.share_links.get()
    anonymous = Client()
    page = anonymous.get(link.get_absolute_url())
    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="purchases-table"' in body and "read-only" in body
    assert reverse("fleets:edit", args=[plan.pk]) not in body and "data-status-url" not in body
    assert anonymous.get(reverse("fleets:csv", args=[plan.pk, "purchases"])).status_code == 302  # to sign in
    client_alice.post(reverse("fleets:share_revoke", args=[plan.pk]))
    assert anonymous.get(link.get_absolute_url()).status_code == 404
