"""The sweep form: normalises what people type ("8, 16, 32", "8-64 step 8", "1, 2, 4", a budget in million USD)
into SweepInputs. It never calls the engine; engine problems come back through `add_spec_errors`."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from catalog.models import Gpu
from planner.engine.inputs.errors import SpecError
from planner.engine.search import sweep as engine_sweep
from planner.models import Precision, Recompute, Scenario
from planner.sweeps.adapters import SweepInputs

#: Largest node count a sweep accepts (the engine's own bound on cluster.nodes).
MAX_NODES = 1_000_000
#: Most values one listed parallelism degree may have.
MAX_DEGREE_VALUES = 64
MAX_DEGREE = 100_000
USD_PER_MILLION = 1e6
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-|–|to)\s*(\d+)\s*(?:(?:step|by|:)\s*(\d+))?\s*$", re.IGNORECASE)

#: Degree fields: name -> (label, help).
DEGREE_FIELDS: dict[str, tuple[str, str]] = {
    "tp": ("Tensor parallel (TP)", "Blank: 1, 2, 4 … 64 where valid."),
    "pp": ("Pipeline parallel (PP)", "Blank: every divisor of the GPU count up to the layer count."),
    "cp": ("Context parallel (CP)", "Blank: 1, 2, 4, 8."),
    "ep": ("Expert parallel (EP)", "Blank: every valid value for mixture-of-experts models, else 1."),
    "virtual_stages": (
        "Virtual pipeline stages",
        "Interleaved schedule; blank: 1–8. Rows with more than 1 cannot be opened as scenarios yet.",
    ),
    "micro_batch": ("Micro-batch (sequences)", "Blank: 1, 2, 4 … 32."),
    "zero_stage": ("ZeRO stage", "Blank: 0, 1, 2, 3."),
}
OBJECTIVE_CHOICES = [(key, label) for key, label in engine_sweep.OBJECTIVE_LABELS.items()]
#: Engine problem path prefix -> form field (the longest matching prefix wins).
PATH_TO_FIELD = {
    "sweep.gpus": "gpus",
    "gpus": "gpus",
    "sweep.nodes": "nodes",
    "nodes": "nodes",
    "cluster.nodes": "nodes",
    "workload.precision": "precision",
    "sweep.objective": "objective",
    "sweep.constraints.capex_usd_max": "capex_budget_musd",
    "sweep.constraints.days_max": "deadline_days",
    "sweep.constraints.facility_mw_max": "facility_mw_max",
    "sweep.constraints.racks_max": "racks_max",
    **{f"workload.parallelism.{k}": k for k in DEGREE_FIELDS},
    **{f"sweep.space.{k}": k for k in DEGREE_FIELDS},
    "workload.parallelism.recompute": "recompute",
    "sweep.space.recompute": "recompute",
}


def parse_node_counts(text: str) -> list[int]:
    """ "8, 16, 32" or "8-64 step 8" (also "8 to 64 by 8", "8-64:8"; a bare range steps by 1), combinable
    with commas: "4, 8-64 step 8"."""
    values: set[int] = set()
    parts = [p.strip() for p in re.split(r"[,;]", text) if p.strip()]
    # "8 16 32" (spaces only) is a list too.
    parts = [q for p in parts for q in (p.split() if all(w.isdigit() for w in p.split()) else [p])]
    for part in parts:
        match = _RANGE.match(part)
        if match:
            start, stop, step = int(match[1]), int(match[2]), int(match[3] or 1)
            if stop < start:
                raise forms.ValidationError(f"“{part.strip()}”: the range must go up (from {start} to more).")
            if step < 1:
                raise forms.ValidationError(f"“{part.strip()}”: the step must be at least 1.")
            if (stop - start) // step + 1 > engine_sweep.MAX_NODE_COUNTS:
                raise forms.ValidationError(
                    f"“{part.strip()}” gives more than {engine_sweep.MAX_NODE_COUNTS} node counts; use a larger step."
                )
            values.update(range(start, stop + 1, step))
        elif part.strip().isdigit():
            values.add(int(part))
        else:
            raise forms.ValidationError(
                f"“{part.strip()}” is not a node count: write a list (8, 16, 32) or a range (8-64 step 8)."
            )
    if not values:
        raise forms.ValidationError("Give at least one node count.")
    if min(values) < 1 or max(values) > MAX_NODES:
        raise forms.ValidationError(f"Node counts must be between 1 and {MAX_NODES:,}.")
    if len(values) > engine_sweep.MAX_NODE_COUNTS:
        raise forms.ValidationError(
            f"At most {engine_sweep.MAX_NODE_COUNTS} node counts (got {len(values)})."
        )
    return sorted(values)


def parse_degree_list(text: str, *, minimum: int, maximum: int = MAX_DEGREE) -> list[int] | None:
    """ "1, 2, 4, 8" -> [1, 2, 4, 8]; blank -> None (search every valid value)."""
    parts = [p for p in re.split(r"[,;\s]+", text.strip()) if p]
    if not parts:
        return None
    if not all(p.isdigit() for p in parts):
        raise forms.ValidationError(
            "Write whole numbers separated by commas, e.g. 1, 2, 4, 8 (blank: search all)."
        )
    values = sorted({int(p) for p in parts})
    if values[0] < minimum or values[-1] > maximum:
        raise forms.ValidationError(f"Values must be between {minimum} and {maximum:,}.")
    if len(values) > MAX_DEGREE_VALUES:
        raise forms.ValidationError(f"At most {MAX_DEGREE_VALUES} values.")
    return values


class GpuMultipleChoiceField(forms.ModelMultipleChoiceField):
    #: The scenario's own GPU, whose node price may be typed on the scenario.
    priced_gpu_id: str | None = None

    def label_from_instance(self, obj: Gpu) -> str:
        name = (
            f"{obj.vendor} {obj.model}".strip()
            if obj.vendor and not obj.model.startswith(obj.vendor)
            else obj.model
        )
        if obj.price_usd is None and obj.pk != self.priced_gpu_id:
            return f"{name} (no catalog price)"
        return name


class SweepForm(forms.Form):
    name = forms.CharField(label="Name", max_length=200, required=False)
    gpus = GpuMultipleChoiceField(
        label="GPU models",
        queryset=Gpu.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Each is priced like “Clone on another GPU”: catalog system or GPU price plus host parts.",
    )
    nodes = forms.CharField(
        label="Node counts",
        max_length=500,
        help_text="A list (8, 16, 32) or a range (8-64 step 8); nodes of the scenario's GPUs per node.",
    )
    precision = forms.ChoiceField(label="Training precision", choices=Precision.choices)
    tp = forms.CharField(required=False, max_length=200)
    pp = forms.CharField(required=False, max_length=200)
    cp = forms.CharField(required=False, max_length=200)
    ep = forms.CharField(required=False, max_length=200)
    virtual_stages = forms.CharField(required=False, max_length=200)
    micro_batch = forms.CharField(required=False, max_length=200)
    zero_stage = forms.CharField(required=False, max_length=200)
    recompute = forms.MultipleChoiceField(
        label="Activation recompute",
        choices=Recompute.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: all three.",
    )
    objective = forms.ChoiceField(label="Rank by", choices=OBJECTIVE_CHOICES)
    capex_budget_musd = forms.FloatField(
        label="Capex budget (million USD)", required=False, min_value=0.000001, help_text="Blank: no budget."
    )
    deadline_days = forms.FloatField(label="Deadline (days)", required=False, min_value=0.001)
    facility_mw_max = forms.FloatField(
        label="Facility power cap (MW)",
        required=False,
        min_value=0.000001,
        help_text="Average draw while training × PUE, as on the scenario page.",
    )
    racks_max = forms.IntegerField(label="Most racks", required=False, min_value=1)

    def __init__(self, *args: Any, scenario: Scenario, **kwargs: Any) -> None:
        kwargs.setdefault("initial", initial_for(scenario))
        super().__init__(*args, **kwargs)
        self.scenario = scenario
        self.fields["gpus"].queryset = Gpu.objects.order_by("vendor", "model")
        self.fields["gpus"].priced_gpu_id = scenario.catalog_gpu_id
        for name, (label, help_text) in DEGREE_FIELDS.items():
            self.fields[name].label = label
            self.fields[name].help_text = help_text

    def clean_nodes(self) -> list[int]:
        return parse_node_counts(self.cleaned_data.get("nodes") or "")

    def _degree(self, name: str, minimum: int = 1, maximum: int = MAX_DEGREE) -> list[int] | None:
        return parse_degree_list(self.cleaned_data.get(name) or "", minimum=minimum, maximum=maximum)

    def clean_tp(self) -> list[int] | None:
        return self._degree("tp")

    def clean_pp(self) -> list[int] | None:
        return self._degree("pp")

    def clean_cp(self) -> list[int] | None:
        return self._degree("cp")

    def clean_ep(self) -> list[int] | None:
        return self._degree("ep")

    def clean_virtual_stages(self) -> list[int] | None:
        return self._degree("virtual_stages", maximum=64)

    def clean_micro_batch(self) -> list[int] | None:
        return self._degree("micro_batch")

    def clean_zero_stage(self) -> list[int] | None:
        return self._degree("zero_stage", minimum=0, maximum=3)

    def inputs(self) -> SweepInputs:
        data = self.cleaned_data
        budget = data.get("capex_budget_musd")
        space: dict[str, list[Any] | None] = {name: data.get(name) for name in DEGREE_FIELDS}
        space["recompute"] = list(data.get("recompute") or []) or None
        return SweepInputs(
            name=(data.get("name") or "").strip(),
            gpus=list(data["gpus"]),
            nodes=data["nodes"],
            precision=data["precision"],
            space=space,
            objective=data["objective"],
            constraints={
                "capex_usd_max": None if budget is None else budget * USD_PER_MILLION,
                "days_max": data.get("deadline_days"),
                "facility_mw_max": data.get("facility_mw_max"),
                "racks_max": data.get("racks_max"),
            },
        )

    def add_spec_errors(self, err: SpecError) -> None:
        """Engine problems onto the fields they concern (the rest onto the form)."""
        for problem in err.problems:
            self.add_error(field_for_path(problem.path), f"{problem.message}")

    def degree_fields(self) -> list[Any]:
        return [self[name] for name in DEGREE_FIELDS]


def field_for_path(path: str) -> str | None:
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in PATH_TO_FIELD:
            return PATH_TO_FIELD[prefix]
    return None


def initial_for(scenario: Scenario) -> dict[str, Any]:
    """A first sweep around the scenario: its GPU, half to four times its node count, virtual stages 1."""
    n = scenario.nodes
    gpu_id = scenario.catalog_gpu_id
    return {
        "name": f"Sweep of {scenario.name}"[:200],
        "gpus": [gpu_id] if gpu_id else [],
        "nodes": ", ".join(str(v) for v in sorted({max(1, n // 2), n, 2 * n, 4 * n})),
        "precision": scenario.precision,
        "virtual_stages": "1",
        "objective": "min_time",
    }
