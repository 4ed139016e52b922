"""Sweep ranking and merge: each chunk's counts and ranked candidates (`summarize_chunk`), and the sweep's
result from the chunk summaries (`merge_summaries`: ranked lists per objective, the Pareto front, the best
layout of every cluster). sweep/__init__.py has the overview.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from planner.engine.perf.layout import RECOMPUTE_NAMES
from planner.engine.search.sweep.plan import CONSTRAINTS, OBJECTIVES, TOP_N_DEFAULT
from planner.engine.search.sweep.rows import FLOAT_COLUMNS, ROW_COLUMNS

PARETO_LIMIT = 500
#: Most clusters listed with their fastest layout in a result (the scatter behind the Pareto front).
CLUSTER_LIMIT = 5000


def eligible_mask(rows: dict[str, np.ndarray], constraints: dict[str, Any] | None) -> np.ndarray:
    """Rows that fit in memory and meet every given constraint."""
    mask = np.asarray(rows["feasible"], dtype=bool).copy()
    for key, limit in (constraints or {}).items():
        if limit is not None:
            mask &= rows[CONSTRAINTS[key][0]] <= limit
    return mask


def _row_dict(rows: dict[str, np.ndarray], i: int, chunk: int, labels: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, _ in ROW_COLUMNS:
        value = rows[key][i]
        out[key] = bool(value) if key == "feasible" else float(value) if key in FLOAT_COLUMNS else int(value)
    out["recompute"] = RECOMPUTE_NAMES[out["recompute"]]
    out["gpu_label"] = labels[out["gpu"]]
    out["chunk"], out["row"] = chunk, int(i)
    return out


def rows_per_cluster(spec: dict[str, Any]) -> int:
    """Most rows of one (GPU, node count) cluster in a ranked list: the spec's `per_cluster`, else just enough
    for the clusters to fill the list (a sweep over many clusters lists each cluster's best layout once; a
    sweep of one cluster lists its best layouts)."""
    if spec.get("per_cluster"):
        return int(spec["per_cluster"])
    clusters = len(spec["gpus"]) * len(set(spec["nodes"]))
    return max(1, math.ceil(int(spec.get("top_n") or TOP_N_DEFAULT) / max(clusters, 1)))


def _ranked(keys: list[np.ndarray], cluster: np.ndarray, per_cluster: int) -> np.ndarray:
    """Indices sorted by `keys` (first key first), at most `per_cluster` per cluster id."""
    order = np.lexsort(tuple(reversed(keys)))
    grouped = order[np.argsort(cluster[order], kind="stable")]
    ids = cluster[grouped]
    starts = np.r_[0, np.nonzero(np.diff(ids))[0] + 1]
    rank = np.arange(len(ids)) - np.repeat(starts, np.diff(np.r_[starts, len(ids)]))
    kept = grouped[rank < per_cluster]
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return kept[np.argsort(position[kept], kind="stable")]


def summarize_chunk(
    rows: dict[str, np.ndarray], spec: dict[str, Any], chunk: int, enumerated: int
) -> dict[str, Any]:
    """Counts per GPU model and the chunk's candidates for every ranked list: per objective, the best
    `per_cluster` eligible rows of each cluster (the global lists and the Pareto front are drawn from these)."""
    labels = [g["label"] for g in spec["gpus"]]
    per_cluster = rows_per_cluster(spec)
    n_gpus = len(labels)
    feasible = np.asarray(rows["feasible"], dtype=bool)
    eligible = eligible_mask(rows, spec.get("constraints"))
    gpu = rows["gpu"].astype(np.int64)
    per_gpu = {
        "evaluated": np.bincount(gpu, minlength=n_gpus).tolist(),
        "feasible": np.bincount(gpu[feasible], minlength=n_gpus).tolist(),
        "eligible": np.bincount(gpu[eligible], minlength=n_gpus).tolist(),
    }
    idx = np.nonzero(eligible)[0]
    picked: dict[int, set[str]] = {}
    if len(idx):
        cluster = gpu[idx] * (1 << 32) + rows["nodes"][idx].astype(np.int64)
        for objective, column in OBJECTIVES.items():
            keys = [rows[column][idx], rows["days"][idx], rows["tco_usd"][idx], idx.astype(np.float64)]
            for i in idx[_ranked(keys, cluster, per_cluster)]:
                picked.setdefault(int(i), set()).add(objective)
    candidates = []
    for i in sorted(picked):
        row = _row_dict(rows, i, chunk, labels)
        row["objectives"] = sorted(picked[i])
        candidates.append(row)
    return {
        "chunk": chunk,
        "enumerated": int(enumerated),
        "evaluated": int(len(gpu)),
        "feasible": int(feasible.sum()),
        "eligible": int(eligible.sum()),
        "per_gpu": per_gpu,
        "candidates": candidates,
    }


def _sort_key(column: str) -> Any:
    return lambda r: (r[column], r["days"], r["tco_usd"], r["chunk"], r["row"])


def _top(candidates: list[dict[str, Any]], column: str, n: int, per_cluster: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: dict[tuple[int, int], int] = {}
    for row in sorted(candidates, key=_sort_key(column)):
        key = (row["gpu"], row["nodes"])
        if seen.get(key, 0) >= per_cluster:
            continue
        seen[key] = seen.get(key, 0) + 1
        out.append(row)
        if len(out) >= n:
            break
    return out


def pareto_front(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows not beaten on both training days and TCO (ties broken by chunk and row order)."""
    front: list[dict[str, Any]] = []
    lowest = math.inf
    for row in sorted(candidates, key=_sort_key("days")):
        if row["tco_usd"] < lowest:
            front.append(row)
            lowest = row["tco_usd"]
    return front[:PARETO_LIMIT]


def cluster_best(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fastest eligible layout of every (GPU, node count) cluster, fastest first (the chart's points)."""
    best: dict[tuple[int, int], dict[str, Any]] = {}
    for row in sorted(candidates, key=_sort_key("days")):
        best.setdefault((row["gpu"], row["nodes"]), row)
    return list(best.values())[:CLUSTER_LIMIT]


def merge_summaries(summaries: Iterable[dict[str, Any]], spec: dict[str, Any]) -> dict[str, Any]:
    """The sweep's result from its chunk summaries (any order: the ranking breaks ties by chunk and row)."""
    labels = [g["label"] for g in spec["gpus"]]
    objective = spec.get("objective") or "min_time"
    top_n = int(spec.get("top_n") or TOP_N_DEFAULT)
    per_cluster = rows_per_cluster(spec)
    totals = {"enumerated": 0, "evaluated": 0, "feasible": 0, "eligible": 0}
    per_gpu = {k: [0] * len(labels) for k in ("evaluated", "feasible", "eligible")}
    candidates: list[dict[str, Any]] = []
    chunks = 0
    for summary in summaries:
        chunks += 1
        for key in totals:
            totals[key] += int(summary[key])
        for key, counts in per_gpu.items():
            for i, count in enumerate(summary["per_gpu"][key]):
                counts[i] += int(count)
        candidates.extend(summary["candidates"])
    best = {name: _top(candidates, column, top_n, per_cluster) for name, column in OBJECTIVES.items()}
    gpu_rows = []
    for i, label in enumerate(labels):
        mine = [r for r in candidates if r["gpu"] == i]
        gpu_rows.append(
            {
                "gpu": i,
                "gpu_label": label,
                **{key: per_gpu[key][i] for key in per_gpu},
                "best": {
                    name: (_top(mine, column, 1, 1) or [None])[0] for name, column in OBJECTIVES.items()
                },
            }
        )
    warnings = []
    if totals["evaluated"] and not totals["feasible"]:
        warnings.append(
            "no configuration fits in GPU memory: add nodes, pick GPUs with more memory or shorten sequences"
        )
    elif totals["feasible"] and not totals["eligible"]:
        warnings.append("configurations fit in memory but none meets the constraints: relax a constraint")
    return {
        "objective": objective,
        "rows_per_cluster": per_cluster,
        "constraints": {k: v for k, v in (spec.get("constraints") or {}).items() if v is not None},
        "chunks_merged": chunks,
        **totals,
        "gpus": labels,
        "best": best,
        "pareto": pareto_front(candidates),
        "cluster_best": cluster_best(candidates),
        "per_gpu": gpu_rows,
        "warnings": warnings,
    }
