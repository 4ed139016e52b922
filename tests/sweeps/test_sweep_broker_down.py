"""An unreachable broker refuses a sweep before anything is written (QueueUnavailable, fast), and a broker that
fails between the check and the publish leaves no pending run behind (no real Redis needed: a closed port)."""

from __future__ import annotations

import socket
import time

import pytest
from django.test import override_settings

from planner.celery import app
from planner.sweeps import services
from planner.sweeps.models import SweepRun
from planner.sweeps.tasks import sweep_fan_out
from tests.sweeps.test_sweep_services import H100, _gpus, _inputs

pytestmark = pytest.mark.django_db

#: A refused sweep must answer quickly, not after the OS's connect timeout.
REFUSAL_MAX_S = 5.0


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"  # nothing listens there once the socket is closed


@pytest.fixture
def dead_broker():
    before = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url, app.conf.task_always_eager = _closed_port_url(), False
    app._pool = None
    app.amqp._producer_pool = None
    try:
        yield
    finally:
        app.conf.broker_url, app.conf.task_always_eager = before
        app._pool = None
        app.amqp._producer_pool = None


def test_an_unreachable_broker_refuses_the_sweep_fast_and_writes_nothing(alice, alice_scenario, dead_broker):
    started = time.monotonic()
    with pytest.raises(services.QueueUnavailable) as refused:
        services.sweep_create_from_scenario(owner=alice, scenario=alice_scenario, inputs=_inputs(_gpus(H100)))
    assert time.monotonic() - started < REFUSAL_MAX_S
    assert refused.value.message.startswith("queue unavailable") and refused.value.field is None
    assert SweepRun.objects.count() == 0


def test_a_publish_that_fails_after_the_check_deletes_the_run(alice, alice_scenario, monkeypatch):
    monkeypatch.setattr(services, "broker_check", lambda: None)  # the broker dies between check and publish

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("[Errno 111] Connection refused")

    monkeypatch.setattr(sweep_fan_out, "apply_async", refuse)
    # Outside a test transaction on_commit fires at the end of the service's atomic block; emulate it.
    monkeypatch.setattr(services.transaction, "on_commit", lambda callback, **kwargs: callback())
    with override_settings(SWEEP_CHUNK_CONFIGS=2000), pytest.raises(services.QueueUnavailable):
        services.sweep_create_from_scenario(owner=alice, scenario=alice_scenario, inputs=_inputs(_gpus(H100)))
    assert SweepRun.objects.count() == 0
