"""Real Celery worker processes for service tests (tests/sweeps/test_kill_worker.py, tests/faults): started with
`python -m celery worker` on one queue (planner.sweeps.worker_process), pointed at this test's PostgreSQL database and a given broker, polled
until ready, and stopped by process group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.db import connection

WORKER_START_TIMEOUT_S = 60
#: Seconds a worker gets to finish a warm shutdown (SIGTERM) before its process group is killed.
WORKER_STOP_GRACE_S = 10.0
POLL_S = 0.02
#: Characters of a worker's log shown when a test fails.
LOG_TAIL_CHARS = 3000

T = TypeVar("T")


def worker_env(*, settings_module: str, redis_url: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a worker that uses this test's database (the test database pytest-django created,
    read from the live connection) with `settings_module`; `redis_url` replaces REDIS_URL (broker, result
    backend and cache) when given. Persistent connections are off, so the test database can be dropped."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DATABASE_URL": (
            f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "DB_CONN_MAX_AGE": "0",
        **extra,
    }
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
        env["CACHE_REDIS_URL"] = ""  # derived from REDIS_URL, never the shared server's
    return env


def log_tail(log: Path) -> str:
    return log.read_text(errors="replace")[-LOG_TAIL_CHARS:] if log.exists() else "(no log)"


def wait_ready(log: Path, worker: subprocess.Popen) -> None:
    """Wait until the worker logs that it is ready (connected to the broker and consuming)."""
    deadline = time.monotonic() + WORKER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            pytest.fail(f"worker exited early:\n{log_tail(log)}")
        if b" ready." in log.read_bytes():
            return
        time.sleep(0.2)
    pytest.fail(f"worker not ready after {WORKER_START_TIMEOUT_S} s:\n{log_tail(log)}")


def wait_for(
    predicate: Callable[[], T], timeout_s: float, what: str, detail: Callable[[], str] | None = None
) -> T:
    """Poll `predicate` until it returns something truthy (returned) or fail after `timeout_s`, with
    `detail()` (e.g. a worker's log) in the failure message."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(POLL_S)
    pytest.fail(f"timed out after {timeout_s} s waiting for {what}" + (f":\n{detail()}" if detail else ""))


def stop_worker(worker: subprocess.Popen, grace_s: float = WORKER_STOP_GRACE_S) -> None:
    """Stop a worker and its pool children: SIGTERM (warm shutdown) and up to `grace_s` seconds, then SIGKILL
    to the whole process group. Safe on a worker that already exited."""
    if worker.poll() is None and grace_s > 0:
        os.killpg(worker.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.wait(timeout=grace_s)
    with contextlib.suppress(ProcessLookupError):  # the group is gone: nothing left to kill
        os.killpg(worker.pid, signal.SIGKILL)  # also pool children left behind by a killed main process
    worker.wait(timeout=10)


def eager_reference(*, owner: Any, scenario: Any, spec: dict[str, Any], chunk_configs: int) -> Any:
    """The undisturbed reference for a sweep run by real workers: the same spec through Celery eager, in this
    process, finished (status checked) and read back."""
    from django.test import override_settings

    from planner.celery import app
    from planner.sweeps import services
    from planner.sweeps.models import SweepStatus

    app.conf.task_always_eager = True
    try:
        with override_settings(SWEEP_CHUNK_CONFIGS=chunk_configs):
            reference = services.sweep_create(owner=owner, scenario=scenario, spec=spec, name="reference")
    finally:
        app.conf.task_always_eager = False
    reference.refresh_from_db()
    assert reference.status == SweepStatus.DONE
    return reference
