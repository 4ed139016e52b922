"""Publishing background work: one check that the Celery broker answers, one retry policy, the queues.

A request that starts background work (a sweep, a PDF) checks the broker before it writes anything, so a
broker outage answers 503 "queue unavailable" and leaves nothing behind; a publish that fails after the check
removes what the request wrote (each service does that for its own rows).
"""

from __future__ import annotations

import logging

from django.conf import settings

logger = logging.getLogger(__name__)

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
