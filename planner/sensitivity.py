"""Service: sensitivity of the headline figures (TCO, training time, the run's cost) when one driver moves ±20 %.

This is the one place that re-runs the engine for the sensitivity table; the reports (page CSV, PDF) only present
what `result_sensitivity` / `sensitivity_table` return (columns: `planner.reports.columns.SENSITIVITY_COLUMNS`).

Every driver is an engine input, so each variant re-runs the engine (`planner.engine.api.estimate`) on a copy of
the stored payload with that one input changed: electricity price, utilisation, PUE, and for model FLOPs
utilisation (MFU) the engine's `workload.efficiency_scale`, which multiplies the achieved matmul efficiency (the
row shows the MFU the engine then reports). Should an engine refuse that input, the MFU rows fall back to scaling
the baseline's time-bound figures: at MFU × (1 ± s) the same FLOPs take 1 / (1 ± s) as long (days, GPU-hours and
the run's cost; the TCO over the life does not depend on speed, `uncertainty.tco`); the "How" column says which.

The baseline is the stored payload re-run with today's engine, so every variant differs from it by one input only;
when that re-run differs from the stored result (engine changed since), the table says so.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from planner.engine.api import estimate
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.parse import MAX_EFFICIENCY_SCALE
from planner.engine.perf.efficiency import efficiency_scale_at_ceiling
from planner.reports import formatting as f
from planner.reports.formatting import dig

#: The move of each driver: ±20 % of its baseline value.
STEP_FRACTION = 0.2
#: Input limits of the engine (planner/engine/inputs/cluster.py): PUE ≥ 1.0, 0 < utilisation ≤ 1.0.
PUE_MIN = 1.0
UTILIZATION_MAX = 1.0
#: The engine's default of workload.efficiency_scale when the payload leaves it out (planner/engine/parse.py).
DEFAULT_EFFICIENCY_SCALE = 1.0
ENGINE_RERUN = "engine re-run"
MFU_SCALED = "scaled: time × 1/(1 ± 20 %)"
MFU_FACTOR = "Model FLOPs utilisation (MFU)"


@dataclass(frozen=True)
class SensitivityRow:
    factor: str
    change: float
    input_text: str
    days: float | None
    tco_usd: float | None
    run_cost_usd: float | None
    days_change: float | None = None
    tco_change: float | None = None
    method: str = ENGINE_RERUN
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SensitivityTable:
    baseline: SensitivityRow
    rows: list[SensitivityRow]
    notes: list[str] = field(default_factory=list)
    baseline_matches_result: bool = True

    @property
    def all_rows(self) -> list[dict[str, Any]]:
        """The baseline then every variant, as dicts for the shared columns (SENSITIVITY_COLUMNS)."""
        return [self.baseline.as_dict(), *(row.as_dict() for row in self.rows)]


def _days(output: dict[str, Any]) -> float | None:
    if not f.runs(output):
        return None
    return dig(output, "time", "days") or dig(output, "job", "days")


def _relative(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return value / base - 1


@dataclass(frozen=True)
class _Driver:
    """One engine input to move: its label, how to read its baseline, and how to set it on a payload."""

    factor: str
    unit: str
    read: Callable[[dict[str, Any], dict[str, Any]], float | None]
    write: Callable[[dict[str, Any], float], None]
    low: float | None = None
    high: float | None = None
    fmt: Callable[[Any], str] = f.sig
    #: What the row shows as its input: by default the moved value; MFU shows the MFU the engine reports.
    describe: Callable[[float, dict[str, Any]], str] | None = None


def _set_economics(key: str) -> Callable[[dict[str, Any], float], None]:
    def write(payload: dict[str, Any], value: float) -> None:
        payload.setdefault("economics", {})[key] = value

    return write


def _set_efficiency_scale(payload: dict[str, Any], value: float) -> None:
    payload["workload"]["efficiency_scale"] = value


def _read_efficiency_scale(payload: dict[str, Any], output: dict[str, Any]) -> float | None:
    """The efficiency scale of a training run (input, else the engine's assumed default); None otherwise."""
    if dig(output, "time", "mfu") is None or not f.runs(output):
        return None
    return (
        dig(payload, "workload", "efficiency_scale")
        or dig(output, "assumptions", "workload.efficiency_scale", "value")
        or DEFAULT_EFFICIENCY_SCALE
    )


def _set_pue(payload: dict[str, Any], value: float) -> None:
    """The cooling object's PUE when the scenario names a cooling technology, else the cluster's."""
    cluster = payload["cluster"]
    if isinstance(cluster.get("cooling"), dict):
        cluster["cooling"]["pue"] = value
    else:
        cluster["pue"] = value


#: The largest efficiency scale a variant may use: what the engine accepts, and no more than takes GEMMs to the
#: GPU's measured matmul ceiling (planner/engine/perf/efficiency.py), so no row offers an MFU no software reaches.
MFU_SCALE_MAX = min(MAX_EFFICIENCY_SCALE, efficiency_scale_at_ceiling())

MFU_DRIVER = _Driver(
    MFU_FACTOR,
    "",
    _read_efficiency_scale,
    _set_efficiency_scale,
    high=MFU_SCALE_MAX,
    describe=lambda scale, out: f"{f.percent(dig(out, 'time', 'mfu'))} (efficiency × {f.sig(scale)})",
)
DRIVERS: tuple[_Driver, ...] = (
    MFU_DRIVER,
    _Driver(
        "Electricity price",
        "USD/kWh",
        lambda p, o: dig(p, "economics", "electricity_usd_per_kwh"),
        _set_economics("electricity_usd_per_kwh"),
    ),
    _Driver(
        "Utilisation",
        "",
        lambda p, o: (
            dig(p, "economics", "utilization") or dig(o, "assumptions", "economics.utilization", "value")
        ),
        _set_economics("utilization"),
        high=UTILIZATION_MAX,
        fmt=f.percent,
    ),
    _Driver("PUE", "", lambda p, o: dig(o, "power", "pue"), _set_pue, low=PUE_MIN),
)


def _clamped(driver: _Driver, value: float) -> tuple[float, str]:
    if driver.low is not None and value < driver.low:
        return driver.low, f"held at the engine's minimum {f.sig(driver.low)}"
    if driver.high is not None and value > driver.high:
        if driver is MFU_DRIVER:
            return driver.high, "held where matrix multiplies reach the GPU's measured matmul ceiling"
        return driver.high, f"held at the engine's maximum {driver.fmt(driver.high)}"
    return value, ""


def _row_from(
    factor: str,
    change: float,
    input_text: str,
    output: dict[str, Any],
    base: SensitivityRow | None,
    note: str = "",
) -> SensitivityRow:
    days = _days(output)
    tco = dig(output, "cost", "tco_usd")
    run = dig(output, "cost", "run_cost_usd")
    return SensitivityRow(
        factor=factor,
        change=change,
        input_text=input_text,
        days=days,
        tco_usd=tco,
        run_cost_usd=run,
        days_change=_relative(days, base.days) if base else None,
        tco_change=_relative(tco, base.tco_usd) if base else None,
        note=note,
    )


def _driver_rows(
    driver: _Driver, payload: dict[str, Any], base: SensitivityRow, base_out: dict[str, Any]
) -> list[SensitivityRow]:
    value = driver.read(payload, base_out)
    if value is None:
        return []
    rows = []
    for change in (-STEP_FRACTION, STEP_FRACTION):
        moved, note = _clamped(driver, value * (1 + change))
        if (moved - value) * change <= 0:
            continue  # already at (or past) the limit in this direction: no variant to offer
        variant = copy.deepcopy(payload)
        driver.write(variant, moved)
        text = f.with_unit(driver.fmt(moved), driver.unit)
        try:
            output = estimate(variant)
        except SpecError as error:
            if driver is MFU_DRIVER:  # an engine without the efficiency input: scale the time instead
                return _mfu_rows(base_out, base)
            rows.append(
                SensitivityRow(driver.factor, change, text, None, None, None, note=f"engine refused: {error}")
            )
            continue
        if driver.describe is not None:
            text = driver.describe(moved, output)
        rows.append(_row_from(driver.factor, change, text, output, base, note))
    return rows


def _mfu_rows(base_out: dict[str, Any], base: SensitivityRow) -> list[SensitivityRow]:
    """MFU × (1 ± s): the run takes 1/(1 ± s) as long; the TCO over the life is unchanged."""
    mfu = dig(base_out, "time", "mfu")
    if mfu is None or base.days is None:
        return []
    rows = []
    for change in (-STEP_FRACTION, STEP_FRACTION):
        time_factor = 1 / (1 + change)
        run = base.run_cost_usd * time_factor if base.run_cost_usd is not None else None
        rows.append(
            SensitivityRow(
                factor=MFU_FACTOR,
                change=change,
                input_text=f.percent(mfu * (1 + change)),
                days=base.days * time_factor,
                tco_usd=base.tco_usd,
                run_cost_usd=run,
                days_change=time_factor - 1,
                tco_change=0.0 if base.tco_usd is not None else None,
                method=MFU_SCALED,
            )
        )
    return rows


def sensitivity_table(*, payload: dict[str, Any], output: dict[str, Any]) -> SensitivityTable:
    """Baseline (stored payload, today's engine) and each driver at −20 % and +20 %."""
    try:
        base_out = estimate(copy.deepcopy(payload))
    except SpecError as error:
        base = _row_from(
            "Baseline", 0.0, "as planned", output, None, note=f"engine refused a re-run: {error}"
        )
        return SensitivityTable(
            base, [], [f"The stored inputs no longer run on today's engine: {error}"], False
        )
    base = _row_from("Baseline", 0.0, "as planned", base_out, None)
    matches = base.days == _days(output) and base.tco_usd == dig(output, "cost", "tco_usd")
    rows: list[SensitivityRow] = []
    for driver in DRIVERS:
        rows.extend(_driver_rows(driver, payload, base, base_out))
    notes = [
        "Each row re-runs the engine with one input moved by ±20 %: the electricity price, the utilisation, the PUE, "
        "or for MFU the engine's efficiency scale (the achieved matmul efficiency; the row shows the MFU it gives). "
        "The TCO over the cluster's life does not depend on how fast the run goes."
    ]
    if any(row.method == MFU_SCALED for row in rows):
        notes.append(
            "MFU rows marked “scaled”: this engine has no efficiency input, so time, GPU-hours and the run's cost "
            "are the baseline's × 1/(1 ± 20 %)."
        )
    if not matches:
        notes.append(
            f"Today's engine gives {f.days(base.days)} and a TCO of {f.usd(base.tco_usd)} for the stored inputs "
            f"(stored result: {f.days(_days(output))}, {f.usd(dig(output, 'cost', 'tco_usd'))}); "
            "the changes are measured from today's figures."
        )
    notes += [f"{row.factor} {'+' if row.change > 0 else '−'}20 %: {row.note}" for row in rows if row.note]
    return SensitivityTable(base, rows, notes, matches)


def result_sensitivity(*, result: Any) -> SensitivityTable:
    """The sensitivity table of a stored `ScenarioResult`: its payload re-run against its stored output."""
    return sensitivity_table(payload=result.input_payload, output=result.output)
