"""Ready-made scenarios for the "new scenario from a preset" flow and the defaults of a blank form.

Each is form initial data (catalog ids, percentages as typed), not a saved scenario: the person sees every
value on the form before saving. Catalog ids are rows of catalog/seed; a missing row simply leaves its field blank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.engine.job.presets import BLENDER_CYCLES, GROMACS_100K, JobPreset
from planner.models import (
    Batching,
    FacilityKind,
    JobScaling,
    Optimizer,
    ParallelismMode,
    Precision,
    Recompute,
    Topology,
    WorkloadKind,
)

#: Catalog rows the starters and a blank form default to (ids of catalog/seed rows).
DEFAULT_GPU_ID = "nvidia_h100_sxm5_80gb"
DEFAULT_NETWORK_ID = "ib_ndr"
DEFAULT_SWITCH_ID = "nvidia_qm9700"
DEFAULT_ELECTRICITY_ID = "elec_us_industrial_2023"
DEFAULT_COLOCATION_ID = "colo_na_2024h2"
DEFAULT_GRID_CARBON_ID = "grid_carbon_us_2023"

#: Llama 3 pre-training doubled its batch to 8 M tokens of 8,192-token sequences (= 1,024 sequences) after the
#: first 252 M tokens (Dubey et al. 2024, arXiv:2407.21783, §3.4.1).
LLAMA3_GLOBAL_BATCH_SEQUENCES = 1024

DEFAULT_INITIAL: dict[str, Any] = {
    "gpu_source": "catalog",
    "gpu": DEFAULT_GPU_ID,
    "nodes": 8,
    "gpus_per_node": 8,
    "network": DEFAULT_NETWORK_ID,
    "switch": DEFAULT_SWITCH_ID,
    "topology": Topology.RAIL_OPTIMIZED,
    "oversubscription": 1,
    "storage_tb": 0,
    "workload_kind": WorkloadKind.TRAINING,
    "model_preset": "llama3.1-70b",
    "tokens_b": 15_000,
    "precision": Precision.BF16,
    "optimizer": Optimizer.ADAMW,
    "parallelism_mode": ParallelismMode.AUTOMATIC,
    "tp": 8,
    "pp": 1,
    "cp": 1,
    "ep": 1,
    "zero_stage": 1,
    "recompute": Recompute.SELECTIVE,
    "micro_batch": 1,
    "global_batch": LLAMA3_GLOBAL_BATCH_SEQUENCES,
    "serving_batch": 32,
    "batching": Batching.CONTINUOUS,
    "context_len": 4096,
    "output_len": 512,
    "job_single_gpu_hours": 12,
    "job_parallel_fraction": 0.95,
    "job_scaling": JobScaling.AMDAHL,
    "electricity": DEFAULT_ELECTRICITY_ID,
    "grid_carbon": DEFAULT_GRID_CARBON_ID,
    "facility": FacilityKind.COLOCATION,
    "colocation": DEFAULT_COLOCATION_ID,
    "years": 5,
    "utilization_pct": 80,
    "discount_rate_pct": 0,
}


@dataclass(frozen=True)
class Starter:
    """A ready-made scenario for the "new scenario from preset" flow (form initial data, not saved)."""

    key: str
    title: str
    description: str
    overrides: tuple[tuple[str, Any], ...]

    @property
    def initial(self) -> dict[str, Any]:
        return {**DEFAULT_INITIAL, "name": self.title, **dict(self.overrides)}


STARTERS: tuple[Starter, ...] = (
    Starter(
        "llama70b-h100",
        "Llama 3.1 70B on 64 H100s, 15T tokens",
        "Pre-train Llama 3.1 70B on 8 nodes × 8 H100 SXM5 with the fastest layout that fits.",
        (),
    ),
    Starter(
        "llama70b-h100-1t",
        "Llama 3.1 70B on 256 H100s, 1T tokens",
        "Train Llama 3.1 70B on one trillion tokens with 32 nodes × 8 H100 SXM5 and the fastest layout that fits.",
        (("nodes", 32), ("tokens_b", 1_000)),
    ),
    Starter(
        "llama70b-b200",
        "Llama 3.1 70B on 64 B200s, 15T tokens",
        "The same job on 8 HGX B200 nodes: faster, and at what price and power?",
        (("gpu", "nvidia_b200_hgx"),),
    ),
    Starter(
        "llama8b-serving",
        "Serve Llama 3.1 8B on one H100 node",
        "Inference: 10 requests/s, 4,096-token prompts, 512-token answers, first token within 2 s (p90).",
        (
            ("workload_kind", WorkloadKind.INFERENCE),
            ("model_preset", "llama3.1-8b"),
            ("nodes", 1),
            ("tp", 1),
            ("serving_batch", None),
            ("requests_per_s", 10),
            ("max_ttft_s", 2),
            ("max_tpot_s", 0.05),
        ),
    ),
    Starter(
        "md-job",
        "Molecular dynamics: 12 GPU-hours on 8 GPUs",
        "A generic GPU job that is 95 % parallel (Amdahl's law) on one 8-GPU node.",
        (("workload_kind", WorkloadKind.JOB), ("nodes", 1)),
    ),
)


def _job_starter(preset: JobPreset, description: str) -> Starter:
    """A preset of planner/engine/job/presets.py as a one-node job scenario on the GPU it was measured on: its
    single-GPU hours and the Amdahl fraction derived from the middle of its measured multi-GPU time."""
    p = round(preset.parallel_fraction(preset.measured_hours_mid), 4)
    return Starter(
        f"job-{preset.key}",
        f"{preset.label}: {preset.single_gpu_hours:g} h on one GPU",
        description,
        (
            ("workload_kind", WorkloadKind.JOB),
            ("gpu", preset.reference_gpu_id),
            ("nodes", 1),
            ("gpus_per_node", preset.measured_gpus),
            ("job_single_gpu_hours", preset.single_gpu_hours),
            ("job_parallel_fraction", p),
            ("job_scaling", JobScaling.AMDAHL),
        ),
    )


STARTERS += (
    _job_starter(
        GROMACS_100K, "12 h on one A100, 2–3 h on 8 GPUs: Amdahl p derived from 2.5 h (HPC presets page)."
    ),
    _job_starter(
        BLENDER_CYCLES, "24 h per shot on one GPU, 3 h on 8: linear scaling, p = 1 (HPC presets page)."
    ),
)
STARTERS_BY_KEY: dict[str, Starter] = {s.key: s for s in STARTERS}
