"""Celery task of sweeps: one chunk per task, by id; the work is planner.sweeps.services.sweep_chunk_run.

Acknowledged late and rejected (requeued) when the worker process is lost, so a chunk whose worker dies is
delivered again; the service's claim makes a second delivery harmless (counted once).
"""

from __future__ import annotations

import logging
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError, InterfaceError, OperationalError

from planner import queueing
from planner.celery import app
from planner.sweeps import conf, services

logger = logging.getLogger(__name__)

#: Database errors worth a retry (connection dropped, SQLite busy); anything else fails the sweep.
TRANSIENT_DB_ERRORS = (OperationalError, InterfaceError)
#: Seconds before retrying after a database error.
DB_RETRY_COUNTDOWN_S = 2.0
#: Retries of a delivery that found its chunk claimed elsewhere (each waits until that claim goes stale).
BUSY_MAX_RETRIES = 5

CHUNK_TIME_LIMIT_S = int(conf.value("SWEEP_CHUNK_TIME_LIMIT_S"))
CHUNK_SOFT_TIME_LIMIT_S = max(1, CHUNK_TIME_LIMIT_S - int(conf.value("SWEEP_CHUNK_SOFT_MARGIN_S")))


@app.task(
    bind=True,
    name=queueing.SWEEP_CHUNK,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    time_limit=CHUNK_TIME_LIMIT_S,
    soft_time_limit=CHUNK_SOFT_TIME_LIMIT_S,
    max_retries=None,
)
def sweep_chunk(self: Any, run_id: int, index: int) -> str:
    """Evaluate chunk `index` of sweep `run_id` (see services.sweep_chunk_run)."""
    request = self.request
    redelivered = bool((request.delivery_info or {}).get("redelivered"))
    retries = int(request.retries or 0)
    try:
        outcome = services.sweep_chunk_run(
            run_id=run_id,
            index=index,
            worker=str(request.hostname or ""),
            takeover=redelivered or retries > 0,
        )
    except SoftTimeLimitExceeded:
        services.sweep_chunk_fail(
            run_id=run_id,
            index=index,
            error=f"took longer than {CHUNK_SOFT_TIME_LIMIT_S} s; lower SWEEP_CHUNK_CONFIGS for smaller chunks",
        )
        return "failed"
    except TRANSIENT_DB_ERRORS as exc:
        if retries < int(conf.value("SWEEP_CHUNK_MAX_RETRIES")):
            raise self.retry(exc=exc, countdown=DB_RETRY_COUNTDOWN_S * (retries + 1)) from exc
        _fail_quietly(run_id, index, f"database error after {retries} retries: {exc}")
        return "failed"
    except Exception as exc:  # a bug or bad input that slipped through validation: fail the sweep, say why
        logger.exception("sweep %s chunk %s failed", run_id, index)
        _fail_quietly(run_id, index, f"{type(exc).__name__}: {exc}")
        return "failed"
    if outcome.state == "busy" and retries < BUSY_MAX_RETRIES:
        raise self.retry(countdown=outcome.retry_in_s)  # Celery keeps the queue it was delivered on
    return outcome.state


def _fail_quietly(run_id: int, index: int, error: str) -> None:
    try:
        services.sweep_chunk_fail(run_id=run_id, index=index, error=error)
    except DatabaseError:  # the database itself is gone: the message is acknowledged, the log keeps the error
        logger.exception("sweep %s chunk %s: could not record the failure", run_id, index)


@app.task(
    bind=True,
    name=queueing.SWEEP_FAN_OUT,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=TRANSIENT_DB_ERRORS,
    retry_backoff=True,
    max_retries=3,
)
def sweep_fan_out(self: Any, run_id: int, queue: str = "", requeue: bool = False) -> int:
    """Queue the chunk tasks of sweep `run_id` on `queue` (see services.sweep_fan_out)."""
    try:
        return services.sweep_fan_out(run_id=run_id, queue=queue, requeue=requeue)
    except TRANSIENT_DB_ERRORS:
        raise
    except Exception as exc:  # the broker refused the chunk messages: fail the sweep with the reason
        logger.exception("sweep %s: could not queue its chunks", run_id)
        services.sweep_queue_failed(run_id=run_id, error=f"Could not queue the sweep's chunks: {exc}")
        return 0
