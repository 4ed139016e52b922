"""/api/docs/ is a page people can use: estimate and scenarios first, a table of contents, a copyable curl
command and Python snippet for every operation, and descriptions written for readers (no class docstrings)."""

from __future__ import annotations

import inspect
import json
import re
import shlex

import pytest
from drf_spectacular.generators import SchemaGenerator

import planner.api
from planner.api import docs

pytestmark = pytest.mark.django_db


@pytest.fixture
def page_html(anon_api) -> str:
    response = anon_api.get("/api/docs/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _api_class_docstrings() -> set[str]:
    """Docstrings of every class defined in planner.api (what drf-spectacular would publish if a view had none)."""
    found = set()
    for name in ("base", "catalog", "estimate", "scenarios", "sweeps", "token", "docs", "errors", "parsers"):
        module = __import__(f"planner.api.{name}", fromlist=["_"])
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__.startswith(planner.api.__name__) and inspect.getdoc(cls):
                found.add(inspect.getdoc(cls))
    return found


def test_estimate_and_scenarios_come_first_and_the_catalog_last(page_html):
    positions = {
        tag: page_html.index(f'id="tag-{tag}"') for tag in ("estimate", "scenarios", "sweeps", "catalog")
    }
    assert positions["estimate"] < positions["scenarios"] < positions["sweeps"] < positions["catalog"]
    assert page_html.index('id="getting-started"') < positions["estimate"]


def test_the_contents_link_every_operation_people_start_with(page_html, schema):
    toc = page_html[page_html.index('class="panel api-toc"') : page_html.index('id="getting-started"')]
    for path, item in schema["paths"].items():
        for method in item:
            anchor = docs._anchor(method, path)
            assert f'id="{anchor}"' in page_html, anchor
            if not path.startswith("/api/catalog/"):
                assert f'href="#{anchor}"' in toc, anchor
    assert 'href="#tag-catalog"' in toc


def test_every_operation_has_a_curl_command_and_a_python_snippet_that_parse(schema):
    ops = docs.operations(schema, "http://testserver")
    assert len(ops) == sum(len(item) for item in schema["paths"].values())
    for op in ops:
        words = shlex.split(op.curl.replace("\\\n", " "))
        assert words[:4] == ["curl", "-s", "-X", op.method] and words[4].startswith("http://testserver/api/")
        assert "{" not in words[4], words[4]  # path parameters filled in
        if "-d" in words:
            json.loads(words[words.index("-d") + 1])
        assert ("Authorization: Token $PLANNER_TOKEN" in words) is not op.public
        compile(op.python, f"<{op.method} {op.path}>", "exec")
        assert f"requests.{op.method.lower()}(" in op.python


def test_descriptions_are_for_readers_not_class_docstrings(page_html, schema):
    docstrings = _api_class_docstrings()
    assert not any("Mix into" in d for d in docstrings)  # the base mixin explains itself in a comment
    for path, item in schema["paths"].items():
        for method, op in item.items():
            description = op.get("description", "")
            assert description, (method, path)
            assert description not in docstrings, (method, path, description)
    assert "Mix into" not in page_html


def test_catalog_operations_start_folded_and_the_rest_open(page_html):
    assert re.search(r'<details class="panel api-op" id="post-api-estimate" open>', page_html)
    assert re.search(r'<details class="panel api-op" id="get-api-catalog-gpus">', page_html)


def test_the_first_call_the_page_shows_works(alice_api):
    from tests.planner.conftest import load_catalog

    load_catalog()
    response = alice_api.post("/api/estimate/", docs.GETTING_STARTED_BODY, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["cost"]["tco_usd"] > 0  # an empty economics object, priced from the catalog
