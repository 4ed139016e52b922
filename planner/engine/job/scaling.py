"""Generic GPU jobs (HPC, rendering, simulation): time on N GPUs from a measured single-GPU run.

The user gives the single-GPU wall time and either the parallel fraction p or a speed-up measured on M GPUs, from
which p is derived. Two scaling laws:

* Amdahl (1967), fixed problem size: S(N) = 1 / ((1 - p) + p / N).
  G. M. Amdahl, "Validity of the single processor approach to achieving large scale computing capabilities",
  AFIPS Spring Joint Computer Conference 1967, pp. 483-485.
* Gustafson (1988), scaled speed-up: S(N) = N - (1 - p)(N - 1), where 1 - p is the serial share of the time
  measured on the N-GPU run. J. L. Gustafson, "Reevaluating Amdahl's law", Communications of the ACM 31(5),
  1988, pp. 532-533.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.units import DAY, HOUR
from planner.engine.results import JobSection

Scaling = Literal["amdahl", "gustafson"]
SCALINGS: tuple[str, ...] = ("amdahl", "gustafson")

#: Field paths used in SpecError messages (the contract's `workload.job` object).
_PATH = "workload.job"


@dataclass(frozen=True)
class JobSpec:
    """A measured single-GPU job and how it scales. Give `parallel_fraction`, or `measured_speedup` together with
    `measured_gpus` (p is then derived by inverting the chosen law at M GPUs)."""

    single_gpu_time_s: float
    parallel_fraction: float | None = None
    measured_speedup: float | None = None
    measured_gpus: int | None = None
    scaling: Scaling = "amdahl"


@dataclass(frozen=True)
class JobResult:
    gpus: int
    time_s: float
    speedup: float
    parallel_fraction: float
    scaling: str
    parallel_fraction_derived: bool

    @property
    def parallel_efficiency(self) -> float:
        return self.speedup / self.gpus

    @property
    def gpu_hours(self) -> float:
        return self.gpus * self.time_s / HOUR

    def as_dict(self) -> JobSection:
        """The `job` output section (docs/engine-contract.md)."""
        return {
            "time_s": self.time_s,
            "days": self.time_s / DAY,
            "gpu_hours": self.gpu_hours,
            "speedup": self.speedup,
            "parallel_efficiency": self.parallel_efficiency,
            "parallel_fraction": self.parallel_fraction,
            "scaling": self.scaling,
            "gpus": self.gpus,
        }

    @property
    def assumptions(self) -> dict[str, dict[str, Any]]:
        source = (
            f"derived by inverting {self.scaling.capitalize()}'s law at the measured speed-up"
            if self.parallel_fraction_derived
            else "input"
        )
        return {
            "job.parallel_fraction": {"value": self.parallel_fraction, "unit": "fraction", "source": source},
            "job.scaling": {
                "value": self.scaling,
                "unit": "",
                "source": "Amdahl 1967 (fixed size)"
                if self.scaling == "amdahl"
                else "Gustafson 1988 (scaled)",
            },
        }


def amdahl_speedup(parallel_fraction: float, gpus: float) -> float:
    """Amdahl 1967: S(N) = 1 / ((1 - p) + p / N)."""
    serial = 1.0 - parallel_fraction  # share of the single-GPU time that does not parallelise
    return 1.0 / (serial + parallel_fraction / gpus)


def gustafson_speedup(parallel_fraction: float, gpus: float) -> float:
    """Gustafson 1988: scaled speed-up S(N) = N - (1 - p)(N - 1), p measured on the N-GPU run."""
    return gpus - (1.0 - parallel_fraction) * (gpus - 1.0)


def amdahl_parallel_fraction(speedup: float, gpus: float) -> float:
    """Invert Amdahl: 1/S = (1 - p) + p/M  =>  p = (1 - 1/S) / (1 - 1/M)."""
    return (1.0 - 1.0 / speedup) / (1.0 - 1.0 / gpus)


def gustafson_parallel_fraction(speedup: float, gpus: float) -> float:
    """Invert Gustafson: S = M - (1 - p)(M - 1)  =>  p = 1 - (M - S) / (M - 1)."""
    return 1.0 - (gpus - speedup) / (gpus - 1.0)


def _speedup(scaling: str, parallel_fraction: float, gpus: float) -> float:
    if scaling == "gustafson":
        return gustafson_speedup(parallel_fraction, gpus)
    return amdahl_speedup(parallel_fraction, gpus)


def _check(spec: JobSpec, gpus: int) -> None:
    problems: list[Problem] = []
    if not spec.single_gpu_time_s > 0:
        problems.append(Problem(f"{_PATH}.single_gpu_hours", "must be greater than 0"))
    if spec.scaling not in SCALINGS:
        problems.append(Problem(f"{_PATH}.scaling", f"must be one of {', '.join(SCALINGS)}"))
    if gpus < 1:
        problems.append(Problem("cluster.nodes", f"need at least one GPU (got {gpus})"))
    if spec.parallel_fraction is not None:
        if not 0.0 <= spec.parallel_fraction <= 1.0:
            problems.append(Problem(f"{_PATH}.parallel_fraction", "must be between 0 and 1"))
    elif spec.measured_speedup is None or spec.measured_gpus is None:
        problems.append(
            Problem(
                f"{_PATH}.parallel_fraction",
                "give parallel_fraction, or measured_speedup together with measured_gpus",
            )
        )
    else:
        m, s = spec.measured_gpus, spec.measured_speedup
        if m < 2:
            problems.append(Problem(f"{_PATH}.measured_gpus", f"must be at least 2 (got {m})"))
        elif not 1.0 <= s <= m:
            problems.append(
                Problem(
                    f"{_PATH}.measured_speedup",
                    f"must be between 1 and measured_gpus ({m}); got {s} "
                    "(a slow-down or a super-linear speed-up cannot be modelled by Amdahl or Gustafson)",
                )
            )
    if problems:
        raise SpecError(problems)


def estimate_job(spec: JobSpec, gpus: int) -> JobResult:
    """Time of the job on `gpus` GPUs: T(N) = T(1) / S(N) with S from the chosen law.

    For Gustafson, T(1)/S(N) is the wall time on N GPUs of a job whose single-GPU time is T(1), when 1 - p is the
    serial share of the N-GPU run (Gustafson 1988's definition of s), i.e. weak scaling read as a time.
    """
    _check(spec, gpus)
    derived = spec.parallel_fraction is None
    if spec.parallel_fraction is not None:
        p = spec.parallel_fraction
    else:
        assert spec.measured_speedup is not None and spec.measured_gpus is not None
        invert = gustafson_parallel_fraction if spec.scaling == "gustafson" else amdahl_parallel_fraction
        p = min(1.0, max(0.0, invert(spec.measured_speedup, float(spec.measured_gpus))))
    speedup = _speedup(spec.scaling, p, float(gpus))
    return JobResult(
        gpus=gpus,
        time_s=spec.single_gpu_time_s / speedup,
        speedup=speedup,
        parallel_fraction=p,
        scaling=spec.scaling,
        parallel_fraction_derived=derived,
    )


def assumptions() -> dict[str, dict[str, Any]]:
    """The job model has no hidden defaults: the scaling law defaults to Amdahl (the conservative choice)."""
    return {
        "job.scaling": {
            "value": "amdahl",
            "unit": "",
            "source": "default law: Amdahl 1967 (fixed problem size)",
        }
    }
