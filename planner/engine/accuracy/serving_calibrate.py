"""Fit the serving model's few free constants ONCE on the whole calibration group (never per case, never on the
hold-out group), and the leave-one-out errors that give every serving result its range.

`python -m planner.engine.accuracy.serving_calibrate` prints the fit; the fitted values are then written by hand into
inference/rates.py (with the published range each must stay in) and tests/engine/test_serving_validation.py checks that
they still minimise the loss on the shipped cases.

Loss: the mean over calibration cases of min(|ln(engine / published)|, CLIP)², throughput and latency cases
weighted equally (clipping keeps a saturated latency, which can be 50x off, from deciding the fit alone).
Search: coordinate descent over a grid per constant inside its published range, a few sweeps.
Leave-one-out (`python -m planner.engine.accuracy.serving_calibrate loo`): for every calibration case, the same
descent from the same starting constants with that case's measurements out of the loss, and the case's engine value at
that refit; the constant sets are memoised, so the 50-odd refits cost a few times one fit.
"""

from __future__ import annotations

import csv
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from planner.engine.accuracy.serving import (
    CASES_PATH,
    LOO_PATH,
    MEASUREMENTS_PATH,
    ServingCase,
    _rows,
    evaluate_cases,
)
from planner.engine.inference import rates as eff

CLIP = 0.7
#: constant -> (low, high, grid points) inside the published range quoted in inference/rates.py.
SEARCH_SPACE: dict[str, tuple[float, float, int]] = {
    "WEIGHT_STREAM_HBM_FRACTION": (0.45, 0.95, 11),
    "GEMM_PEAK_FRACTION.fp8": (0.38, 0.78, 11),
    "GEMM_PEAK_FRACTION.fp4": (0.15, 0.70, 12),
    "STEP_OVERHEAD_S": (0.0, 6e-3, 13),
    "STEP_OVERHEAD_PER_REQUEST_S": (0.0, 120e-6, 25),
    "EAGER_STEP_OVERHEAD_S": (0.0, 15e-3, 16),
    "EXPERT_LOAD_SCALE": (1.0, 2.5, 16),
    "ROOFLINE_EXPOSED_FRACTION": (0.0, 1.0, 11),
    "RDMA_COLLECTIVE_LATENCY_S": (10e-6, 260e-6, 11),
}


def get(name: str) -> float:
    if "." in name:
        table, key = name.split(".")
        return float(getattr(eff, table)[key])
    return float(getattr(eff, name))


def _set(name: str, value: float) -> None:
    if "." in name:
        table, key = name.split(".")
        getattr(eff, table)[key] = value
    else:
        setattr(eff, name, value)


@contextmanager
def constants(values: dict[str, float]) -> Iterator[None]:
    """Temporarily set efficiency constants (restored afterwards)."""
    old = {k: get(k) for k in values}
    try:
        for k, v in values.items():
            _set(k, v)
        yield
    finally:
        for k, v in old.items():
            _set(k, v)


def calibration_rows() -> list[dict[str, str]]:
    groups = {r["id"]: r["group"] for r in _rows(MEASUREMENTS_PATH)}
    return [c for c in _rows(CASES_PATH) if groups[c["id"]] == "calibration"]


def case_loss(c: ServingCase) -> float:
    if c.engine <= 0 or not math.isfinite(c.engine):
        return CLIP**2
    return min(abs(math.log(c.engine / c.published)), CLIP) ** 2


def loss(cases: tuple[ServingCase, ...], exclude: str | None = None) -> float:
    kinds: dict[str, list[float]] = {"throughput": [], "latency": []}
    for c in cases:
        if c.id != exclude:
            kinds[c.kind].append(case_loss(c))
    return sum(sum(v) / len(v) for v in kinds.values() if v)


def _grid(name: str) -> list[float]:
    low, high, n = SEARCH_SPACE[name]
    return [low + (high - low) * i / (n - 1) for i in range(n)]


class Evaluator:
    """Engine values of every calibration case for a set of constants, each set computed once (a leave-one-out
    refit revisits most of the full fit's points, so the memo makes a refit per left-out case affordable)."""

    def __init__(self, rows: list[dict[str, str]] | None = None) -> None:
        self.rows = rows if rows is not None else calibration_rows()
        self.memo: dict[tuple[tuple[str, float], ...], tuple[ServingCase, ...]] = {}

    def __call__(self, vector: dict[str, float]) -> tuple[ServingCase, ...]:
        key = tuple(sorted((k, round(v, 12)) for k, v in vector.items()))
        if key not in self.memo:
            with constants(vector):
                self.memo[key] = evaluate_cases(self.rows)
        return self.memo[key]


def fit(
    sweeps: int = 3,
    out: TextIO | None = None,
    *,
    exclude: str | None = None,
    evaluator: Evaluator | None = None,
    start: dict[str, float] | None = None,
) -> dict[str, float]:
    """Coordinate descent from `start` (default: the current constants), module docstring; `exclude` leaves one
    case's measurements out of the loss."""
    run = evaluator or Evaluator()
    best = dict(start) if start is not None else {k: get(k) for k in SEARCH_SPACE}
    best_loss = loss(run(best), exclude=exclude)
    for sweep in range(sweeps):
        for name in SEARCH_SPACE:
            for value in _grid(name):
                trial = {**best, name: value}
                trial_loss = loss(run(trial), exclude=exclude)
                if trial_loss < best_loss - 1e-12:
                    best, best_loss = trial, trial_loss
            if out:
                print(f"sweep {sweep + 1} {name:28} -> {best[name]:.4g}  loss {best_loss:.5f}", file=out)
    return best


def leave_one_out(sweeps: int = 3, out: TextIO | None = None) -> dict[tuple[str, str], float]:
    """Engine value of every calibration case with that case's measurements left out of the fit: a true refit
    (the same coordinate descent, from the same starting constants, on the other cases) per left-out case."""
    run = Evaluator()
    start = {k: get(k) for k in SEARCH_SPACE}
    values: dict[tuple[str, str], float] = {}
    for row in run.rows:
        refit = fit(sweeps, exclude=row["id"], evaluator=run, start=start)
        for c in run(refit):
            if c.id == row["id"]:
                values[(c.id, c.metric)] = c.engine
        if out:
            moved = {k: round(v, 4) for k, v in refit.items() if abs(v - start[k]) > 1e-12}
            print(
                f"{row['id']}: refit moved {moved or 'nothing'} ({len(run.memo)} constant sets so far)",
                file=out,
            )
    return values


def write_leave_one_out(path: Path = LOO_PATH, out: TextIO | None = None) -> None:
    values = leave_one_out(out=out)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "metric", "engine_leave_one_out"])
        for (case_id, metric), value in sorted(values.items()):
            writer.writerow([case_id, metric, f"{value:.6g}"])


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["loo"]:
        write_leave_one_out(out=out)
        print(f"wrote {LOO_PATH}", file=out)
        return 0
    best = fit(out=out)
    for k, v in best.items():
        print(f"{k} = {v:.4g}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
