"""Planning models: a Scenario (cluster + workload + economics), its evaluated results and its share links.

Inputs are stored as typed columns with their unit in the name; links to catalog rows are real foreign keys so a
result can record exactly which catalog values it used. Nothing is calculated here: the engine computes every
figure and `planner.services` stores what it returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

if TYPE_CHECKING:
    from catalog.models import Cooling, Cpu, EconomicsFact, Gpu, Interconnect, Switch, System


class WorkloadKind(models.TextChoices):
    TRAINING = "training", "Training"
    INFERENCE = "inference", "Inference (serving)"
    JOB = "job", "Other GPU job (HPC, rendering)"


class ParallelismMode(models.TextChoices):
    AUTOMATIC = "automatic", "Automatic (fastest layout that fits)"
    MANUAL = "manual", "Set by hand"


class Precision(models.TextChoices):
    BF16 = "bf16", "BF16"
    FP16 = "fp16", "FP16"
    FP8 = "fp8", "FP8"
    TF32 = "tf32", "TF32"
    FP32 = "fp32", "FP32"
    INT8 = "int8", "INT8"
    FP4 = "fp4", "FP4"
    INT4 = "int4", "INT4 (AWQ/GPTQ weights, serving)"


class Optimizer(models.TextChoices):
    ADAMW = "adamw", "AdamW (mixed precision)"
    ADAM = "adam", "Adam (mixed precision)"
    ADAM_8BIT = "adam_8bit", "8-bit Adam"
    SGD_MOMENTUM = "sgd_momentum", "SGD with momentum"


class Recompute(models.TextChoices):
    SELECTIVE = "selective", "Selective"
    FULL = "full", "Full"
    NONE = "none", "None"


class Topology(models.TextChoices):
    RAIL_OPTIMIZED = "rail_optimized", "Rail-optimised fat tree"
    FAT_TREE = "fat_tree", "Fat tree (leaf-spine)"


class FacilityKind(models.TextChoices):
    COLOCATION = "colocation", "Colocation (rent space and power per kW)"
    OWN = "own", "Own facility (build-out capex)"


class Batching(models.TextChoices):
    """How a server batches requests (engine `workload.serving.batching`)."""

    CONTINUOUS = "continuous", "Continuous (vLLM, SGLang, TensorRT-LLM)"
    STATIC = "static", "Static (a batch prefilled, then decoded)"


class JobScaling(models.TextChoices):
    AMDAHL = "amdahl", "Amdahl (fixed problem size)"
    GUSTAFSON = "gustafson", "Gustafson (problem grows with GPUs)"


class Scenario(models.Model):
    """A cluster, a workload and the economics to judge it by, owned by one user."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scenarios")
    name = models.CharField(max_length=200)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Cluster: a catalog GPU, a catalog system template, or custom GPU numbers (custom_gpu).
    gpu = models.ForeignKey("catalog.Gpu", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    system = models.ForeignKey(
        "catalog.System", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    custom_gpu = models.JSONField(
        null=True,
        blank=True,
        help_text="Datasheet numbers of a GPU that is not in the catalog (contract `cluster.gpu` object).",
    )
    nodes = models.PositiveIntegerField(default=8, validators=[MinValueValidator(1)])
    gpus_per_node = models.PositiveIntegerField(default=8, validators=[MinValueValidator(1)])
    cpu = models.ForeignKey("catalog.Cpu", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    network = models.ForeignKey(
        "catalog.Interconnect", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    switch = models.ForeignKey(
        "catalog.Switch", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    topology = models.CharField(max_length=20, choices=Topology.choices, default=Topology.RAIL_OPTIMIZED)
    network_tiers = models.PositiveSmallIntegerField(null=True, blank=True)
    oversubscription = models.FloatField(default=1.0)
    cooling = models.ForeignKey(
        "catalog.Cooling", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    pue = models.FloatField(null=True, blank=True, help_text="Override of the cooling technology's PUE.")
    storage_tb = models.FloatField(default=0.0)
    gpu_power_limit_w = models.FloatField(
        null=True, blank=True, help_text="GPU power limit (W), at most the GPU's TDP; blank: no cap."
    )

    # Workload.
    workload_kind = models.CharField(
        max_length=12, choices=WorkloadKind.choices, default=WorkloadKind.TRAINING
    )
    model_preset = models.CharField(max_length=60, blank=True)
    custom_model = models.JSONField(null=True, blank=True, help_text="Custom model shape (contract `model`).")
    tokens_b = models.FloatField(null=True, blank=True)
    precision = models.CharField(max_length=6, choices=Precision.choices, default=Precision.BF16)
    optimizer = models.CharField(max_length=14, choices=Optimizer.choices, default=Optimizer.ADAMW)
    parallelism_mode = models.CharField(
        max_length=10, choices=ParallelismMode.choices, default=ParallelismMode.AUTOMATIC
    )
    tp = models.PositiveIntegerField(default=1)
    pp = models.PositiveIntegerField(default=1)
    dp = models.PositiveIntegerField(null=True, blank=True)
    cp = models.PositiveIntegerField(default=1)
    ep = models.PositiveIntegerField(default=1)
    zero_stage = models.PositiveSmallIntegerField(default=1, validators=[MaxValueValidator(3)])
    recompute = models.CharField(max_length=10, choices=Recompute.choices, default=Recompute.SELECTIVE)
    micro_batch = models.PositiveIntegerField(default=1)
    global_batch = models.PositiveIntegerField(null=True, blank=True)
    serving_batch = models.PositiveIntegerField(null=True, blank=True)
    context_len = models.PositiveIntegerField(null=True, blank=True)
    output_len = models.PositiveIntegerField(null=True, blank=True)
    requests_per_s = models.FloatField(
        null=True, blank=True, help_text="Request rate to serve (whole service); else target_tokens_per_s."
    )
    target_tokens_per_s = models.FloatField(null=True, blank=True)
    batching = models.CharField(max_length=10, choices=Batching.choices, default=Batching.CONTINUOUS)
    max_ttft_s = models.FloatField(null=True, blank=True)
    max_tpot_s = models.FloatField(null=True, blank=True)
    kernel_efficiency = models.FloatField(
        null=True,
        blank=True,
        help_text="Serving stack's kernel speed against the calibrated average (engine "
        "workload.serving.kernel_efficiency); blank: 1.0.",
    )
    job_single_gpu_hours = models.FloatField(null=True, blank=True)
    job_parallel_fraction = models.FloatField(null=True, blank=True)
    job_scaling = models.CharField(max_length=10, choices=JobScaling.choices, default=JobScaling.AMDAHL)

    # Economics.
    electricity = models.ForeignKey(
        "catalog.EconomicsFact", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    electricity_usd_per_kwh = models.FloatField(null=True, blank=True, help_text="Override of the region.")
    facility = models.CharField(max_length=12, choices=FacilityKind.choices, default=FacilityKind.COLOCATION)
    colocation = models.ForeignKey(
        "catalog.EconomicsFact", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    grid_carbon = models.ForeignKey(
        "catalog.EconomicsFact", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    years = models.PositiveSmallIntegerField(default=5)
    utilization = models.FloatField(default=0.8, help_text="Fraction of the hours the cluster is busy (0-1).")
    discount_rate = models.FloatField(default=0.0, help_text="Yearly discount rate as a fraction.")
    cloud_usd_per_gpu_hour = models.FloatField(null=True, blank=True)
    server_price_usd = models.FloatField(null=True, blank=True, help_text="Override: price of one node.")

    latest_result = models.ForeignKey(
        "ScenarioResult", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    version = models.PositiveIntegerField(
        default=1, help_text="Raised by every saved edit; an edit based on an older version is refused."
    )

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("scenario_detail", args=[self.pk])

    @property
    def total_gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def catalog_gpu_id(self) -> str | None:
        """Which catalog GPU this scenario runs on, the one rule: its own choice, else its system template's GPU;
        None for custom GPU numbers (or a template whose GPU is not in the catalog). Reads ids only."""
        if self.custom_gpu:
            return None
        if self.gpu_id is not None:
            return self.gpu_id
        return self.system.gpu_id if self.system_id is not None else None

    @property
    def catalog_gpu(self) -> Gpu | None:
        """The catalog row of `catalog_gpu_id`."""
        if self.catalog_gpu_id is None:
            return None
        return self.gpu if self.gpu_id is not None else self.system.gpu


class ScenarioInputs(TypedDict):
    """What the scenario form hands to the services: a value for every Scenario input, in the Scenario's units
    (fractions, catalog rows, the contract's custom GPU and model objects). `planner.forms.inputs` builds it
    from a valid form; `planner.services` applies it to a new or existing Scenario."""

    name: str
    notes: str
    # cluster
    gpu: Gpu | None
    system: System | None
    custom_gpu: dict[str, Any] | None
    nodes: int
    gpus_per_node: int
    cpu: Cpu | None
    network: Interconnect | None
    switch: Switch | None
    topology: str
    network_tiers: int | None
    oversubscription: float
    cooling: Cooling | None
    pue: float | None
    storage_tb: float
    gpu_power_limit_w: float | None
    # workload
    workload_kind: str
    model_preset: str
    custom_model: dict[str, Any] | None
    tokens_b: float | None
    precision: str
    optimizer: str
    parallelism_mode: str
    tp: int
    pp: int
    dp: int | None
    cp: int
    ep: int
    zero_stage: int
    recompute: str
    micro_batch: int
    global_batch: int | None
    serving_batch: int | None
    context_len: int | None
    output_len: int | None
    requests_per_s: float | None
    target_tokens_per_s: float | None
    batching: str
    max_ttft_s: float | None
    max_tpot_s: float | None
    kernel_efficiency: float | None
    job_single_gpu_hours: float | None
    job_parallel_fraction: float | None
    job_scaling: str
    # economics
    electricity: EconomicsFact | None
    electricity_usd_per_kwh: float | None
    facility: str
    colocation: EconomicsFact | None
    grid_carbon: EconomicsFact | None
    years: int
    utilization: float
    discount_rate: float
    cloud_usd_per_gpu_hour: float | None
    server_price_usd: float | None


class ScenarioResult(models.Model):
    """One evaluation of a scenario: exactly what was sent to the engine, what it answered, and the catalog
    values used (with each row's id and updated_at) so the figures stay reproducible and readable later."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="results")
    created_at = models.DateTimeField(auto_now_add=True)
    engine_version = models.CharField(max_length=40)
    input_payload = models.JSONField(help_text="The engine input exactly as sent (contract JSON).")
    output = models.JSONField(help_text="The engine output exactly as returned.")
    search_summary = models.JSONField(
        null=True, blank=True, help_text="For automatic parallelism: the search that chose the layout."
    )
    summary = models.JSONField(default=dict, help_text="Headline figures copied from `output` for lists.")
    input_assumptions = models.JSONField(
        default=list, help_text="Engine inputs the planner filled in (name, value, unit, source)."
    )
    catalog_snapshot = models.JSONField(default=dict, help_text="Catalog rows and values the payload used.")
    catalog_hash = models.CharField(max_length=64)
    elapsed_ms = models.FloatField(default=0.0)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.scenario} @ {self.created_at:%Y-%m-%d %H:%M} (engine {self.engine_version})"


class ShareLink(models.Model):
    """A read-only link to a scenario's results for people without an account; revoking makes it 404."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="share_links")
    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"share link for {self.scenario}"

    def get_absolute_url(self) -> str:
        return reverse("share_view", args=[self.token])

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


from planner.reports.models import *  # noqa: E402,F401,F403
from planner.sweeps.models import SweepChunk, SweepRun  # noqa: E402,F401
