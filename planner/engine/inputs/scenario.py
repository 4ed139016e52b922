"""A parsed, validated scenario: every input in SI units with the defaults applied (parse.py builds it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.engine.facility.network import NetworkSpec
from planner.engine.facility.power import CoolingSpec
from planner.engine.facility.tco import EconomicsSpec
from planner.engine.inference.workload import ServingSpec
from planner.engine.inputs.specs import GpuSpec, ModelSpec, ParallelismSpec
from planner.engine.job.scaling import JobSpec
from planner.engine.training.goodput import GoodputSpec


@dataclass(frozen=True)
class ClusterSpec:
    gpu: GpuSpec
    gpus_per_node: int
    nodes: int
    scaleout_bytes_per_s_per_gpu: float  # one direction, per GPU NIC
    network: NetworkSpec
    cooling: CoolingSpec
    node_max_power_w: float | None = None
    pue: float | None = None
    host_power_w_per_node: float | None = None
    gpu_load_factor: float | None = None  # None: facility/power.py's default
    storage_tb: float | None = None  # None: sized from the workload (facility/sections.py storage_plan)
    storage_power_w_per_tb: float | None = None  # None: facility/power.py's default
    storage_usd_per_tb: float | None = None  # None: EconomicsSpec.storage_usd_per_tb (facility/tco.py)
    node_nameplate_w: float | None = None  # provisioned power per node (facility/power.py node_peak_power_w)
    nameplate_source: str = ""
    power_redundancy: str = "2N"  # facility/power.py REDUNDANCY_DEFAULT
    gpu_power_limit_w: float | None = None  # power cap below TDP (gpu.tdp_w is already the cap when set)
    gpu_tdp_uncapped_w: float | None = None  # the GPU's own TDP, before any power cap

    @property
    def gpus(self) -> int:
        return self.gpus_per_node * self.nodes


@dataclass(frozen=True)
class Scenario:
    kind: str  # "training" | "inference" | "job"
    cluster: ClusterSpec
    precision: str
    goodput: GoodputSpec
    model: ModelSpec | None = None
    tokens: float | None = None
    optimizer: str = "adam"
    parallelism: ParallelismSpec = field(default_factory=ParallelismSpec)
    efficiency_scale: float = 1.0  # multiplies the achieved matmul efficiency (framework/kernel quality)
    serving: ServingSpec | None = None
    job: JobSpec | None = None
    economics: EconomicsSpec | None = None
    search: dict[str, Any] | None = None  # the raw, validated `search` object (search/layouts.py reads it)
    #: `workload.parallelism` omitted or `"auto": true`: the degrees the automatic layout searches (fixed ones as
    #: values, listed ones as lists; free ones absent). None: the layout is given.
    auto_layout: dict[str, Any] | None = None
    assumptions: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
