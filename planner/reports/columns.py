"""Columns declared once (key, header, unit, getter, formatter, which value is better) and shared by the HTML
tables, the comparison page and, later, the CSV and PDF exports.

Getters read the engine's output dict (`METRICS`), a network BOM row (`NETWORK_BOM_COLUMNS`) or a Scenario
(`INPUT_ROWS`, `SCENARIO_LIST_COLUMNS`); they never compute a figure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from planner.reports import formatting as f

Better = Literal["min", "max"] | None


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    getter: Callable[[Any], Any]
    formatter: Callable[[Any], str] = f.text
    unit: str = ""
    better: Better = None
    group: str = ""
    kinds: frozenset[str] = field(default_factory=lambda: frozenset({"training", "inference", "job"}))

    @property
    def header_with_unit(self) -> str:
        return f"{self.header} ({self.unit})" if self.unit else self.header

    def value(self, row: Any) -> Any:
        try:
            return self.getter(row)
        except (KeyError, TypeError, IndexError, AttributeError):
            return None

    def display(self, row: Any) -> str:
        return self.formatter(self.value(row))


def out(path: str) -> Callable[[dict[str, Any]], Any]:
    """A getter for a dotted path into the engine output: out("cost.tco_usd")."""
    keys = path.split(".")

    def get(data: dict[str, Any]) -> Any:
        value: Any = data
        for key in keys:
            value = value[key]
        return value

    return get


def _sig3(value: Any) -> str:
    return f.sig(value, 3)


def _int(value: Any) -> str:
    return f.number(value, 0)


def _month(value: Any) -> str:
    return f.MISSING if value is None else f"month {f.number(value)}"


TRAINING = frozenset({"training"})
INFERENCE = frozenset({"inference"})
JOB = frozenset({"job"})
MODEL_KINDS = frozenset({"training", "inference"})

#: One row per headline metric, grouped for the results page, the comparison table and the metrics CSV.
METRICS: tuple[Column, ...] = (
    Column("fits", "Fits in GPU memory", out("memory.fits"), f.yes_no, group="Memory", kinds=MODEL_KINDS),
    Column(
        "per_gpu_gib", "Memory per GPU", out("memory.per_gpu_gib"), _sig3, "GiB", "min", "Memory", MODEL_KINDS
    ),
    Column(
        "capacity_gib", "GPU memory", out("memory.capacity_gib"), _sig3, "GiB", "max", "Memory", MODEL_KINDS
    ),
    Column("params_b", "Parameters", out("model.params_b"), _sig3, "billion", None, "Memory", MODEL_KINDS),
    Column("days", "Training time", out("time.days"), _sig3, "days", "min", "Time", TRAINING),
    Column("days_low", "Training time, low", out("time.days_low"), _sig3, "days", "min", "Time", TRAINING),
    Column("days_high", "Training time, high", out("time.days_high"), _sig3, "days", "min", "Time", TRAINING),
    Column("gpu_hours", "GPU-hours", out("time.gpu_hours"), _int, "GPU·h", "min", "Time", TRAINING),
    Column("tokens_per_s", "Throughput", out("time.tokens_per_s"), _int, "tokens/s", "max", "Time", TRAINING),
    Column("mfu", "Model FLOPs utilisation", out("time.mfu"), f.percent, "", "max", "Time", TRAINING),
    Column("step_s", "Step time", out("time.step_s"), _sig3, "s", "min", "Time", TRAINING),
    Column(
        "inf_tokens_per_s",
        "Throughput",
        out("inference.tokens_per_s"),
        _int,
        "tokens/s",
        "max",
        "Serving",
        INFERENCE,
    ),
    Column("ttft_s", "Time to first token", out("inference.ttft_s"), _sig3, "s", "min", "Serving", INFERENCE),
    Column(
        "tpot_s", "Time per output token", out("inference.tpot_s"), _sig3, "s", "min", "Serving", INFERENCE
    ),
    Column(
        "max_concurrent_requests",
        "Concurrent requests that fit",
        out("inference.max_concurrent_requests"),
        _int,
        "",
        "max",
        "Serving",
        INFERENCE,
    ),
    Column(
        "gpus_needed",
        "GPUs needed for the target",
        out("inference.gpus_needed"),
        _int,
        "",
        "min",
        "Serving",
        INFERENCE,
    ),
    Column("job_days", "Job time", out("job.days"), _sig3, "days", "min", "Time", JOB),
    Column("job_gpu_hours", "GPU-hours", out("job.gpu_hours"), _int, "GPU·h", "min", "Time", JOB),
    Column("job_speedup", "Speed-up over one GPU", out("job.speedup"), _sig3, "×", "max", "Time", JOB),
    Column(
        "job_efficiency",
        "Parallel efficiency",
        out("job.parallel_efficiency"),
        f.percent,
        "",
        "max",
        "Time",
        JOB,
    ),
    Column("it_kw", "IT power", out("power.it_kw"), _int, "kW", "min", "Power"),
    Column("facility_kw", "Facility power", out("power.facility_kw"), _int, "kW", "min", "Power"),
    Column("pue", "PUE", out("power.pue"), f.sig, "", "min", "Power"),
    Column("energy_mwh", "Facility energy of the run", out("power.energy_mwh"), _int, "MWh", "min", "Power"),
    Column("racks", "Racks", out("power.racks"), _int, "", "min", "Power"),
    Column("co2_t", "Carbon of the run", out("power.co2_t"), _int, "t CO₂", "min", "Power"),
    Column("capex_usd", "Capex", out("cost.capex_usd"), f.usd, "USD", "min", "Cost"),
    Column(
        "opex_usd_per_year", "Opex per year", out("cost.opex_usd_per_year"), f.usd, "USD/year", "min", "Cost"
    ),
    Column("tco_usd", "Total cost of ownership", out("cost.tco_usd"), f.usd, "USD", "min", "Cost"),
    Column(
        "usd_per_gpu_hour",
        "Cost per GPU-hour",
        out("cost.usd_per_gpu_hour"),
        f.usd,
        "USD/GPU·h",
        "min",
        "Cost",
    ),
    Column("run_cost_usd", "Cost of this run (owned)", out("cost.run_cost_usd"), f.usd, "USD", "min", "Cost"),
    Column(
        "cloud_run_cost_usd", "Same run rented", out("cost.cloud_run_cost_usd"), f.usd, "USD", "min", "Cost"
    ),
    Column(
        "breakeven_month", "Owning beats renting from", out("cost.breakeven_month"), _month, "", "min", "Cost"
    ),
)
METRICS_BY_KEY: dict[str, Column] = {c.key: c for c in METRICS}

#: Headline figures copied from the output into ScenarioResult.summary (for lists, no big JSON needed).
SUMMARY_KEYS: tuple[str, ...] = (
    "fits",
    "per_gpu_gib",
    "capacity_gib",
    "days",
    "gpu_hours",
    "inf_tokens_per_s",
    "job_days",
    "it_kw",
    "facility_kw",
    "capex_usd",
    "tco_usd",
    "usd_per_gpu_hour",
)


def metrics_for(kind: str) -> list[Column]:
    return [c for c in METRICS if kind in c.kinds]


def summary_from_output(output: dict[str, Any]) -> dict[str, Any]:
    return {key: METRICS_BY_KEY[key].value(output) for key in SUMMARY_KEYS}


def grouped(columns: Iterable[Column]) -> list[tuple[str, list[Column]]]:
    groups: dict[str, list[Column]] = {}
    for column in columns:
        groups.setdefault(column.group, []).append(column)
    return list(groups.items())


#: The engine's network bill of materials (output["network"]["bom"] rows).
NETWORK_BOM_COLUMNS: tuple[Column, ...] = (
    Column("item", "Item", out("item")),
    Column("quantity", "Quantity", out("quantity"), _int),
    Column("unit_usd", "Unit price", out("unit_usd"), f.usd, "USD"),
    Column("total_usd", "Extended price", out("total_usd"), f.usd, "USD"),
    Column("unit_power_w", "Unit power", out("unit_power_w"), _int, "W"),
)

#: Hardware bill of materials rows built by `planner.reports.bom` (each a dict with these keys).
HARDWARE_BOM_COLUMNS: tuple[Column, ...] = (
    Column("item", "Item", out("item")),
    Column("detail", "Detail", out("detail")),
    Column("quantity", "Quantity", out("quantity"), _int),
    Column("unit_usd", "Unit price", out("unit_usd"), f.usd, "USD"),
    Column("total_usd", "Extended price", out("total_usd"), f.usd, "USD"),
    Column("basis", "Price basis", out("basis")),
)

#: TCO by year (output["cost"]["yearly"] rows).
YEARLY_COLUMNS: tuple[Column, ...] = (
    Column("year", "Year", out("year"), _int),
    Column("capex_usd", "Capex", out("capex_usd"), f.usd, "USD"),
    Column("opex_usd", "Opex", out("opex_usd"), f.usd, "USD"),
    Column("cumulative_usd", "Cumulative", out("cumulative_usd"), f.usd, "USD"),
)


def _scenario_gpu_label(scenario: Any) -> str:
    if scenario.custom_gpu:
        return f"{scenario.custom_gpu.get('name', 'custom GPU')} (custom)"
    if scenario.gpu_id:
        return scenario.gpu.model
    if scenario.system_id:
        return f"{scenario.system.name} template"
    return f.MISSING


@cache
def _preset_labels() -> dict[str, str]:
    from planner.engine.api import presets

    return {name: spec.get("label", name) for name, spec in presets().items()}


def preset_label(name: str) -> str:
    """The engine preset's label ("Llama 3.1 70B") for its name ("llama3.1-70b")."""
    return _preset_labels().get(name, name)


def _scenario_model_label(scenario: Any) -> str:
    if scenario.workload_kind == "job":
        return "GPU job"
    if scenario.custom_model:
        return "custom shape"
    return preset_label(scenario.model_preset) if scenario.model_preset else f.MISSING


def _summary(key: str) -> Callable[[Any], Any]:
    def get(scenario: Any) -> Any:
        return scenario.latest_result.summary.get(key)

    return get


#: Inputs side by side on the comparison page (getter: a Scenario).
INPUT_ROWS: tuple[Column, ...] = (
    Column("gpu", "GPU", _scenario_gpu_label, group="Inputs"),
    Column("nodes", "Nodes", lambda s: s.nodes, _int, group="Inputs"),
    Column("gpus_per_node", "GPUs per node", lambda s: s.gpus_per_node, _int, group="Inputs"),
    Column("total_gpus", "GPUs in total", lambda s: s.total_gpus, _int, group="Inputs"),
    Column("workload", "Workload", lambda s: s.get_workload_kind_display(), group="Inputs"),
    Column("model", "Model", _scenario_model_label, group="Inputs"),
    Column("tokens_b", "Training tokens", lambda s: s.tokens_b, _int, "billion", group="Inputs"),
    Column("precision", "Precision", lambda s: s.get_precision_display(), group="Inputs"),
    Column("parallelism", "Parallelism", lambda s: s.get_parallelism_mode_display(), group="Inputs"),
    Column("years", "Life", lambda s: s.years, _int, "years", group="Inputs"),
    Column("utilization", "Utilisation", lambda s: s.utilization, f.percent, group="Inputs"),
)

#: The scenario list (getter: a Scenario with latest_result selected).
SCENARIO_LIST_COLUMNS: tuple[Column, ...] = (
    Column("gpu", "GPU", _scenario_gpu_label),
    Column("total_gpus", "GPUs", lambda s: s.total_gpus, _int),
    Column("model", "Model", _scenario_model_label),
    Column("fits", "Fits", _summary("fits"), f.yes_no),
    Column("days", "Training time", _summary("days"), _sig3, "days"),
    Column("facility_kw", "Facility power", _summary("facility_kw"), _int, "kW"),
    Column("tco_usd", "TCO", _summary("tco_usd"), f.usd_compact),
)


def best_index(values: Sequence[Any], better: Better) -> set[int]:
    """Indices holding the best numeric value of a row (ties all win); empty when all are equal or fewer
    than two are numbers."""
    numeric = [(i, v) for i, v in enumerate(values) if isinstance(v, int | float) and not isinstance(v, bool)]
    if better is None or len(numeric) < 2 or len({v for _, v in numeric}) == 1:
        return set()
    target = min(v for _, v in numeric) if better == "min" else max(v for _, v in numeric)
    return {i for i, v in numeric if v == target}
