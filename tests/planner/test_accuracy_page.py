"""The engine-accuracy page: every shipped validation case with its error and linked source, public, and linked
from each result's time range."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from planner.accuracy import GROUPS, accuracy_page
from planner.engine.accuracy import uncertainty
from planner.engine.accuracy.validation import formula_cases, run_cases
from planner.selectors import linked_parts

pytestmark = pytest.mark.django_db


def _page(client: Client) -> str:
    response = client.get(reverse("engine_accuracy"))
    assert response.status_code == 200
    return response.content.decode()


def test_every_shipped_case_is_on_the_page_with_its_figures():
    html = _page(Client())
    cases = run_cases() + formula_cases()
    for case in cases:
        assert f'<tr data-case="{case.id}">' in html, case.id
    for key, (title, _intro) in GROUPS.items():
        assert f'id="group-{key}"' in html and title in html
    low, high, _ = uncertainty.band()
    band = html[html.index('id="accuracy-band"') :].split("</div></div>", 1)[0]
    assert f"{low:.3g}" in band and f"{high:.3g}" in band
    pythia = next(c for c in cases if c.id == "run-pythia-410m")
    row = html[html.index('<tr data-case="run-pythia-410m">') :].split("</tr>", 1)[0]
    assert f"{100 * pythia.error:.2f}\N{NO-BREAK SPACE}%" in row and "2,540" in row


def test_sources_link_their_arxiv_papers():
    html = _page(Client())
    assert '<a href="https://arxiv.org/abs/2205.05198"' in html  # Korthikanti et al. 2022
    assert '<a href="https://arxiv.org/abs/2104.04473"' in html  # Narayanan et al. 2021


def test_sources_link_arxiv_ids_and_urls_and_keep_the_text():
    text = "Dubey et al. 2024 arXiv:2407.21783 Table 4; see https://example.org/a_b."
    parts = linked_parts(text)
    assert "".join(t for t, _ in parts) == text
    assert ("arXiv:2407.21783", "https://arxiv.org/abs/2407.21783") in parts
    assert ("https://example.org/a_b", "https://example.org/a_b") in parts


def test_the_page_groups_are_the_report_s_cases():
    page = accuracy_page()
    assert sum(len(g.rows) for g in page.groups) == len(page.report.cases)
    assert [g.key for g in page.groups] == [k for k in GROUPS if any(g.key == k for g in page.groups)]


def test_it_only_answers_get():
    assert Client().post(reverse("engine_accuracy")).status_code == 405


def test_each_result_links_its_time_range_to_the_page(client, alice, alice_scenario):
    client.force_login(alice)
    html = client.get(alice_scenario.get_absolute_url()).content.decode()
    headline = html[html.index('data-kpi="days"') :].split("</div></div>", 1)[0]
    assert f'<a href="{reverse("engine_accuracy")}"' in headline


def test_the_page_shows_the_leave_one_out_figures():
    html = _page(Client())
    page = accuracy_page()
    loo = {c.id: c for c in uncertainty.loo_cases()}
    row = html[html.index('<tr data-case="run-bloom-176b">') :].split("</tr>", 1)[0]
    assert "data-loo" in row
    bloom = next(r for g in page.groups for r in g.rows if r.case.id == "run-bloom-176b")
    assert bloom.loo_engine == loo["run-bloom-176b"].engine_leave_one_out
    assert f"{100 * bloom.loo_error:.2f}" in row
    kpi = html[html.index('id="accuracy-loo"') :].split("</div></div>", 1)[0]
    inside, total = page.report.loo_whole_runs_inside
    assert f"whole runs inside their range {inside} of {total}" in kpi
    assert 'id="group-holdout"' in html
