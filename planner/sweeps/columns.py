"""Columns of a sweep configuration, declared once (key, header, unit, getter, formatter, better) for the sweep
page's tables and the sweep CSV export (planner/reports). Rows are the dicts of a result's ranked lists or of
selectors.sweep_row_dicts: the getters only read keys, they never compute a figure."""

from __future__ import annotations

from dataclasses import replace
from operator import itemgetter

from planner.reports import formatting as f
from planner.reports.columns import METRICS_BY_KEY, Column


def _int(value: object) -> str:
    return f.number(value, 0)


def _sig3(value: object) -> str:
    return f.sig(value, 3)


def _sig4(value: object) -> str:
    return f.sig(value, 4)


def _col(key: str, header: str, formatter=f.text, unit: str = "", better=None) -> Column:  # noqa: ANN001
    return Column(key, header, itemgetter(key), formatter, unit, better, group="Sweep")


#: The cluster and its layout.
CONFIG_COLUMNS: tuple[Column, ...] = (
    _col("gpu_label", "GPU model"),
    _col("nodes", "Nodes", _int),
    _col("gpus", "GPUs", _int),
    _col("tp", "TP", _int),
    _col("pp", "PP", _int),
    _col("dp", "DP", _int),
    _col("cp", "CP", _int),
    _col("ep", "EP", _int),
    _col("virtual_stages", "Virtual stages", _int),
    _col("micro_batch", "Micro-batch", _int, "sequences"),
    _col("zero_stage", "ZeRO", _int),
    _col("recompute", "Recompute"),
)
#: The engine's figures for that configuration.
FIGURE_COLUMNS: tuple[Column, ...] = (
    _col("feasible", "Fits in memory", f.yes_no),
    _col("per_gpu_gib", "Memory per GPU", _sig3, "GiB", "min"),
    _col("step_s", "Step time", _sig3, "s", "min"),
    _col("mfu", "MFU", f.percent, "", "max"),
    _col("days", "Training time", _sig3, "days", "min"),
    _col("tco_usd", "TCO", f.usd, "USD", "min"),
    _col("capex_usd", "Capex", f.usd, "USD", "min"),
    _col("run_cost_usd", "Cost of the run", f.usd, "USD", "min"),
    _col("energy_mwh", "Energy of the run", _sig4, "MWh", "min"),
    _col("facility_mw", "Facility power", _sig3, "MW", "min"),
    _col("racks", "Racks", _int, "", "min"),
)
#: Every column of one evaluated configuration, in export order.
SWEEP_COLUMNS: tuple[Column, ...] = CONFIG_COLUMNS + FIGURE_COLUMNS
_BY_KEY = {c.key: c for c in SWEEP_COLUMNS}
#: The ranked tables on the sweep page: the cluster, what a buyer compares, then the layout (every ranked row
#: fits in memory, so that column is left out).
TABLE_COLUMNS: tuple[Column, ...] = tuple(
    _BY_KEY[key]
    for key in (
        "gpu_label",
        "nodes",
        "gpus",
        "days",
        "tco_usd",
        "capex_usd",
        "run_cost_usd",
        "energy_mwh",
        "facility_mw",
        "racks",
        "mfu",
        "per_gpu_gib",
        "step_s",
        "tp",
        "pp",
        "dp",
        "cp",
        "ep",
        "virtual_stages",
        "micro_batch",
        "zero_stage",
        "recompute",
    )
)


def _of_output(key: str) -> Column:
    """A results-page figure (planner.reports.columns.METRICS) of a serving sweep row's engine output."""
    metric = METRICS_BY_KEY[key]
    return replace(metric, getter=lambda row: metric.value(row["output"]) if row["output"] else None)


def _problem(row: dict) -> str | None:
    """The engine's reason for refusing a configuration (None for an evaluated one)."""
    return row.get("problem")


#: A serving sweep row (planner/sweeps/serving.py, stored in its chunk's summary): the configuration, then the
#: results page's own figures of the engine's output kept with the row.
SERVING_SWEEP_COLUMNS: tuple[Column, ...] = (
    _col("gpu_label", "GPU model"),
    _col("nodes", "Nodes", _int),
    _col("gpus", "GPUs", _int),
    _col("tp", "TP", _int),
    _col("requests_per_s", "Request rate", _sig3, "requests/s"),
    _of_output("usd_per_million_tokens_own"),
    _of_output("usd_per_million_tokens_cloud"),
    _of_output("ttft_s_p50"),
    _of_output("ttft_s_p90"),
    _of_output("ttft_s_p99"),
    _of_output("tpot_s_p50"),
    _of_output("tpot_s_p90"),
    _of_output("tpot_s_p99"),
    _of_output("tokens_per_s_per_gpu"),
    _of_output("gpus_needed"),
    _of_output("serving_verdict"),
)
#: Shorter headers for the page's table, whose explanation is above it; the CSV and PDF keep the full ones.
SERVING_SHORT_HEADERS = {
    "requests_per_s": "Rate",
    "usd_per_million_tokens_own": "Owned, per M tokens",
    "usd_per_million_tokens_cloud": "Rented, per M tokens",
    "ttft_s_p50": "TTFT p50",
    "ttft_s_p90": "TTFT p90",
    "ttft_s_p99": "TTFT p99",
    "tpot_s_p50": "TPOT p50",
    "tpot_s_p90": "TPOT p90",
    "tpot_s_p99": "TPOT p99",
    "tokens_per_s_per_gpu": "Tokens/s per GPU",
    "gpus_needed": "GPUs needed",
}
SERVING_SWEEP_PAGE_COLUMNS: tuple[Column, ...] = tuple(
    replace(c, header=SERVING_SHORT_HEADERS.get(c.key, c.header)) for c in SERVING_SWEEP_COLUMNS
)
#: The CSV adds the engine's reason for a refused configuration.
SERVING_SWEEP_CSV_COLUMNS: tuple[Column, ...] = (
    *SERVING_SWEEP_COLUMNS,
    Column("problem", "Refused by the engine", _problem, f.text, "", None, group="Sweep"),
)
