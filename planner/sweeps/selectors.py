"""Read side of sweeps. Every sweep is fetched here filtered by its owner, so another user's sweep is a 404.

`sweep_rows` / `sweep_row_dicts` stream every evaluated configuration chunk by chunk (one chunk's arrays in
memory at a time) for the CSV export; the page reads the SweepRun row, never Celery's result backend.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone

from planner.engine.perf.layout import RECOMPUTE_NAMES
from planner.engine.search import sweep as engine_sweep
from planner.reports import formatting as f
from planner.sweeps import conf, serving
from planner.sweeps.models import ChunkStatus, SweepChunk, SweepKind, SweepRun

#: Columns a list does not need.
RUN_HEAVY_FIELDS = ("spec", "result")
#: Plotly's default qualitative palette, one colour per GPU model.
GPU_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def sweep_list(*, user: AbstractBaseUser) -> QuerySet:
    """The user's sweeps, newest first, with their scenario; a fixed number of queries for any length."""
    return SweepRun.objects.filter(owner=user).select_related("scenario").defer(*RUN_HEAVY_FIELDS)


def sweep_get(*, user: AbstractBaseUser, pk: int) -> SweepRun:
    """One of the user's sweeps, or 404."""
    return get_object_or_404(SweepRun.objects.select_related("scenario"), pk=pk, owner=user)


def sweep_get_light(*, user: AbstractBaseUser, pk: int) -> SweepRun:
    """One of the user's sweeps without its spec and result (the status endpoint polls this every second)."""
    return get_object_or_404(SweepRun.objects.defer(*RUN_HEAVY_FIELDS), pk=pk, owner=user)


def sweep_is_stalled(run: SweepRun, now: Any = None) -> bool:
    """Waiting or running with no chunk finished for SWEEP_STALLED_S: its messages may have been lost."""
    now = now or timezone.now()
    last_progress = run.last_progress_at or run.started_at or run.created_at
    return run.is_active and (now - last_progress).total_seconds() > conf.value("SWEEP_STALLED_S")


def sweep_status(*, run: SweepRun) -> dict[str, Any]:
    """Progress for the page's poller: counts, percent, configurations per second and an ETA."""
    now = timezone.now()
    end = run.finished_at or now
    elapsed_s = (end - run.started_at).total_seconds() if run.started_at else 0.0
    rate = run.enumerated_configs / elapsed_s if elapsed_s > 0 and run.enumerated_configs else None
    remaining = max(run.total_configs - run.enumerated_configs, 0)
    stalled = sweep_is_stalled(run, now)
    eta_s = remaining / rate if rate and run.is_active else None
    return {
        "id": run.pk,
        "status": run.status,
        "status_label": run.get_status_display(),
        "active": run.is_active,
        "total_configs": run.total_configs,
        "enumerated_configs": run.enumerated_configs,
        "evaluated_configs": run.evaluated_configs,
        "feasible_configs": run.feasible_configs,
        "chunks_total": run.chunks_total,
        "chunks_done": run.chunks_done,
        "percent": round(100.0 * run.progress_fraction, 1),
        "configs_per_s": rate,
        "elapsed_s": elapsed_s,
        "eta_s": eta_s,
        "error": run.error,
        "stalled": stalled,
        "text": {
            "configs_per_s": f.number(rate) if rate else f.MISSING,
            "eta": _duration(eta_s) if eta_s is not None else f.MISSING,
            "elapsed": _duration(elapsed_s) if run.started_at else f.MISSING,
            "enumerated": f.number(run.enumerated_configs),
            "total": f.number(run.total_configs),
            "evaluated": f.number(run.evaluated_configs),
            "feasible": f.number(run.feasible_configs),
        },
        "url": reverse("sweeps:detail", args=[run.pk]),
    }


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"
    return f"{seconds // 3600:.0f} h {(seconds % 3600) // 60:02.0f} min"


@dataclass
class SweepPage:
    """Everything the sweep page shows."""

    run: SweepRun
    status: dict[str, Any]
    result: dict[str, Any] | None
    objective_tables: list[dict[str, Any]] = field(default_factory=list)
    per_gpu: list[dict[str, Any]] = field(default_factory=list)
    chart: dict[str, Any] | None = None
    timings: list[tuple[str, str]] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    per_cluster: int = 1
    serving_rows: list[dict[str, Any]] = field(default_factory=list)  # a serving sweep's ranked rows

    @property
    def has_results(self) -> bool:
        return bool(self.result and self.result.get("evaluated"))


def sweep_page(*, run: SweepRun) -> SweepPage:
    if run.kind == SweepKind.SERVING:
        return serving_sweep_page(run=run)
    page = SweepPage(run=run, status=sweep_status(run=run), result=run.result)
    page.constraints = constraint_texts(run.spec.get("constraints") or {})
    page.notes = list(run.spec.get("notes") or [])
    page.per_cluster = engine_sweep.rows_per_cluster(run.spec)
    page.timings = _timings(run)
    if not run.result:
        return page
    objective = run.result.get("objective") or "min_time"
    order = [objective, *[o for o in engine_sweep.OBJECTIVES if o != objective]]
    page.objective_tables = [
        {
            "key": o,
            "label": engine_sweep.OBJECTIVE_LABELS[o],
            "rows": run.result["best"].get(o, []),
            "primary": o == objective,
        }
        for o in order
    ]
    page.per_gpu = run.result.get("per_gpu", [])
    page.chart = pareto_chart(run.result)
    return page


def serving_sweep_page(*, run: SweepRun) -> SweepPage:
    """A serving sweep's page: progress, then (once it stopped) every stored row, ranked (serving.merge)."""
    page = SweepPage(run=run, status=sweep_status(run=run), result=run.result)
    page.timings = _timings(run)
    page.serving_rows = list((run.result or {}).get("rows") or [])
    return page


def serving_sweep_rows(*, run: SweepRun) -> list[dict[str, Any]]:
    """Every stored row of a serving sweep's finished chunks, ranked as on its page (a running sweep's CSV holds
    the chunks finished so far)."""
    summaries = (
        SweepChunk.objects.filter(run=run, status=ChunkStatus.DONE)
        .order_by("index")
        .values_list("summary", flat=True)
    )
    return serving.merge(summaries)["rows"]


#: How each constraint reads on the page.
CONSTRAINT_TEXT = {
    "capex_usd_max": lambda v: f"capex ≤ {f.usd_compact(v)}",
    "days_max": lambda v: f"training time ≤ {f.days(v)}",
    "facility_mw_max": lambda v: f"facility power ≤ {f.quantity(v, 'MW')}",
    "racks_max": lambda v: f"racks ≤ {f.number(v)}",
}


def constraint_texts(constraints: dict[str, Any]) -> list[str]:
    return [CONSTRAINT_TEXT[k](v) for k, v in constraints.items() if v is not None and k in CONSTRAINT_TEXT]


def _timings(run: SweepRun) -> list[tuple[str, str]]:
    t = run.timings or {}
    wall = (run.finished_at - run.created_at).total_seconds() if run.finished_at else None
    rows = [
        ("Plan (web request)", t.get("plan_s")),
        ("Enqueue (web request + fan-out task)", run.enqueue_s if run.enqueue_s else None),
        ("Evaluate (sum over chunks, worker seconds)", run.evaluate_s),
        ("Store (summarise, compress, write; sum over chunks)", run.store_s),
        ("Merge", t.get("merge_s")),
        ("Submitted → finished (wall clock)", wall),
    ]
    return [(label, f"{value:,.2f} s" if value is not None else f.MISSING) for label, value in rows]


def _hover(row: dict[str, Any]) -> str:
    return (
        f"{row['gpu_label']} × {row['nodes']:,} nodes ({row['gpus']:,} GPUs)<br>"
        f"TP {row['tp']} · PP {row['pp']} · DP {row['dp']} · CP {row['cp']} · EP {row['ep']} · "
        f"VS {row['virtual_stages']} · MB {row['micro_batch']} · ZeRO {row['zero_stage']} · {row['recompute']}<br>"
        f"{f.days(row['days'])} · TCO {f.usd_compact(row['tco_usd'])} · {f.quantity(row['per_gpu_gib'], 'GiB')}/GPU"
    )


def pareto_chart(result: dict[str, Any]) -> dict[str, Any] | None:
    """Plotly figure: every cluster's fastest eligible layout (colour by GPU model) and the Pareto front of
    training time vs TCO through them."""
    points = result.get("cluster_best") or []
    if not points:
        return None
    labels = result.get("gpus") or []
    data: list[dict[str, Any]] = []
    for i, label in enumerate(labels):
        mine = [r for r in points if r["gpu"] == i]
        if not mine:
            continue
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": label,
                "x": [r["days"] for r in mine],
                "y": [r["tco_usd"] for r in mine],
                "text": [_hover(r) for r in mine],
                "hovertemplate": "%{text}<extra></extra>",
                "marker": {"size": 9, "color": GPU_COLOURS[i % len(GPU_COLOURS)], "opacity": 0.8},
            }
        )
    front = result.get("pareto") or []
    data.append(
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "Pareto front",
            "x": [r["days"] for r in front],
            "y": [r["tco_usd"] for r in front],
            "text": [_hover(r) for r in front],
            "hovertemplate": "<b>Pareto front</b><br>%{text}<extra></extra>",
            "line": {"color": "#101828", "width": 2, "shape": "hv"},
            "marker": {"size": 14, "color": "rgba(0,0,0,0)", "line": {"color": "#101828", "width": 2}},
        }
    )
    layout = {
        "title": {"text": "Training time vs total cost of ownership (fastest layout of each cluster)"},
        "xaxis": {"title": {"text": "Training time (days)"}, "rangemode": "tozero"},
        "yaxis": {
            "title": {"text": "TCO over the cluster's life (USD)"},
            "tickprefix": "$",
            "rangemode": "tozero",
        },
        "legend": {"title": {"text": "GPU model"}},
        "margin": {"l": 80, "r": 20, "t": 50, "b": 60},
        "hovermode": "closest",
    }
    return {
        "key": "pareto",
        "title": "Pareto front of training time vs TCO",
        "figure": {"data": data, "layout": layout},
    }


# --- every evaluated configuration (exports) ----------------------------------------------------------------


def sweep_rows(*, run: SweepRun) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """(chunk index, column arrays) of every finished chunk in index order, one chunk in memory at a time."""
    chunks = (
        SweepChunk.objects.filter(run=run, status=ChunkStatus.DONE)
        .order_by("index")
        .values_list("index", "rows")
        .iterator(chunk_size=1)
    )
    for index, blob in chunks:
        if blob is not None:
            yield index, engine_sweep.unpack_rows(blob)


def sweep_row_dicts(*, run: SweepRun) -> Iterator[dict[str, Any]]:
    """One dict per evaluated configuration with the keys of `columns.CONFIG_COLUMNS` (GPU label, recompute
    name, plain Python numbers)."""
    labels = [g["label"] for g in run.spec["gpus"]]
    for index, rows in sweep_rows(run=run):
        lists = {key: rows[key].tolist() for key, _ in engine_sweep.ROW_COLUMNS}
        for i in range(len(lists["gpu"])):
            row = {key: lists[key][i] for key in lists}
            row["gpu_label"] = labels[row["gpu"]]
            row["recompute"] = RECOMPUTE_NAMES[row["recompute"]]
            row["chunk"], row["row"] = index, i
            yield row


__all__ = [
    "sweep_list",
    "sweep_get",
    "sweep_status",
    "sweep_page",
    "serving_sweep_page",
    "serving_sweep_rows",
    "sweep_rows",
    "sweep_row_dicts",
]
