"""Low/high ranges for time and cost from the engine's validated error band.

For every time-like case the engine ships (planner/engine/accuracy/data/validation.csv: iteration times, per-GPU
throughput read as time, whole-run GPU-hours) the ratio r = published time / engine time says how much longer
reality took than the engine predicted. The range of a new estimate is [p10(r), p90(r)] × the estimate: the
engine's own measured error distribution, asymmetric because real whole runs on less tuned software (BLOOM,
Pythia) ran slower than the Megatron-calibrated model. The constants are those percentiles rounded outward to
two decimals; `python -m planner.engine validate` prints the current values and tests/engine/test_validation.py
fails when the constants no longer match the shipped cases.
"""

from __future__ import annotations

from typing import Any

LOW_PERCENTILE = 10.0
HIGH_PERCENTILE = 90.0
#: p10 and p90 of published/engine time over the shipped time-like cases (see above).
TIME_RATIO_LOW = 0.91
TIME_RATIO_HIGH = 1.09


def time_range(value: float) -> tuple[float, float]:
    """(low, high) of a time-like figure: value × p10 and value × p90 of the validated ratio."""
    return value * TIME_RATIO_LOW, value * TIME_RATIO_HIGH


def assumptions() -> dict[str, dict[str, Any]]:
    return {
        "uncertainty.time_ratio_range": {
            "value": [TIME_RATIO_LOW, TIME_RATIO_HIGH],
            "unit": "× estimate (low, high)",
            "source": "p10 and p90 of published/engine time over the shipped validation cases "
            "(python -m planner.engine validate)",
        },
        "uncertainty.tco": {
            "value": "point",
            "unit": "",
            "source": "the cost of owning the cluster does not depend on the time model; run costs get the time range",
        },
    }
