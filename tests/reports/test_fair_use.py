"""Reports under load: every ordering of the same scenarios is one report, a user has at most a few reports
waiting for workers, a report asked for while the broker is down is a 503 that keeps no row, and a report
not finished after its time limit offers "Try again", which fails it with the reason and asks anew."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from planner.reports import services
from planner.reports.models import Report, ReportKind, ReportStatus
from tests.planner.conftest import make_scenario
from tests.reports.conftest import alice_b200, alice_scenario, catalog  # noqa: F401 (fixtures)
from tests.sweeps.test_sweep_broker_down import dead_broker  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def _compare_url(ids: tuple[int, ...]) -> str:
    return "/reports/compare/report.pdf?" + "&".join(f"ids={i}" for i in ids)


@pytest.fixture
def four(alice, catalog):  # noqa: F811
    return [make_scenario(alice, name=f"plan {i}", nodes=2 + i) for i in range(4)]


def test_every_ordering_of_the_same_scenarios_is_one_report(alice_client, alice, four):
    ids = tuple(s.pk for s in four[:3])
    answers = {alice_client.get(_compare_url(order)).status_code for order in itertools.permutations(ids)}
    assert answers <= {200, 302}
    assert Report.objects.filter(owner=alice, kind=ReportKind.COMPARISON).count() == 1
    report = Report.objects.get(owner=alice)
    assert report.params["scenario_ids"] == sorted(ids)


@override_settings(REPORT_MAX_PENDING_PER_USER=2)
def test_a_user_may_have_only_a_few_reports_waiting(alice_client, alice, four):
    """The first renders (with no history) go to a worker; none runs here, so they stay pending."""
    pairs = list(itertools.combinations([s.pk for s in four], 2))
    answers = [alice_client.get(_compare_url(pair)).status_code for pair in pairs[:4]]
    assert answers == [302, 302, 429, 429]
    assert Report.objects.filter(owner=alice, status=ReportStatus.PENDING).count() == 2


def test_another_user_is_not_held_by_the_limit(alice_client, client, bob, four):
    with override_settings(REPORT_MAX_PENDING_PER_USER=1):
        alice_client.get(_compare_url((four[0].pk, four[1].pk)))
        assert alice_client.get(_compare_url((four[2].pk, four[3].pk))).status_code == 429
        theirs = [make_scenario(bob, name=f"bob {i}") for i in range(2)]
        client.force_login(bob)
        assert client.get(_compare_url(tuple(s.pk for s in theirs))).status_code == 302


def test_with_the_broker_down_a_report_is_a_503_and_keeps_no_row(alice_client, four, dead_broker):  # noqa: F811
    response = alice_client.get(_compare_url((four[0].pk, four[1].pk)))
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    assert "queue unavailable" in response.content.decode()
    assert Report.objects.count() == 0


def test_an_overdue_report_offers_try_again_which_fails_it_and_asks_anew(alice_client, alice, four):
    alice_client.get(_compare_url((four[0].pk, four[1].pk)))
    stuck = Report.objects.get()
    Report.objects.filter(pk=stuck.pk).update(
        status=ReportStatus.RUNNING, started_at=timezone.now() - timedelta(seconds=services.CLAIM_STALE_S + 5)
    )
    page = alice_client.get(stuck.get_absolute_url())
    assert 'data-testid="report-retry"' in page.content.decode()
    alice_client.post(f"/reports/{stuck.pk}/retry/")
    stuck.refresh_from_db()
    assert stuck.status == ReportStatus.FAILED and "time limit" in stuck.error
    fresh = Report.objects.exclude(pk=stuck.pk).get()
    assert fresh.status == ReportStatus.PENDING and fresh.fingerprint == stuck.fingerprint


def test_a_report_within_its_time_limit_is_not_restarted(alice_client, four):
    alice_client.get(_compare_url((four[0].pk, four[1].pk)))
    report = Report.objects.get()
    assert 'data-testid="report-retry"' not in alice_client.get(report.get_absolute_url()).content.decode()
    alice_client.post(f"/reports/{report.pk}/retry/")
    assert Report.objects.count() == 1 and Report.objects.get().status == ReportStatus.PENDING
