"""Columns declared once (key, header, unit, getter, formatter, which value is better) and shared by the HTML
tables, the comparison page and, later, the CSV and PDF exports.

Getters read the engine's output dict (`METRICS`), a network BOM row (`NETWORK_BOM_COLUMNS`) or a Scenario
(`INPUT_ROWS`, `SCENARIO_LIST_COLUMNS`); they never compute a figure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, TypedDict

from planner.engine.results import BomEntry, CostYear, EstimateResult
from planner.reports import formatting as f
from planner.reports.bom import HardwareBomRow
from planner.reports.procurement import ProcurementLine

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
    #: The formatter writes the unit itself (a duration in hours or days), so the header carries none.
    unit_in_value: bool = False

    @property
    def header_with_unit(self) -> str:
        return f"{self.header} ({self.unit})" if self.unit and not self.unit_in_value else self.header

    @property
    def raw_header(self) -> str:
        """The header over raw values (a CSV): always with the unit, which the raw number does not carry."""
        return f"{self.header} ({self.unit})" if self.unit else self.header

    @property
    def shown_unit(self) -> str:
        """The unit written after a displayed value: none when the formatter writes it (a latency in ms or s)."""
        return "" if self.unit_in_value else self.unit

    def value(self, row: Any) -> Any:
        try:
            return self.getter(row)
        except (KeyError, TypeError, IndexError, AttributeError):
            return None

    def display(self, row: Any) -> str:
        return self.formatter(self.value(row))


def out(path: str) -> Callable[[dict[str, Any]], Any]:
    """A getter for a dotted path into a flat row of our own (the sensitivity table): out("tco_usd")."""
    keys = path.split(".")

    def get(data: dict[str, Any]) -> Any:
        value: Any = data
        for key in keys:
            value = value[key]
        return value

    return get


def result_value(getter: Callable[[EstimateResult], Any]) -> Callable[[Any], Any]:
    """A getter of the engine's estimate output, written as key accesses a type checker follows
    (`result_value(lambda r: r["cost"]["tco_usd"])`, planner/engine/results.py). A section or key this result
    does not carry reads as None (`Column.value`)."""
    return getter


def report_input_value(getter: Callable[[ReportInputs], Any]) -> Callable[[Any], Any]:
    """A getter of a report's inputs: the stored payload and the engine's output (`ReportInputs`)."""
    return getter


def network_bom_value(getter: Callable[[BomEntry], Any]) -> Callable[[Any], Any]:
    """A getter of one line of the engine's network bill of materials (`output["network"]["bom"]`)."""
    return getter


def year_value(getter: Callable[[CostYear], Any]) -> Callable[[Any], Any]:
    """A getter of one year of the TCO (`output["cost"]["yearly"]`)."""
    return getter


def hardware_bom_value(getter: Callable[[HardwareBomRow], Any]) -> Callable[[Any], Any]:
    """A getter of one row of `planner.reports.bom.hardware_bom`."""
    return getter


def procurement_value(getter: Callable[[ProcurementLine], Any]) -> Callable[[Any], Any]:
    """A getter of one line of `planner.reports.procurement.procurement_bom`."""
    return getter


class ReportInputs(TypedDict):
    """What a report's input rows read: the payload sent to the engine and what the engine answered."""

    payload: dict[str, Any]
    output: EstimateResult


def if_runs(getter: Callable[[EstimateResult], Any]) -> Callable[[EstimateResult], Any]:
    """A getter for a figure that exists only if the run can happen (formatting.runs): None otherwise."""

    def get(data: EstimateResult) -> Any:
        return getter(data) if f.runs(data) else None

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
    Column(
        "fits",
        "Fits in GPU memory",
        result_value(lambda r: r["memory"]["fits"]),
        f.yes_no,
        group="Memory",
        kinds=MODEL_KINDS,
    ),
    Column(
        "per_gpu_gib",
        "Memory per GPU",
        result_value(lambda r: r["memory"]["per_gpu_gib"]),
        _sig3,
        "GiB",
        None,
        "Memory",
        MODEL_KINDS,
    ),
    Column(
        "headroom_gib",
        "Memory headroom",
        result_value(lambda r: r["memory"]["headroom_gib"]),
        _sig3,
        "GiB",
        "max",
        "Memory",
        MODEL_KINDS,
    ),
    Column(
        "capacity_gib",
        "GPU memory",
        result_value(lambda r: r["memory"]["capacity_gib"]),
        _sig3,
        "GiB",
        "max",
        "Memory",
        MODEL_KINDS,
    ),
    Column(
        "params_b",
        "Parameters",
        result_value(lambda r: r["model"]["params_b"]),
        _sig3,
        "billion",
        None,
        "Memory",
        MODEL_KINDS,
    ),
    Column(
        "days",
        "Training time",
        if_runs(result_value(lambda r: r["time"]["days"])),
        _sig3,
        "days",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "days_low",
        "Training time, low",
        if_runs(result_value(lambda r: r["time"]["days_low"])),
        _sig3,
        "days",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "days_high",
        "Training time, high",
        if_runs(result_value(lambda r: r["time"]["days_high"])),
        _sig3,
        "days",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "gpu_hours",
        "GPU-hours",
        if_runs(result_value(lambda r: r["time"]["gpu_hours"])),
        _int,
        "GPU·h",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "tokens_per_s",
        "Throughput",
        if_runs(result_value(lambda r: r["time"]["tokens_per_s"])),
        _int,
        "tokens/s",
        "max",
        "Time",
        TRAINING,
    ),
    Column(
        "mfu",
        "Model FLOPs utilisation",
        if_runs(result_value(lambda r: r["time"]["mfu"])),
        f.percent,
        "",
        "max",
        "Time",
        TRAINING,
    ),
    Column(
        "step_s",
        "Step time",
        if_runs(result_value(lambda r: r["time"]["step_s"])),
        _sig3,
        "s",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "requests_per_s",
        "Request rate",
        result_value(lambda r: r["inference"]["requests_per_s"]),
        _sig3,
        "requests/s",
        None,
        "Serving",
        INFERENCE,
    ),
    Column(
        "serving_verdict",
        "Meets the targets",
        if_runs(result_value(lambda r: f.serving_verdict(r["inference"]))),
        f.text,
        "",
        None,
        "Serving",
        INFERENCE,
    ),
    Column(
        "output_tokens_per_s_at_rate",
        "Output throughput at the rate",
        if_runs(result_value(lambda r: r["inference"]["output_tokens_per_s_at_rate"])),
        _int,
        "tokens/s",
        "max",
        "Serving",
        INFERENCE,
    ),
    Column(
        "max_requests_per_s",
        "Most requests the cluster sustains",
        if_runs(result_value(lambda r: r["inference"]["max_requests_per_s"])),
        _sig3,
        "requests/s",
        "max",
        "Serving",
        INFERENCE,
    ),
    *(
        Column(
            f"{kind}_s_p{pct}",
            f"{name}, p{pct}",
            if_runs(result_value(lambda r, key=f"{kind}_s_p{pct}": r["inference"][key])),
            f.latency,
            "s",
            "min",
            "Serving",
            INFERENCE,
            unit_in_value=True,
        )
        for kind, name in (("ttft", "Time to first token"), ("tpot", "Time per output token"))
        for pct in (50, 90, 99)
    ),
    Column(
        "usd_per_million_tokens_own",
        "Cost per million output tokens, owned",
        if_runs(result_value(lambda r: r["inference"]["usd_per_million_tokens"]["own"])),
        f.usd,
        "USD",
        "min",
        "Serving",
        INFERENCE,
    ),
    Column(
        "usd_per_million_tokens_cloud",
        "Cost per million output tokens, rented",
        if_runs(result_value(lambda r: r["inference"]["usd_per_million_tokens"]["cloud"])),
        f.usd,
        "USD",
        "min",
        "Serving",
        INFERENCE,
    ),
    Column(
        "inf_tokens_per_s",
        "Throughput at the batch",
        if_runs(result_value(lambda r: r["inference"]["tokens_per_s"])),
        _int,
        "tokens/s",
        "max",
        "Serving",
        INFERENCE,
    ),
    Column(
        "tokens_per_s_per_gpu",
        "Throughput per GPU at the batch",
        if_runs(result_value(lambda r: r["inference"]["tokens_per_s_per_gpu"])),
        _int,
        "tokens/s",
        "max",
        "Serving",
        INFERENCE,
    ),
    Column(
        "ttft_s",
        "Time to first token at the batch (mean)",
        if_runs(result_value(lambda r: r["inference"]["ttft_s"])),
        _sig3,
        "s",
        "min",
        "Serving",
        INFERENCE,
    ),
    Column(
        "tpot_s",
        "Time per output token at the batch (mean)",
        if_runs(result_value(lambda r: r["inference"]["tpot_s"])),
        _sig3,
        "s",
        "min",
        "Serving",
        INFERENCE,
    ),
    Column(
        "max_concurrent_requests",
        "Concurrent requests that fit",
        result_value(lambda r: r["inference"]["max_concurrent_requests"]),
        _int,
        "",
        "max",
        "Serving",
        INFERENCE,
    ),
    Column(
        "gpus_needed",
        "GPUs needed for the target",
        if_runs(result_value(lambda r: r["inference"]["gpus_needed"])),
        _int,
        "",
        "min",
        "Serving",
        INFERENCE,
    ),
    Column(
        "job_days",
        "Job time",
        result_value(lambda r: r["job"]["days"]),
        f.duration_days,
        "days",
        "min",
        "Time",
        JOB,
        unit_in_value=True,
    ),
    Column(
        "job_gpu_hours",
        "GPU-hours",
        result_value(lambda r: r["job"]["gpu_hours"]),
        _int,
        "GPU·h",
        "min",
        "Time",
        JOB,
    ),
    Column(
        "job_speedup",
        "Speed-up over one GPU",
        result_value(lambda r: r["job"]["speedup"]),
        _sig3,
        "×",
        "max",
        "Time",
        JOB,
    ),
    Column(
        "job_efficiency",
        "Parallel efficiency",
        result_value(lambda r: r["job"]["parallel_efficiency"]),
        f.percent,
        "",
        "max",
        "Time",
        JOB,
    ),
    Column("it_kw", "IT power", result_value(lambda r: r["power"]["it_kw"]), _sig3, "kW", "min", "Power"),
    Column(
        "facility_kw",
        "Facility power",
        result_value(lambda r: r["power"]["facility_kw"]),
        _sig3,
        "kW",
        "min",
        "Power",
    ),
    Column("pue", "PUE", result_value(lambda r: r["power"]["pue"]), f.sig, "", "min", "Power"),
    Column(
        "energy_mwh",
        "Facility energy of the run",
        if_runs(result_value(lambda r: r["power"]["energy_mwh"])),
        _int,
        "MWh",
        "min",
        "Power",
    ),
    Column("racks", "Racks", result_value(lambda r: r["power"]["racks"]), _int, "", "min", "Power"),
    Column(
        "co2_t",
        "Carbon of the run",
        if_runs(result_value(lambda r: r["power"]["co2_t"])),
        _int,
        "t CO₂",
        "min",
        "Power",
    ),
    Column("capex_usd", "Capex", result_value(lambda r: r["cost"]["capex_usd"]), f.usd, "USD", "min", "Cost"),
    Column(
        "opex_usd_per_year",
        "Opex per year",
        result_value(lambda r: r["cost"]["opex_usd_per_year"]),
        f.usd,
        "USD/year",
        "min",
        "Cost",
    ),
    Column(
        "tco_usd",
        "Total cost of ownership",
        result_value(lambda r: r["cost"]["tco_usd"]),
        f.usd,
        "USD",
        "min",
        "Cost",
    ),
    Column(
        "usd_per_gpu_hour",
        "Cost per GPU-hour",
        result_value(lambda r: r["cost"]["usd_per_gpu_hour"]),
        f.usd,
        "USD/GPU·h",
        "min",
        "Cost",
    ),
    Column(
        "run_cost_usd",
        "Cost of this run (owned)",
        if_runs(result_value(lambda r: r["cost"]["run_cost_usd"])),
        f.usd,
        "USD",
        "min",
        "Cost",
    ),
    Column(
        "cloud_run_cost_usd",
        "Same run rented",
        if_runs(result_value(lambda r: r["cost"]["cloud_run_cost_usd"])),
        f.usd,
        "USD",
        "min",
        "Cost",
    ),
    Column(
        "breakeven_month",
        "Owning beats renting from",
        result_value(lambda r: r["cost"]["breakeven_month"]),
        _month,
        "",
        "min",
        "Cost",
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
    "ttft_s_p90",
    "tpot_s_p90",
    "usd_per_million_tokens_own",
    "job_days",
    "it_kw",
    "facility_kw",
    "capex_usd",
    "tco_usd",
    "usd_per_gpu_hour",
)


def metrics_for(kind: str) -> list[Column]:
    return [c for c in METRICS if kind in c.kinds]


def summary_from_output(output: EstimateResult) -> dict[str, Any]:
    return {key: METRICS_BY_KEY[key].value(output) for key in SUMMARY_KEYS}


def grouped(columns: Iterable[Column]) -> list[tuple[str, list[Column]]]:
    groups: dict[str, list[Column]] = {}
    for column in columns:
        groups.setdefault(column.group, []).append(column)
    return list(groups.items())


#: The engine's network bill of materials (output["network"]["bom"] rows).
IN_THE_SERVER = "priced in the server"


def _bom_price(key: str) -> Callable[[dict[str, Any]], Any]:
    """A network BOM price, or "priced in the server" for a line the server price already covers (the engine
    prices it at 0 and says so in its note), so the page never shows $0 for a NIC."""

    def getter(row: dict[str, Any]) -> Any:
        if IN_THE_SERVER in str(row.get("note") or "") and not row.get(key):
            return IN_THE_SERVER
        return row.get(key)

    return getter


def _usd_or_text(value: Any) -> str:
    return value if isinstance(value, str) else f.usd(value)


NETWORK_BOM_COLUMNS: tuple[Column, ...] = (
    Column("item", "Item", network_bom_value(lambda b: b["item"])),
    Column("quantity", "Quantity", network_bom_value(lambda b: b["quantity"]), _int),
    Column("unit_usd", "Unit price", _bom_price("unit_usd"), _usd_or_text, "USD"),
    Column("total_usd", "Extended price", _bom_price("total_usd"), _usd_or_text, "USD"),
    Column("unit_power_w", "Unit power", network_bom_value(lambda b: b["unit_power_w"]), _int, "W"),
)

#: Hardware bill of materials rows built by `planner.reports.bom` (each a dict with these keys).
HARDWARE_BOM_COLUMNS: tuple[Column, ...] = (
    Column("item", "Item", hardware_bom_value(lambda b: b["item"])),
    Column("detail", "Detail", hardware_bom_value(lambda b: b["detail"])),
    Column("quantity", "Quantity", hardware_bom_value(lambda b: b["quantity"]), _int),
    Column("unit_usd", "Unit price", hardware_bom_value(lambda b: b["unit_usd"]), f.usd, "USD"),
    Column("total_usd", "Extended price", hardware_bom_value(lambda b: b["total_usd"]), f.usd, "USD"),
    Column("basis", "Price basis", hardware_bom_value(lambda b: b["basis"])),
)

#: TCO by year (output["cost"]["yearly"] rows).
YEARLY_COLUMNS: tuple[Column, ...] = (
    Column("year", "Year", year_value(lambda y: y["year"]), _int),
    Column("capex_usd", "Capex", year_value(lambda y: y["capex_usd"]), f.usd, "USD"),
    Column("opex_usd", "Opex", year_value(lambda y: y["opex_usd"]), f.usd, "USD"),
    Column("cumulative_usd", "Cumulative", year_value(lambda y: y["cumulative_usd"]), f.usd, "USD"),
    Column(
        "depreciation_usd",
        "Depreciation (straight line)",
        year_value(lambda y: y["depreciation_usd"]),
        f.usd,
        "USD",
    ),
    Column(
        "book_value_usd", "Book value at year end", year_value(lambda y: y["book_value_usd"]), f.usd, "USD"
    ),
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


def _summary_run_days(scenario: Any) -> Any:
    """How long the plan's run takes: a training run's days, else a GPU job's (serving has no end)."""
    summary = scenario.latest_result.summary
    return summary.get("days") if summary.get("days") is not None else summary.get("job_days")


#: Inputs side by side on the comparison page (getter: a Scenario).
INPUT_ROWS: tuple[Column, ...] = (
    Column("gpu", "GPU", _scenario_gpu_label, group="Inputs"),
    Column("nodes", "Nodes", lambda s: s.nodes, _int, group="Inputs"),
    Column("gpus_per_node", "GPUs per node", lambda s: s.gpus_per_node, _int, group="Inputs"),
    Column("total_gpus", "GPUs in total", lambda s: s.total_gpus, _int, group="Inputs"),
    Column("workload", "Workload", lambda s: s.get_workload_kind_display(), group="Inputs"),
    Column("model", "Model", _scenario_model_label, group="Inputs"),
    Column(
        "tokens_b", "Training tokens", lambda s: s.tokens_b, _int, "billion", group="Inputs", kinds=TRAINING
    ),
    Column(
        "requests_per_s",
        "Request rate",
        lambda s: s.requests_per_s,
        _sig3,
        "requests/s",
        group="Inputs",
        kinds=INFERENCE,
    ),
    Column(
        "target_tokens_per_s",
        "Output throughput asked",
        lambda s: s.target_tokens_per_s,
        _int,
        "tokens/s",
        group="Inputs",
        kinds=INFERENCE,
    ),
    Column(
        "context_len",
        "Input length",
        lambda s: s.context_len,
        _int,
        "tokens",
        group="Inputs",
        kinds=INFERENCE,
    ),
    Column(
        "output_len", "Output length", lambda s: s.output_len, _int, "tokens", group="Inputs", kinds=INFERENCE
    ),
    Column(
        "max_ttft_s",
        "Time to first token target, p90",
        lambda s: s.max_ttft_s,
        f.latency,
        "s",
        group="Inputs",
        kinds=INFERENCE,
        unit_in_value=True,
    ),
    Column(
        "max_tpot_s",
        "Time per output token target, p90",
        lambda s: s.max_tpot_s,
        f.latency,
        "s",
        group="Inputs",
        kinds=INFERENCE,
        unit_in_value=True,
    ),
    Column("batching", "Batching", lambda s: s.get_batching_display(), group="Inputs", kinds=INFERENCE),
    Column(
        "serving_batch", "Batch per replica", lambda s: s.serving_batch, _int, group="Inputs", kinds=INFERENCE
    ),
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
    Column("days", "Run time", _summary_run_days, f.duration_days, "days", unit_in_value=True),
    Column("facility_kw", "Facility power", _summary("facility_kw"), _sig3, "kW"),
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


# ------------------------------------------------------------------------------------------------ reports
# Declared for the PDF and CSV exports (planner/reports/pdf.py, csv_exports.py); appended by the reports work.


def _count(value: Any) -> str:
    """Quantities: whole numbers without decimals (8, 1,024), fractional ones to three digits (62.2)."""
    if isinstance(value, float) and value.is_integer():
        return f.number(value)
    return f.number(value) if isinstance(value, int) else f.sig(value, 3)


def _pct_change(value: Any) -> str:
    """A signed change as a percentage: 0.25 -> "+25.0 %", -0.2 -> "−20.0 %"."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return f.MISSING
    text = f.percent(abs(value))
    if value > 0:
        return "+" + text
    return ("−" + text) if value < 0 else text


#: Figures the results page leaves to its charts but a report lists (getter: the engine output).
REPORT_DETAIL_METRICS: tuple[Column, ...] = (
    Column(
        "hfu",
        "Hardware FLOPs utilisation",
        result_value(lambda r: r["time"]["hfu"]),
        f.percent,
        "",
        "max",
        "Time",
        TRAINING,
    ),
    Column(
        "goodput",
        "Goodput (steady-state share of the whole run)",
        result_value(lambda r: r["time"]["goodput"]),
        f.percent,
        "",
        "max",
        "Time",
        TRAINING,
    ),
    Column(
        "steady_days",
        "Steady-state training time (no overheads)",
        result_value(lambda r: r["time"]["steady_days"]),
        _sig3,
        "days",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "gpu_hours_low",
        "GPU-hours, low",
        result_value(lambda r: r["time"]["gpu_hours_low"]),
        _int,
        "GPU·h",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "gpu_hours_high",
        "GPU-hours, high",
        result_value(lambda r: r["time"]["gpu_hours_high"]),
        _int,
        "GPU·h",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "steps",
        "Optimizer steps",
        result_value(lambda r: r["time"]["steps"]),
        _int,
        "",
        None,
        "Time",
        TRAINING,
    ),
    Column(
        "expected_interruptions",
        "Expected interruptions",
        result_value(lambda r: r["time"]["expected_interruptions"]),
        _int,
        "",
        "min",
        "Time",
        TRAINING,
    ),
    Column(
        "peak_it_kw",
        "Peak IT power (provisioned)",
        result_value(lambda r: r["power"]["peak_it_kw"]),
        _int,
        "kW",
        "min",
        "Power",
    ),
    Column(
        "energy_mwh_per_year",
        "Facility energy per year",
        result_value(lambda r: r["power"]["energy_mwh_per_year"]),
        _int,
        "MWh/year",
        "min",
        "Power",
    ),
    Column(
        "co2_t_per_year",
        "Carbon per year",
        result_value(lambda r: r["power"]["co2_t_per_year"]),
        _int,
        "t CO₂/year",
        "min",
        "Power",
    ),
    Column(
        "water_m3_per_year",
        "Water per year",
        result_value(lambda r: r["power"]["water_m3_per_year"]),
        _int,
        "m³/year",
        "min",
        "Power",
    ),
    Column(
        "rack_density_kw",
        "Rack density",
        result_value(lambda r: r["power"]["rack_density_kw"]),
        _sig3,
        "kW/rack",
        None,
        "Power",
    ),
    Column(
        "node_nameplate_kw",
        "Nameplate per node (provisioned)",
        result_value(lambda r: r["power"]["provisioning"]["node_nameplate_kw"]),
        _sig3,
        "kW",
        None,
        "Power",
    ),
    Column(
        "power_redundancy",
        "Power redundancy (feeds, PDUs, UPS)",
        result_value(lambda r: r["power"]["provisioning"]["redundancy"]),
        group="Power",
    ),
    Column(
        "ups_capacity_kw",
        "UPS capacity",
        result_value(lambda r: r["power"]["provisioning"]["ups_capacity_kw"]),
        _int,
        "kW",
        "min",
        "Power",
    ),
    Column(
        "generator_kva",
        "Generator capacity",
        result_value(lambda r: r["power"]["provisioning"]["generator_kva"]),
        _int,
        "kVA",
        "min",
        "Power",
    ),
    Column(
        "rack_pdus",
        "Rack PDUs",
        result_value(lambda r: r["power"]["provisioning"]["rack_pdus"]),
        _int,
        "",
        "min",
        "Power",
    ),
    Column(
        "gpu_power_limit_w",
        "GPU power limit",
        result_value(lambda r: r["power"]["gpu_power_cap"]["limit_w"]),
        _int,
        "W",
        None,
        "Power",
    ),
    Column(
        "gpu_power_cap_throughput",
        "Throughput left under the GPU power cap",
        result_value(lambda r: r["power"]["gpu_power_cap"]["throughput_fraction"]),
        _sig3,
        "× uncapped",
        None,
        "Power",
    ),
    Column(
        "nodes_per_rack",
        "Nodes per rack",
        result_value(lambda r: r["power"]["nodes_per_rack"]),
        _int,
        "",
        None,
        "Power",
    ),
    Column(
        "tco_usd_low",
        "Total cost of ownership, low",
        result_value(lambda r: r["cost"]["tco_usd_low"]),
        f.usd,
        "USD",
        "min",
        "Cost",
    ),
    Column(
        "tco_usd_high",
        "Total cost of ownership, high",
        result_value(lambda r: r["cost"]["tco_usd_high"]),
        f.usd,
        "USD",
        "min",
        "Cost",
    ),
    Column(
        "run_cost_usd_low",
        "Cost of this run (owned), low",
        result_value(lambda r: r["cost"]["run_cost_usd_low"]),
        f.usd,
        "USD",
        "min",
        "Cost",
    ),
    Column(
        "run_cost_usd_high",
        "Cost of this run (owned), high",
        result_value(lambda r: r["cost"]["run_cost_usd_high"]),
        f.usd,
        "USD",
        "min",
        "Cost",
    ),
)


def report_metrics_for(kind: str) -> list[Column]:
    """Every figure a report lists for a kind of workload: the page's METRICS, then the report's details."""
    return [c for c in (*METRICS, *REPORT_DETAIL_METRICS) if kind in c.kinds]


def _payload_gpu_name(payload: dict[str, Any]) -> Any:
    gpu = payload["cluster"]["gpu"]
    return gpu.get("name") if isinstance(gpu, dict) else gpu


def _layout_text(output: EstimateResult) -> str:
    p = output["parallelism"]
    parts = [f"TP {p['tp']}", f"PP {p['pp']}", f"DP {p['dp']}"]
    parts += [f"{key.upper()} {p[key]}" for key in ("cp", "ep") if p.get(key, 1) != 1]
    parts += [f"ZeRO {p['zero_stage']}", f"recompute {p['recompute']}", f"micro-batch {p['micro_batch']}"]
    return " · ".join(parts)


#: The engine inputs a report lists (getter: {"payload": result.input_payload, "output": result.output}).
PAYLOAD_INPUT_ROWS: tuple[Column, ...] = (
    Column("gpu", "GPU", lambda r: _payload_gpu_name(r["payload"]), group="Cluster"),
    Column(
        "gpu_price_usd",
        "GPU price",
        report_input_value(lambda r: r["payload"]["cluster"]["gpu"]["price_usd"]),
        f.usd,
        "USD",
        group="Cluster",
    ),
    Column(
        "nodes",
        "Nodes",
        report_input_value(lambda r: r["payload"]["cluster"]["nodes"]),
        _int,
        group="Cluster",
    ),
    Column(
        "gpus_per_node",
        "GPUs per node",
        report_input_value(lambda r: r["payload"]["cluster"]["gpus_per_node"]),
        _int,
        group="Cluster",
    ),
    Column(
        "scaleout_gbps",
        "Scale-out bandwidth per GPU",
        report_input_value(lambda r: r["payload"]["cluster"]["scaleout_gbps_per_gpu"]),
        _int,
        "Gb/s",
        group="Cluster",
    ),
    Column(
        "topology",
        "Network topology",
        report_input_value(lambda r: r["output"]["network"]["topology"]),
        group="Cluster",
    ),
    Column(
        "switch", "Switch", report_input_value(lambda r: r["output"]["network"]["switch"]), group="Cluster"
    ),
    Column("pue", "PUE", report_input_value(lambda r: r["output"]["power"]["pue"]), f.sig, group="Cluster"),
    Column(
        "storage_tb",
        "Storage",
        report_input_value(lambda r: r["payload"]["cluster"]["storage_tb"]),
        _sig3,
        "TB",
        group="Cluster",
    ),
    Column("model", "Model", report_input_value(lambda r: r["output"]["model"]["name"]), group="Workload"),
    Column(
        "params_b",
        "Parameters",
        report_input_value(lambda r: r["output"]["model"]["params_b"]),
        _sig3,
        "billion",
        group="Workload",
    ),
    Column(
        "tokens_b",
        "Training tokens",
        report_input_value(lambda r: r["payload"]["workload"]["tokens_b"]),
        _int,
        "billion",
        group="Workload",
    ),
    Column(
        "precision",
        "Precision",
        report_input_value(lambda r: r["payload"]["workload"]["precision"]),
        group="Workload",
    ),
    Column(
        "optimizer",
        "Optimizer",
        report_input_value(lambda r: r["payload"]["workload"]["optimizer"]),
        group="Workload",
    ),
    Column("layout", "Parallel layout", lambda r: _layout_text(r["output"]), group="Workload"),
    Column(
        "global_batch",
        "Global batch",
        report_input_value(lambda r: r["output"]["parallelism"]["global_batch"]),
        _int,
        "sequences",
        group="Workload",
    ),
    Column(
        "electricity",
        "Electricity price",
        report_input_value(lambda r: r["payload"]["economics"]["electricity_usd_per_kwh"]),
        f.sig,
        "USD/kWh",
        group="Economics",
    ),
    Column(
        "colocation",
        "Colocation rate",
        report_input_value(lambda r: r["payload"]["economics"]["colocation_usd_per_kw_month"]),
        f.usd,
        "USD/kW/month",
        group="Economics",
    ),
    Column(
        "years",
        "Life",
        report_input_value(lambda r: r["payload"]["economics"]["years"]),
        _int,
        "years",
        group="Economics",
    ),
    Column(
        "utilization",
        "Utilisation",
        report_input_value(lambda r: r["payload"]["economics"]["utilization"]),
        f.percent,
        group="Economics",
    ),
    Column(
        "discount_rate",
        "Discount rate",
        report_input_value(lambda r: r["payload"]["economics"]["discount_rate"]),
        f.percent,
        "per year",
        group="Economics",
    ),
    Column(
        "server_usd",
        "Server price (one node)",
        report_input_value(lambda r: r["payload"]["economics"]["gpu_server_usd"]),
        f.usd,
        "USD",
        group="Economics",
    ),
    Column(
        "cloud_usd",
        "Cloud rental price",
        report_input_value(lambda r: r["payload"]["economics"]["cloud_usd_per_gpu_hour"]),
        f.usd,
        "USD/GPU·h",
        group="Economics",
    ),
    Column(
        "grid_carbon",
        "Grid carbon intensity",
        report_input_value(lambda r: r["payload"]["economics"]["grid_kgco2_per_kwh"]),
        f.sig,
        "kg CO₂/kWh",
        group="Economics",
    ),
)

#: The bill of materials for procurement (rows from `planner.reports.procurement.procurement_bom`).
PROCUREMENT_BOM_COLUMNS: tuple[Column, ...] = (
    Column("cost", "Capex or opex", procurement_value(lambda b: b["cost"])),
    Column("category", "Category", procurement_value(lambda b: b["category"])),
    Column("item", "Item", procurement_value(lambda b: b["item"])),
    Column("detail", "Detail", procurement_value(lambda b: b["detail"])),
    Column("quantity", "Quantity", procurement_value(lambda b: b["quantity"]), _count),
    Column("unit", "Per", procurement_value(lambda b: b["unit"])),
    Column("unit_usd", "Unit price", procurement_value(lambda b: b["unit_usd"]), f.usd, "USD"),
    Column("total_usd", "Extended price", procurement_value(lambda b: b["total_usd"]), f.usd, "USD"),
    Column("basis", "Price basis", procurement_value(lambda b: b["basis"])),
    Column("price_date", "Price date", procurement_value(lambda b: b["price_date"])),
    Column("source", "Source", procurement_value(lambda b: b["source"])),
)

#: The sensitivity table (rows from `planner.sensitivity.sensitivity_table`, as dicts).
SENSITIVITY_COLUMNS: tuple[Column, ...] = (
    Column("factor", "Factor", out("factor")),
    Column("change", "Change", out("change"), _pct_change),
    Column("input_text", "Input value", out("input_text")),
    Column("days", "Training time", out("days"), _sig3, "days"),
    Column("days_change", "Time vs baseline", out("days_change"), _pct_change),
    Column("tco_usd", "TCO", out("tco_usd"), f.usd, "USD"),
    Column("tco_change", "TCO vs baseline", out("tco_change"), _pct_change),
    Column("run_cost_usd", "Cost of the run", out("run_cost_usd"), f.usd, "USD"),
    Column("method", "How", out("method")),
)
