"""Celery tasks of the planner app (autodiscovered by planner/celery.py); each takes ids and calls one service."""

from planner import recovery, retention
from planner.celery import app
from planner.reports.tasks import report_render_task  # noqa: F401,E402
from planner.sweeps.tasks import sweep_chunk  # noqa: F401


@app.task(name="planner.recover", ignore_result=True, acks_late=True)
def recover_task() -> dict[str, int]:
    """Celery beat's periodic pass: re-queue or fail background work whose worker or message was lost."""
    return vars(recovery.recover())


@app.task(name="planner.prune", ignore_result=True)
def prune_task() -> dict[str, int]:
    """Celery beat's daily retention pass (planner/retention.py)."""
    return vars(retention.prune())
