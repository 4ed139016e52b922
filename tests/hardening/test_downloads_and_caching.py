"""Downloads name non-ASCII files per RFC 6266; private pages, API answers and downloads carry
`Cache-Control: private, no-store`; public pages do not; the OpenAPI schema is built once per process."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils.cache import get_max_age

from planner.api import docs
from planner.models import Scenario
from tests.api.conftest import token_client
from tests.planner.conftest import alice_scenario, catalog  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

NAME = "Кластер «H100» 東京 — plan"


def _private(response) -> bool:
    directives = {d.strip() for d in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= directives


def test_a_non_ascii_name_downloads_with_an_rfc_6266_header(alice_client, alice_scenario):  # noqa: F811
    Scenario.objects.filter(pk=alice_scenario.pk).update(name=NAME)
    response = alice_client.get(f"/reports/scenarios/{alice_scenario.pk}/results.csv")
    assert response.status_code == 200
    header = response["Content-Disposition"]
    header.encode("latin-1")  # a header Django can send at all
    assert header.startswith("attachment; filename*=utf-8''") and "%D0%9A" in header
    assert _private(response)


def test_private_pages_and_api_answers_are_not_stored(alice_client, alice, alice_scenario):  # noqa: F811
    for url in ("/", "/scenarios/", alice_scenario.get_absolute_url(), "/accounts/"):
        assert _private(alice_client.get(url)), url
    assert _private(token_client(alice).get("/api/scenarios/"))


def test_a_share_link_page_is_not_stored(alice_client, alice_scenario):  # noqa: F811
    alice_client.post(f"/scenarios/{alice_scenario.pk}/share/")
    link = alice_scenario.share_links.get()
    response = Client().get(link.get_absolute_url())
    assert response.status_code == 200 and _private(response)


def test_public_pages_may_be_cached(db):
    for url in ("/accuracy/", "/api/schema/"):
        response = Client().get(url)
        assert not _private(response) and get_max_age(response) is None, url


def test_the_schema_is_generated_once_per_process(db, monkeypatch):
    docs._schema.cache_clear()
    docs._RENDERED.clear()
    calls = []
    real = docs.SchemaGenerator.get_schema

    def counting(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(docs.SchemaGenerator, "get_schema", counting)
    first = Client().get("/api/schema/")
    assert first.status_code == 200 and b"openapi:" in first.content
    for _ in range(3):
        again = Client().get("/api/schema/")
        assert again.content == first.content
    as_json = Client().get("/api/schema/?format=json")
    assert as_json.status_code == 200 and as_json.json()["openapi"].startswith("3")
    assert Client().get("/api/docs/").status_code == 200
    assert len(calls) == 1
