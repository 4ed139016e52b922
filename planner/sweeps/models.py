"""Sweep runs and their chunks: every background sweep is a database row with its status, progress, timings,
error, engine version and result; each chunk row holds the compact results of the
configurations it evaluated, so the run's result is the merge of its stored chunks and exports can stream every
evaluated configuration. Nothing is calculated here: planner.engine.search.sweep computes, planner.sweeps.services
stores."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from planner.background import ACTIVE_STATUSES, BackgroundRun, ClaimedRun, RunStatus

#: One status set for every kind of background work (planner/background.py); the names stay for readers.
SweepStatus = ChunkStatus = RunStatus
#: Chunks a cancel or a failure stops.
OUTSTANDING_CHUNK_STATUSES = (ChunkStatus.PENDING, ChunkStatus.RUNNING)


class SweepKind(models.TextChoices):
    TRAINING = "training", "Training: GPU models × node counts × parallel layouts"
    SERVING = "serving", "Serving: GPU models × node counts × TP × request rates"


class SweepRun(BackgroundRun):
    """One sweep, owned by one user: a training scenario over GPU models x node counts x parallel layouts
    (`kind` training, planner.engine.search.sweep), or an inference scenario's service over GPU models x node
    counts x TP x request rates (`kind` serving, planner/sweeps/serving.py). Both run as chunks on the same
    Celery tasks."""

    kind = models.CharField(max_length=10, choices=SweepKind.choices, default=SweepKind.TRAINING)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sweep_runs")
    scenario = models.ForeignKey(
        "planner.Scenario", null=True, blank=True, on_delete=models.SET_NULL, related_name="sweeps"
    )
    name = models.CharField(max_length=200)
    spec = models.JSONField(
        help_text="The sweep as planned (planner.engine.sweep spec, contract payloads inside)."
    )
    total_configs = models.BigIntegerField(default=0, help_text="Configurations in the swept space.")
    enumerated_configs = models.BigIntegerField(
        default=0, help_text="Configurations of the space covered so far."
    )
    evaluated_configs = models.BigIntegerField(default=0, help_text="Valid layouts evaluated so far.")
    feasible_configs = models.BigIntegerField(
        default=0, help_text="Evaluated layouts that fit in GPU memory."
    )
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_progress_at = models.DateTimeField(null=True, blank=True, help_text="When a chunk last finished.")
    timings = models.JSONField(default=dict, help_text="Seconds per phase written once: plan_s, merge_s.")
    enqueue_s = models.FloatField(default=0.0)
    evaluate_s = models.FloatField(default=0.0, help_text="Sum over chunks (worker seconds).")
    store_s = models.FloatField(default=0.0, help_text="Sum over chunks: summarise, compress, write.")
    engine_version = models.CharField(max_length=40)
    result = models.JSONField(
        null=True, blank=True, help_text="Merged summary: ranked lists, Pareto, per GPU."
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="sweeprun_owner_created"),
            models.Index(fields=["owner", "status"], name="sweeprun_owner_status"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("sweeps:detail", args=[self.pk])

    @property
    def progress_fraction(self) -> float:
        return self.enumerated_configs / self.total_configs if self.total_configs else 0.0


class SweepChunk(ClaimedRun):
    """One task's share of a sweep: its pieces of the space, its claim, and its stored results."""

    run = models.ForeignKey(SweepRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    pieces = models.JSONField(
        help_text="Training: (GPU, nodes, restricted degrees) pieces, from the plan. Serving: the configurations "
        "with their engine payloads."
    )
    size = models.BigIntegerField(help_text="Configurations of the space in this chunk.")
    claim_token = models.CharField(max_length=32, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True, help_text="Celery worker hostname.")
    finished_at = models.DateTimeField(null=True, blank=True)
    evaluated = models.PositiveIntegerField(default=0)
    feasible = models.PositiveIntegerField(default=0)
    evaluate_s = models.FloatField(default=0.0)
    store_s = models.FloatField(default=0.0)
    rows = models.BinaryField(
        null=True, blank=True, help_text=".npz of every evaluated configuration (engine.sweep.pack_rows)."
    )
    summary = models.JSONField(
        null=True,
        blank=True,
        help_text="Counts and ranked candidates of this chunk (serving: every row with its engine figures).",
    )

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="sweepchunk_run_index")]
        indexes = [models.Index(fields=["run", "status"], name="sweepchunk_run_status")]

    def __str__(self) -> str:
        return f"{self.run} chunk {self.index}"


__all__ = ["SweepKind", "SweepRun", "SweepChunk", "SweepStatus", "ChunkStatus", "ACTIVE_STATUSES"]
