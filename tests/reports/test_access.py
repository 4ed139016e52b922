"""Exports obey the pages' ownership rules: another user gets 404 for every export, anonymous is sent to log in."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from planner.reports.models import Report, ReportKind, ReportStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_report(alice, alice_scenario) -> Report:
    return Report.objects.create(
        owner=alice,
        kind=ReportKind.SCENARIO,
        params={"scenario_id": alice_scenario.pk},
        fingerprint="alice-report",
        title="Alice's report",
        status=ReportStatus.DONE,
        pdf=b"%PDF-1.7 alice",
        filename="alice.pdf",
    )


@pytest.fixture
def export_urls(alice_scenario, alice_b200, alice_sweep, alice_report) -> list[tuple[str, str]]:
    s, ids = alice_scenario.pk, f"?ids={alice_scenario.pk}&ids={alice_b200.pk}"
    return [
        ("get", reverse("reports:scenario_pdf", args=[s])),
        ("get", reverse("reports:scenario_metrics_csv", args=[s])),
        ("get", reverse("reports:scenario_bom_csv", args=[s])),
        ("get", reverse("reports:scenario_tco_csv", args=[s])),
        ("get", reverse("reports:scenario_sensitivity_csv", args=[s])),
        ("get", reverse("reports:comparison_pdf") + ids),
        ("get", reverse("reports:comparison_csv") + ids),
        ("get", reverse("reports:sweep_pdf", args=[alice_sweep.pk])),
        ("get", reverse("reports:sweep_csv", args=[alice_sweep.pk])),
        ("get", reverse("reports:report_detail", args=[alice_report.pk])),
        ("get", reverse("reports:report_download", args=[alice_report.pk])),
        ("post", reverse("reports:report_retry", args=[alice_report.pk])),
    ]


def test_another_user_gets_404_for_every_export(client, bob, export_urls):
    client.force_login(bob)
    for method, url in export_urls:
        response = getattr(client, method)(url)
        assert response.status_code == 404, url
    assert Report.objects.filter(owner=bob).count() == 0


def test_a_comparison_with_one_foreign_scenario_is_a_404(client, bob, alice_scenario, catalog):
    from tests.planner.conftest import make_scenario

    mine = make_scenario(bob, name="Bob's plan")
    client.force_login(bob)
    ids = f"?ids={mine.pk}&ids={alice_scenario.pk}"
    assert client.get(reverse("reports:comparison_csv") + ids).status_code == 404
    assert client.get(reverse("reports:comparison_pdf") + ids).status_code == 404


def test_anonymous_is_sent_to_log_in_for_every_export(client, export_urls):
    login = reverse(settings.LOGIN_URL)
    for method, url in [*export_urls, ("get", reverse("reports:catalog_csv", args=["gpus"]))]:
        response = getattr(client, method)(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(login), url


def test_the_owner_downloads_a_ready_report(client, alice, alice_report):
    client.force_login(alice)
    response = client.get(reverse("reports:report_download", args=[alice_report.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content == b"%PDF-1.7 alice"
    assert 'filename="alice.pdf"' in response["Content-Disposition"]


def test_a_comparison_of_one_scenario_is_a_400_naming_the_field(client, alice, alice_scenario):
    client.force_login(alice)
    response = client.get(reverse("reports:comparison_csv") + f"?ids={alice_scenario.pk}")
    assert response.status_code == 400
    assert b"Choose 2 to 4 scenarios" in response.content and b"ids" in response.content


def test_the_export_links_partial_links_every_export_of_a_page(alice_scenario, alice_b200, alice_sweep):
    from django.template.loader import render_to_string

    html = render_to_string("reports/_export_links.html", {"scenario": alice_scenario})
    for name in (
        "scenario_pdf",
        "scenario_metrics_csv",
        "scenario_bom_csv",
        "scenario_tco_csv",
        "scenario_sensitivity_csv",
    ):
        assert reverse(f"reports:{name}", args=[alice_scenario.pk]) in html
    html = render_to_string("reports/_export_links.html", {"compare_scenarios": [alice_scenario, alice_b200]})
    assert f"{reverse('reports:comparison_pdf')}?ids={alice_scenario.pk}&amp;ids={alice_b200.pk}" in html
    html = render_to_string("reports/_export_links.html", {"sweep": alice_sweep})
    assert reverse("reports:sweep_pdf", args=[alice_sweep.pk]) in html
    assert reverse("reports:sweep_csv", args=[alice_sweep.pk]) in html
    html = render_to_string("reports/_export_links.html", {"catalog_table": "gpus"})
    assert reverse("reports:catalog_csv", args=["gpus"]) in html
