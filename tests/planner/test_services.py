"""The real services: PostgreSQL when DATABASE_URL points at it, Redis when REDIS_URL is set."""

from __future__ import annotations

import os

import pytest
from django.db import connection

from tests.conftest import require_service


@pytest.mark.django_db
@pytest.mark.services
def test_it_runs_on_postgresql_when_database_url_points_at_it():
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        require_service("PostgreSQL", "DATABASE_URL does not point at PostgreSQL")
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        assert "PostgreSQL" in cursor.fetchone()[0]


@pytest.mark.services
def test_it_reaches_redis_when_redis_url_is_set():
    import redis

    url = os.environ.get("REDIS_URL", "")
    if not url:
        require_service("Redis", "REDIS_URL is not set")
    client = redis.Redis.from_url(url, socket_connect_timeout=3)
    assert client.ping() is True
    client.set("planner:test:ping", "pong", ex=30)
    assert client.get("planner:test:ping") == b"pong"


def test_celery_uses_redis_when_configured_and_embedded_broker_otherwise(settings):
    from planner.celery import app

    if os.environ.get("REDIS_URL"):
        assert app.conf.broker_url.startswith("redis://")
    else:
        assert app.conf.broker_url.startswith("sqla+sqlite:///")
