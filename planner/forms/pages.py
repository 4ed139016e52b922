"""The planning pages' small forms: sign-up, clone, the scenario list's search and sort, and comparison picks.
Exported by `planner.forms`.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from catalog.models import Gpu
from planner.forms.fields import GpuChoiceField


class SignupForm(UserCreationForm):
    """Username and password twice (Django's validators); the account can plan scenarios at once."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class CloneForm(forms.Form):
    name = forms.CharField(label="Name of the copy", max_length=200, required=False)
    gpu = GpuChoiceField(
        label="Run it on",
        queryset=Gpu.objects.none(),
        required=False,
        empty_label="the same GPU",
        help_text="Swap the GPU to compare the same job on other hardware.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["gpu"].queryset = Gpu.objects.all()


class ScenarioSearchForm(forms.Form):
    SORTS = {
        "-updated": ("-updated_at", "Recently changed"),
        "name": ("name", "Name A–Z"),
        "-created": ("-created_at", "Newest"),
        "created": ("created_at", "Oldest"),
        "-gpus": ("-total_gpus", "Most GPUs"),
    }
    q = forms.CharField(label="Search by name", required=False, max_length=100)
    sort = forms.ChoiceField(
        label="Sort", required=False, choices=[(k, label) for k, (_, label) in SORTS.items()]
    )

    def ordering(self) -> str:
        key = self.cleaned_data.get("sort") if self.is_valid() else ""
        return self.SORTS.get(key or "-updated", self.SORTS["-updated"])[0]

    def query(self) -> str:
        return (self.cleaned_data.get("q") or "").strip() if self.is_valid() else ""


class IntegerListField(forms.Field):
    """Repeated query parameters (?ids=1&ids=2) as a list of positive integers."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[int]:
        if not value:
            return []
        values = value if isinstance(value, list | tuple) else [value]
        try:
            numbers = [int(v) for v in values]
        except (TypeError, ValueError) as exc:
            raise forms.ValidationError("Scenario ids must be whole numbers.") from exc
        if any(n < 1 for n in numbers):
            raise forms.ValidationError("Scenario ids must be positive.")
        return list(dict.fromkeys(numbers))


class CompareForm(forms.Form):
    """Which scenarios to compare; ownership is checked by the selector (someone else's id is a 404)."""

    MIN_SCENARIOS = 2
    MAX_SCENARIOS = 4
    ids = IntegerListField(label="Scenarios")

    def clean_ids(self) -> list[int]:
        ids = self.cleaned_data["ids"]
        if not self.MIN_SCENARIOS <= len(ids) <= self.MAX_SCENARIOS:
            raise forms.ValidationError(
                f"Pick between {self.MIN_SCENARIOS} and {self.MAX_SCENARIOS} scenarios to compare (got {len(ids)})."
            )
        return ids


#: What a catalog row id looks like (catalog/seed ids: lower-case words joined by underscores).
CATALOG_ID = re.compile(r"[A-Za-z0-9_.\-]{1,100}")


class GpuMultipleChoiceField(forms.ModelMultipleChoiceField):
    """Catalog GPUs by id; blank picks are ignored and an unknown id is named (shortened) in the message."""

    ID_SHOWN_CHARS = 40

    def label_from_instance(self, obj: Gpu) -> str:
        return f"{obj.vendor} {obj.model}"

    def clean(self, value: Any) -> Any:
        values = value if isinstance(value, list | tuple) else ([value] if value else [])
        ids = list(dict.fromkeys(str(v).strip() for v in values if str(v).strip()))
        # Only id-shaped values reach the database (a NUL byte is an error on PostgreSQL, not a miss).
        plausible = [i for i in ids if CATALOG_ID.fullmatch(i)]
        known = (
            set(self.queryset.filter(pk__in=plausible).values_list("pk", flat=True)) if plausible else set()
        )
        unknown = [i for i in ids if i not in known]
        if unknown:
            shown = (
                unknown[0]
                if len(unknown[0]) <= self.ID_SHOWN_CHARS
                else unknown[0][: self.ID_SHOWN_CHARS] + "…"
            )
            raise forms.ValidationError(self.error_messages["invalid_choice"], params={"value": shown})
        return super().clean(ids)


class GpuCompareForm(forms.Form):
    """Which catalog GPUs to put the scenario on (the "Compare GPUs" page), and how to size each cluster."""

    MIN_GPUS = 2
    MAX_GPUS = 4
    gpus = GpuMultipleChoiceField(
        label="GPUs to compare",
        queryset=Gpu.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "invalid_choice": "GPUs to compare: “%(value)s” is not a catalog GPU; pick from the list.",
            "required": "GPUs to compare: pick between 2 and 4 GPUs.",
            "invalid_pk_value": "GPUs to compare: “%(pk)s” is not a catalog GPU id.",
        },
    )
    MODES = {
        "same_gpus": "Same GPU count (nodes and GPUs per node kept)",
        "same_budget": "Same budget (what the scenario's capex buys of each GPU)",
        "same_power": "Same power (what the scenario's facility nameplate kW buys of each GPU)",
    }
    mode = forms.ChoiceField(
        label="Cluster for each GPU",
        choices=list(MODES.items()),
        initial="same_gpus",
        required=False,
        widget=forms.RadioSelect,
        error_messages={
            "invalid_choice": "Cluster for each GPU: “%(value)s” is not an option; pick one of the list."
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["gpus"].queryset = Gpu.objects.all()

    def clean_gpus(self) -> list[Gpu]:
        picked = list(self.cleaned_data["gpus"])
        if not self.MIN_GPUS <= len(picked) <= self.MAX_GPUS:
            raise forms.ValidationError(
                f"GPUs to compare: pick between {self.MIN_GPUS} and {self.MAX_GPUS} GPUs (got {len(picked)})."
            )
        order = [str(v) for v in self.data.getlist("gpus")] if hasattr(self.data, "getlist") else []
        return sorted(picked, key=lambda g: order.index(g.pk) if g.pk in order else len(order))

    def clean_mode(self) -> str:
        return self.cleaned_data.get("mode") or "same_gpus"
