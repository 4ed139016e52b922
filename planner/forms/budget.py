"""The "what fits in this power and budget?" form: a power budget (MW) and/or a money budget (USD million), what
each covers, the GPU types to try and the ranking. Submitted by GET, so an answer is a link."""

from __future__ import annotations

import math
from typing import Any

from django import forms

from catalog.model_base import PriceKind
from catalog.models import Gpu
from planner import reverse_sizing

#: Largest budgets the form takes: 10,000 MW (the largest announced AI campuses are a few GW) and USD 1 trillion.
#: The engine's node cap (planner.engine.search.budget.MAX_NODES) binds long before either.
MAX_POWER_MW = 10_000.0
MAX_BUDGET_MUSD = 1_000_000.0


def _positive(value: float | None, field: str, limit: float, unit: str) -> float | None:
    if value is None:
        return None
    if not math.isfinite(value) or value <= 0:
        raise forms.ValidationError(f"The {field} must be a number greater than 0 {unit}.")
    if value > limit:
        raise forms.ValidationError(f"The {field} can be at most {limit:,.0f} {unit}.")
    return value


class BudgetFitForm(forms.Form):
    power_mw = forms.FloatField(
        label="Power budget (MW)",
        required=False,
        widget=forms.NumberInput(attrs={"step": "any", "placeholder": "e.g. 2"}),
        error_messages={"invalid": "The power budget must be a number of MW, e.g. 2 or 0.5."},
        help_text="Provisioned power at nameplate, as a facility sizes its feeds.",
    )
    power_basis = forms.ChoiceField(
        label="The power budget covers",
        choices=[
            ("facility", "the facility (IT × PUE)"),
            ("it", "the IT load only"),
        ],
        initial="facility",
        required=False,
        error_messages={
            "invalid_choice": "The power budget covers the facility or the IT load (got %(value)s)."
        },
    )
    budget_musd = forms.FloatField(
        label="Money budget (USD million)",
        required=False,
        widget=forms.NumberInput(attrs={"step": "any", "placeholder": "e.g. 50"}),
        error_messages={"invalid": "The money budget must be a number of USD million, e.g. 50."},
    )
    money_basis = forms.ChoiceField(
        label="The money budget covers",
        choices=[
            ("capex", "the purchase (capex)"),
            ("tco", "capex + running costs over the scenario's life (TCO)"),
        ],
        initial="capex",
        required=False,
        error_messages={"invalid_choice": "The money budget covers the capex or the TCO (got %(value)s)."},
    )
    gpus = forms.MultipleChoiceField(
        label="GPU types to try",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Priced catalog GPUs; ticked first: the scenario's GPU and the current data-centre GPUs.",
        error_messages={"invalid_choice": "%(value)s is not a priced catalog GPU."},
    )
    rank = forms.ChoiceField(
        label="Rank by",
        choices=[(key, label) for key, label in reverse_sizing.RANKINGS.items()],
        initial="work",
        required=False,
        error_messages={
            "invalid_choice": "Rank by delivered work, work per USD million or work per MW (got %(value)s)."
        },
    )

    def __init__(self, *args: Any, default_gpus: list[str] | None = None, **kwargs: Any) -> None:
        """`default_gpus`: the GPU types tried (and shown ticked) when the submitted form ticks none."""
        data = args[0] if args else kwargs.get("data")
        if default_gpus and hasattr(data, "getlist") and not data.getlist("gpus"):
            data = data.copy()
            data.setlist("gpus", default_gpus)
            args = (data, *args[1:]) if args else args
            kwargs = {**kwargs, "data": data} if "data" in kwargs else kwargs
        super().__init__(*args, **kwargs)
        if default_gpus:
            self.fields["gpus"].initial = default_gpus
        priced = (
            Gpu.objects.exclude(price_usd=None)
            .exclude(price_kind=PriceKind.NOT_SOLD)
            .order_by("vendor", "model")
        )
        self.fields["gpus"].choices = [(g.pk, g.model) for g in priced]

    def clean_power_mw(self) -> float | None:
        return _positive(self.cleaned_data.get("power_mw"), "power budget", MAX_POWER_MW, "MW")

    def clean_budget_musd(self) -> float | None:
        return _positive(self.cleaned_data.get("budget_musd"), "money budget", MAX_BUDGET_MUSD, "USD million")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors and data.get("power_mw") is None and data.get("budget_musd") is None:
            raise forms.ValidationError(
                "Give a power budget (MW) or a money budget (USD million), or both.", code="no_budget"
            )
        return data

    def fit_inputs(self) -> reverse_sizing.FitInputs:
        """The cleaned form as the service's inputs (call after is_valid())."""
        data = self.cleaned_data
        money = data.get("budget_musd")
        return reverse_sizing.FitInputs(
            power_mw=data.get("power_mw"),
            power_basis=data.get("power_basis") or "facility",
            budget_usd=money * 1e6 if money is not None else None,
            money_basis=data.get("money_basis") or "capex",
            gpu_ids=tuple(data.get("gpus") or ()),
            rank=data.get("rank") or "work",
        )
