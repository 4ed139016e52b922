"""Cached fragments are keyed on what renders them (planner/fragments.py): the template, the templates it includes
and the URLconf; the results page's scenario is cached per row state and a changed row is read again."""

from __future__ import annotations

from django.test import override_settings

from planner import fragments, selectors, services
from tests.planner.conftest import make_scenario


def _templates(tmp_path):
    return override_settings(
        DEBUG=True,  # read the sources on every call, as the development server does
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}],
    )


def test_the_key_changes_with_an_included_template_and_only_with_a_source(tmp_path):
    (tmp_path / "page.html").write_text('<p>{% include "part.html" %}</p>')
    (tmp_path / "part.html").write_text("one")
    (tmp_path / "other.html").write_text("not included")
    with _templates(tmp_path):
        first = fragments.source_key("page.html")
        assert [p.name for p in fragments.template_files("page.html")] == ["page.html", "part.html"]
        (tmp_path / "other.html").write_text("changed, but not part of the fragment")
        assert fragments.source_key("page.html") == first
        (tmp_path / "part.html").write_text("two")
        assert fragments.source_key("page.html") != first


def test_the_key_covers_the_urlconf_and_the_modules_named():
    names = {path.name for path in fragments.urlconf_files()}
    assert "urls.py" in names and len(fragments.urlconf_files()) >= 4
    plain = fragments.source_key(selectors.RESULT_SECTION_TEMPLATE)
    with_modules = fragments.source_key(selectors.RESULT_SECTION_TEMPLATE, selectors.RESULT_SECTION_MODULES)
    assert plain != with_modules and len(with_modules) == fragments.KEY_CHARS


def test_a_renamed_scenario_shows_its_new_name_on_the_next_view(client, alice, catalog):
    scenario = make_scenario(alice)
    client.force_login(alice)
    url = scenario.get_absolute_url()
    assert scenario.name in client.get(url).content.decode()
    scenario.name = "Renamed plan"
    scenario.save()
    assert "Renamed plan" in client.get(url).content.decode()


def test_a_new_result_and_a_revoked_share_link_show_on_the_next_view(client, alice, catalog):
    scenario = make_scenario(alice)
    client.force_login(alice)
    url = scenario.get_absolute_url()
    link = services.share_link_create(scenario=scenario)
    assert 'data-testid="share-link"' in client.get(url).content.decode()
    services.share_link_revoke(link=link)
    services.scenario_reevaluate(scenario=scenario)
    scenario.refresh_from_db()
    html = client.get(url).content.decode()
    assert 'data-testid="share-link"' not in html and "Earlier results" in html


def test_an_id_past_the_database_range_is_a_404(client, alice, catalog):
    client.force_login(alice)
    assert client.get(f"/scenarios/{2**70}/").status_code == 404
