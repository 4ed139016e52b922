"""Which catalog rows and values fed a scenario's engine payload, so a stored result can say later that the
catalog changed since it was computed (the "catalog changed" notice and re-evaluation on the results page).

The values recorded are the catalog columns the adapter (planner/adapters.py) reads to build the payload.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db import models

from planner.adapters import GPU_TFLOPS_KEYS
from planner.models import FacilityKind, Scenario

# Catalog fields that feed the payload, per catalog model (the snapshot records exactly these).
GPU_FIELDS = (
    "vendor",
    "model",
    "memory_gb",
    "mem_bandwidth_tbs",
    *GPU_TFLOPS_KEYS.values(),
    "tdp_w",
    "scaleup_bw_gbs",
    "pcie_gen",
    "price_usd",
)
SYSTEM_FIELDS = ("vendor", "name", "gpus", "system_max_power_kw", "price_usd")
CPU_FIELDS = ("vendor", "model", "cores", "tdp_w", "price_usd")
INTERCONNECT_FIELDS = ("name", "port_rate_gbps")
SWITCH_FIELDS = ("vendor", "model", "ports", "port_speed_gbps", "power_w", "price_usd")
#: Cooling: the name and every number `adapters.cooling_overrides` reads (an edit to one can change the payload).
COOLING_FIELDS = (
    "name",
    "rack_density_kw_typical",
    "rack_density_kw_typical_high",
    "capex_usd_per_kw_low",
    "capex_usd_per_kw_high",
    "wue_l_per_kwh",
)
ECONOMICS_FIELDS = ("region", "metric", "value", "unit", "period")


@dataclass(frozen=True)
class CatalogChange:
    """One catalog value that differs between a stored result and the catalog today."""

    role: str  # "gpu", "switch", ...
    row_label: str
    field: str
    field_label: str
    old: Any
    new: Any

    def __str__(self) -> str:
        return f"{self.row_label} {self.field_label}: {self.old} -> {self.new}"


def _row_entry(role: str, row: models.Model, fields: Iterable[str]) -> dict[str, Any]:
    values = {name: getattr(row, name) for name in fields}
    updated_at = getattr(row, "updated_at", None)
    return {
        "role": role,
        "model": row._meta.model_name,
        "id": str(row.pk),
        "label": str(row),
        "updated_at": updated_at.isoformat() if updated_at else None,
        "sources": list(getattr(row, "source_urls", []) or []),
        "values": values,
    }


def catalog_snapshot(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """The catalog rows (id, updated_at, sources) and values that feed this scenario's payload, by role."""
    rows: list[tuple[str, Any, tuple[str, ...]]] = [
        ("gpu", scenario.catalog_gpu, GPU_FIELDS),
        ("system", scenario.system if scenario.system_id else None, SYSTEM_FIELDS),
        ("cpu", scenario.cpu if scenario.cpu_id else None, CPU_FIELDS),
        ("network", scenario.network if scenario.network_id else None, INTERCONNECT_FIELDS),
        ("switch", scenario.switch if scenario.switch_id else None, SWITCH_FIELDS),
        ("cooling", scenario.cooling if scenario.cooling_id else None, COOLING_FIELDS),
        (
            "electricity",
            scenario.electricity
            if scenario.electricity_id and scenario.electricity_usd_per_kwh is None
            else None,
            ECONOMICS_FIELDS,
        ),
        (
            "colocation",
            scenario.colocation
            if scenario.colocation_id and scenario.facility == FacilityKind.COLOCATION
            else None,
            ECONOMICS_FIELDS,
        ),
        ("grid_carbon", scenario.grid_carbon if scenario.grid_carbon_id else None, ECONOMICS_FIELDS),
    ]
    return {role: _row_entry(role, row, fields) for role, row, fields in rows if row is not None}


def snapshot_hash(snapshot: dict[str, dict[str, Any]]) -> str:
    """A stable SHA-256 of the catalog ids and values a result used."""
    essential = {role: {"id": e["id"], "values": e["values"]} for role, e in snapshot.items()}
    return hashlib.sha256(json.dumps(essential, sort_keys=True, default=str).encode()).hexdigest()


def _field_label(model_name: str, field: str) -> str:
    try:
        model = apps.get_model("catalog", model_name)
        return str(model._meta.get_field(field).verbose_name)
    except (LookupError, FieldDoesNotExist):  # a model or field that no longer exists keeps its raw name
        return field.replace("_", " ")


def catalog_changes(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[CatalogChange]:
    """Every value that differs between the snapshot stored with a result and the catalog now."""
    changes: list[CatalogChange] = []
    for role, before in old.items():
        after = new.get(role)
        if after is None or after["id"] != before["id"]:
            changes.append(
                CatalogChange(
                    role, before["label"], "row", "catalog row", before["label"], "(no longer used)"
                )
            )
            continue
        for field, old_value in before["values"].items():
            new_value = after["values"].get(field)
            if _normalised(old_value) != _normalised(new_value):
                label = _field_label(before["model"], field)
                changes.append(CatalogChange(role, before["label"], field, label, old_value, new_value))
    for role, after in new.items():
        if role not in old:
            changes.append(
                CatalogChange(role, after["label"], "row", "catalog row", "(none)", after["label"])
            )
    return changes


def _normalised(value: Any) -> Any:
    """JSON round-trip so that a stored value and a live one compare equal (Decimal, dates, ints vs floats);
    plain numbers, text and None take the short way to the same answer."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    loaded = json.loads(json.dumps(value, default=str))
    return float(loaded) if isinstance(loaded, int) and not isinstance(loaded, bool) else loaded
