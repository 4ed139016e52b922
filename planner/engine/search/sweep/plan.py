"""Sweep specs and plans: the checks of a sweep spec, the engine input of one (GPU, node count) cluster, and
the deterministic cut of the space (GPU models x node counts x parallel layouts) into chunks. sweep/__init__.py has the
overview.

A chunk is a list of pieces; a piece is one (GPU, node count) cluster with some leading degrees restricted to a
slice of their candidates, so `enumerate_layouts` on the piece yields exactly that slice of the cluster's layouts
in the same order. Chunk i therefore always holds the same configurations, whichever worker evaluates it.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.fields import Fields
from planner.engine.inputs.parse import parse
from planner.engine.inputs.scenario import Scenario
from planner.engine.perf.layout import RECOMPUTE_NAMES
from planner.engine.search.layouts import candidate_lists

SPEC_KEYS = ("base", "gpus", "nodes", "space", "objective", "constraints", "top_n", "per_cluster", "notes")
GPU_ENTRY_KEYS = ("label", "catalog_id", "cluster", "economics")
#: Degrees a sweep may list (the search's parallelism space); the rest of workload.parallelism is fixed.
DEGREES = ("tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch", "zero_stage", "recompute")
FIXED_PARALLELISM = (
    "global_batch",
    "sequence_parallel",
    "flash_attention",
    "dp_overlap",
    "reshard_after_forward",
    "hsdp",
)
#: Objective -> the row column it minimises.
OBJECTIVES: dict[str, str] = {
    "min_time": "days",
    "min_tco": "tco_usd",
    "min_run_cost": "run_cost_usd",
    "min_energy": "energy_mwh",
}
OBJECTIVE_LABELS: dict[str, str] = {
    "min_time": "Shortest training time",
    "min_tco": "Lowest total cost of ownership",
    "min_run_cost": "Lowest cost per training run",
    "min_energy": "Lowest energy per training run",
}
#: Constraint -> (row column that must not exceed it, label with unit).
CONSTRAINTS: dict[str, tuple[str, str]] = {
    "capex_usd_max": ("capex_usd", "capex budget (USD)"),
    "days_max": ("days", "deadline (days)"),
    "facility_mw_max": ("facility_mw", "facility power cap (MW)"),
    "racks_max": ("racks", "rack count"),
}
#: Configurations of the space per chunk (each chunk is one task; ~0.1 s of numpy on one core; smaller chunks bound export memory and cancel sooner).
CHUNK_CONFIGS_DEFAULT = 100_000
TOP_N_DEFAULT = 20
TOP_N_MAX = 200
MAX_NODE_COUNTS = 500


@dataclass(frozen=True)
class Piece:
    """One cluster, with some leading degrees restricted to a slice of their candidates."""

    gpu: int
    nodes: int
    fix: dict[str, list[Any]]
    size: int  # configurations of the space in this piece

    def as_dict(self) -> dict[str, Any]:
        return {"gpu": self.gpu, "nodes": self.nodes, "fix": self.fix, "size": self.size}


@dataclass(frozen=True)
class SweepPlan:
    total_configs: int  # configurations of the whole space (the size limit applies to this)
    clusters: int
    chunks: list[dict[str, Any]]  # {"index", "size", "pieces": [Piece.as_dict()]}
    largest_cluster_configs: int
    plan_s: float


def _check_spec(spec: Any) -> dict[str, Any]:
    """Shape checks of a sweep spec (the contract payloads inside are checked by parse)."""
    problems: list[Problem] = []
    top = Fields(spec, "sweep", problems, SPEC_KEYS)
    if not top.ok:
        raise SpecError(problems)
    base = top.raw("base")
    if not isinstance(base, dict) or not isinstance(base.get("workload"), dict):
        top.problem("base", "must be an estimate input with a 'workload' object")
    elif "search" in base:
        top.problem("base.search", "a sweep lists its space under 'space', not 'search'")
    else:
        par = base["workload"].get("parallelism") or {}
        for key in par:
            if key not in FIXED_PARALLELISM:
                top.problem(f"base.workload.parallelism.{key}", "list swept degrees under 'space'")
    gpus = top.raw("gpus")
    if not isinstance(gpus, list) or not gpus:
        top.problem("gpus", "choose at least one GPU model")
    else:
        for i, entry in enumerate(gpus):
            g = Fields(entry, f"sweep.gpus[{i}]", problems, GPU_ENTRY_KEYS)
            g.string("label", required=True)
    nodes = top.raw("nodes")
    if not isinstance(nodes, list) or not nodes:
        top.problem("nodes", "give at least one node count")
    elif not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in nodes):
        top.problem("nodes", "node counts must be whole numbers of at least 1")
    elif len(set(nodes)) > MAX_NODE_COUNTS:
        top.problem("nodes", f"at most {MAX_NODE_COUNTS} node counts (got {len(set(nodes))})")
    top.child("space", DEGREES)
    top.string("objective", default="min_time", choices=tuple(OBJECTIVES))
    constraints = top.child("constraints", tuple(CONSTRAINTS))
    if constraints is not None and constraints.ok:
        for key in CONSTRAINTS:
            constraints.number(key, above=0)
    top.number("top_n", integer=True, minimum=1, maximum=TOP_N_MAX)
    top.number("per_cluster", integer=True, minimum=1, maximum=TOP_N_MAX)
    if problems:
        raise SpecError(problems)
    return spec


def payload_for(
    spec: dict[str, Any], gpu: int, nodes: int, layout: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The engine input of one GPU model at one node count: with `layout=None` the search input (the swept
    degrees as lists), otherwise the `estimate` input of that layout (a row's tp, pp, dp, cp, ep, ...)."""
    payload = copy.deepcopy(spec["base"])
    entry = spec["gpus"][gpu]
    payload["cluster"] = {
        **payload.get("cluster", {}),
        **copy.deepcopy(entry.get("cluster") or {}),
        "nodes": nodes,
    }
    if payload.get("economics") is not None or entry.get("economics"):
        payload["economics"] = {**(payload.get("economics") or {}), **(entry.get("economics") or {})}
    parallelism = dict(payload["workload"].get("parallelism") or {})
    if layout is None:
        parallelism.update({k: v for k, v in (spec.get("space") or {}).items() if v is not None})
    else:
        for key in DEGREES:
            value = layout[key]
            if key != "recompute":
                parallelism[key] = int(value)
            else:
                parallelism[key] = value if isinstance(value, str) else RECOMPUTE_NAMES[int(value)]
    payload["workload"]["parallelism"] = parallelism
    return payload


def scenario_for(spec: dict[str, Any], gpu: int, nodes: int) -> Scenario:
    """The parsed search input of one GPU model; problems are prefixed with the GPU's label."""
    try:
        sc = parse(payload_for(spec, gpu, nodes), allow_search=True)
    except SpecError as err:
        label = spec["gpus"][gpu]["label"]
        raise SpecError([Problem(p.path, f"{p.message} ({label})") for p in err.problems]) from err
    if sc.kind != "training" or sc.model is None or sc.tokens is None:
        raise SpecError.at("workload.kind", "sweeps cover training runs only")
    return sc


def _split(axes: list[tuple[str, list[Any]]], target: int) -> list[dict[str, list[Any]]]:
    """Restrictions of the leading axes that cut the product into pieces of at most ~`target` configurations,
    in enumeration order (meshgrid 'ij': the first axis varies slowest)."""
    sizes = [len(values) for _, values in axes]
    if math.prod(sizes) <= target:
        return [{}]
    out: list[dict[str, list[Any]]] = []

    def cut(depth: int, fixed: dict[str, list[Any]]) -> None:
        name, values = axes[depth]
        inner = math.prod(sizes[depth + 1 :])
        if inner <= target or depth == len(axes) - 1:
            step = max(1, target // max(inner, 1))
            for start in range(0, len(values), step):
                out.append({**fixed, name: values[start : start + step]})
            return
        for value in values:
            cut(depth + 1, {**fixed, name: [value]})

    cut(0, {})
    return out


def _axes(sc: Scenario, gpus: int) -> list[tuple[str, list[Any]]]:
    assert sc.search is not None and sc.model is not None
    lists = candidate_lists(sc.search.get("space", {}), sc.model, gpus)
    lists["recompute"] = [RECOMPUTE_NAMES[int(code)] for code in lists["recompute"]]
    return list(lists.items())


def plan_sweep(
    spec: dict[str, Any], chunk_configs: int = CHUNK_CONFIGS_DEFAULT, max_configs: int | None = None
) -> SweepPlan:
    """Validate a sweep spec and cut its space into chunks; SpecError names every bad field. A space larger
    than `max_configs` is only counted (no chunks), so refusing a huge sweep stays cheap."""
    started = perf_counter()
    _check_spec(spec)
    nodes_list = sorted(set(spec["nodes"]))
    problems: list[Problem] = []
    scenarios: dict[int, Scenario] = {}
    for gi in range(len(spec["gpus"])):
        try:
            scenarios[gi] = scenario_for(spec, gi, nodes_list[0])
        except SpecError as err:
            problems.extend(err.problems)
    if problems:
        raise SpecError(list(dict.fromkeys(problems)))
    # Node counts outermost, so the first chunks (and a cancelled sweep's results) cover every GPU model.
    clusters = [
        (gi, nodes, _axes(sc, sc.cluster.gpus_per_node * nodes))
        for nodes in nodes_list
        for gi, sc in scenarios.items()
    ]
    sizes = [math.prod(len(v) for _, v in axes) for _, _, axes in clusters]
    total, largest = sum(sizes), max(sizes, default=0)
    if max_configs is not None and total > max_configs:
        return SweepPlan(total, len(clusters), [], largest, perf_counter() - started)
    pieces: list[Piece] = []
    for gi, nodes, axes in clusters:
        lengths = {k: len(v) for k, v in axes}
        for fix in _split(axes, chunk_configs):
            size = math.prod(len(fix[k]) if k in fix else n for k, n in lengths.items())
            pieces.append(Piece(gi, nodes, fix, size))
    return SweepPlan(total, len(clusters), _pack(pieces, chunk_configs), largest, perf_counter() - started)


def _pack(pieces: list[Piece], chunk_configs: int) -> list[dict[str, Any]]:
    """Consecutive pieces into chunks of at most `chunk_configs` configurations (a larger piece alone)."""
    chunks: list[list[Piece]] = []
    size = 0
    for piece in pieces:
        if not chunks or (chunks[-1] and size + piece.size > chunk_configs):
            chunks.append([])
            size = 0
        chunks[-1].append(piece)
        size += piece.size
    return [
        {"index": i, "size": sum(p.size for p in group), "pieces": [p.as_dict() for p in group]}
        for i, group in enumerate(chunks)
    ]


def size_message(plan: SweepPlan, spec: dict[str, Any], limit: int) -> str:
    """Why a sweep is refused for its size, and how to narrow it."""
    gpus, nodes = len(spec["gpus"]), len(set(spec["nodes"]))
    return (
        f"This sweep spans {plan.total_configs:,} configurations ({gpus} GPU model{'s' if gpus != 1 else ''} × "
        f"{nodes} node count{'s' if nodes != 1 else ''} × up to {plan.largest_cluster_configs:,} parallel layouts "
        f"each); the limit is {limit:,}. Narrow it: fewer node counts or GPU models, or fix some parallelism "
        "degrees (for example micro-batch, ZeRO stage or virtual stages) instead of searching them all."
    )
