"""Forms that normalise what users type into the catalog pages' filters."""

from __future__ import annotations

from typing import Any

from django import forms

from catalog.presentation import GPU_DEFAULT_SORT
from catalog.selectors import GpuFilters, gpu_memory_type_families, gpu_vendors, parse_sort

VERIFIED_CHOICES = (("", "Any"), ("yes", "Verified only"), ("no", "Not verified"))


class GpuFilterForm(forms.Form):
    """GET filters of the GPU table. Invalid input is reported on the field and that filter is ignored."""

    vendor = forms.ChoiceField(required=False)
    memory_type = forms.ChoiceField(label="Memory type", required=False)
    min_memory_gb = forms.FloatField(
        label="Min memory (GB)",
        required=False,
        min_value=0,
        widget=forms.NumberInput(attrs={"step": "any", "placeholder": "e.g. 80", "size": 6}),
    )
    verified = forms.ChoiceField(label="Verified", required=False, choices=VERIFIED_CHOICES)
    sort = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["vendor"].choices = [("", "All vendors")] + [(name, name) for name in gpu_vendors()]
        self.fields["memory_type"].choices = [("", "Any memory")] + [
            (family, family) for family in gpu_memory_type_families()
        ]

    def to_filters(self) -> GpuFilters:
        """The valid part of the input as GpuFilters (call after is_valid())."""
        data = getattr(self, "cleaned_data", {})
        verified = {"yes": True, "no": False}.get(data.get("verified") or "")
        field, descending = parse_sort(data.get("sort") or GPU_DEFAULT_SORT)
        return GpuFilters(
            vendor=data.get("vendor") or "",
            memory_type=data.get("memory_type") or "",
            min_memory_gb=data.get("min_memory_gb"),
            verified=verified,
            sort=f"-{field}" if descending else field,
        )
