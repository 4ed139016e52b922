"""Goodput: the share of wall-clock time a large training job spends making progress.

Failures grow with the number of GPUs. Default failure rate: Llama 3 405B saw 466 job interruptions in 54 days
on 16,384 H100 GPUs (Dubey et al. 2024, arXiv:2407.21783, §3.3.4), i.e. one interruption per
16,384 × 54 × 24 / 466 = 45,565 GPU-hours; a cluster of N GPUs fails every 45,565/N hours.

Each failure costs the restart time plus, on average, half a checkpoint interval of lost work; each checkpoint
costs its blocking write time. With checkpoint interval τ, write time δ, restart time R and cluster MTBF M
(first-order model of Young 1974, CACM 17(9); Daly 2006, FGCS 22(3), eq. 1):

    wasted fraction = δ/τ + (τ/2 + R)/M,    goodput = 1 - wasted fraction,
    τ_opt = sqrt(2·δ·M)  (Young's interval, used unless the input fixes the interval).

Defaults: δ = 30 s (the blocking part of an asynchronous checkpoint: the GPU-to-host copy; PyTorch Distributed
Checkpoint async_save) and R = 3.5 min, chosen so that the model reproduces Llama 3's "higher than 90% effective
training time" at 16,384 GPUs (calibration: goodput(16,384) = 0.90).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.engine.inputs.units import DAY, HOUR, MINUTE

#: Llama 3 405B: 466 interruptions in 54 days on 16,384 GPUs (arXiv:2407.21783 §3.3.4).
LLAMA3_INTERRUPTIONS = 466
LLAMA3_DAYS = 54.0
LLAMA3_GPUS = 16_384
MTBF_GPU_HOURS_DEFAULT = LLAMA3_GPUS * LLAMA3_DAYS * DAY / HOUR / LLAMA3_INTERRUPTIONS
#: Blocking checkpoint write (asynchronous checkpointing: only the device-to-host copy blocks training).
CHECKPOINT_WRITE_S_DEFAULT = 30.0
#: Restart after a failure (reschedule, reload the checkpoint, warm up), calibrated with the line above so that
#: 16,384 GPUs give 90% goodput, Llama 3's reported effective training time.
RESTART_S_DEFAULT = 3.5 * MINUTE
#: Below this the run makes almost no progress; reported with a warning.
GOODPUT_FLOOR = 0.01
SOURCE = (
    "Llama 3 405B: 466 interruptions in 54 days on 16,384 GPUs, >90% effective time (arXiv:2407.21783 §3.3.4)"
)


@dataclass(frozen=True)
class GoodputSpec:
    mtbf_gpu_hours: float = MTBF_GPU_HOURS_DEFAULT
    checkpoint_interval_s: float | None = None  # None: Young's optimum sqrt(2·δ·M)
    checkpoint_write_s: float = CHECKPOINT_WRITE_S_DEFAULT
    restart_s: float = RESTART_S_DEFAULT
    fraction: float | None = None  # a measured goodput that replaces the model


@dataclass(frozen=True)
class GoodputResult:
    fraction: float
    cluster_mtbf_s: float
    checkpoint_interval_s: float
    failures: float  # expected interruptions during the run
    warnings: tuple[str, ...]


def cluster_mtbf_s(mtbf_gpu_hours: Any, gpus: Any) -> Any:
    """Mean time between failures of the whole job: per-GPU MTBF / N (independent failures)."""
    return mtbf_gpu_hours * HOUR / np.maximum(gpus, 1.0)


def young_interval_s(checkpoint_write_s: Any, mtbf_s: Any) -> Any:
    """Young 1974: τ_opt = sqrt(2·δ·M)."""
    return np.sqrt(2.0 * checkpoint_write_s * mtbf_s)


def wasted_fraction(interval_s: Any, write_s: Any, restart_s: Any, mtbf_s: Any) -> Any:
    """δ/τ (checkpoint writes) + (τ/2 + R)/M (lost work and restart per failure)."""
    return write_s / interval_s + (interval_s / 2.0 + restart_s) / mtbf_s


def goodput_fraction(spec: GoodputSpec, gpus: Any) -> Any:
    """Elementwise goodput (floored at GOODPUT_FLOOR) for `gpus` GPUs: the model above, or the input fraction."""
    if spec.fraction is not None:
        return spec.fraction + 0.0 * gpus
    mtbf_s = cluster_mtbf_s(spec.mtbf_gpu_hours, gpus)
    interval = (
        young_interval_s(spec.checkpoint_write_s, mtbf_s)
        if spec.checkpoint_interval_s is None
        else (spec.checkpoint_interval_s + 0.0 * mtbf_s)
    )
    if spec.checkpoint_write_s == 0 and spec.checkpoint_interval_s is None:
        # Free checkpoints: checkpoint continuously and lose nothing but the restart.
        return np.maximum(1.0 - spec.restart_s / mtbf_s, GOODPUT_FLOOR)
    return np.maximum(
        1.0 - wasted_fraction(interval, spec.checkpoint_write_s, spec.restart_s, mtbf_s), GOODPUT_FLOOR
    )


def estimate_goodput(spec: GoodputSpec, gpus: float, steady_time_s: float) -> GoodputResult:
    """Goodput of a run of `steady_time_s` of failure-free work on `gpus` GPUs."""
    mtbf_s = float(cluster_mtbf_s(spec.mtbf_gpu_hours, gpus))
    if spec.checkpoint_interval_s is not None:
        interval = spec.checkpoint_interval_s
    else:
        interval = float(young_interval_s(spec.checkpoint_write_s, mtbf_s))
    fraction = float(goodput_fraction(spec, float(gpus)))
    warnings: list[str] = []
    if spec.fraction is None and fraction <= GOODPUT_FLOOR:
        warnings.append(
            f"failures dominate: with an interruption every {mtbf_s / HOUR:.2f} h the job makes almost no "
            "progress; goodput floored at 1%"
        )
    elif spec.fraction is None and fraction < 0.8:
        warnings.append(
            f"goodput is only {fraction:.0%}: failures every {mtbf_s / HOUR:.1f} h on {gpus:.0f} GPUs"
        )
    failures = steady_time_s / fraction / mtbf_s
    return GoodputResult(fraction, mtbf_s, interval, failures, tuple(warnings))


def assumptions(spec: GoodputSpec, result: GoodputResult) -> dict[str, dict[str, Any]]:
    def item(value: Any, default: Any, unit: str, source: str) -> dict[str, Any]:
        return {"value": value, "unit": unit, "source": source if value == default else "input"}

    return {
        "goodput.mtbf_gpu_hours": item(
            spec.mtbf_gpu_hours, MTBF_GPU_HOURS_DEFAULT, "GPU-hours per interruption", SOURCE
        ),
        "goodput.checkpoint_write_s": item(
            spec.checkpoint_write_s,
            CHECKPOINT_WRITE_S_DEFAULT,
            "s",
            "asynchronous checkpoint, blocking copy only",
        ),
        "goodput.restart_min": item(
            spec.restart_s / MINUTE,
            RESTART_S_DEFAULT / MINUTE,
            "min",
            "calibrated: 90% goodput at 16,384 GPUs",
        ),
        "goodput.checkpoint_interval_min": {
            "value": result.checkpoint_interval_s / MINUTE,
            "unit": "min",
            "source": "input" if spec.checkpoint_interval_s else "Young 1974: sqrt(2·write·MTBF)",
        },
        "goodput.fraction": {
            "value": result.fraction,
            "unit": "fraction of wall time",
            "source": "input" if spec.fraction is not None else "Young/Daly first-order model (goodput.py)",
        },
    }
