"""The parsed fleet input (docs/fleet-contract.md): SI units and USD inside, per-period figures as tuples."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.engine.inputs.specs import GpuSpec

PERIOD_KINDS = ("quarter", "month", "year")
SHARING_MODES = ("whole", "mig", "time_slicing")
WORKLOAD_KINDS = ("training", "inference", "service", "jobs")


@dataclass(frozen=True)
class Horizon:
    periods: int
    period: str
    start: str
    period_h: float  # hours in one period
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Pool:
    id: str
    gpu_id: str | None
    gpu: GpuSpec
    gpus_per_node: int
    existing_nodes: int
    max_nodes: int | None
    sharing: str  # "whole", "mig" or "time_slicing"
    node_usd: float | None
    cloud_usd_per_gpu_hour: float | None
    node_running_w: float  # average IT draw of a busy node (GPUs at load factor + host)
    node_peak_w: float  # provisioned IT power of a node (GPUs at TDP + host)

    @property
    def mig(self) -> bool:
        return self.sharing == "mig"


@dataclass(frozen=True)
class Team:
    id: str
    max_share: float | None
    max_gpus: dict[str, int]


@dataclass(frozen=True)
class Workload:
    id: str
    team: str | None
    kind: str
    start_period: int
    deadline_period: int
    raw: dict[str, Any]  # the validated input object (for the engine calls that size it)
    replicas: tuple[int, ...] = ()  # service
    gpu_memory_gib: float = 0.0
    gpu_share: float = 0.0
    requests_per_s: tuple[float, ...] = ()  # inference
    jobs_per_period: tuple[float, ...] = ()  # jobs
    gpus_per_job: int = 1
    single_gpu_hours: float = 0.0
    parallel_fraction: float = 1.0
    pools: tuple[str, ...] = ()  # allowed pools (empty: any)


@dataclass(frozen=True)
class Facility:
    power_w: tuple[float | None, ...]  # facility (IT x PUE) limit per period; None = unlimited
    racks: tuple[float | None, ...]
    cooling: str
    pue: float
    rack_density_w: float


@dataclass(frozen=True)
class Economics:
    budget_usd: tuple[float | None, ...]
    electricity_usd_per_kwh: float
    discount_rate: float
    life_years: float
    cloud_burst: bool
    maintenance_fraction_per_year: float
    idle_power_fraction: float


@dataclass(frozen=True)
class FleetSpec:
    horizon: Horizon
    pools: tuple[Pool, ...]
    teams: tuple[Team, ...]
    workloads: tuple[Workload, ...]
    facility: Facility
    economics: Economics
    objective: str
    time_limit_s: float
    seed: int
    assumptions: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
