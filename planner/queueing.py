"""Publishing background work: the task names, one check that the Celery broker answers, one retry policy,
the queues, and the one way services publish a task.

Services publish tasks by name through this module (`publish`, `signature`) and never import a tasks module:
tasks import services, so the dependency runs one way (tasks -> services -> queueing). A task is looked up
in Celery's registry; when this process has not loaded the tasks modules yet, they are loaded the way a worker
loads them (the app's autodiscovery), so eager mode and the tests run the same task objects.

A request that starts background work (a sweep, a PDF) checks the broker before it writes anything, so a
broker outage answers 503 "queue unavailable" and leaves nothing behind; a publish that fails after the check
removes what the request wrote (each service does that for its own rows).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from celery import Task
    from celery.canvas import Signature

logger = logging.getLogger(__name__)

#: The background tasks, by their Celery names (the tasks modules register them under these names).
SWEEP_FAN_OUT = "planner.sweeps.fan_out"
SWEEP_CHUNK = "planner.sweeps.chunk"
REPORT_RENDER = "planner.reports.render"

#: Seconds to wait for the broker's answer before work is refused (settings.SWEEP_BROKER_TIMEOUT_S).
BROKER_TIMEOUT_S_DEFAULT = 2.0
#: Publish retries: a short blip is retried, an outage fails within about a second.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
#: Seconds a client should wait before retrying after a 503.
QUEUE_RETRY_AFTER_S = 30


class BrokerDown(Exception):
    """The Celery broker did not answer; the message is the transport's reason (short)."""


def broker_check() -> None:
    """Raise BrokerDown unless the Celery broker answers within SWEEP_BROKER_TIMEOUT_S (eager: no-op)."""
    from planner.celery import app

    if app.conf.task_always_eager:
        return
    timeout_s = float(getattr(settings, "SWEEP_BROKER_TIMEOUT_S", BROKER_TIMEOUT_S_DEFAULT))
    try:
        with app.connection_for_write(connect_timeout=timeout_s) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0.2, timeout=timeout_s)
    except Exception as exc:  # kombu wraps every transport's errors differently: any failure is "down"
        logger.warning("background work refused: broker unreachable (%s)", exc)
        raise BrokerDown(str(exc)[:200]) from exc


def task(name: str) -> Task:
    """The registered Celery task called `name` (the tasks modules are loaded on first use if need be)."""
    from planner.celery import app

    if name not in app.tasks:
        app.loader.import_default_modules()  # runs the app's autodiscovery, as a worker does at start
    return app.tasks[name]


def publish(name: str, *args: Any, queue: str = "") -> None:
    """Publish task `name` with `args` on `queue` ("" = Celery's default), retrying a short broker blip
    (PUBLISH_RETRY_POLICY); raises the transport's error when the broker refuses it."""
    options: dict[str, Any] = {"queue": queue} if queue else {}
    task(name).apply_async(args=args, retry_policy=PUBLISH_RETRY_POLICY, **options)


def signature(name: str, *args: Any) -> Signature:
    """An immutable signature of task `name` with `args`, for a group of messages published at once."""
    return task(name).si(*args)


def report_queue() -> str:
    """The Celery queue PDF renders go to (settings.REPORT_QUEUE)."""
    return str(getattr(settings, "REPORT_QUEUE", "") or "reports")


def waiting_messages(queue: str) -> int | None:
    """Messages waiting in `queue` on the broker (not those a worker holds), or None when the broker cannot
    say (it is down): callers then assume work may still be waiting. Redis keeps no key for an empty queue, so
    kombu's virtual transports (Redis, the embedded SQLAlchemy one) are asked for the queue's size directly
    (`Channel._size`, 0 for a queue without messages); other transports by a passive declare."""
    from planner.celery import app

    try:
        with app.connection_for_read() as conn:
            channel = conn.default_channel
            if hasattr(channel, "_size"):
                return int(channel._size(queue))
            return int(channel.queue_declare(queue=queue, passive=True).message_count)
    except Exception:  # kombu raises transport-specific errors for a missing queue or a dead broker
        return None
