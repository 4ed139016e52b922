"""Reading fleet plans: every lookup filters by owner, so another user's plan is a 404."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from planner.fleets.models import FleetPlan, FleetShareLink


def plan_list(*, user: AbstractBaseUser) -> QuerySet[FleetPlan]:
    return FleetPlan.objects.filter(owner=user).defer("result", "payload")


def plan_get(*, user: AbstractBaseUser, pk: int) -> FleetPlan:
    return get_object_or_404(FleetPlan, owner=user, pk=pk)


def plans_get(*, user: AbstractBaseUser, pks: list[int]) -> list[FleetPlan]:
    """The user's plans among `pks`, in the order asked (others' ids are ignored)."""
    found = {p.pk: p for p in FleetPlan.objects.filter(owner=user, pk__in=pks)}
    return [found[pk] for pk in dict.fromkeys(pks) if pk in found]


def plan_status(*, plan: FleetPlan) -> dict[str, Any]:
    return {
        "status": plan.status,
        "status_label": plan.get_status_display(),
        "phase": plan.phase,
        "progress": plan.progress,
        "error": plan.error,
        "done": plan.status in ("done", "failed", "draft"),
    }


def share_link_get(*, token: str) -> FleetShareLink:
    """An active share link with its plan, or 404 (unknown and revoked tokens look the same)."""
    return get_object_or_404(
        FleetShareLink.objects.select_related("plan"), token=token, revoked_at__isnull=True
    )


def active_share_link(*, plan: FleetPlan) -> FleetShareLink | None:
    return plan.share_links.filter(revoked_at__isnull=True).first()
