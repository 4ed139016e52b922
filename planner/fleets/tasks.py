"""Celery task of fleet plans: takes the plan's id and calls one service (safe to run twice)."""

from __future__ import annotations

from planner.celery import app
from planner.fleets import services


@app.task(name="planner.fleets.solve", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def fleet_solve(plan_id: int) -> str:
    return services.plan_run(plan_id=plan_id)
