"""Celery tasks of the planner app (autodiscovered by planner/celery.py); each takes ids and calls one service."""

from planner.reports.tasks import report_render_task  # noqa: F401,E402
from planner.sweeps.tasks import sweep_chunk  # noqa: F401
