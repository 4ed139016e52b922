"""Scenario + catalog GPUs + the sweep form -> a planner.engine.search.sweep spec (the sweeps' ORM-to-engine boundary).

Each GPU model gets the cluster and economics the planning adapter (planner.adapters) would build for the same
scenario moved onto that GPU, exactly as "Clone on another GPU" does: the GPU's catalog numbers, its node price
(typed, system or catalog GPU price + host parts) and its rental price. So "open as scenario" on a sweep row
evaluates to the same figures as the row. The adapter never computes a figure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner import adapters
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.search import sweep as engine_sweep
from planner.models import Scenario, WorkloadKind
from planner.services import scenario_on_gpu

#: A rental price is required by the engine's economics but no sweep figure uses it (sweeps rank owned
#: clusters); a GPU without a published rental price gets this placeholder, flagged in the spec's notes.
UNUSED_CLOUD_PRICE_USD_PER_GPU_HOUR = 0.0


@dataclass(frozen=True)
class SweepInputs:
    """What the sweep form cleaned: GPU rows, node counts, the swept degrees, objective and constraints."""

    name: str
    gpus: list[Any]  # catalog.Gpu rows
    nodes: list[int]
    precision: str
    space: dict[str, list[Any] | None]
    objective: str
    constraints: dict[str, float | None] = field(default_factory=dict)
    top_n: int = engine_sweep.TOP_N_DEFAULT


def gpu_entry(scenario: Scenario, gpu: Any) -> tuple[dict[str, Any], list[str]]:
    """The spec entry of one GPU model (its full cluster and economics payloads) and notes about it."""
    copy = scenario_on_gpu(scenario, gpu)
    cluster = adapters.cluster_payload(copy)
    cluster.pop("nodes", None)
    economics = adapters.economics_payload(copy)
    notes = [
        f"{n['name']} for {gpu.model}: {n['value']:,.2f} {n['unit']} ({n['source']})"
        for n in adapters.planning_inputs(copy)
    ]
    if economics.get("cloud_usd_per_gpu_hour") is None:
        economics["cloud_usd_per_gpu_hour"] = UNUSED_CLOUD_PRICE_USD_PER_GPU_HOUR
        notes.append(f"{gpu.model} has no published rental price; sweeps do not use rental prices")
    entry = {"label": gpu.model, "catalog_id": gpu.pk, "cluster": cluster, "economics": economics}
    return entry, notes


def spec_from_scenario(scenario: Scenario, inputs: SweepInputs) -> dict[str, Any]:
    """The sweep spec: the scenario's workload with the form's precision and swept degrees, one entry per GPU.
    SpecError (field paths of the sweep form) when the scenario cannot be swept."""
    if scenario.workload_kind != WorkloadKind.TRAINING:
        raise SpecError.at("scenario", "sweeps cover training scenarios only")
    problems: list[Problem] = []
    missing_price = [
        g.model for g in inputs.gpus if adapters.server_price(scenario_on_gpu(scenario, g))[0] is None
    ]
    if missing_price:
        problems.append(
            Problem(
                "gpus",
                "no node price in the catalog for " + ", ".join(missing_price) + ": sweeps rank by cost, so "
                "pick GPUs with a price (or type a node price on a scenario using that GPU)",
            )
        )
    if problems:
        raise SpecError(problems)
    workload = adapters.workload_payload(scenario)
    parallelism = workload.get("parallelism") or {}
    workload["parallelism"] = {k: parallelism[k] for k in engine_sweep.FIXED_PARALLELISM if k in parallelism}
    workload["precision"] = inputs.precision
    entries, notes = [], []
    for gpu in inputs.gpus:
        entry, entry_notes = gpu_entry(scenario, gpu)
        entries.append(entry)
        notes.extend(entry_notes)
    return {
        "base": {"cluster": {}, "workload": workload},
        "gpus": entries,
        "nodes": sorted(set(inputs.nodes)),
        "space": {k: v for k, v in inputs.space.items() if v},
        "objective": inputs.objective,
        "constraints": {k: v for k, v in inputs.constraints.items() if v is not None},
        "top_n": inputs.top_n,
        "notes": notes,
    }
