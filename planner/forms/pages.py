"""The planning pages' small forms: sign-up, clone, the scenario list's search and sort, and comparison picks.
Exported by `planner.forms`.
"""

from __future__ import annotations

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
