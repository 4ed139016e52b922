"""Low/high ranges for time and cost from the engine's validated error band.

The band is the 90th percentile of |engine / published - 1| over every time-like case the engine ships
(planner/engine/data/validation.csv: iteration times, per-GPU throughput converted to time, and whole-run
GPU-hours), rounded up to a whole percent. `python -m planner.engine validate` prints it, and
tests/engine/test_validation.py fails if this constant falls below the value the shipped cases give.
"""

from __future__ import annotations

from typing import Any

#: 90th percentile of the absolute relative error of the shipped time-like validation cases (see above).
TIME_ERROR_BAND = 0.12
BAND_PERCENTILE = 90.0


def time_range(value: float) -> tuple[float, float]:
    """(low, high) of a time-like figure: value · (1 ∓ band)."""
    return value * (1.0 - TIME_ERROR_BAND), value * (1.0 + TIME_ERROR_BAND)


def assumptions() -> dict[str, dict[str, Any]]:
    return {
        "uncertainty.time_error_band": {
            "value": TIME_ERROR_BAND,
            "unit": "fraction (±)",
            "source": "p90 of |engine/published - 1| over the shipped validation cases (python -m planner.engine "
            "validate)",
        }
    }
