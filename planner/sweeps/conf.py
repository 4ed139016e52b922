"""Sweep settings, read from django.conf.settings with these defaults (the lead lists them in settings.py and
.env.example)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from planner.engine.search.sweep import CHUNK_CONFIGS_DEFAULT

DEFAULTS: dict[str, Any] = {
    # Largest sweep accepted, in configurations of the space (50 million).
    "SWEEP_MAX_CONFIGS": 50_000_000,
    # Pending or running sweeps one user may have at a time.
    "SWEEP_MAX_RUNNING_PER_USER": 2,
    # Configurations of the space per chunk (one Celery task each).
    "SWEEP_CHUNK_CONFIGS": CHUNK_CONFIGS_DEFAULT,
    # Hard time limit of one chunk task; the soft limit is SWEEP_CHUNK_SOFT_MARGIN_S earlier.
    "SWEEP_CHUNK_TIME_LIMIT_S": 600,
    "SWEEP_CHUNK_SOFT_MARGIN_S": 30,
    # A running claim older than this is taken over by another delivery of the same chunk (None: the hard
    # time limit + 60 s, after which the first worker has certainly stopped).
    "SWEEP_CLAIM_STALE_S": None,
    # Celery queue of the chunk tasks ("" = the default queue), e.g. to run dedicated sweep workers.
    "SWEEP_QUEUE": "",
    # A waiting or running sweep with no finished chunk for this long offers "Re-queue unfinished chunks"
    # (for brokers that lose messages when a worker is killed, such as the embedded SQLite broker).
    "SWEEP_STALLED_S": 120,
    # Deliveries of one chunk whose worker died (SIGKILL, out of memory) before the sweep is failed instead.
    "SWEEP_CHUNK_MAX_ATTEMPTS": 3,
    # Retries of a chunk after a database error (connection lost, SQLite busy).
    "SWEEP_CHUNK_MAX_RETRIES": 3,
}


def value(name: str) -> Any:
    return getattr(settings, name, DEFAULTS[name])


def claim_stale_s() -> float:
    stale = value("SWEEP_CLAIM_STALE_S")
    return float(stale) if stale is not None else float(value("SWEEP_CHUNK_TIME_LIMIT_S")) + 60.0
