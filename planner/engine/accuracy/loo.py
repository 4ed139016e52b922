"""Leave-one-out over every shipped training case: the figures the time range comes from.

For each time-like case of planner/engine/accuracy/data/validation.csv outside the holdout, the whole-run constants
(goodput.STRAGGLER_FRACTION and STRAGGLER_PER_DOUBLING, calibrate.STRAGGLER_GRID) are fitted again without it, as
calibrate.py fits them on the whole set, and the engine with those constants predicts the left-out case. The six
steady-state constants (calibrate.GRID, fitted jointly by coordinate descent under the Korthikanti bounds) are held
at their shipped values: a full refit per left-out case costs about an hour on this machine, and with six
constants over forty cases one case moves them little, so the steady-state cases' leave-one-out error is their
in-sample error here (a known limit, said in `validate`). The holdout cases are never in a fit, so their
leave-one-out figure is the shipped engine's.

`python -m planner.engine.accuracy.loo` recomputes everything and writes data/training_loo.csv, which
accuracy/uncertainty.py reads; tests/engine/test_validation.py fails when the shipped engine no longer gives the
file's in-sample figures (rerun the command after changing the model or a constant).
"""

from __future__ import annotations

import csv
import itertools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from planner.engine.accuracy.calibrate import STRAGGLER_GRID, whole_run_rows
from planner.engine.accuracy.cases import CaseResult
from planner.engine.accuracy.uncertainty import LOO_PATH
from planner.engine.accuracy.validation import TIME_LIKE_GROUPS, evaluate_cases, load_rows
from planner.engine.training import goodput

StragglerPoint = tuple[float, float]
COLUMNS = (
    "id",
    "group",
    "metric",
    "holdout",
    "gpu",
    "family",
    "params_b",
    "gpus",
    "precision",
    "cp",
    "published",
    "engine",
    "engine_leave_one_out",
    "time_ratio_leave_one_out",
)


@contextmanager
def stragglers(point: StragglerPoint) -> Iterator[None]:
    """Set the whole-run constants for the block and restore the shipped ones after it."""
    saved = (goodput.STRAGGLER_FRACTION, goodput.STRAGGLER_PER_DOUBLING)
    try:
        goodput.STRAGGLER_FRACTION, goodput.STRAGGLER_PER_DOUBLING = point
        yield
    finally:
        goodput.STRAGGLER_FRACTION, goodput.STRAGGLER_PER_DOUBLING = saved


class LeaveOneOut:
    """The straggler grid evaluated once on the whole runs; each left-out case's fit reads it."""

    def __init__(self) -> None:
        self.rows = load_rows()
        self.whole = whole_run_rows()
        self.grid: list[StragglerPoint] = [
            (float(a), float(b)) for a, b in itertools.product(*STRAGGLER_GRID.values())
        ]
        self._at: dict[StragglerPoint, tuple[CaseResult, ...]] = {}

    def at(self, point: StragglerPoint) -> tuple[CaseResult, ...]:
        if point not in self._at:
            with stragglers(point):
                self._at[point] = evaluate_cases(self.whole)
        return self._at[point]

    def fit(self, left_out: str | None) -> StragglerPoint:
        """calibrate.calibrate_stragglers without `left_out`: the least Σ (error / tolerance)²."""
        scored = [
            (sum((c.error / c.tolerance) ** 2 for c in self.at(p) if c.id != left_out), p) for p in self.grid
        ]
        return min(scored)[1]

    def case(self, row: dict[str, str]) -> tuple[CaseResult, CaseResult]:
        """(shipped engine, leave-one-out engine) for one row."""
        here = evaluate_cases([row])[0]
        if row["holdout"] or row["group"] != "whole_run" or row["known_outlier"]:
            return here, here
        with stragglers(self.fit(row["id"])):
            return here, evaluate_cases([row])[0]


def loo_rows() -> list[dict[str, str]]:
    """Every time-like case (holdout included) with its shipped and leave-one-out engine figures."""
    loo = LeaveOneOut()
    out = []
    for row in loo.rows:
        if row["group"] not in TIME_LIKE_GROUPS:
            continue
        here, left = loo.case(row)
        out.append(
            {
                "id": row["id"],
                "group": row["group"],
                "metric": row["metric"],
                "holdout": row["holdout"],
                "gpu": here.gpu,
                "family": here.family,
                "params_b": f"{here.params_b:.4g}",
                "gpus": str(here.gpus),
                "precision": row["precision"],
                "cp": row["cp"],
                "published": row["published"],
                "engine": f"{here.engine:.6g}",
                "engine_leave_one_out": f"{left.engine:.6g}",
                "time_ratio_leave_one_out": f"{left.time_ratio:.5f}",
            }
        )
    return out


def write_loo(path: Path = LOO_PATH, out: TextIO = sys.stdout) -> list[dict[str, str]]:
    rows = loo_rows()
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} cases to {path}", file=out)
    return rows


if __name__ == "__main__":
    write_loo()
