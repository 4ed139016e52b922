"""Prices the engine fills in when the input gives none: a node's host parts and published GPU rental prices.

The planning pages, the API (planner/adapters.py) and the fleet planner (engine/fleet) read them from here, so
the rule has one home.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

#: Non-GPU parts of an 8-GPU HGX/DGX H100 server (CPUs, DRAM, NICs, NVSwitch baseboard, storage, chassis and
#: power supplies): USD 32,010 in SemiAnalysis's DGX H100 bill of materials as summed by Epoch AI
#: (github.com/epoch-research/training-cost-trends, notebook section "Production cost of a DGX H100 server").
#: Used per GPU slot only when neither a system price nor a typed server price is known.
HOST_BOM_USD_PER_8_GPU_SERVER = 32_010.0
HOST_BOM_GPU_SLOTS = 8
HOST_BOM_SOURCE = (
    "SemiAnalysis DGX H100 bill of materials, non-GPU parts USD 32,010 per 8-GPU server, as summed by Epoch AI "
    "(https://github.com/epoch-research/training-cost-trends)"
)


#: The catalog's cloud price table (catalog/seed/cloud_prices.csv): one row per provider, term and GPU.
CLOUD_PRICES_SEED_PATH = Path(__file__).resolve().parents[3] / "catalog" / "seed" / "cloud_prices.csv"


@dataclass(frozen=True)
class CloudPriceReference:
    """A GPU's on-demand rental prices in the catalog (USD per GPU-hour): the planning figure is their median,
    the same rule the planning pages use (planner/adapters.py cloud_price_reference)."""

    low_usd: float
    high_usd: float
    source: str
    median_usd: float

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.median_usd


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def cloud_price_references(path: Path | None = None) -> dict[str, CloudPriceReference]:
    """GPU id -> its on-demand prices in the catalog's cloud price seed file ({} when the file is missing)."""
    p = path or CLOUD_PRICES_SEED_PATH
    if not p.exists():
        return {}
    by_gpu: dict[str, list[tuple[float, str]]] = {}
    with p.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row.get("term") == "on_demand" and row.get("usd_per_gpu_hour"):
                by_gpu.setdefault(row["gpu_id"], []).append((float(row["usd_per_gpu_hour"]), row["provider"]))
    out: dict[str, CloudPriceReference] = {}
    for gpu_id, rows in by_gpu.items():
        prices = [price for price, _ in rows]
        providers = ", ".join(sorted({provider for _, provider in rows}))
        out[gpu_id] = CloudPriceReference(
            low_usd=min(prices),
            high_usd=max(prices),
            source=f"median of {len(prices)} on-demand prices in catalog cloud_prices.csv ({providers})",
            median_usd=_median(prices),
        )
    return out


CLOUD_PRICE_REFERENCES: dict[str, CloudPriceReference] = cloud_price_references()


def node_usd_from_gpu(gpus_per_node: int, gpu_usd: float) -> float:
    """A node priced as its GPUs at their catalog price plus the host parts of a DGX H100 per GPU slot."""
    return gpus_per_node * (gpu_usd + HOST_BOM_USD_PER_8_GPU_SERVER / HOST_BOM_GPU_SLOTS)
