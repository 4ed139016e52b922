"""Serving sweeps: an inference scenario's service (model, lengths, latency targets, precision) on several GPU
models x node counts x tensor-parallel degrees x request rates, each configuration evaluated by the engine's
`estimate` exactly as the scenario would be (adapters.scenario_payload of the scenario moved onto that GPU, as
"Clone on another GPU" does).

A serving sweep is a stored SweepRun (kind "serving") run by the training sweeps' machinery (planner/sweeps/
services.py, tasks.py): the form here is cleaned into ServingSweepInputs, `plan` builds the spec and the chunks
(each chunk holds its configurations with their engine payloads, written when the sweep is created, so a later
edit of the scenario does not change a running sweep), `evaluate_chunk` is a worker's share, and `merge` ranks
every stored row into the run's result. Nothing here writes to the database.

The ranking puts configurations that serve the rate within the targets first, cheapest per million output tokens
(owned) first; a configuration the engine refuses (TP that does not divide the cluster, a model that does not fit)
is listed with the engine's reason.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from django import forms

from catalog.models import Gpu
from planner import adapters
from planner.engine import api as engine
from planner.engine.inputs.errors import SpecError
from planner.forms.fields import MAX_REQUESTS_PER_S
from planner.models import Scenario, WorkloadKind
from planner.services import scenario_on_gpu
from planner.sweeps.forms import parse_degree_list, parse_node_counts

#: Most configurations one serving sweep evaluates (~6 ms of engine CPU each, measured with time.process_time on
#: Llama 3.1 70B: 256 x 6 ms ~ 1.5 s of worker time).
MAX_CONFIGS = 256
#: Configurations per chunk (one Celery task each): 32 x ~6 ms ~ 0.2 s, so progress moves in steps a user sees
#: and up to 8 workers share a sweep of MAX_CONFIGS.
CHUNK_CONFIGS = 32
#: Most request rates one sweep lists.
MAX_RATES = 8


def parse_rates(text: str) -> list[float]:
    """ "5, 10, 20" -> [5.0, 10.0, 20.0] requests/s (each above 0, at most MAX_RATES)."""
    parts = [p for p in re.split(r"[,;\s]+", text.strip()) if p]
    if not parts:
        raise forms.ValidationError("Give at least one request rate (requests/s), e.g. 5, 10, 20.")
    try:
        values = sorted({float(p) for p in parts})
    except ValueError as err:
        raise forms.ValidationError(
            "Write request rates as numbers separated by commas, e.g. 5, 10, 20."
        ) from err
    if not all(math.isfinite(v) and 0 < v <= MAX_REQUESTS_PER_S for v in values):
        raise forms.ValidationError(f"Request rates must be above 0 and at most {MAX_REQUESTS_PER_S:,.0f}.")
    if len(values) > MAX_RATES:
        raise forms.ValidationError(f"At most {MAX_RATES} request rates.")
    return values


class ServingSweepForm(forms.Form):
    name = forms.CharField(label="Name", max_length=200, required=False)
    gpus = forms.ModelMultipleChoiceField(
        label="GPU models",
        queryset=Gpu.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Each priced like “Clone on another GPU”: catalog GPU price plus host parts.",
    )
    nodes = forms.CharField(
        label="Node counts", max_length=200, help_text="A list (1, 2, 4) or a range (1-8)."
    )
    tp = forms.CharField(
        label="Tensor parallel (TP)", max_length=200, help_text="GPUs per replica, e.g. 1, 2, 4, 8."
    )
    rates = forms.CharField(
        label="Request rates (requests/s)", max_length=200, help_text="Whole service, e.g. 5, 10, 20."
    )

    def __init__(self, *args: Any, scenario: Scenario, **kwargs: Any) -> None:
        kwargs.setdefault("initial", initial_for(scenario))
        super().__init__(*args, **kwargs)
        self.fields["gpus"].queryset = Gpu.objects.order_by("vendor", "model")

    def clean_nodes(self) -> list[int]:
        return parse_node_counts(self.cleaned_data.get("nodes") or "")

    def clean_tp(self) -> list[int]:
        values = parse_degree_list(self.cleaned_data.get("tp") or "", minimum=1, maximum=1024)
        if values is None:
            raise forms.ValidationError("Give at least one TP degree, e.g. 1, 2, 4, 8.")
        return values

    def clean_rates(self) -> list[float]:
        return parse_rates(self.cleaned_data.get("rates") or "")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if all(data.get(k) for k in ("gpus", "nodes", "tp", "rates")):
            count = len(data["gpus"]) * len(data["nodes"]) * len(data["tp"]) * len(data["rates"])
            if count > MAX_CONFIGS:
                self.add_error(
                    "rates",
                    f"{count:,} configurations (GPU models × node counts × TP degrees × rates); at most "
                    f"{MAX_CONFIGS} are evaluated at once: list fewer values.",
                )
        return data

    def inputs(self) -> ServingSweepInputs:
        d = self.cleaned_data
        return ServingSweepInputs(
            list(d["gpus"]), d["nodes"], d["tp"], d["rates"], name=(d.get("name") or "").strip()
        )


@dataclass(frozen=True)
class ServingSweepInputs:
    gpus: list[Any]  # catalog.Gpu rows
    nodes: list[int]
    tp: list[int]
    rates: list[float]
    name: str = ""

    @property
    def count(self) -> int:
        return len(self.gpus) * len(self.nodes) * len(self.tp) * len(self.rates)


@dataclass(frozen=True)
class ServingPlan:
    """What a serving sweep stores when it is created: its spec and its chunks (pieces: the configurations)."""

    spec: dict[str, Any]
    chunks: list[dict[str, Any]]  # index, pieces, size
    total_configs: int
    plan_s: float


def initial_for(scenario: Scenario) -> dict[str, Any]:
    """A first sweep around the scenario: its GPU, its node count and twice it, TP 1-8, the rate and its double."""
    rate = scenario.requests_per_s
    if rate is None and scenario.target_tokens_per_s and scenario.output_len:
        rate = scenario.target_tokens_per_s / scenario.output_len
    rates = [rate, 2 * rate] if rate else [10.0, 20.0]
    return {
        "name": f"Serving sweep of {scenario.name}"[:200],
        "gpus": [scenario.catalog_gpu_id] if scenario.catalog_gpu_id else [],
        "nodes": ", ".join(str(n) for n in sorted({scenario.nodes, 2 * scenario.nodes})),
        "tp": ", ".join(str(t) for t in (1, 2, 4, 8) if t <= scenario.gpus_per_node) or "1",
        "rates": ", ".join(f"{r:g}" for r in rates),
    }


def configuration_scenario(scenario: Scenario, gpu: Any, *, nodes: int, tp: int, rate: float) -> Scenario:
    """An unsaved copy of `scenario` on `gpu` (scenario_on_gpu) with `nodes` nodes, TP `tp` (PP 1) serving
    `rate` requests/s: the scenario a sweep row is the estimate of, and the one "Open as scenario" saves."""
    copy = scenario_on_gpu(scenario, gpu)
    copy.nodes, copy.tp, copy.pp = nodes, tp, 1
    copy.requests_per_s, copy.target_tokens_per_s = rate, None
    return copy


def plan(*, scenario: Scenario, inputs: ServingSweepInputs) -> ServingPlan:
    """The spec and chunks of a serving sweep: every configuration (GPU x nodes x TP x rate, in that order) with
    its engine payload. SpecError at "scenario" for a scenario that does not serve a model."""
    if scenario.workload_kind != WorkloadKind.INFERENCE:
        raise SpecError.at("scenario", "serving sweeps are for inference scenarios")
    started = perf_counter()
    configs: list[dict[str, Any]] = []
    for g, gpu in enumerate(inputs.gpus):
        for nodes in inputs.nodes:
            for tp in inputs.tp:
                for rate in inputs.rates:
                    copy = configuration_scenario(scenario, gpu, nodes=nodes, tp=tp, rate=rate)
                    configs.append(
                        {
                            "gpu": g,
                            "gpu_label": gpu.model,
                            "nodes": nodes,
                            "gpus": nodes * copy.gpus_per_node,
                            "tp": tp,
                            "requests_per_s": rate,
                            "payload": adapters.scenario_payload(copy),
                        }
                    )
    chunks = [
        {
            "index": i,
            "pieces": configs[start : start + CHUNK_CONFIGS],
            "size": len(configs[start : start + CHUNK_CONFIGS]),
        }
        for i, start in enumerate(range(0, len(configs), CHUNK_CONFIGS))
    ]
    spec = {
        "kind": "serving",
        "gpus": [{"label": gpu.model, "catalog_id": gpu.pk} for gpu in inputs.gpus],
        "nodes": list(inputs.nodes),
        "tp": list(inputs.tp),
        "rates": list(inputs.rates),
    }
    return ServingPlan(spec, chunks, len(configs), perf_counter() - started)


def _figures(output: dict[str, Any]) -> dict[str, Any]:
    """What a row keeps of the engine's output: the inference section and whether the model fits (the serving
    columns read only these, through the results page's own getters)."""
    return {
        "inference": output.get("inference"),
        "memory": {"fits": (output.get("memory") or {}).get("fits")},
    }


@dataclass(frozen=True)
class ChunkResult:
    rows: list[dict[str, Any]]
    evaluated: int  # configurations the engine evaluated (not refused)
    meeting: int  # of those, configurations that meet the targets
    evaluate_s: float


def evaluate_chunk(pieces: list[dict[str, Any]], index: int) -> ChunkResult:
    """Every configuration of one chunk through `estimate`; a refused one keeps the engine's reason."""
    started = perf_counter()
    rows = []
    for i, config in enumerate(pieces):
        row = {k: v for k, v in config.items() if k != "payload"}
        row.update(chunk=index, row=i, output=None, problem=None)
        try:
            row["output"] = _figures(engine.estimate(config["payload"]))
        except SpecError as err:
            row["problem"] = "; ".join(p.message for p in err.problems)
        rows.append(row)
    evaluated = [r for r in rows if r["output"] is not None]
    meeting = sum(1 for r in evaluated if (r["output"]["inference"] or {}).get("meets_target"))
    return ChunkResult(rows, len(evaluated), meeting, perf_counter() - started)


def chunk_summary(result: ChunkResult) -> dict[str, Any]:
    return {"rows": result.rows, "evaluated": result.evaluated, "feasible": result.meeting}


def _rank_key(row: dict[str, Any]) -> tuple[int, float, int, int]:
    order = (row.get("chunk", 0), row.get("row", 0))
    output = row["output"]
    if output is None:
        return (3, 0.0, *order)
    inference = output.get("inference") or {}
    cost = (inference.get("usd_per_million_tokens") or {}).get("own")
    meets = inference.get("meets_target")
    group = 0 if meets else (1 if meets is False and cost is not None else 2)
    return (group, cost if cost is not None else math.inf, *order)


def rank(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows meeting the targets first, cheapest per million output tokens (owned) first; then those that miss a
    target, cheapest first; then rows without a cost; refused configurations last (ties in sweep order)."""
    return sorted(rows, key=_rank_key)


def merge(summaries: Iterable[dict[str, Any] | None]) -> dict[str, Any]:
    """The run's result from its finished chunks' summaries: every row ranked, with counts."""
    rows: list[dict[str, Any]] = []
    for summary in summaries:
        rows.extend((summary or {}).get("rows") or [])
    ranked = rank(rows)
    evaluated = sum(1 for r in ranked if r["output"] is not None)
    meeting = sum(1 for r in ranked if r["output"] and (r["output"]["inference"] or {}).get("meets_target"))
    return {
        "kind": "serving",
        "rows": ranked,
        "configs": len(ranked),
        "evaluated": evaluated,
        "meeting": meeting,
    }
