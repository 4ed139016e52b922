"""Build the numeric inputs of the formulas (layout.py) from parsed specs: one place for both estimate and search."""

from __future__ import annotations

from typing import Any

from planner.engine.facility.network import NetworkSpec
from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.specs import GpuSpec, ParallelismSpec
from planner.engine.perf import efficiency
from planner.engine.perf.layout import FLASH_CODES, FLASH_NONE, RECOMPUTE_CODES, Hardware, Layout

#: A catalog figure is both directions summed (catalog README); one direction is half.
DIRECTIONS = 2.0


def hardware_for(
    gpu: GpuSpec,
    precision: str,
    *,
    gpus_per_node: int,
    scaleout_bytes_per_s: float,
    network: NetworkSpec,
    efficiency_scale: float = 1.0,
) -> Hardware:
    """The GPU, its node and the scale-out fabric as the memory and time formulas see them.

    `efficiency_scale` multiplies the matmul ceiling: the user's statement of how far their framework's kernels
    fall short of (or beat) the Megatron-LM-class efficiency the engine is validated on."""
    peak = gpu.peak_for(precision)
    assert peak is not None, "parse.py checks that the precision has a peak"
    return Hardware(
        peak_flop_per_s=peak,
        hbm_bytes=gpu.hbm_bytes,
        hbm_bandwidth_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s,
        scaleup_bytes_per_s=gpu.scaleup_bandwidth_bytes_per_s / DIRECTIONS,
        scaleout_bytes_per_s=scaleout_bytes_per_s,
        scaleout_latency_s=network.latency_s,
        scaleout_efficiency=network.efficiency,
        gpus_per_node=float(gpus_per_node),
        matmul_ceiling=efficiency.mamf_fraction(gpu_key(gpu)) * efficiency_scale,
    )


def hardware_of(sc: Scenario) -> Hardware:
    """The Hardware of a parsed training scenario (estimate and search both use this)."""
    c = sc.cluster
    return hardware_for(
        c.gpu,
        sc.precision,
        gpus_per_node=c.gpus_per_node,
        scaleout_bytes_per_s=c.scaleout_bytes_per_s_per_gpu,
        network=c.network,
        efficiency_scale=sc.efficiency_scale,
    )


def gpu_key(gpu: GpuSpec) -> str:
    """What the matmul-ceiling table matches on: the catalog id and the name."""
    return f"{gpu.catalog_id or ''} {gpu.name}"


def layout_for(p: ParallelismSpec) -> Layout:
    """One fixed layout as plain numbers (floats, so that scalars and numpy arrays give identical results)."""
    return Layout(
        tp=float(p.tp),
        pp=float(p.pp),
        dp=float(p.dp),
        cp=float(p.cp),
        ep=float(p.ep),
        virtual_stages=float(p.virtual_stages),
        micro_batch=float(p.micro_batch),
        global_batch=float(p.global_batch),
        zero_stage=float(p.zero_stage),
        recompute=float(RECOMPUTE_CODES[p.recompute]),
        **workload_flags(p),
    )


def workload_flags(p: ParallelismSpec) -> dict[str, Any]:
    """The layout's workload-level switches as numbers (the same for every layout of a search, so that `search`
    and `estimate` encode them identically)."""
    return {
        "sequence_parallel": 1.0 if p.sequence_parallel else 0.0,
        "flash_attention": float(FLASH_CODES[p.flash_attention_version] if p.flash_attention else FLASH_NONE),
        "dp_overlap": 1.0 if p.dp_overlap else 0.0,
    }
