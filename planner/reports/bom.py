"""The hardware bill of materials of a stored result: servers, GPUs, CPUs, network, storage and facility rows.

Quantities are the scenario's inputs; prices and totals are the engine's (payload and output). A GPU or NIC
priced inside the server says so instead of being counted twice. Columns: `columns.HARDWARE_BOM_COLUMNS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from planner.engine.results import EstimateResult
from planner.models import Scenario, ScenarioResult
from planner.reports.formatting import dig


class HardwareBomRow(TypedDict):
    """One row of the hardware bill of materials (`columns.HARDWARE_BOM_COLUMNS`)."""

    item: str
    detail: str
    quantity: Any
    unit_usd: Any
    total_usd: Any
    basis: str


def _row(item: str, detail: str, quantity: Any, unit_usd: Any, total_usd: Any, basis: str) -> HardwareBomRow:
    return {
        "item": item,
        "detail": detail,
        "quantity": quantity,
        "unit_usd": unit_usd,
        "total_usd": total_usd,
        "basis": basis,
    }


def _count(value: Any, singular: str, plural: str) -> str:
    number = value if isinstance(value, int) else 0
    return f"{number:,} {singular if number == 1 else plural}"


def hardware_bom(*, result: ScenarioResult, scenario: Scenario) -> list[HardwareBomRow]:
    payload = result.input_payload
    output: EstimateResult = result.output
    cluster = payload.get("cluster", {})
    gpu = cluster.get("gpu") if isinstance(cluster.get("gpu"), dict) else {}
    nodes, per_node = cluster.get("nodes"), cluster.get("gpus_per_node")
    capex: Mapping[str, Any] = output.get("cost", {}).get("capex_breakdown_usd") or {}
    rows: list[HardwareBomRow] = []
    server_usd = dig(payload, "economics", "gpu_server_usd")
    planner_inputs = {a["name"]: a for a in result.input_assumptions}
    if scenario.server_price_usd is not None:
        server_basis = "your price"
    elif "economics.gpu_server_usd" in planner_inputs:
        server_basis = "planner default: catalog GPU price + host parts per GPU slot (see assumptions)"
    else:
        server_basis = "catalog system price"
    system_name = scenario.system.name if scenario.system_id else "GPU server"
    rows.append(
        _row(
            "Servers",
            f"{system_name}, {per_node} × {gpu.get('name', 'GPU')} each",
            nodes,
            server_usd,
            capex.get("servers"),
            server_basis,
        )
    )
    gpu_basis = ""
    if scenario.gpu_id and scenario.gpu.price_basis:
        gpu_basis = scenario.gpu.price_basis
    elif scenario.custom_gpu:
        gpu_basis = "your custom GPU"
    total_gpus = nodes * per_node if isinstance(nodes, int) and isinstance(per_node, int) else None
    rows.append(
        _row(
            "GPUs",
            f"{gpu.get('name', 'GPU')} (in the server price)",
            total_gpus,
            gpu.get("price_usd"),
            None,
            gpu_basis,
        )
    )
    if scenario.cpu_id:
        cpus = scenario.system.cpus if scenario.system_id and scenario.system.cpus else None
        quantity = cpus * nodes if cpus and isinstance(nodes, int) else None
        rows.append(
            _row(
                "CPUs",
                f"{scenario.cpu.vendor} {scenario.cpu.model} (in the server price)",
                quantity,
                scenario.cpu.price_usd,
                None,
                scenario.cpu.price_basis,
            )
        )
    network = output.get("network") or {}
    if network:
        detail = ", ".join(
            _count(network.get(key), singular, plural)
            for key, singular, plural in (
                ("switches", "switch", "switches"),
                ("nics", "NIC", "NICs"),
                ("transceivers", "transceiver", "transceivers"),
                ("cables", "cable", "cables"),
            )
        )
        rows.append(
            _row(
                "Scale-out network",
                detail,
                None,
                None,
                capex.get("network", network.get("capex_usd")),
                "engine network BOM (below)",
            )
        )
    storage_tb = cluster.get("storage_tb")
    if storage_tb or capex.get("storage"):
        rows.append(_row("Storage", "shared storage, TB", storage_tb, None, capex.get("storage"), "engine"))
    if capex.get("facility"):
        cooling = scenario.cooling.name if scenario.cooling_id else "default cooling"
        racks = output.get("power", {}).get("racks")
        rows.append(_row("Facility fit-out", f"{cooling}; racks", racks, None, capex["facility"], "engine"))
    return rows
