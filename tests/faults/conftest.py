"""Fault-test helpers: a throw-away redis-server of our own (the shared one on 6379 is never touched), the Celery
app and the cache pointed at it, and a scenario with a stored result."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.test import override_settings
from kombu import pools

from planner import services as planner_services
from planner.celery import app
from planner.forms import ScenarioForm
from planner.models import Scenario
from planner.starters import DEFAULT_INITIAL
from tests.conftest import require_service

#: The cache as the lead is asked to configure it (settings.CACHES): fail-open, short socket timeouts.
CACHE_SETTINGS = {
    "BACKEND": "planner.cache.FailOpenRedisCache",
    "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1.0},
}
#: Seconds to wait for a fresh redis-server to answer PING.
REDIS_START_TIMEOUT_S = 10.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ThrowawayRedis:
    """redis-server on a free loopback port, without persistence; stop() kills it, start() brings it back."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + REDIS_START_TIMEOUT_S
        while True:
            try:
                redis.Redis(port=self.port, socket_connect_timeout=0.5).ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_connect_timeout=1)


def _reset_celery_connections() -> None:
    """Drop the app's cached broker pools so the next publish connects to app.conf.broker_url. The pools live in
    kombu's process-wide registry, keyed by broker URL: closing one without clearing the registry left a closed
    pool there, and the next test publishing to that URL (the shared Redis) failed with "Acquire on closed
    pool", so the registry is reset (every pool closed and forgotten) as well."""
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def own_redis() -> Iterator[ThrowawayRedis]:
    """A running throw-away Redis that is the Celery broker and the cache for this test (restored after)."""
    if not os.environ.get("REDIS_URL"):
        require_service("Redis", "REDIS_URL is not set")
    if shutil.which("redis-server") is None:
        require_service("Redis", "redis-server is not installed")
    server = ThrowawayRedis()
    server.start()
    caches = {"default": {**CACHE_SETTINGS, "LOCATION": server.url}}
    before: dict[str, Any] = {
        "broker_url": app.conf.broker_url,
        "task_always_eager": app.conf.task_always_eager,
    }
    app.conf.broker_url = server.url
    app.conf.task_always_eager = False
    _reset_celery_connections()
    try:
        with override_settings(CACHES=caches, CELERY_BROKER_URL=server.url):
            yield server
    finally:
        server.stop()
        app.conf.broker_url = before["broker_url"]
        app.conf.task_always_eager = before["task_always_eager"]
        _reset_celery_connections()


def scenario_with_result(owner: Any) -> Scenario:
    """A scenario saved through the planning service from the default inputs, so it has a stored result."""
    form = ScenarioForm({**DEFAULT_INITIAL, "name": "Result page plan"})
    assert form.is_valid(), form.errors
    return planner_services.scenario_create(owner=owner, inputs=form.scenario_inputs())
