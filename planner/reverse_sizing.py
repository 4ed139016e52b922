""" "What fits in this power and budget?": a saved scenario's workload on each priced catalog GPU type, the
largest cluster of it that a power budget (MW) and/or a money budget (USD) buys, and the work it delivers, ranked
by delivered work, work per USD million or work per MW. Read-only: nothing is stored.

Every figure is the engine's (planner/engine/search/budget.py finds the node count; each count is evaluated as
the results page evaluates a scenario, services.scenario_evaluation_run, with the layout search of automatic
parallelism). Each GPU type runs on the scenario moved onto it exactly as "Clone on another GPU" does
(services.scenario_on_gpu): its catalog numbers, its node price (catalog system or GPU price + host parts) and
the scenario's GPUs per node, cooling, facility, electricity and life. Answers are cached per scenario version,
catalog generation, engine version and inputs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from django.core.cache import cache

from catalog import rows as catalog_rows
from catalog.model_base import PriceKind
from catalog.models import Gpu
from planner import adapters, services
from planner.engine.inputs.errors import SpecError
from planner.engine.search import budget as engine_budget
from planner.engine.version import ENGINE_VERSION
from planner.models import Scenario, WorkloadKind

#: GPU types tried when the form ticks none: the current data-centre training and serving GPUs of the catalog.
DEFAULT_GPU_IDS = (
    "nvidia_h100_sxm5_80gb",
    "nvidia_h200_sxm_141gb",
    "nvidia_b200_hgx",
    "nvidia_b300_hgx",
    "nvidia_gb200_per_gpu",
    "nvidia_a100_sxm4_80gb",
    "nvidia_l40s",
    "amd_mi300x",
    "amd_mi325x",
    "amd_mi355x",
    "intel_gaudi3",
)
RANKINGS = {"work": "delivered work", "per_usd": "work per USD million", "per_mw": "work per MW"}
#: A rental price is required by the engine's economics but no figure of this page uses it (the page buys
#: clusters); a GPU without a published rental price gets this placeholder (as sweeps do).
UNUSED_CLOUD_PRICE_USD_PER_GPU_HOUR = 0.0
#: A generic job scenario is one job on its whole cluster: a bigger cluster runs that one job faster (Amdahl), not
#: more of them, so "work within a budget" would undercount; the HPC page gives jobs per day for a GPU count.
JOB_PROBLEM = (
    "What fits covers training runs and services. A job scenario is one job on its cluster; for jobs or frames a "
    "day on a GPU count, see the HPC and rendering page."
)
CACHE_TTL_S = 3600
CACHE_PREFIX = "planner:reverse-sizing"
#: Training work is shown in billions of tokens a day (tokens/s x 86,400 / 1e9).
SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class FitInputs:
    power_mw: float | None
    power_basis: str
    budget_usd: float | None
    money_basis: str
    gpu_ids: tuple[str, ...] = ()
    rank: str = "work"

    @property
    def rank_label(self) -> str:
        return RANKINGS.get(self.rank, RANKINGS["work"])

    def budget(self) -> engine_budget.Budget:
        """The engine's budget (SpecError naming the field when it is not one)."""
        return engine_budget.Budget(
            power_kw=self.power_mw * 1000 if self.power_mw is not None else None,
            money_usd=self.budget_usd,
            power_basis=self.power_basis,
            money_basis=self.money_basis,
        )


@dataclass(frozen=True)
class FitPage:
    scenario: Scenario
    inputs: FitInputs | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    charts: tuple[dict[str, Any], ...] = ()
    work_unit: str = ""
    problem: str | None = None

    @property
    def facility(self) -> dict[str, Any] | None:
        """The PUE and feed redundancy the answers assumed (the scenario's cooling and power; the same on every
        GPU type), from the first answered row."""
        row = next((r for r in self.rows if r.get("work")), None)
        return {"pue": row["pue"], "redundancy": row["redundancy"]} if row else None


def work_unit(scenario: Scenario) -> str:
    return {WorkloadKind.TRAINING: "B tokens/day", WorkloadKind.INFERENCE: "output tokens/s"}.get(
        scenario.workload_kind, ""
    )


def _shown_work(work: engine_budget.Work) -> float:
    """The engine's work in the page's unit (training: tokens/s -> billions of tokens a day)."""
    if work.unit == "tokens/s":
        return work.value * SECONDS_PER_DAY / 1e9
    return work.value


def default_gpu_ids(scenario: Scenario) -> list[str]:
    """The scenario's own catalog GPU and DEFAULT_GPU_IDS."""
    ids = [scenario.catalog_gpu_id] if scenario.catalog_gpu_id else []
    return ids + [i for i in DEFAULT_GPU_IDS if i not in ids]


def short_gpu_name(model: str) -> str:
    """A catalog GPU's name without its parenthesis: "B200 (HGX/DGX B200, 1000 W)" -> "B200"."""
    return model.split(" (")[0].strip() or model


def gpus_to_try(inputs: FitInputs, scenario: Scenario) -> list[Gpu]:
    """The ticked GPUs, else default_gpu_ids; priced, sold ones only."""
    ids = list(inputs.gpu_ids) or default_gpu_ids(scenario)
    found = {g.pk: g for g in Gpu.objects.filter(pk__in=ids).exclude(price_kind=PriceKind.NOT_SOLD)}
    return [found[i] for i in ids if i in found]


def _on_gpu(scenario: Scenario, gpu: Gpu) -> Scenario:
    copy = services.scenario_on_gpu(scenario, gpu)
    if copy.workload_kind == WorkloadKind.TRAINING:
        copy.dp = None  # the data-parallel degree follows the node count
    if adapters.cloud_price(copy)[0] is None:
        copy.cloud_usd_per_gpu_hour = UNUSED_CLOUD_PRICE_USD_PER_GPU_HOUR
    return copy


def _evaluator(copy: Scenario) -> engine_budget.Evaluate:
    def evaluate(nodes: int) -> dict[str, Any]:
        copy.nodes = nodes
        return dict(services.scenario_evaluation_run(scenario=copy).output)

    return evaluate


def _price_note(copy: Scenario, gpu: Gpu) -> tuple[str, str]:
    """(what the node price is: 'street', 'list', 'estimate', 'reported quote'; the full note with its date and
    source) of the node price used."""
    _, note = adapters.server_price(copy)
    row = copy.system if copy.system_id else gpu
    kind = PriceKind(row.price_kind).label.removesuffix(" price") if row.price_kind else "unstated"
    dated = f"{kind}, {row.price_date}" if row.price_date else kind
    return kind, f"{dated}: {note.source}" if note is not None else dated


def gpu_row(scenario: Scenario, gpu: Gpu, budget: engine_budget.Budget) -> dict[str, Any]:
    """One GPU type's answer as plain values for the table, the chart and the cache."""
    copy = _on_gpu(scenario, gpu)
    price_kind, price_note = _price_note(copy, gpu)
    row: dict[str, Any] = {
        "gpu_id": gpu.pk,
        "gpu": gpu.model,
        "label": short_gpu_name(gpu.model),
        "gpus_per_node": copy.gpus_per_node,
        "price_kind": price_kind,
        "price_estimate": price_kind == PriceKind.ESTIMATE.label,
        "price_note": price_note,
    }
    if adapters.server_price(copy)[0] is None:
        return {**row, "reason": "no node price in the catalog"}
    copy.nodes = 1
    try:
        payload = adapters.scenario_payload(copy)
        fit = engine_budget.fit_budget(payload, budget, evaluate=_evaluator(copy))
    except SpecError as error:
        return {**row, "reason": f"the engine cannot evaluate this GPU: {error}"}
    row["nodes_within"] = fit.limit.nodes
    row["binding"] = " and ".join(fit.limit.binding)
    if fit.output is None or fit.work is None:
        return {**row, "reason": fit.reason}
    out = fit.output
    used = engine_budget.spend(out, budget)
    provisioning = out["power"]["provisioning"]
    work = _shown_work(fit.work)
    return {
        **row,
        "nodes": fit.nodes,
        "gpus": fit.nodes * copy.gpus_per_node,
        "rounded": fit.nodes < fit.limit.nodes,
        "it_kw": provisioning["it_nameplate_kw"],
        "facility_kw": provisioning["facility_nameplate_kw"],
        "redundancy": provisioning.get("redundancy"),
        "pue": out["power"]["pue"],
        "racks": out["power"]["racks"],
        "capex_usd": out["cost"]["capex_usd"],
        "tco_usd": out["cost"]["tco_usd"],
        "work": work,
        "days": fit.work.detail.get("days"),
        "per_musd": work / (used.money_usd / 1e6) if used.money_usd else None,
        "per_mw": work / (used.power_kw / 1000) if used.power_kw else None,
        "tried": [list(t) for t in fit.tried],
        "warnings": len(out.get("warnings") or []),
    }


def _rank_key(rank: str) -> Any:
    key = {"work": "work", "per_usd": "per_musd", "per_mw": "per_mw"}[rank]
    return lambda row: (row.get(key) is None, -(row.get(key) or 0.0), row["gpu"])


def _cache_key(scenario: Scenario, inputs: FitInputs, gpu_ids: list[str]) -> str:
    spec = {
        "engine": ENGINE_VERSION,
        "scenario": [
            scenario.pk,
            scenario.version,
            scenario.updated_at.isoformat() if scenario.updated_at else "",
        ],
        "catalog": catalog_rows.generation(),
        "inputs": asdict(inputs),
        "gpus": gpu_ids,
    }
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()
    return f"{CACHE_PREFIX}:{digest}"


def fit_scenario(scenario: Scenario, inputs: FitInputs | None) -> FitPage:
    """The page: every GPU type's answer ranked, and the charts; without inputs, only the form."""
    unit = work_unit(scenario)
    if scenario.workload_kind not in (WorkloadKind.TRAINING, WorkloadKind.INFERENCE):
        return FitPage(scenario, inputs, work_unit=unit, problem=JOB_PROBLEM)
    if inputs is None:
        return FitPage(scenario, None, work_unit=unit)
    try:
        budget = inputs.budget()
    except SpecError as error:
        return FitPage(scenario, inputs, work_unit=unit, problem=str(error))
    gpus = gpus_to_try(inputs, scenario)
    if not gpus:
        return FitPage(scenario, inputs, work_unit=unit, problem="None of the GPU types asked for is priced.")
    key = _cache_key(scenario, inputs, [g.pk for g in gpus])
    rows = cache.get(key)
    if rows is None:
        rows = [gpu_row(scenario, gpu, budget) for gpu in gpus]
        cache.set(key, rows, CACHE_TTL_S)
    rows = sorted(rows, key=_rank_key(inputs.rank))
    return FitPage(scenario, inputs, rows, tuple(fit_charts(rows, unit, inputs)), unit)


#: Where a point's label goes, tried in order until it does not sit on an earlier label (scatter chart).
LABEL_POSITIONS = ("top center", "bottom center", "middle right", "middle left")


def label_positions(points: list[tuple[float, float]]) -> list[str]:
    """A label position per point so that labels of nearby points (within 12 % of the x range and 8 % of the y
    range) do not overlap: each takes the first position no earlier nearby point has taken."""
    xs = [p[0] for p in points] or [0.0]
    ys = [p[1] for p in points] or [0.0]
    dx = (max(xs) - min(xs)) or 1.0
    dy = (max(ys) - min(ys)) or 1.0
    placed: list[tuple[float, float, str]] = []
    for x, y in points:
        taken = {pos for px, py, pos in placed if abs(px - x) < 0.12 * dx and abs(py - y) < 0.08 * dy}
        position = next((p for p in LABEL_POSITIONS if p not in taken), LABEL_POSITIONS[0])
        placed.append((x, y, position))
    return [p for _, _, p in placed]


def fit_charts(rows: list[dict[str, Any]], unit: str, inputs: FitInputs) -> list[dict[str, Any]]:
    """Work per USD million against work per MW (one point per GPU type, its size the delivered work), and the
    delivered work per GPU type coloured by what binds; chart specs for static/js/planner_charts.js."""
    answered = [r for r in rows if r.get("work")]
    if not answered:
        return []
    money = "capex" if inputs.money_basis == "capex" else "TCO"
    power = "facility" if inputs.power_basis == "facility" else "IT"
    biggest = max(r["work"] for r in answered)
    scatter = {
        "type": "scatter",
        "mode": "markers+text",
        "x": [r["per_musd"] for r in answered],
        "y": [r["per_mw"] for r in answered],
        "text": [r["label"] for r in answered],
        "textposition": label_positions([(r["per_musd"], r["per_mw"]) for r in answered]),
        "marker": {"size": [12 + 28 * (r["work"] / biggest) ** 0.5 for r in answered], "opacity": 0.7},
        "customdata": [[r["work"], r["nodes"], r["binding"], r["gpu"]] for r in answered],
        "hovertemplate": (
            "%{customdata[3]}<br>%{customdata[1]:,} nodes, %{customdata[0]:,.3g} " + unit + "<br>"
            "%{x:,.3g} per $M " + money + ", %{y:,.3g} per MW " + power + "<br>binds: %{customdata[2]}"
            "<extra></extra>"
        ),
        "showlegend": False,
    }
    bars = []
    for binding in dict.fromkeys(r["binding"] for r in answered):
        chosen = [r for r in answered if r["binding"] == binding]
        bars.append(
            {
                "type": "bar",
                "name": f"{binding} binds",
                "x": [r["label"] for r in chosen],
                "y": [r["work"] for r in chosen],
                "hovertemplate": "%{x}: %{y:,.3g} " + unit + "<extra>%{fullData.name}</extra>",
                "showlegend": True,
            }
        )
    legend = {"orientation": "h", "x": 0, "y": -0.35, "xanchor": "left", "yanchor": "top"}
    return [
        {
            "key": "fit-efficiency",
            "title": f"Work per USD million ({money}) against work per MW ({power})",
            "figure": {
                "data": [scatter],
                "layout": {
                    "title": {"text": f"{unit} per $M {money} and per MW {power}"},
                    "xaxis": {"title": {"text": f"{unit} per $M {money}"}, "rangemode": "tozero"},
                    "yaxis": {"title": {"text": f"{unit} per MW {power}"}, "rangemode": "tozero"},
                    "margin": {"t": 50, "r": 20},
                    "height": 420,
                },
            },
        },
        {
            "key": "fit-work",
            "title": f"Delivered work within the budget ({unit})",
            "figure": {
                "data": bars,
                "layout": {
                    "title": {"text": f"Delivered work within the budget ({unit})"},
                    "xaxis": {"tickangle": -35, "automargin": True},
                    "yaxis": {"title": {"text": unit}, "rangemode": "tozero"},
                    "barmode": "group",
                    "legend": legend,
                    "margin": {"t": 50, "r": 50, "b": 130},
                    "height": 420,
                },
            },
        },
    ]
