"""`python -m planner.engine.accuracy.calibrate`: how the three calibrated constants were chosen (run once, by hand).

Grid search over efficiency.FRAMEWORK_GEMM_FRACTION, efficiency.GEMM_HALF_DIM and comm.SCALEUP_EFFICIENCY on
every shipped time-like case (planner/engine/accuracy/data/validation.csv), minimising the sum of squared
tolerance-normalised errors Σ (error / tolerance)², subject to the Korthikanti Table 5 median staying within 5%.
The same constants then apply to every estimate; no case has its own. The result (0.88, 96, 0.80) is what the
modules ship; rerun this after changing the model and update the constants if the optimum moves.

Then the whole-run straggler coefficient (training/goodput.py STRAGGLER_PER_DOUBLING) on every shipped whole run
at once (`python -m planner.engine.accuracy.calibrate stragglers` runs only that step). The holdout cases (column
holdout) never enter either fit.
"""

from __future__ import annotations

import itertools
import statistics
import sys
from typing import TextIO

from planner.engine.accuracy.validation import KORTHIKANTI_MEDIAN_TOLERANCE, evaluate_cases, load_rows
from planner.engine.perf import comm, efficiency
from planner.engine.training import goodput

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


#: Candidate whole-run slowdowns (goodput.STRAGGLER_FRACTION) and growths per doubling of the node count
#: (goodput.STRAGGLER_PER_DOUBLING).
STRAGGLER_GRID = {
    "STRAGGLER_FRACTION": tuple(round(0.025 * i, 3) for i in range(13)),
    "STRAGGLER_PER_DOUBLING": (0.0, 0.005, 0.01, 0.015, 0.02, 0.03),
}


def whole_run_rows() -> list[dict[str, str]]:
    """The shipped whole runs the straggler fit scores (holdout and known outliers out)."""
    return [
        r for r in load_rows() if r["group"] == "whole_run" and not r["holdout"] and not r["known_outlier"]
    ]


def calibrate_stragglers(out: TextIO = sys.stdout, top: int = 8) -> list[tuple[float, float, float]]:
    """Fit goodput.STRAGGLER_FRACTION and STRAGGLER_PER_DOUBLING on every shipped whole run at once, with the
    steady-state constants above as shipped: the straggler terms move no steady-state case, so the cases they can
    score are the whole runs. Same loss: Σ (error / tolerance)²."""
    rows = whole_run_rows()
    saved = (goodput.STRAGGLER_FRACTION, goodput.STRAGGLER_PER_DOUBLING)
    scored: list[tuple[float, float, float]] = []
    try:
        for base, per_doubling in itertools.product(*STRAGGLER_GRID.values()):
            goodput.STRAGGLER_FRACTION, goodput.STRAGGLER_PER_DOUBLING = base, per_doubling
            loss = sum((c.error / c.tolerance) ** 2 for c in evaluate_cases(rows))
            scored.append((loss, base, per_doubling))
    finally:
        goodput.STRAGGLER_FRACTION, goodput.STRAGGLER_PER_DOUBLING = saved
    scored.sort()
    print("loss      straggler_fraction  per_doubling", file=out)
    for loss, base, per_doubling in scored[:top]:
        print(f"{loss:8.3f}  {base:18.3f}  {per_doubling:12.3f}", file=out)
    return scored


if __name__ == "__main__":
    if sys.argv[1:] == ["stragglers"]:
        calibrate_stragglers()
    else:
        calibrate()
        calibrate_stragglers()
