"""A saved fleet plan: the engine's fleet input (docs/fleet-contract.md) as its owner edited it, and the last
answer with its status, progress, timings and error. Nothing is calculated here: planner.engine.fleet plans,
planner.fleets.services stores."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse


class FleetStatus(models.TextChoices):
    DRAFT = "draft", "Not solved yet"
    PENDING = "pending", "Waiting for a worker"
    RUNNING = "running", "Solving"
    DONE = "done", "Solved"
    FAILED = "failed", "Failed"


class FleetPlan(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="fleet_plans")
    name = models.CharField(max_length=200)
    payload = models.JSONField(help_text="The engine's fleet input (docs/fleet-contract.md).")
    status = models.CharField(max_length=10, choices=FleetStatus.choices, default=FleetStatus.DRAFT)
    phase = models.CharField(max_length=20, blank=True, help_text="The engine's phase while solving.")
    progress = models.FloatField(default=0.0, help_text="Share of the solve done, 0-1.")
    result = models.JSONField(null=True, blank=True, help_text="The engine's fleet answer.")
    error = models.TextField(blank=True)
    engine_version = models.CharField(max_length=40, blank=True)
    solve_s = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    solved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-updated_at", "-pk"]
        indexes = [models.Index(fields=["owner", "-updated_at"], name="fleetplan_owner_updated")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("fleets:detail", args=[self.pk])


class FleetShareLink(models.Model):
    """A read-only link to a fleet plan's results for people without an account; revoking makes it 404."""

    plan = models.ForeignKey(FleetPlan, on_delete=models.CASCADE, related_name="share_links")
    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"share link for {self.plan}"

    def get_absolute_url(self) -> str:
        return reverse("fleets:shared", args=[self.token])
