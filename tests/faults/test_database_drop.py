"""A PostgreSQL connection killed under a request (pg_terminate_backend from another connection) is answered
with a clean 503 and Retry-After, never a 500; the next request reconnects and succeeds."""

from __future__ import annotations

import os

import psycopg
import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from tests.api.conftest import token_client
from tests.conftest import require_service
from tests.sweeps.conftest import load_catalog, make_scenario

pytestmark = pytest.mark.django_db(transaction=True)

DB_MIDDLEWARE = "planner.middleware_db.DatabaseUnavailableMiddleware"


@pytest.fixture
def postgres() -> None:
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        require_service("PostgreSQL", "DATABASE_URL does not name a PostgreSQL database")


def _terminate_this_connection() -> None:
    """Kill the test's own backend from a second connection, as a restart or a failover would."""
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as killer:
        assert killer.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]


def test_the_api_answers_503_when_its_connection_drops_then_recovers(postgres, alice):
    api = token_client(alice)
    assert api.get("/api/scenarios/").status_code == 200
    _terminate_this_connection()
    response = api.get("/api/scenarios/")
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    assert response.json()["detail"].startswith("database unavailable")
    assert api.get("/api/scenarios/").status_code == 200


def test_a_page_answers_503_when_its_connection_drops_then_recovers(postgres, alice, client, settings):
    load_catalog()
    scenario = make_scenario(alice, name="Failover plan")
    client.force_login(alice)
    url = reverse("scenario_detail", args=[scenario.pk])
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, DB_MIDDLEWARE]):
        assert client.get(url).status_code == 200
        _terminate_this_connection()
        response = client.get(url)
        assert response.status_code == 503 and "database unavailable" in response.content.decode()
        assert int(response["Retry-After"]) > 0
        assert "Failover plan" in client.get(url).content.decode()
