"""The OpenAPI document: valid OpenAPI 3, every answer's shape declared, and the API fuzzed against it with
schemathesis (bounded, fixed seed): no 500 and every response matches the schema."""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.validation import validate_schema
from hypothesis import HealthCheck, Phase, given, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from catalog.tables import CATALOG_TABLES
from tests.api.conftest import make_gpu
from tests.planner.conftest import load_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Schemathesis calls the real WSGI handler, whose request signals close "old" database connections: on
    PostgreSQL that closes the test's transaction (Django's test client disconnects them the same way)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


SCHEMA_URL = "/api/schema/"
#: Examples per operation and generation mode: enough to reach every validation branch of a flat catalog row
#: or the estimate body's top-level keys, small enough to keep the suite under a minute.
EXAMPLES_PER_OPERATION = 25
#: The estimate endpoint has the richest input; it gets more.
EXAMPLES_FOR_ESTIMATE = 50
FUZZ_CHECKS = [not_a_server_error, response_schema_conformance]
CATALOG_ENDPOINTS = list(CATALOG_TABLES)


def test_the_schema_is_valid_openapi_3_and_public(anon_api):
    response = anon_api.get(SCHEMA_URL, HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    validate_schema(document)  # raises on any violation of the OpenAPI 3 meta-schema
    assert "/api/estimate/" in document["paths"] and "/api/token/" in document["paths"]
    assert "/api/catalog/gpus/{id}/" in document["paths"]
    assert {"tokenAuth", "cookieAuth"} <= set(document["components"]["securitySchemes"])


def test_every_operation_declares_the_shape_of_its_answers(anon_api):
    document = anon_api.get(SCHEMA_URL, HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            success = [code for code in responses if code.startswith("2")]
            assert success, f"{method} {path} declares no success answer"
            for code in success:
                if code != "204":
                    assert "application/json" in responses[code]["content"], f"{method} {path} {code}"
            if method in {"post", "put", "patch"}:
                assert "400" in responses and "content" in responses["400"], f"{method} {path} lacks 400"
            if path != "/api/token/":
                assert {"401", "403"} <= set(responses), f"{method} {path} lacks 401/403"


def test_schemathesis_loads_the_schema_from_the_wsgi_app():
    schema = schemathesis.openapi.from_wsgi(SCHEMA_URL, get_wsgi_application())
    labels = {result.ok().label for result in schema.get_all_operations()}
    assert "POST /api/estimate/" in labels
    assert "PATCH /api/catalog/gpus/{id}/" in labels
    assert len(labels) >= 40


def has_body(operation: Any) -> bool:
    return bool(len(operation.body))


def _fuzz(
    operation: Any, mode: GenerationMode, headers: dict[str, str], examples: int, seen: Counter
) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=examples,
        derandomize=True,  # a fixed seed: the same examples on every run and on CI
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        seen[operation.label] += 1
        case.call_and_validate(headers=headers, checks=FUZZ_CHECKS)

    run()


#: Fuzzed in groups (by path prefix) so that pytest-xdist spreads them over its workers.
FUZZ_GROUPS = [f"/api/catalog/{name}/" for name in CATALOG_ENDPOINTS] + [
    "/api/estimate/",
    "/api/token/",
    "/api/scenarios/",
    "/api/sweeps/",
]


@pytest.mark.parametrize("prefix", FUZZ_GROUPS)
def test_fuzzing_the_api_finds_no_server_error_and_no_answer_off_schema(staff, prefix):
    """Staff's token, so writes reach validation and succeed; positive examples for every operation and
    negative (schema-violating) examples for every operation that takes a body."""
    load_catalog()  # the scenario form's defaults name catalog rows
    make_gpu(id="a")  # an id the generated retrieve/update/delete examples can hit besides absent ones
    schema = schemathesis.openapi.from_wsgi(SCHEMA_URL, get_wsgi_application())
    headers = {"Authorization": f"Token {Token.objects.create(user=staff).key}"}
    seen: Counter = Counter()
    operations = [r.ok() for r in schema.get_all_operations() if r.ok().path.startswith(prefix)]
    assert operations, f"no operation under {prefix}"
    for operation in operations:
        examples = EXAMPLES_FOR_ESTIMATE if operation.path == "/api/estimate/" else EXAMPLES_PER_OPERATION
        _fuzz(operation, GenerationMode.POSITIVE, headers, examples, seen)
        if has_body(operation):  # invalid ids in paths are covered by the positive examples' 404s
            _fuzz(operation, GenerationMode.NEGATIVE, headers, examples, seen)
    assert all(seen[op.label] >= EXAMPLES_PER_OPERATION for op in operations), seen
    if os.environ.get("PLANNER_PRINT_FUZZ_COUNTS"):  # for the closing note; passing tests print nothing
        print(f"FUZZ {prefix} {sum(seen.values())} examples over {len(operations)} operations")


def test_the_docs_page_lists_every_operation_with_only_our_own_scripts(anon_api):
    response = anon_api.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    for method, path in (
        ("POST", "/api/estimate/"),
        ("POST", "/api/token/"),
        ("PATCH", "/api/catalog/gpus/{id}/"),
    ):
        assert f'method-{method.lower()}">{method}</span> <code>{path}</code>' in html, (method, path)
    assert "GPT-3 175B on 128 H100" in html  # the contract example is shown
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and all(re.search(r'src="/static/[^"]+\.js"', tag) for tag in scripts), scripts
    assert "//cdn" not in html and "https://unpkg" not in html
