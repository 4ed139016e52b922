"""Shared pieces of the catalog models: nullable number fields, range checks with verbose field names, the price
kind, and the fields every catalog row has (`CatalogEntry`). catalog/models.py and catalog/price_models.py build
on it (kept apart so neither imports the other's module at load time)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from catalog.validators import (
    split_sources,
    validate_catalog_id,
    validate_non_negative,
    validate_positive,
    validate_source_urls,
    validate_year,
)


def _float(label: str, help_text: str, *, positive: bool = True) -> Any:
    """A nullable float (blank = not published) that must be > 0 (or >= 0 with positive=False)."""
    return models.FloatField(
        label,
        null=True,
        blank=True,
        help_text=help_text,
        validators=[validate_positive if positive else validate_non_negative],
    )


def _int(label: str, help_text: str) -> Any:
    return models.PositiveIntegerField(
        label, null=True, blank=True, help_text=help_text, validators=[validate_positive]
    )


def _year(label: str, help_text: str) -> Any:
    return models.PositiveSmallIntegerField(
        label, null=True, blank=True, help_text=help_text, validators=[validate_year]
    )


def _text(label: str, help_text: str = "", max_length: int = 200) -> Any:
    return models.CharField(label, max_length=max_length, blank=True, help_text=help_text)


def _label(model: type[models.Model] | None, name: str) -> str:
    """A field's verbose name ("price high (USD)") for messages; the raw name with spaces without a model."""
    if model is None:
        return name.replace("_", " ")
    return str(model._meta.get_field(name).verbose_name)


def _check_order(
    errors: dict[str, list[str]],
    low: tuple[str, float | None],
    high: tuple[str, float | None],
    model: type[models.Model] | None = None,
) -> None:
    """Record a field error when a low bound exceeds its high bound (both set)."""
    (low_name, low_value), (high_name, high_value) = low, high
    if low_value is not None and high_value is not None and low_value > high_value:
        errors.setdefault(low_name, []).append(
            f"Must not exceed {_label(model, high_name)} ({low_value:g} > {high_value:g})."
        )


def _check_between(
    errors: dict[str, list[str]],
    name: str,
    value: float | None,
    low: tuple[str, float | None],
    high: tuple[str, float | None],
    model: type[models.Model] | None = None,
) -> None:
    """Record a field error when a planning figure lies outside its own published low/high range. The message
    names the fields by their verbose names and says how to change a price alone (clear or widen the range)."""
    if value is None:
        return
    (low_name, low_value), (high_name, high_value) = low, high
    hint = f" Change or clear {_label(model, low_name)} and {_label(model, high_name)} too."
    if low_value is not None and value < low_value:
        errors.setdefault(name, []).append(
            f"Must not be below {_label(model, low_name)} ({value:g} < {low_value:g}).{hint}"
        )
    if high_value is not None and value > high_value:
        errors.setdefault(name, []).append(
            f"Must not exceed {_label(model, high_name)} ({value:g} > {high_value:g}).{hint}"
        )


class PriceKind(models.TextChoices):
    """What a price is. Results print it next to every figure that uses the price."""

    LIST = "list", "list price"
    STREET = "street", "street price"
    QUOTE = "quote", "reported quote"
    ESTIMATE = "estimate", "estimate"
    NOT_SOLD = "not_sold", "not sold (cloud only)"


def price_kind_field() -> Any:
    return models.CharField(
        "price kind",
        max_length=20,
        choices=PriceKind.choices,
        blank=True,
        help_text="list price, street price, reported quote, or estimate (a ratio to the nearest priced part; "
        "the notes say which). Results say which prices are quotes, list prices or estimates.",
    )


def _check_price(errors: dict[str, list[str]], row: Any) -> None:
    """A price inside its own range (verbose field names in the messages). A price without a kind is allowed
    (results then say "price of unstated kind"); the seed test requires kind, date and source for every row."""
    model = type(row)
    _check_order(errors, ("price_low_usd", row.price_low_usd), ("price_high_usd", row.price_high_usd), model)
    _check_between(
        errors,
        "price_usd",
        row.price_usd,
        ("price_low_usd", row.price_low_usd),
        ("price_high_usd", row.price_high_usd),
        model,
    )


class CatalogEntry(models.Model):
    """Fields every catalog row has: a stable id, provenance and the admin-edit marker."""

    id = models.CharField(
        "catalog id",
        max_length=80,
        primary_key=True,
        validators=[validate_catalog_id],
        help_text="Stable id from the reference catalog (e.g. nvidia_h100_sxm5_80gb); other tables and plans use it.",
    )
    source = models.TextField(
        validators=[validate_source_urls],
        help_text="Public URLs that support the numbers in this row, separated by '; '.",
    )
    verified = models.BooleanField(
        default=False,
        help_text="Yes when every populated number was found in a cited vendor document (or a copy of it); "
        "no when at least one comes only from press, analysts or arithmetic (the notes say which).",
    )
    notes = models.TextField(
        blank=True, help_text="Caveats, conflicts between sources and how values were derived."
    )
    raw_cells = models.TextField(
        "original cells",
        blank=True,
        help_text="Reference cells that were reduced to numbers on import, one 'field: original text' per line "
        "(ranges, '~' approximations, text units).",
    )
    locally_edited = models.BooleanField(
        default=False,
        help_text="Set when staff save this row in the admin or import it from CSV; load_catalog then leaves the "
        "row alone unless run with --force.",
    )
    updated_at = models.DateTimeField(auto_now=True, help_text="When this row last changed (UTC).")

    class Meta:
        abstract = True

    @property
    def source_urls(self) -> list[str]:
        return split_sources(self.source)

    @property
    def original_cells(self) -> dict[str, str]:
        """`raw_cells` as {field: original text}, e.g. {"rack_density_kw_high": "120+"}."""
        cells: dict[str, str] = {}
        for line in (self.raw_cells or "").splitlines():
            name, separator, text = line.partition(":")
            if separator:
                cells[name.strip()] = text.strip()
        return cells

    def range_errors(self) -> dict[str, list[str]]:
        """Cross-field checks; subclasses add theirs. Returns {field: [messages]}."""
        return {}

    def clean(self) -> None:
        super().clean()
        errors = self.range_errors()
        if errors:
            raise ValidationError(errors)
