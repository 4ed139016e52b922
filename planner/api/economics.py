"""The `economics` block of `POST /api/estimate/` with the planning form's defaults.

The engine needs a node price and a rental price to cost a cluster. The planning form fills both from the catalog
(planner/adapters.py: the GPU's catalog price plus the host parts of a DGX H100 per GPU slot; the published rental
price of the GPU), and takes the electricity price and the grid's carbon intensity from the catalog rows it
preselects (planner/starters.py). The API does the same for every key the caller leaves out, and echoes what it
filled in under `assumptions` with its source. Where the catalog has no figure, the answer is a 400 that names the
field and says what to send.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from catalog.models import EconomicsFact
from planner.adapters import PlanningInput, cloud_price_reference, node_price_from_gpus
from planner.api.memo import TtlMemo
from planner.engine.inputs import catalog as engine_catalog
from planner.engine.inputs.errors import Problem, SpecError
from planner.starters import DEFAULT_ELECTRICITY_ID, DEFAULT_GRID_CARBON_ID

#: Seconds a process reuses a catalog economics row (the same as the API's catalog GPUs).
CATALOG_ROW_TTL_S = 5.0
SERVER_PATH = "economics.gpu_server_usd"
CLOUD_PATH = "economics.cloud_usd_per_gpu_hour"
#: Economics keys filled from a catalog row the form preselects: key -> (row id, unit).
CATALOG_ROW_DEFAULTS: dict[str, tuple[str, str]] = {
    "electricity_usd_per_kwh": (DEFAULT_ELECTRICITY_ID, "USD per kWh"),
    "grid_kgco2_per_kwh": (DEFAULT_GRID_CARBON_ID, "kg CO2 per kWh"),
}


@dataclass(frozen=True)
class GpuFacts:
    """What the defaults need to know about the payload's GPU: its catalog id, name and unit price."""

    catalog_id: str | None
    name: str
    price_usd: float | None


@dataclass
class EconomicsDefaults:
    """The payload with the defaults filled in, what was filled (for `assumptions`) and, for the keys that could
    not be filled, the message to answer instead of the engine's bare "is required"."""

    payload: Any
    filled: list[PlanningInput] = field(default_factory=list)
    unfilled: dict[str, str] = field(default_factory=dict)

    def explain(self, error: SpecError) -> SpecError:
        """The engine's error with the missing-price problems said in full (nothing else changes)."""
        problems = [
            Problem(p.path, self.unfilled[p.path]) if p.path in self.unfilled else p for p in error.problems
        ]
        return SpecError(problems)

    def add_assumptions(self, output: dict[str, Any]) -> dict[str, Any]:
        assumptions = output.setdefault("assumptions", {})
        for note in self.filled:
            assumptions[note.name] = {"value": note.value, "unit": note.unit, "source": note.source}
        return output


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def gpu_facts(gpu: Any) -> GpuFacts | None:
    """The GPU of a payload whose catalog ids this site's catalog already resolved (planner/api/services.py):
    an object (a catalog row's carries its `id`), or an id only the engine's seed files hold."""
    if isinstance(gpu, dict):
        price = gpu.get("price_usd")
        catalog_id = gpu.get("id") if isinstance(gpu.get("id"), str) else None
        name = str(gpu.get("name") or catalog_id or "this GPU")
        return GpuFacts(catalog_id, name, price if _number(price) and price >= 0 else None)
    if isinstance(gpu, str):
        row = engine_catalog.gpu_rows().get(gpu)
        if row is None:
            return None  # the engine names the unknown id
        obj = engine_catalog.gpu_object(row)
        return GpuFacts(gpu, str(obj["name"]), obj.get("price_usd"))
    return None


#: Catalog rows read per call, kept like the API's catalog GPUs (planner/api/memo.py).
_row_memo: TtlMemo[PlanningInput | None] = TtlMemo(CATALOG_ROW_TTL_S)


@receiver([post_save, post_delete], sender=EconomicsFact, dispatch_uid="planner.api.economics.row_changed")
def economics_memo_clear(**kwargs: Any) -> None:
    _row_memo.clear()


def _catalog_row_note(key: str) -> PlanningInput | None:
    row_id, unit = CATALOG_ROW_DEFAULTS[key]
    row = EconomicsFact.objects.filter(pk=row_id, value__isnull=False).first()
    if row is None:
        return None  # the engine's own sourced default applies (tco.py)
    source = f"catalog economics row {row.pk}: {row.region}, {row.metric} ({row.period}); {row.source}"
    return PlanningInput(f"economics.{key}", row.value, unit, source)


def economics_defaults(payload: Any) -> EconomicsDefaults:
    """Fill the keys an `economics` object leaves out as the planning form would; the caller's payload is never
    changed. Without an `economics` object the answer has no cost section, as before."""
    economics = payload.get("economics") if isinstance(payload, dict) else None
    if not isinstance(economics, dict):
        return EconomicsDefaults(payload)
    cluster = payload.get("cluster") if isinstance(payload.get("cluster"), dict) else {}
    gpu = gpu_facts(cluster.get("gpu"))
    gpus_per_node = cluster.get("gpus_per_node")
    filled: list[PlanningInput] = []
    unfilled: dict[str, str] = {}
    if economics.get("gpu_server_usd") is None:
        if gpu is None:
            unfilled[SERVER_PATH] = (
                "is required until cluster.gpu names a known GPU (the price of one node, USD)"
            )
        elif gpu.price_usd is None:
            unfilled[SERVER_PATH] = (
                f"is required: the catalog has no price for the {gpu.name}; give the price of one node with its "
                "GPUs (USD)"
            )
        elif isinstance(gpus_per_node, int) and not isinstance(gpus_per_node, bool) and gpus_per_node > 0:
            filled.append(node_price_from_gpus(gpus_per_node, gpu.price_usd))
    if economics.get("cloud_usd_per_gpu_hour") is None:
        note = cloud_price_reference(gpu.catalog_id) if gpu is not None else None
        if note is not None:
            filled.append(note)
        else:
            name = f"the {gpu.name}" if gpu is not None else "this GPU"
            unfilled[CLOUD_PATH] = (
                f"is required: no published rental price on file for {name}; give the price you were quoted "
                "(USD per GPU-hour)"
            )
    for key in CATALOG_ROW_DEFAULTS:
        note = (
            _row_memo.get(key, lambda key=key: _catalog_row_note(key)) if economics.get(key) is None else None
        )
        if note is not None:
            filled.append(note)
    if not filled:
        return EconomicsDefaults(payload, [], unfilled)
    values = {note.name.removeprefix("economics."): note.value for note in filled}
    return EconomicsDefaults({**payload, "economics": {**economics, **values}}, filled, unfilled)
