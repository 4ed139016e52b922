"""One validation case's outcome: the published figure, the engine's, the tolerance and the derived error.
validation.py builds them from data/validation.csv through `estimate`; formulas.py from the closed-form checks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CaseResult:
    id: str
    group: str
    metric: str
    published: float
    engine: float
    tolerance: float
    known_outlier: str
    source: str
    #: Non-empty for the independent check named in an issue: never calibrated, never in the range's fit.
    holdout: str = ""
    date: str = ""
    #: What the source leaves open and the case assumes (validation.csv column assumed).
    assumed: str = ""
    #: What the range's distance test reads (validation.csv cases; empty for the closed-form checks).
    gpu: str = ""
    params_b: float = 0.0
    gpus: int = 0
    family: str = ""

    @property
    def error(self) -> float:
        return self.engine / self.published - 1.0

    @property
    def ok(self) -> bool:
        return abs(self.error) <= self.tolerance

    @property
    def time_ratio(self) -> float:
        """Published time / engine time (throughput metrics inverted): how much longer reality took."""
        if self.metric in ("hardware_tflops_per_gpu", "mfu", "tokens_per_s"):
            return self.engine / self.published
        return self.published / self.engine
