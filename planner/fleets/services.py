"""Writing fleet plans: create and edit (the engine validates the input), solve in the request when that is quick
or on Celery with progress otherwise, and store the answer. A task takes the plan's id and is safe to run twice:
a finished plan is not solved again unless its input changed (the input resets it to draft)."""

from __future__ import annotations

import logging
import secrets
from time import perf_counter
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from planner.engine.fleet import plan as engine_plan
from planner.engine.fleet.parse import parse_fleet
from planner.engine.inputs.errors import SpecError
from planner.engine.version import ENGINE_VERSION
from planner.fleets.models import FleetPlan, FleetShareLink, FleetStatus
from planner.queueing import BrokerDown, broker_check

logger = logging.getLogger(__name__)

#: Workload kinds whose sizing runs the engine's model searches (seconds); plans with none of them solve in well
#: under a second (measured: the MIG acceptance case, 0.1 s) and are solved in the request.
SLOW_KINDS = ("training", "inference")
#: Variables (workloads x pools x periods) up to which a plan without slow kinds is solved in the request.
INLINE_MAX_CELLS = 2_000


class QueueUnavailable(Exception):
    message = "The background queue is not answering; the plan was saved, solve it again in a minute."


def needs_worker(payload: dict[str, Any]) -> bool:
    """True when solving may take more than about a second: a model to size, or a large programme."""
    workloads = payload.get("workloads") or []
    if any(isinstance(w, dict) and w.get("kind") in SLOW_KINDS for w in workloads):
        return True
    periods = (payload.get("horizon") or {}).get("periods") or 1
    cells = len(workloads) * len(payload.get("pools") or []) * int(periods)
    return cells > INLINE_MAX_CELLS


def plan_create(*, owner: AbstractBaseUser, name: str, payload: dict[str, Any]) -> FleetPlan:
    """Validate the input with the engine's parser (SpecError names the fields) and save it as a draft."""
    parse_fleet(payload)
    return FleetPlan.objects.create(owner=owner, name=name[:200] or "Fleet plan", payload=payload)


def plan_update(*, plan: FleetPlan, name: str, payload: dict[str, Any]) -> FleetPlan:
    parse_fleet(payload)
    plan.name = name[:200] or plan.name
    if payload != plan.payload:
        plan.payload = payload
        plan.status, plan.result, plan.error, plan.progress, plan.phase = FleetStatus.DRAFT, None, "", 0.0, ""
    plan.save()
    return plan


def plan_solve(*, plan: FleetPlan) -> FleetPlan:
    """Solve now when quick, else queue it (QueueUnavailable when the broker does not answer)."""
    if not needs_worker(plan.payload):
        plan_run(plan_id=plan.pk)
        plan.refresh_from_db()
        return plan
    try:
        broker_check()
    except BrokerDown as err:
        raise QueueUnavailable() from err
    FleetPlan.objects.filter(pk=plan.pk).update(status=FleetStatus.PENDING, progress=0.0, phase="", error="")
    transaction.on_commit(lambda: _enqueue(plan.pk))
    plan.refresh_from_db()
    return plan


#: The Celery task that solves a plan (planner/fleets/tasks.py), looked up by name: tasks import services.
SOLVE_TASK = "planner.fleets.solve"


def _enqueue(plan_id: int) -> None:
    from planner.celery import app

    try:
        app.signature(SOLVE_TASK, args=(plan_id,)).delay()
    except Exception as exc:  # the broker went away after the check
        logger.exception("fleet plan %s: could not queue it", plan_id)
        FleetPlan.objects.filter(pk=plan_id).update(
            status=FleetStatus.FAILED, error=f"Could not queue: {exc}"
        )


def plan_run(*, plan_id: int) -> str:
    """Solve plan `plan_id` and store the answer (the Celery task's body). Returns the final status."""
    plan = FleetPlan.objects.filter(pk=plan_id).first()
    if plan is None:
        return "missing"
    if plan.status == FleetStatus.DONE and plan.result is not None:
        return FleetStatus.DONE  # delivered twice: already solved
    FleetPlan.objects.filter(pk=plan_id).update(status=FleetStatus.RUNNING, phase="sizing", progress=0.0)
    last = [0.0]

    def progress(phase: str, done: float) -> None:
        if done - last[0] >= 0.05 or phase in ("solving", "limits", "results", "done"):
            last[0] = done
            FleetPlan.objects.filter(pk=plan_id).update(phase=phase, progress=done)

    started = perf_counter()
    try:
        result = engine_plan(plan.payload, progress=progress)
    except SpecError as err:
        FleetPlan.objects.filter(pk=plan_id).update(
            status=FleetStatus.FAILED, error="\n".join(map(str, err.problems))
        )
        return FleetStatus.FAILED
    except Exception as exc:  # an engine bug: keep the message on the row
        logger.exception("fleet plan %s failed", plan_id)
        FleetPlan.objects.filter(pk=plan_id).update(
            status=FleetStatus.FAILED, error=f"{type(exc).__name__}: {exc}"
        )
        return FleetStatus.FAILED
    FleetPlan.objects.filter(pk=plan_id).update(
        status=FleetStatus.DONE,
        result=result,
        error="",
        phase="done",
        progress=1.0,
        engine_version=ENGINE_VERSION,
        solve_s=perf_counter() - started,
        solved_at=timezone.now(),
    )
    return FleetStatus.DONE


def plan_delete(*, plan: FleetPlan) -> None:
    plan.delete()


#: Bytes of randomness in a share token (secrets.token_urlsafe: 32 bytes -> 43 URL-safe characters), as scenarios.
SHARE_TOKEN_BYTES = 32


def share_link_create(*, plan: FleetPlan) -> FleetShareLink:
    """The plan's active read-only link, creating one with an unguessable token if there is none."""
    with transaction.atomic():
        existing = plan.share_links.select_for_update().filter(revoked_at__isnull=True).first()
        if existing is not None:
            return existing
        return FleetShareLink.objects.create(plan=plan, token=secrets.token_urlsafe(SHARE_TOKEN_BYTES))


def share_link_revoke(*, plan: FleetPlan) -> int:
    """Revoke the plan's links; their URLs answer 404 from now on."""
    return plan.share_links.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
