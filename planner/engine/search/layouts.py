"""Search: enumerate every valid training layout, evaluate them all at once with numpy, rank and find the Pareto
front of time vs cost (docs/engine-contract.md, "Search").

The layouts are the Cartesian product of the candidate values of each degree (a fixed input, a listed input,
or, when omitted, every sensible value: powers of two for tp/cp/micro_batch, divisors of the GPU count for pp,
1-8 virtual stages, ZeRO 0-3, the three recompute modes), filtered by the same rules as inputs/parallelism.layout_problems,
then evaluated by the SAME elementwise functions `estimate` uses (memory.memory_breakdown,
training.step_breakdown, goodput.goodput_fraction) on arrays, so each result equals `estimate` on that layout.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace
from time import perf_counter
from typing import Any

import numpy as np

from planner.engine.facility.sections import facility_sections
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.parse import parse
from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.specs import GpuSpec, ModelSpec, ParallelismSpec
from planner.engine.inputs.units import DAY, HOUR, GiB
from planner.engine.perf.hardware import Hardware, hardware_of
from planner.engine.perf.layout import (
    RECOMPUTE_CODES,
    RECOMPUTE_NAMES,
    Layout,
    Numerics,
    numerics_for,
    workload_flags,
)
from planner.engine.results import ParetoEntry, SearchConfig, SearchEntry, SearchResult
from planner.engine.training.goodput import goodput_fraction
from planner.engine.training.memory import memory_breakdown
from planner.engine.training.step_time import step_breakdown, throughput
from planner.engine.transformer.shape import ModelShape, shape_of

#: Candidates for degrees the input leaves free.
FREE_TP = (1, 2, 4, 8, 16, 32, 64)
FREE_CP = (1, 2, 4, 8)
FREE_VIRTUAL_STAGES = (1, 2, 3, 4, 6, 8)
FREE_MICRO_BATCH = (1, 2, 4, 8, 16, 32)
FREE_ZERO = (0, 1, 2, 3)
FREE_RECOMPUTE = ("none", "selective", "full")
#: Longest Pareto list returned (the front is usually short; a cap keeps the JSON bounded).
PARETO_LIMIT = 200
#: Enumerated layouts per cluster beyond which the search refuses (a guard against runaway products).
MAX_LAYOUTS_DEFAULT = 20_000_000


def _candidates(value: Any, free: tuple[Any, ...]) -> list[Any]:
    if value is None:
        return list(free)
    return list(value) if isinstance(value, list) else [value]


def _divisors(n: int, limit: int) -> list[int]:
    return [d for d in range(1, min(n, limit) + 1) if n % d == 0]


def candidate_lists(space: dict[str, Any], model: ModelSpec, gpus: int) -> dict[str, list[Any]]:
    """Candidate values per degree for a cluster of `gpus` GPUs."""
    experts = model.moe.experts if model.moe else 1
    return {
        "tp": _candidates(space.get("tp"), tuple(t for t in FREE_TP if t <= gpus)),
        "pp": _candidates(space.get("pp"), tuple(_divisors(gpus, model.layers))),
        "cp": _candidates(space.get("cp"), tuple(c for c in FREE_CP if c <= gpus)),
        "ep": _candidates(space.get("ep"), tuple(_divisors(experts, gpus)) if model.moe else (1,)),
        "virtual_stages": _candidates(space.get("virtual_stages"), FREE_VIRTUAL_STAGES),
        "micro_batch": _candidates(space.get("micro_batch"), FREE_MICRO_BATCH),
        "zero_stage": _candidates(space.get("zero_stage"), FREE_ZERO),
        "recompute": [RECOMPUTE_CODES[r] for r in _candidates(space.get("recompute"), FREE_RECOMPUTE)],
    }


def enumerate_layouts(
    model: ModelSpec, space: dict[str, Any], gpus: int, global_batch: int, max_layouts: int
) -> tuple[dict[str, np.ndarray], int]:
    """(valid layouts as int64 arrays, number enumerated before filtering); the rules of parse.layout_problems."""
    lists = candidate_lists(space, model, gpus)
    size = int(np.prod([len(v) for v in lists.values()]))
    if size > max_layouts:
        raise SpecError.at(
            "search", f"{size:,} layouts per cluster exceed the limit {max_layouts:,}: fix some degrees"
        )
    # The structural degrees decide validity; micro-batch, ZeRO stage and recompute multiply the valid ones (the
    # same rows in the same order as the full product, without building the invalid ones).
    structural = ("tp", "pp", "cp", "ep", "virtual_stages")
    grids = np.meshgrid(*[np.asarray(lists[k], dtype=np.int64) for k in structural], indexing="ij")
    g = {k: a.ravel() for k, a in zip(structural, grids, strict=True)}
    tp, pp, cp, ep, v = g["tp"], g["pp"], g["cp"], g["ep"], g["virtual_stages"]
    model_parallel = tp * pp * cp
    ok = gpus % model_parallel == 0
    dp = np.where(ok, gpus // np.maximum(model_parallel, 1), 1)
    if space.get("dp") is not None:
        ok &= np.isin(dp, np.asarray(_candidates(space["dp"], ()), dtype=np.int64))
    ok &= pp <= model.layers
    ok &= (v == 1) | ((pp > 1) & (model.layers % (pp * v) == 0))
    ok &= model.heads % tp == 0
    if model.mla is None:
        kv = model.kv_heads
        ok &= ((tp <= kv) & (kv % tp == 0)) | ((tp > kv) & (tp % kv == 0))
    ok &= model.seq_len % cp == 0
    if model.moe is None:
        ok &= ep == 1
    else:
        ok &= (model.moe.experts % ep == 0) & ((dp * cp) % ep == 0)
    base = {k: a[ok] for k, a in g.items()}
    base["dp"] = dp[ok]
    inner = ("micro_batch", "zero_stage", "recompute")
    inner_grids = np.meshgrid(*[np.asarray(lists[k], dtype=np.int64) for k in inner], indexing="ij")
    inner_rows = {k: a.ravel() for k, a in zip(inner, inner_grids, strict=True)}
    n_inner = len(inner_rows["micro_batch"])
    out = {k: np.repeat(a, n_inner) for k, a in base.items()}
    out.update({k: np.tile(a, len(base["dp"])) for k, a in inner_rows.items()})
    keep = global_batch % (out["micro_batch"] * out["dp"]) == 0
    out = {k: a[keep] for k, a in out.items()}
    return out, size


def layout_arrays(g: dict[str, np.ndarray], fixed: ParallelismSpec) -> Layout:
    """The enumerated layouts as arrays; `fixed` gives the global batch and the workload-level switches."""
    ones = np.ones(len(g["tp"]))
    return Layout(
        tp=g["tp"].astype(float),
        pp=g["pp"].astype(float),
        dp=g["dp"].astype(float),
        cp=g["cp"].astype(float),
        ep=g["ep"].astype(float),
        virtual_stages=g["virtual_stages"].astype(float),
        micro_batch=g["micro_batch"].astype(float),
        global_batch=float(fixed.global_batch) * ones,
        zero_stage=g["zero_stage"].astype(float),
        recompute=g["recompute"].astype(float),
        **{key: code * ones for key, code in workload_flags(fixed).items()},
    )


def evaluate_layouts(sc: Scenario, sh: ModelShape, lay: Layout) -> dict[str, np.ndarray]:
    """Memory, step time, throughput, days and GPU-hours of every layout (the functions estimate uses)."""
    num = numerics_for(sc.precision, sc.optimizer)
    hw = hardware_of(sc)
    mem = memory_breakdown(sh, lay, num, hw)
    return {
        **_time_results(sc, sh, lay, num, hw),
        "per_gpu_gib": mem["per_gpu_bytes"] / GiB,
        "fits": mem["fits"],
    }


def evaluate_fitting_layouts(
    sc: Scenario, sh: ModelShape, lay: Layout
) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """(positions of the layouts that fit, `evaluate_layouts`' results for those layouts only, GiB per GPU of
    every layout). The memory model runs on every layout, the time model only on those that fit: `search` and
    the automatic layout rank only those (about half of a search space), and the formulas are elementwise, so
    each number is the one `evaluate_layouts` gives for that layout."""
    num = numerics_for(sc.precision, sc.optimizer)
    hw = hardware_of(sc)
    mem = memory_breakdown(sh, lay, num, hw)
    per_gpu_gib = mem["per_gpu_bytes"] / GiB
    index = np.flatnonzero(mem["fits"])
    fitting = take_layouts(lay, index)
    res = {
        **_time_results(sc, sh, fitting, num, hw),
        "per_gpu_gib": per_gpu_gib[index],
        "fits": np.ones(len(index), dtype=bool),
    }
    return index, res, per_gpu_gib


def take_layouts(lay: Layout, index: np.ndarray) -> Layout:
    """The layouts at `index` of an array Layout."""
    return Layout(**{f.name: getattr(lay, f.name)[index] for f in fields(Layout)})


def _time_results(
    sc: Scenario, sh: ModelShape, lay: Layout, num: Numerics, hw: Hardware
) -> dict[str, np.ndarray]:
    """Step time, throughput, days and GPU-hours of every layout."""
    c = sc.cluster
    assert sc.model is not None and sc.tokens is not None
    br = step_breakdown(sh, lay, num, hw)
    th = throughput(sh, lay, hw, br["step_s"])
    steady_s = sc.tokens / (lay.global_batch * sc.model.seq_len) * br["step_s"]
    total_s = steady_s / goodput_fraction(sc.goodput, float(c.gpus))
    return {
        "step_s": br["step_s"],
        "tokens_per_s": th["tokens_per_s"],
        "mfu": th["mfu"],
        "days": total_s / DAY,
        "gpu_hours": c.gpus * total_s / HOUR,
    }


def _cluster_cost(sc: Scenario) -> tuple[float | None, float | None]:
    """(tco_usd, usd_per_gpu_hour) of a cluster, from the facility modules (None without economics)."""
    if sc.economics is None:
        return None, None
    cost = facility_sections(sc, None, None, [], {}).get("cost") or {}
    return cost.get("tco_usd"), cost.get("usd_per_gpu_hour")


def _gpu_label(gpu: GpuSpec) -> str:
    return gpu.catalog_id or gpu.name


def run_search(payload: Any) -> SearchResult:
    started = perf_counter()
    sc = parse(payload, allow_search=True)
    if sc.kind != "training" or sc.model is None or sc.tokens is None or sc.search is None:
        raise SpecError.at("workload.kind", "search covers training layouts only")
    opts = sc.search
    space = opts.get("space", {})
    max_layouts = opts.get("max_configs") or MAX_LAYOUTS_DEFAULT
    gpus_list = [g for g in (opts.get("gpus") or [sc.cluster.gpu]) if g is not None]
    nodes_list = opts.get("nodes") or [sc.cluster.nodes]
    sh = shape_of(sc.model)
    warnings: list[str] = []
    chunks: list[dict[str, Any]] = []
    evaluated = enumerated = 0
    for gpu, nodes in itertools.product(gpus_list, nodes_list):
        if gpu.peak_for(sc.precision) is None:
            warnings.append(f"{gpu.name} skipped: no {sc.precision} peak")
            continue
        cluster = replace(sc.cluster, gpu=gpu, nodes=nodes)
        csc = replace(sc, cluster=cluster)
        grid, size = enumerate_layouts(
            sc.model, space, cluster.gpus, sc.parallelism.global_batch, max_layouts
        )
        enumerated += size
        n = len(grid["tp"])
        if n == 0:
            continue
        evaluated += n
        index, res, _ = evaluate_fitting_layouts(csc, sh, layout_arrays(grid, sc.parallelism))
        grid = {k: a[index] for k, a in grid.items()}
        tco_usd, usd_per_gpu_hour = _cluster_cost(csc)
        chunks.append(
            {
                "gpu": gpu,
                "nodes": nodes,
                "gpus": cluster.gpus,
                "grid": grid,
                "res": res,
                "tco_usd": tco_usd,
                "usd_per_gpu_hour": usd_per_gpu_hour,
            }
        )
    best, pareto, feasible = _rank(chunks, opts["objective"], opts["max_results"], sc)
    if evaluated == 0:
        warnings.append(
            "no valid layout: check the fixed degrees against the GPU count, heads, layers and batch"
        )
    elif feasible == 0:
        warnings.append(
            "no layout fits in GPU memory: add GPUs, use a GPU with more memory, or shorten sequences"
        )
    return {
        "evaluated": evaluated,
        "enumerated": enumerated,
        "feasible": feasible,
        "elapsed_s": perf_counter() - started,
        "objective": opts["objective"],
        "cost_metric": "tco_usd" if sc.economics is not None else "gpu_hours",
        "best": best,
        "pareto": pareto,
        "warnings": warnings,
    }


def rank_order(objective: str, days: np.ndarray, run_cost: np.ndarray) -> np.ndarray:
    """Indices from best to worst: min_time by days then the run's cost, min_cost the other way round (the one
    ranking rule of `search` and of `estimate`'s automatic layout)."""
    return np.lexsort((run_cost, days)) if objective == "min_time" else np.lexsort((days, run_cost))


def best_rows(objective: str, days: np.ndarray, run_cost: np.ndarray, count: int) -> np.ndarray:
    """`rank_order(...)[:count]` without sorting every layout: only those whose first key is at most the
    count-th smallest can be among the first `count`, and lexsort keeps the order of ties (the same rows in
    the same order)."""
    first = days if objective == "min_time" else run_cost
    candidates = np.arange(len(first))
    if 0 < count < len(first):
        kth = np.partition(first, count - 1)[count - 1]
        if not np.isnan(kth):
            candidates = np.flatnonzero(first <= kth)
    return candidates[rank_order(objective, days[candidates], run_cost[candidates])][:count]


def pareto_front(days: np.ndarray, cost: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    """Indices of the Pareto front of days vs cost, fastest first: in order of days (then cost, then index),
    every layout cheaper than all before it.

    Only layouts no pivot dominates are sorted: a layout slower than a pivot (strictly) and not cheaper than it
    comes after the pivot and is not cheaper, so it is not on the front, and dropping it changes no other
    layout's verdict (the cheapest layout before any other one stays). `pivots` (indices, e.g. the fastest and
    the cheapest layout of each cluster) only decide how much is dropped, never the front."""
    pivot_days = days[pivots]
    by_days = np.argsort(pivot_days, kind="stable")
    cheapest_so_far = np.minimum.accumulate(cost[pivots][by_days])
    faster_pivots = np.searchsorted(pivot_days[by_days], days, side="left")
    dominated = (faster_pivots > 0) & (cheapest_so_far[np.maximum(faster_pivots - 1, 0)] <= cost)
    keep = np.flatnonzero(~dominated)
    by_time = keep[np.lexsort((cost[keep], days[keep]))]
    sorted_cost = cost[by_time]
    cheaper_than_before = sorted_cost < np.concatenate(([np.inf], np.minimum.accumulate(sorted_cost)[:-1]))
    return by_time[cheaper_than_before]


def _rank(
    chunks: list[dict[str, Any]], objective: str, max_results: int, sc: Scenario
) -> tuple[list[SearchEntry], list[ParetoEntry], int]:
    """Best layouts by the objective and the Pareto front of days vs cost, over the feasible layouts."""
    chunk_ids, layout_ids = [], []  # per feasible layout: its chunk and its index in the chunk
    days, cost, run_cost, pivots = [], [], [], []
    offset = 0
    for ci, ch in enumerate(chunks):
        fits = np.asarray(ch["res"]["fits"], dtype=bool)
        idx = np.nonzero(fits)[0]
        chunk_ids.append(np.full(len(idx), ci))
        layout_ids.append(idx)
        d = ch["res"]["days"][idx]
        gh = ch["res"]["gpu_hours"][idx]
        days.append(d)
        if ch["tco_usd"] is None:
            c = gh
            run_cost.append(gh)
        else:
            c = np.full(len(idx), ch["tco_usd"])
            run_cost.append(gh * ch["usd_per_gpu_hour"])
        cost.append(c)
        if len(idx):
            pivots += [offset + int(np.argmin(d)), offset + int(np.argmin(c))]
        offset += len(idx)
    if not chunks or not offset:
        return [], [], 0
    chunk_a, layout_a = np.concatenate(chunk_ids), np.concatenate(layout_ids)
    days_a, cost_a, run_a = np.concatenate(days), np.concatenate(cost), np.concatenate(run_cost)

    def row(i: int) -> tuple[int, int]:
        return int(chunk_a[i]), int(layout_a[i])

    best = [_entry(chunks, row(int(i)), sc) for i in best_rows(objective, days_a, run_a, max_results)]
    front = pareto_front(days_a, cost_a, np.asarray(pivots, dtype=np.int64))
    pareto: list[ParetoEntry] = [
        {"config": e["config"], "days": e["days"], "tco_usd": e["tco_usd"], "gpu_hours": e["gpu_hours"]}
        for e in (_entry(chunks, row(int(i)), sc) for i in front[:PARETO_LIMIT])
    ]
    return best, pareto, len(days_a)


def _entry(chunks: list[dict[str, Any]], row: tuple[int, int], sc: Scenario) -> SearchEntry:
    ch = chunks[row[0]]
    i = row[1]
    g, r = ch["grid"], ch["res"]
    config: SearchConfig = {
        "gpu": _gpu_label(ch["gpu"]),
        "nodes": ch["nodes"],
        "gpus": ch["gpus"],
        "tp": int(g["tp"][i]),
        "pp": int(g["pp"][i]),
        "dp": int(g["dp"][i]),
        "cp": int(g["cp"][i]),
        "ep": int(g["ep"][i]),
        "virtual_stages": int(g["virtual_stages"][i]),
        "micro_batch": int(g["micro_batch"][i]),
        "zero_stage": int(g["zero_stage"][i]),
        "recompute": RECOMPUTE_NAMES[int(g["recompute"][i])],
        "sequence_parallel": sc.parallelism.sequence_parallel,
        "flash_attention": sc.parallelism.flash_attention_input,
        "dp_overlap": sc.parallelism.dp_overlap,
        "reshard_after_forward": sc.parallelism.reshard_after_forward,
        "hsdp": sc.parallelism.hsdp,
        "pipeline_split": sc.parallelism.pipeline_split,
    }
    gpu_hours = float(r["gpu_hours"][i])
    per_hour = ch["usd_per_gpu_hour"]
    return {
        "config": config,
        "step_s": float(r["step_s"][i]),
        "per_gpu_gib": float(r["per_gpu_gib"][i]),
        "tokens_per_s": float(r["tokens_per_s"][i]),
        "mfu": float(r["mfu"][i]),
        "days": float(r["days"][i]),
        "gpu_hours": gpu_hours,
        "tco_usd": ch["tco_usd"],
        "run_cost_usd": None if per_hour is None else gpu_hours * per_hour,
    }


@dataclass(frozen=True)
class LayoutChoice:
    """The automatic layout of `estimate`: the layout and what the search behind it saw."""

    parallelism: ParallelismSpec
    fits: bool  # False: no layout fits, `parallelism` is the one that needs the least memory
    evaluated: int
    feasible: int


#: The objective of the automatic layout: the planning page's ("fastest layout that fits", planner/adapters.py).
AUTO_OBJECTIVE = "min_time"


def choose_layout(sc: Scenario) -> LayoutChoice:
    """The layout `search` ranks first for this scenario's own GPU and node count with objective min_time (the
    planning page's automatic layout), over the degrees `sc.auto_layout` leaves free; when none fits, the layout
    that needs the least memory per GPU. SpecError naming workload.parallelism when no layout is valid at all.

    A single cluster's run cost is its GPU-hours times one price, so ranking by GPU-hours (without economics)
    orders exactly as `search` with economics does."""
    assert sc.model is not None and sc.tokens is not None and sc.auto_layout is not None
    gpus = sc.cluster.gpus
    grid, _ = enumerate_layouts(
        sc.model, sc.auto_layout, gpus, sc.parallelism.global_batch, MAX_LAYOUTS_DEFAULT
    )
    evaluated = len(grid["tp"])
    if evaluated == 0:
        raise SpecError.at(
            "workload.parallelism",
            f"no parallel layout of the {gpus:,} GPUs is valid for this model and global batch "
            f"({sc.parallelism.global_batch:,} sequences): check the fixed degrees against the GPU count, heads, "
            "layers and batch",
        )
    index, res, per_gpu_gib = evaluate_fitting_layouts(
        sc, shape_of(sc.model), layout_arrays(grid, sc.parallelism)
    )
    feasible = len(index)
    if feasible:
        best = int(index[best_rows(AUTO_OBJECTIVE, res["days"], res["gpu_hours"], 1)[0]])
    else:
        best = int(np.argmin(per_gpu_gib))
    row = {k: int(a[best]) for k, a in grid.items()}
    chosen = replace(
        sc.parallelism,
        tp=row["tp"],
        pp=row["pp"],
        dp=row["dp"],
        cp=row["cp"],
        ep=row["ep"],
        virtual_stages=row["virtual_stages"],
        micro_batch=row["micro_batch"],
        zero_stage=row["zero_stage"],
        recompute=RECOMPUTE_NAMES[row["recompute"]],
    )
    return LayoutChoice(chosen, feasible > 0, evaluated, feasible)


__all__ = [
    "run_search",
    "enumerate_layouts",
    "evaluate_layouts",
    "evaluate_fitting_layouts",
    "take_layouts",
    "layout_arrays",
    "choose_layout",
    "rank_order",
    "best_rows",
    "pareto_front",
    "LayoutChoice",
]
