"""GPU catalog ids resolved from the seed file that ships with the project (catalog/seed/gpus.csv).

Reading the seed file is the engine's only file input besides the command line's JSON; no database is needed.
Column units are the catalog's (catalog/seed README): memory in GB as labelled, TB/s, dense TFLOPS, W, GB/s
bidirectional; `gpu_object` turns a row into the contract's `cluster.gpu` object, whose units cluster.py converts.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path
from typing import Any

#: The seed file, relative to the package (planner/engine/inputs/catalog.py -> <project>/catalog/seed/gpus.csv).
GPU_SEED_PATH = Path(__file__).resolve().parents[3] / "catalog" / "seed" / "gpus.csv"

#: Systems seed file: a node's nameplate per GPU slot for a catalog GPU that a catalog system carries.
SYSTEM_SEED_PATH = GPU_SEED_PATH.parent / "systems.csv"

#: Contract `tflops` key -> seed column (all dense peaks; INT8 is TOPS).
TFLOPS_COLUMNS: dict[str, str] = {
    "fp32": "fp32_tflops",
    "tf32": "tf32_tflops_dense",
    "bf16": "bf16_tflops_dense",
    "fp16": "fp16_tflops_dense",
    "fp8": "fp8_tflops_dense",
    "int8": "int8_tops_dense",
    "fp4": "fp4_tflops_dense",
}
#: Host link of GPUs without a scale-up fabric: PCIe x16, GB/s both directions summed, by generation. Gen4-6
#: are the catalog's host-link rows pcie4_x16 / pcie5_x16 / pcie6_x16 (catalog/seed/interconnects.csv,
#: aggregate_bw_gbs_bidir, after stas00/ml-engineering network/README.md); Gen3 is half of Gen4 (PCI-SIG
#: doubles the transfer rate per generation).
PCIE_X16_BIDIR_GBS: dict[int, float] = {3: 31.0, 4: 62.0, 5: 126.0, 6: 242.0}
#: Generation assumed when a GPU without a scale-up fabric has no PCIe generation in the catalog (TPU v4,
#: Ascend 910B): Gen4, the oldest host link of the catalog's accelerators (interconnects.csv pcie4_x16).
PCIE_DEFAULT_GENERATION = 4
#: How the fallback is explained wherever it is echoed (engine assumptions, planning pages, API).
PCIE_FALLBACK_SOURCE = (
    "no scale-up fabric in the catalog: GPUs talk over the PCIe x16 host link of the catalog's PCIe "
    "generation (Gen4 when unknown); bandwidth from the catalog's pcie4_x16/pcie5_x16/pcie6_x16 rows"
)


def pcie_generation(pcie_gen: float | None) -> int:
    """The PCIe generation the fallback uses: the catalog's when it is one we know, else the default."""
    if pcie_gen is not None and int(pcie_gen) == pcie_gen and int(pcie_gen) in PCIE_X16_BIDIR_GBS:
        return int(pcie_gen)
    return PCIE_DEFAULT_GENERATION


def pcie_fallback_scaleup_gbs(pcie_gen: float | None) -> float:
    """Scale-up bandwidth (GB/s, both directions) of a GPU without a scale-up fabric: its PCIe x16 host link.
    The one implementation of the rule, shared by the seed resolution below, the planning pages and the API."""
    return PCIE_X16_BIDIR_GBS[pcie_generation(pcie_gen)]


def _number(cell: str | None) -> float | None:
    """A catalog cell as a number: blank -> None, '~x' -> x, 'low-high' -> midpoint (catalog README, Ranges)."""
    if cell is None:
        return None
    text = cell.strip().lstrip("~").replace(",", "")
    if not text:
        return None
    if "-" in text[1:]:
        low, _, high = text.partition("-")
        try:
            return (float(low) + float(high)) / 2.0
        except ValueError:
            return None
    try:
        return float(text)
    except ValueError:
        return None


@lru_cache(maxsize=4)
def _rows(path: str) -> dict[str, dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["id"]: row for row in csv.DictReader(handle) if row.get("id")}


def gpu_rows(path: Path | None = None) -> dict[str, dict[str, str]]:
    """Seed rows by id ({} when the seed file is missing)."""
    p = path or GPU_SEED_PATH
    if not p.exists():
        return {}
    return _rows(str(p))


def gpu_object(row: dict[str, str]) -> dict[str, Any]:
    """The contract's `cluster.gpu` object for one seed row (absent numbers are left out, never guessed)."""
    tflops = {key: v for key, col in TFLOPS_COLUMNS.items() if (v := _number(row.get(col))) is not None}
    out: dict[str, Any] = {
        "name": row.get("model") or row["id"],
        "vendor": row.get("vendor", ""),
        "tflops": tflops,
    }
    fields = {
        "memory_gb": "memory_gb",
        "memory_bandwidth_tbs": "mem_bandwidth_tbs",
        "tdp_w": "tdp_w",
        "scaleup_bandwidth_gbs": "scaleup_bw_gbs_bidir",
        "price_usd": "price_usd",
    }
    for key, col in fields.items():
        value = _number(row.get(col))
        if value is not None:
            out[key] = value
    if "scaleup_bandwidth_gbs" not in out:
        out["scaleup_bandwidth_gbs"] = pcie_fallback_scaleup_gbs(_number(row.get("pcie_gen")))
    return out


def uses_pcie_fallback(row: dict[str, str]) -> bool:
    """True when the row has no scale-up bandwidth and gpu_object fell back to the PCIe x16 host link."""
    return _number(row.get("scaleup_bw_gbs_bidir")) is None


def catalog_gpu(gpu_id: str, path: Path | None = None) -> dict[str, Any]:
    """The contract `gpu` object for a seed-file catalog id (KeyError when the id is unknown)."""
    row = gpu_rows(path)[gpu_id]
    return gpu_object(row)


def system_nameplate_per_slot(gpu_id: str | None, path: Path | None = None) -> tuple[float, str] | None:
    """(W per GPU slot, source) from the first seed system that carries `gpu_id` (its `gpu_id` column) and gives
    a maximum input power: system_max_power_kw x 1000 / GPUs (DGX H100: 10,200 / 8 = 1,275 W). None if none."""
    p = path or SYSTEM_SEED_PATH
    if not gpu_id or not p.exists():
        return None
    for row in _rows(str(p)).values():
        max_kw, gpus = _number(row.get("system_max_power_kw")), _number(row.get("gpus"))
        if row.get("gpu_id") == gpu_id and max_kw and gpus:
            name = row.get("name") or row["id"]
            return (
                max_kw * 1000.0 / gpus,
                f"{name} maximum input power {max_kw:g} kW / {gpus:g} GPUs (systems.csv)",
            )
    return None
