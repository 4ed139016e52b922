"""The hardware as the memory and time formulas see it (bytes, FLOP/s, bytes/s per direction, seconds), built from
parsed specs in one place for training (estimate, search, sweeps) and inference alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.specs import GpuSpec
from planner.engine.perf import achieved, comm, efficiency


@dataclass(frozen=True)
class Hardware:
    """One GPU type in one cluster, as the formulas see it (bytes, FLOP/s, bytes/s per direction, seconds).
    Fields may be numbers or numpy arrays (layout.py)."""

    peak_flop_per_s: Any  # dense peak of the workload's precision
    hbm_bytes: Any
    hbm_bandwidth_bytes_per_s: Any
    scaleup_bytes_per_s: Any  # per GPU, ONE direction (the catalog's bidirectional figure / 2)
    scaleout_bytes_per_s: Any  # per GPU NIC, one direction
    scaleout_latency_s: Any
    scaleout_efficiency: Any
    gpus_per_node: Any
    matmul_ceiling: Any  # efficiency.mamf_fraction(gpu)
    mfu_ceiling: Any = (
        achieved.UNBOUNDED
    )  # best published MFU of this generation, precision, scale (achieved.py)
    nccl_generation: int = comm.HOPPER  # NCCL tuning.cc's compCapIndex (comm.nccl_generation)


#: A catalog figure is both directions summed (catalog README); one direction is half.
DIRECTIONS = 2.0


def hardware_for(
    gpu: GpuSpec,
    peak_flop_per_s: float,
    *,
    gpus_per_node: int,
    scaleout_bytes_per_s: float,
    scaleout_latency_s: float,
    scaleout_efficiency: float,
    efficiency_scale: float = 1.0,
    mfu_ceiling: float = achieved.UNBOUNDED,
) -> Hardware:
    """The GPU at `peak_flop_per_s` (its dense peak of the workload's precision), its node and the scale-out
    fabric as the memory and time formulas see them.

    `efficiency_scale` multiplies the matmul ceiling: the user's statement of how far their framework's kernels
    fall short of (or beat) the Megatron-LM-class efficiency the engine is validated on."""
    return Hardware(
        peak_flop_per_s=peak_flop_per_s,
        hbm_bytes=gpu.hbm_bytes,
        hbm_bandwidth_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s,
        scaleup_bytes_per_s=gpu.scaleup_bandwidth_bytes_per_s / DIRECTIONS,
        scaleout_bytes_per_s=scaleout_bytes_per_s,
        scaleout_latency_s=scaleout_latency_s,
        scaleout_efficiency=scaleout_efficiency,
        gpus_per_node=float(gpus_per_node),
        matmul_ceiling=efficiency.mamf_fraction(gpu_key(gpu)) * efficiency_scale,
        mfu_ceiling=mfu_ceiling,
        nccl_generation=comm.nccl_generation(gpu_key(gpu)),
    )


def hardware_of(sc: Scenario) -> Hardware:
    """The Hardware of a parsed training scenario (estimate, search and sweeps use this)."""
    c = sc.cluster
    peak = c.gpu.peak_for(sc.precision)
    assert peak is not None, "inputs/parse.py checks that the precision has a peak"
    return hardware_for(
        c.gpu,
        peak,
        gpus_per_node=c.gpus_per_node,
        scaleout_bytes_per_s=c.scaleout_bytes_per_s_per_gpu,
        scaleout_latency_s=c.network.latency_s,
        scaleout_efficiency=c.network.efficiency,
        efficiency_scale=sc.efficiency_scale,
        mfu_ceiling=published_ceiling(sc).mfu if published_ceiling(sc) else achieved.UNBOUNDED,
    )


def published_ceiling(sc: Scenario) -> achieved.Achieved | None:
    """The best published MFU for the scenario's GPU, precision and scale (one node or several)."""
    c = sc.cluster
    return achieved.achieved(gpu_key(c.gpu), sc.precision, c.gpus > c.gpus_per_node)


def gpu_key(gpu: GpuSpec) -> str:
    """What the matmul-ceiling table matches on: the catalog id and the name."""
    return f"{gpu.catalog_id or ''} {gpu.name}"
