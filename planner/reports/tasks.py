"""Celery task of the PDF exports: render one report by id (planner.reports.services.report_render).

Acknowledged late and requeued when the worker is lost; the service's claim makes a second delivery harmless.
"""

from __future__ import annotations

from planner import queueing
from planner.celery import app
from planner.reports import services


@app.task(
    name=queueing.REPORT_RENDER,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    time_limit=services.REPORT_TIME_LIMIT_S,
    soft_time_limit=services.REPORT_TIME_LIMIT_S - 30,
)
def report_render_task(report_id: int) -> bool:
    """Render report `report_id`; False when it was already claimed or finished."""
    return services.report_render(report_id=report_id)
