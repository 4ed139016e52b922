"""`python -m planner.engine.accuracy.calibrate`: how the three calibrated constants were chosen (run once, by hand).

Grid search over efficiency.FRAMEWORK_GEMM_FRACTION, efficiency.GEMM_HALF_DIM and comm.SCALEUP_EFFICIENCY on
every shipped time-like case (planner/engine/accuracy/data/validation.csv), minimising the sum of squared
tolerance-normalised errors Σ (error / tolerance)², subject to the Korthikanti Table 5 median staying within 5%.
The same constants then apply to every estimate; no case has its own. The result (0.88, 96, 0.80) is what the
modules ship; rerun this after changing the model and update the constants if the optimum moves.
"""

from __future__ import annotations

import itertools
import statistics
import sys
from typing import TextIO

from planner.engine.accuracy.validation import KORTHIKANTI_MEDIAN_TOLERANCE, evaluate_cases, load_rows
from planner.engine.perf import comm, efficiency

GRID = {
    "FRAMEWORK_GEMM_FRACTION": (0.84, 0.86, 0.88, 0.90, 0.92, 0.94),
    "GEMM_HALF_DIM": (64.0, 96.0, 128.0, 160.0, 192.0, 256.0),
    "SCALEUP_EFFICIENCY": (0.6, 0.7, 0.8, 0.9),
}


def calibrate(out: TextIO = sys.stdout, top: int = 5) -> list[tuple[float, float, float, float]]:
    rows = load_rows()
    saved = (efficiency.FRAMEWORK_GEMM_FRACTION, efficiency.GEMM_HALF_DIM, comm.SCALEUP_EFFICIENCY)
    scored: list[tuple[float, float, float, float]] = []
    try:
        for fraction, half_dim, scaleup in itertools.product(*GRID.values()):
            efficiency.FRAMEWORK_GEMM_FRACTION, efficiency.GEMM_HALF_DIM = fraction, half_dim
            comm.SCALEUP_EFFICIENCY = scaleup
            cases = [c for c in evaluate_cases(rows) if not c.known_outlier and not c.holdout]
            korthikanti = statistics.median(abs(c.error) for c in cases if c.group == "korthikanti2022")
            if korthikanti > KORTHIKANTI_MEDIAN_TOLERANCE:
                continue
            loss = sum((c.error / c.tolerance) ** 2 for c in cases)
            scored.append((loss, fraction, half_dim, scaleup))
    finally:
        efficiency.FRAMEWORK_GEMM_FRACTION, efficiency.GEMM_HALF_DIM, comm.SCALEUP_EFFICIENCY = saved
    scored.sort()
    print("loss      gemm_fraction  half_dim  scaleup_eff", file=out)
    for loss, fraction, half_dim, scaleup in scored[:top]:
        print(f"{loss:8.3f}  {fraction:13.2f}  {half_dim:8.0f}  {scaleup:11.2f}", file=out)
    return scored


if __name__ == "__main__":
    calibrate()
