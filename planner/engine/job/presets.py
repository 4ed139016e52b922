"""HPC and rendering presets: a measured single-GPU time and a measured multi-GPU time, from which the Amdahl
parallel fraction is derived (planner/engine/job/scaling.py), so nobody has to turn "4.8x on 8 GPUs" into p by
hand. Each preset says where its figures come from; where the only basis is the figure the planning issue gave,
the source says so.

A measured range (GROMACS: 2-3 h on 8 GPUs) is carried as low / mid / high: `variants()` gives the three specs,
mid being the midpoint of the times.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.engine.inputs.units import HOUR
from planner.engine.job.scaling import JobSpec, amdahl_parallel_fraction


@dataclass(frozen=True)
class JobPreset:
    key: str
    label: str
    #: What one job is, as a buyer would say it ("simulation", "shot").
    job_noun: str
    #: Catalog GPU the times were measured on (catalog/seed/gpus.csv id).
    reference_gpu_id: str
    single_gpu_hours: float
    measured_gpus: int
    #: Wall time on `measured_gpus` GPUs: (fastest, slowest) of the measured range; equal when one figure.
    measured_hours: tuple[float, float]
    #: What a job produces, for "per day" figures (frames of a shot, ns of trajectory); "" when none.
    work_unit: str
    #: Default work per job; None when the person must type it (no sourced default).
    work_per_job: float | None
    source: str
    work_source: str = ""
    reference_source: str = ""

    @property
    def measured_hours_mid(self) -> float:
        return (self.measured_hours[0] + self.measured_hours[1]) / 2.0

    def speedup(self, measured_hours: float) -> float:
        return self.single_gpu_hours / measured_hours

    def parallel_fraction(self, measured_hours: float) -> float:
        """Amdahl's p from the measured speed-up (scaling.amdahl_parallel_fraction), clipped to [0, 1]."""
        p = amdahl_parallel_fraction(self.speedup(measured_hours), float(self.measured_gpus))
        return min(1.0, max(0.0, p))

    def spec(self, measured_hours: float | None = None) -> JobSpec:
        hours = self.measured_hours_mid if measured_hours is None else measured_hours
        return JobSpec(
            single_gpu_time_s=self.single_gpu_hours * HOUR,
            measured_speedup=min(self.speedup(hours), float(self.measured_gpus)),
            measured_gpus=self.measured_gpus,
            scaling="amdahl",
        )

    def variants(self) -> dict[str, JobSpec]:
        """low / mid / high throughput: the slowest, middle and fastest measured multi-GPU time."""
        fast, slow = self.measured_hours
        return {"low": self.spec(slow), "mid": self.spec(), "high": self.spec(fast)}

    @property
    def is_range(self) -> bool:
        return self.measured_hours[0] != self.measured_hours[1]


GROMACS_100K = JobPreset(
    key="gromacs_100k",
    label="GROMACS, 100k-atom system",
    job_noun="simulation",
    reference_gpu_id="nvidia_a100_sxm4_80gb",
    single_gpu_hours=12.0,
    measured_gpus=8,
    measured_hours=(2.0, 3.0),
    work_unit="ns",
    work_per_job=None,
    source=(
        "12 h on one A100 and 2-3 h on 8 GPUs (speed-up 4-6x) are the planning issue's figures, not a published "
        "measurement of one system; they sit within what GROMACS reports for strong scaling of ~100k-atom "
        "systems inside one node with GPU-direct halo and PP-PME communication (Pall et al. 2020, J. Chem. "
        "Phys. 153, 134110, https://doi.org/10.1063/5.0018516; NVIDIA developer blog 'Massively "
        "Improved Multi-node NVIDIA GPU Scalability with GROMACS', 2023). Multi-GPU gains depend strongly on "
        "version and settings: NHR@FAU measured 65k atoms at 229 -> 273 ns/day from 1 to 4 GPUs with GROMACS "
        "2020 (https://hpc.fau.de/2021/06/18/multi-gpu-gromacs-jobs-on-tinygpu/), so measure yours"
    ),
    work_source="no sourced default: type the simulated time of one run (ns) to see ns/day",
    reference_source="the issue's single-GPU figure is for an A100 (catalog A100 SXM4 80GB)",
)

#: Film and most animation are rendered at 24 frames per second (the cinema frame rate); a 10-second shot is
#: 240 frames. A planning default, not a measurement: type the frame count of your shot.
FRAMES_PER_SHOT_DEFAULT = 24.0 * 10.0

BLENDER_CYCLES = JobPreset(
    key="blender_cycles",
    label="Blender Cycles render",
    job_noun="shot",
    reference_gpu_id="nvidia_a100_sxm4_80gb",
    single_gpu_hours=24.0,
    measured_gpus=8,
    measured_hours=(3.0, 3.0),
    work_unit="frames",
    work_per_job=FRAMES_PER_SHOT_DEFAULT,
    source=(
        "24 h per job on one GPU and 3 h on 8 are the planning issue's figures and the only basis here "
        "(speed-up 8.0, so p = 1): the frames of a shot render independently, one per GPU, so linear scaling "
        "holds until there are fewer frames than GPUs"
    ),
    work_source=(
        "planning default, not sourced: a 10-second shot at the cinema rate of 24 frames/s = 240 frames; "
        "type yours"
    ),
    reference_source=(
        "the issue names no GPU for its Blender figure: taken as the A100 SXM4 80GB (the GROMACS reference), "
        "an assumption; pick the GPU yours were measured on"
    ),
)

PRESETS: dict[str, JobPreset] = {p.key: p for p in (GROMACS_100K, BLENDER_CYCLES)}
