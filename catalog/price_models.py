"""Prices that are not a GPU's or a system's own columns: one row per priced part or service (CPUs, switches,
NICs, optics, cables, storage tiers, cooling and facility fit-out, software, installation, spares, staff) and one
row per cloud offering of a catalog GPU (on demand, 1- and 3-year commitments, or "no public cloud offering").

Every row keeps its price kind (list, street, reported quote, estimate), the date and the source; an estimate
also says how it was made (`estimate_method`, e.g. a ratio to the nearest priced part). Seed files:
catalog/seed/prices.csv and catalog/seed/cloud_prices.csv (written by hand from the cited pages, not built from
the reference catalog).
"""

from __future__ import annotations

from typing import Any

from django.db import models

from catalog.model_base import (
    CatalogEntry,
    PriceKind,
    _check_between,
    _check_order,
    _float,
    _text,
    price_kind_field,
)


class PartKind(models.TextChoices):
    CPU = "cpu", "CPU"
    SWITCH = "switch", "switch"
    NIC = "nic", "NIC / DPU"
    OPTIC = "optic", "optical transceiver"
    CABLE = "cable", "cable"
    STORAGE = "storage", "storage tier"
    COOLING = "cooling", "cooling technology"
    FACILITY = "facility", "facility fit-out (racks, PDUs, UPS, generator)"
    SOFTWARE = "software", "software and support"
    SERVICE = "service", "installation and spares"
    STAFF = "staff", "operations staff"


class PartPrice(CatalogEntry):
    """The price of one part or service, per its `unit`; `part_id` names the catalog row it prices, if any."""

    part_kind = models.CharField("part kind", max_length=20, choices=PartKind.choices)
    part_id = _text(
        "catalog part id",
        "Id of the catalog row this prices (cpus, switches, interconnects, cooling); blank "
        "for an item the catalog has no row for (a storage tier, a rack, a licence).",
        80,
    )
    item = models.CharField(
        max_length=200, help_text="What is priced, e.g. 'NVIDIA Quantum-2 QM9700 switch'."
    )
    unit = models.CharField(
        max_length=80,
        help_text="What one price buys: 'per unit', 'per TB', 'per kW of IT', 'per GPU-year', "
        "'per node', 'per FTE-year', 'fraction of hardware capex'.",
    )
    price_usd = _float(
        "price (USD)",
        "Planning price in USD per unit: the midpoint when a range was published.",
        positive=False,
    )
    price_low_usd = _float("price low (USD)", "Low end of the published range in USD.", positive=False)
    price_high_usd = _float("price high (USD)", "High end of the published range in USD.", positive=False)
    price_kind = price_kind_field()
    price_date = _text("price date", "When the price was published or observed.", 80)
    estimate_method = models.TextField(
        "estimate method",
        blank=True,
        help_text="For an estimate: how it was made (e.g. 'ratio to the nearest priced part: ...').",
    )

    class Meta:
        ordering = ["part_kind", "item"]
        verbose_name = "part price"

    def __str__(self) -> str:
        return f"{self.item} ({self.unit})"

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        model = type(self)
        _check_order(
            errors, ("price_low_usd", self.price_low_usd), ("price_high_usd", self.price_high_usd), model
        )
        _check_between(
            errors,
            "price_usd",
            self.price_usd,
            ("price_low_usd", self.price_low_usd),
            ("price_high_usd", self.price_high_usd),
            model,
        )
        if self.price_usd is None:
            errors.setdefault("price_usd", []).append("A part price row needs a price.")
        if not self.price_kind:
            errors.setdefault("price_kind", []).append(
                "Say what the price is (list, street, quote or estimate)."
            )
        if self.price_kind == PriceKind.ESTIMATE and not self.estimate_method.strip():
            errors.setdefault("estimate_method", []).append("An estimate must say how it was made.")
        return errors


class CloudTerm(models.TextChoices):
    ON_DEMAND = "on_demand", "on demand"
    COMMIT_1Y = "commit_1y", "1-year commitment"
    COMMIT_3Y = "commit_3y", "3-year commitment"
    NONE = "none", "no public cloud offering"


class CloudPrice(CatalogEntry):
    """One provider's rental price for one catalog GPU, per GPU-hour, or a row saying none is published."""

    gpu = models.ForeignKey(
        "catalog.Gpu",
        on_delete=models.CASCADE,
        related_name="cloud_prices",
        verbose_name="GPU",
        help_text="The GPU rented.",
    )
    provider = models.CharField(
        max_length=80, help_text="AWS, Azure, Google Cloud, Oracle, CoreWeave, Lambda ..."
    )
    offering = _text("offering", "Instance or product, e.g. 'p5.48xlarge (8 GPUs)'.", 200)
    term = models.CharField(max_length=20, choices=CloudTerm.choices, help_text="On demand or a commitment.")
    usd_per_gpu_hour = _float(
        "price (USD per GPU-hour)",
        "Price per GPU-hour (instance price / GPUs); blank only for 'no offering'.",
    )
    price_date = _text("price date", "When the price was published or observed.", 80)

    class Meta:
        ordering = ["gpu", "term", "provider"]
        verbose_name = "cloud price"

    def __str__(self) -> str:
        return f"{self.provider} {self.get_term_display()}"

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        if self.term == CloudTerm.NONE and self.usd_per_gpu_hour is not None:
            errors.setdefault("usd_per_gpu_hour", []).append("A 'no public cloud offering' row has no price.")
        if self.term != CloudTerm.NONE and self.usd_per_gpu_hour is None:
            errors.setdefault("usd_per_gpu_hour", []).append("Give the price per GPU-hour.")
        return errors


def describe(row: Any) -> str:
    """'street price, 2026-03' for a priced row (used in result notes)."""
    kind = PriceKind(row.price_kind).label if row.price_kind else "price of unknown kind"
    return f"{kind}, {row.price_date}" if row.price_date else kind
