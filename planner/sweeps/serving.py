"""Sweeps of an inference scenario: its service (model, lengths, latency targets, precision) on several GPU models x
node counts x tensor-parallel degrees x request rates, each configuration evaluated by the engine's `estimate`
exactly as the scenario would be (adapters.scenario_payload of the scenario moved onto that GPU, as "Clone on
another GPU" does). Read-only and small (at most MAX_CONFIGS configurations, a few ms each), so it answers in the
request, like "size it for me"; nothing is stored. Training sweeps stay in the background machinery
(planner/sweeps/services.py).

The ranking puts configurations that serve the rate within the targets first, cheapest per million output tokens
(owned) first; a configuration the engine refuses (TP that does not divide the cluster, a model that does not fit)
is listed with the engine's reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
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

#: Most configurations one serving sweep evaluates in the request (~6 ms of engine CPU each, measured with
#: time.process_time on Llama 3.1 70B: 256 x 6 ms ~ 1.5 s).
MAX_CONFIGS = 256
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
        return ServingSweepInputs(list(d["gpus"]), d["nodes"], d["tp"], d["rates"])


@dataclass(frozen=True)
class ServingSweepInputs:
    gpus: list[Any]  # catalog.Gpu rows
    nodes: list[int]
    tp: list[int]
    rates: list[float]


@dataclass(frozen=True)
class ServingSweep:
    scenario: Scenario
    rows: list[dict[str, Any]]  # ranked: gpu_label, gpu_id, nodes, gpus, tp, requests_per_s, output | problem
    problem: str | None = None  # why nothing was swept (not an inference scenario)

    @property
    def evaluated(self) -> int:
        return sum(1 for row in self.rows if row["output"] is not None)


def initial_for(scenario: Scenario) -> dict[str, Any]:
    """A first sweep around the scenario: its GPU, its node count and twice it, TP 1-8, the rate and its double."""
    rate = scenario.requests_per_s
    if rate is None and scenario.target_tokens_per_s and scenario.output_len:
        rate = scenario.target_tokens_per_s / scenario.output_len
    rates = [rate, 2 * rate] if rate else [10.0, 20.0]
    return {
        "gpus": [scenario.catalog_gpu_id] if scenario.catalog_gpu_id else [],
        "nodes": ", ".join(str(n) for n in sorted({scenario.nodes, 2 * scenario.nodes})),
        "tp": ", ".join(str(t) for t in (1, 2, 4, 8) if t <= scenario.gpus_per_node) or "1",
        "rates": ", ".join(f"{r:g}" for r in rates),
    }


def _rank_key(row: dict[str, Any]) -> tuple[int, float]:
    output = row["output"]
    if output is None:
        return (3, 0.0)
    inference = output.get("inference") or {}
    cost = (inference.get("usd_per_million_tokens") or {}).get("own")
    meets = inference.get("meets_target")
    group = 0 if meets else (1 if meets is False and cost is not None else 2)
    return (group, cost if cost is not None else math.inf)


def sweep_serving(*, scenario: Scenario, inputs: ServingSweepInputs) -> ServingSweep:
    """Every configuration evaluated by the engine, ranked (`_rank_key`)."""
    if scenario.workload_kind != WorkloadKind.INFERENCE:
        return ServingSweep(scenario, [], "Serving sweeps are for inference scenarios.")
    rows = []
    for gpu in inputs.gpus:
        for nodes in inputs.nodes:
            for tp in inputs.tp:
                for rate in inputs.rates:
                    copy = scenario_on_gpu(scenario, gpu)
                    copy.nodes, copy.tp, copy.pp = nodes, tp, 1
                    copy.requests_per_s, copy.target_tokens_per_s = rate, None
                    row: dict[str, Any] = {
                        "gpu_label": gpu.model,
                        "gpu_id": gpu.pk,
                        "nodes": nodes,
                        "gpus": nodes * copy.gpus_per_node,
                        "tp": tp,
                        "requests_per_s": rate,
                        "output": None,
                        "problem": None,
                    }
                    try:
                        row["output"] = engine.estimate(adapters.scenario_payload(copy))
                    except SpecError as err:
                        row["problem"] = "; ".join(p.message for p in err.problems)
                    rows.append(row)
    return ServingSweep(scenario, sorted(rows, key=_rank_key))
