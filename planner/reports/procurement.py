"""The bill of materials for procurement: every line a buyer asks vendors to quote, with quantity, unit price, price
basis, price date, source and extended price.

It extends `planner.reports.bom.hardware_bom` (servers, GPUs, CPUs, storage; its price-basis rules are kept): the
network line is opened into the engine's own network BOM (switches, NICs, transceivers, cables), the host parts of
a planner-priced server are shown, and the facility line becomes racks plus cooling and power (fit-out when the
facility is owned, the colocation rate when it is rented). Quantities and prices are the stored payload, the
engine's output and the catalog rows the result recorded; nothing is re-estimated here. The extended prices add up
to the engine's capex (`cost.capex_usd`). Columns: `columns.PROCUREMENT_BOM_COLUMNS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from planner import adapters
from planner.engine.results import EstimateResult
from planner.models import FacilityKind, Scenario, ScenarioResult
from planner.reports import formatting as f
from planner.reports.bom import HardwareBomRow, hardware_bom
from planner.reports.formatting import dig

#: Item names of `hardware_bom` rows this module replaces or enriches.
SERVERS_ROW = "Servers"
GPUS_ROW = "GPUs"
CPUS_ROW = "CPUs"
NETWORK_ROW = "Scale-out network"
STORAGE_ROW = "Storage"
FACILITY_ROW = "Facility fit-out"
#: Engine assumptions that price each network BOM line (engine output `assumptions`), by item prefix.
NETWORK_PRICE_KEYS = (
    ("NIC", "network.nic_usd"),
    ("transceiver", "network.transceiver_usd"),
    ("cable", "network.cable_usd"),
)
SWITCH_PRICE_KEY = "network.switch_usd"
IN_SERVER_PRICE = "in the server price"


class ProcurementLine(TypedDict):
    """One line of the procurement bill of materials (`columns.PROCUREMENT_BOM_COLUMNS`)."""

    cost: str  # "capex" or "opex per year"
    category: str
    item: str
    detail: str
    quantity: Any
    unit: str
    unit_usd: Any
    total_usd: Any
    basis: str
    price_date: str
    source: str


def _line(
    category: str,
    item: str,
    detail: str = "",
    *,
    quantity: Any = None,
    unit: str = "",
    unit_usd: Any = None,
    total_usd: Any = None,
    basis: str = "",
    price_date: str = "",
    source: str = "",
    cost: str = "capex",
) -> ProcurementLine:
    return {
        "cost": cost,
        "category": category,
        "item": item,
        "detail": detail,
        "quantity": quantity,
        "unit": unit,
        "unit_usd": unit_usd,
        "total_usd": total_usd,
        "basis": basis,
        "price_date": price_date,
        "source": source,
    }


def _assumption(output: EstimateResult, key: str) -> Mapping[str, Any]:
    """The engine's assumption `key` (value, unit, source), empty when the result made none."""
    return output.get("assumptions", {}).get(key) or {}


def _planner_input(result: ScenarioResult, name: str) -> dict[str, Any]:
    return next((a for a in result.input_assumptions if a.get("name") == name), {})


def _sources(row: Any) -> str:
    return "; ".join(getattr(row, "source_urls", []) or [])


def _server_line(result: ScenarioResult, scenario: Scenario, row: HardwareBomRow) -> ProcurementLine:
    """The servers line with its price date and source."""
    gpu = scenario.catalog_gpu
    planner_price = _planner_input(result, "economics.gpu_server_usd")
    date, source = "", ""
    if scenario.server_price_usd is None and scenario.system_id and scenario.system.price_usd is not None:
        date, source = scenario.system.price_date, _sources(scenario.system)
    elif planner_price:
        date = gpu.price_date if gpu is not None else ""
        source = adapters.HOST_BOM_SOURCE
    return _line(
        "Compute",
        SERVERS_ROW,
        row["detail"],
        quantity=row["quantity"],
        unit="server",
        unit_usd=row["unit_usd"],
        total_usd=row["total_usd"],
        basis=row["basis"],
        price_date=date or "",
        source=source,
    )


def _host_parts_line(result: ScenarioResult, scenario: Scenario) -> ProcurementLine | None:
    """Non-GPU parts of a planner-priced server (the adapter's HOST_BOM_* figure per GPU slot)."""
    if not _planner_input(result, "economics.gpu_server_usd"):
        return None
    per_server_usd = (
        scenario.gpus_per_node * adapters.HOST_BOM_USD_PER_8_GPU_SERVER / adapters.HOST_BOM_GPU_SLOTS
    )
    return _line(
        "Compute",
        "Host parts",
        f"CPUs, memory, NICs, GPU baseboard, drives, chassis and power supplies ({IN_SERVER_PRICE})",
        quantity=scenario.nodes,
        unit="server",
        unit_usd=per_server_usd,
        basis="non-GPU parts of a DGX H100 per GPU slot",
        source=adapters.HOST_BOM_SOURCE,
    )


def _gpu_line(scenario: Scenario, row: HardwareBomRow) -> ProcurementLine:
    gpu = scenario.catalog_gpu
    date = gpu.price_date if gpu is not None else ""
    source = (gpu.price_source or _sources(gpu)) if gpu is not None else ""
    return _line(
        "Compute",
        GPUS_ROW,
        row["detail"],
        quantity=row["quantity"],
        unit="GPU",
        unit_usd=row["unit_usd"],
        basis=row["basis"],
        price_date=date or "",
        source=source,
    )


def _cpu_line(scenario: Scenario, row: HardwareBomRow) -> ProcurementLine:
    cpu = scenario.cpu if scenario.cpu_id else None
    return _line(
        "Compute",
        CPUS_ROW,
        row["detail"],
        quantity=row["quantity"],
        unit="CPU",
        unit_usd=row["unit_usd"],
        basis=row["basis"],
        source=_sources(cpu) if cpu is not None else "",
    )


def _network_lines(scenario: Scenario, output: EstimateResult) -> list[ProcurementLine]:
    """The engine's network BOM, each line with the assumption (or catalog row) that priced it."""
    network: Mapping[str, Any] = output.get("network") or {}
    lines = []
    for bom_row in network.get("bom") or []:
        item = str(bom_row.get("item", ""))
        key = next((k for prefix, k in NETWORK_PRICE_KEYS if item.startswith(prefix)), SWITCH_PRICE_KEY)
        priced = _assumption(output, key)
        basis = priced.get("source", "")
        source = ""
        if key == SWITCH_PRICE_KEY and not priced and scenario.switch_id:
            basis, source = "catalog switch price", _sources(scenario.switch)
        elif key == SWITCH_PRICE_KEY and scenario.switch_id:
            source = _sources(scenario.switch)
        note = str(bom_row.get("note") or "")
        if key == SWITCH_PRICE_KEY:
            detail = f"{network.get('tiers')}-tier {str(network.get('topology', '')).replace('_', ' ')}"
            detail += f"; {note}" if note else ""
        else:
            detail = note
        lines.append(
            _line(
                "Network",
                item[:1].upper() + item[1:],
                detail,
                quantity=bom_row.get("quantity"),
                unit="unit",
                unit_usd=bom_row.get("unit_usd"),
                total_usd=bom_row.get("total_usd"),
                basis=basis,
                source=source,
            )
        )
    return lines


def _storage_line(output: EstimateResult, row: HardwareBomRow) -> ProcurementLine:
    priced = _assumption(output, "tco.storage_usd_per_tb")
    return _line(
        "Storage",
        STORAGE_ROW,
        row["detail"],
        quantity=row["quantity"],
        unit="TB",
        unit_usd=priced.get("value"),
        total_usd=row["total_usd"],
        basis=priced.get("source", "engine"),
    )


def _facility_lines(result: ScenarioResult, scenario: Scenario) -> list[ProcurementLine]:
    """Racks, then cooling and power: the fit-out when the facility is owned, the colocation rate when rented."""
    output: EstimateResult = result.output
    power: Mapping[str, Any] = output.get("power") or {}
    cost = output.get("cost", {})
    capex: Mapping[str, Any] = cost.get("capex_breakdown_usd") or {}
    opex: Mapping[str, Any] = cost.get("opex_breakdown_usd_per_year") or {}
    colocation_rate = dig(result.input_payload, "economics", "colocation_usd_per_kw_month")
    rented = colocation_rate is not None
    cooling_label = (
        scenario.cooling.name
        if scenario.cooling_id
        else str(_assumption(output, "power.cooling").get("value") or "default")
    )
    lines = []
    if power.get("racks") is not None:
        lines.append(
            _line(
                "Facility",
                "Racks",
                f"{f.quantity(power.get('rack_density_kw'), 'kW')} per rack, "
                f"{f.number(power.get('nodes_per_rack'))} servers per rack",
                quantity=power.get("racks"),
                unit="rack",
                basis="in the colocation rate" if rented else "in the facility fit-out",
                source=_assumption(output, "power.rack_density_w").get("source", ""),
            )
        )
    if rented:
        entry = result.catalog_snapshot.get("colocation") or {}
        lines.append(
            _line(
                "Facility",
                "Cooling and power (colocation)",
                f"{cooling_label}; rented at the colocation rate, {f.usd(opex.get('colocation'))} per year "
                "in the opex, not in the capex",
                quantity=power.get("peak_it_kw"),
                unit="kW·month",
                unit_usd=colocation_rate,
                total_usd=capex.get("facility", 0.0),
                basis=entry.get("label", "colocation rate")
                if scenario.facility == FacilityKind.COLOCATION
                else "",
                price_date=str(dig(entry, "values", "period") or ""),
                source="; ".join(entry.get("sources") or []),
            )
        )
    else:
        priced = _assumption(output, "tco.facility_capex_usd_per_kw")
        lines.append(
            _line(
                "Facility",
                "Cooling and power equipment (fit-out)",
                f"{cooling_label}; per kW of peak IT power",
                quantity=power.get("peak_it_kw"),
                unit="kW",
                unit_usd=priced.get("value"),
                total_usd=capex.get("facility"),
                basis=priced.get("source", "engine"),
                source=_sources(scenario.cooling) if scenario.cooling_id else "",
            )
        )
    return lines


#: Capex lines beyond servers, scale-out fabric, storage and facility (engine capex_breakdown_usd key, category,
#: item, the engine assumption that priced it, the unit).
EXTRA_CAPEX_LINES = (
    (
        "frontend_network",
        "Other networks",
        "Front-end / storage network",
        "tco.frontend_network_usd_per_node",
        "server",
    ),
    (
        "management_network",
        "Other networks",
        "Management network",
        "tco.management_network_usd_per_node",
        "server",
    ),
    ("spares", "Compute", "Spare servers", "tco.nodes_per_spare", "server"),
    ("installation", "Services", "Installation, cabling and acceptance", "tco.installation_fraction", ""),
)
#: Opex lines per year (engine opex_breakdown_usd_per_year key, item, the assumption that priced it).
OPEX_LINES = (
    ("energy", "Electricity", "economics.electricity_usd_per_kwh"),
    ("colocation", "Colocation (space, power and cooling)", ""),
    ("maintenance", "Hardware maintenance and support", "tco.maintenance_fraction_per_year"),
    ("software", "Software licences and support (NVIDIA AI Enterprise)", "tco.software_usd_per_gpu_year"),
    ("staff", "Operations staff", "tco.staff_usd_per_year"),
)
UNSOURCED = "NOT SOURCED: planning assumption"


def _extra_capex_lines(result: ScenarioResult, scenario: Scenario) -> list[dict[str, Any]]:
    output = result.output
    capex = dig(output, "cost", "capex_breakdown_usd") or {}
    lines = []
    for key, category, item, assumption, unit in EXTRA_CAPEX_LINES:
        total = capex.get(key)
        if not total:
            continue
        priced = _assumption(output, assumption)
        if key == "spares":
            quantity = dig(output, "cost", "spare_nodes")
            unit_usd = dig(result.input_payload, "economics", "gpu_server_usd")
        elif key == "installation":
            quantity, unit_usd = None, None
        else:
            quantity, unit_usd = scenario.nodes, priced.get("value")
        lines.append(
            _line(
                category,
                item,
                f"{priced.get('value')} {priced.get('unit', '')}".strip() if key == "installation" else "",
                quantity=quantity,
                unit=unit,
                unit_usd=unit_usd,
                total_usd=total,
                basis=priced.get("source", ""),
            )
        )
    return lines


def _opex_lines(result: ScenarioResult) -> list[dict[str, Any]]:
    output = result.output
    opex = dig(output, "cost", "opex_breakdown_usd_per_year") or {}
    lines = []
    for key, item, assumption in OPEX_LINES:
        total = opex.get(key)
        if not total:
            continue
        priced = _assumption(output, assumption) if assumption else {}
        detail = ""
        if key == "staff":
            detail = f"{f.number(dig(output, 'cost', 'staff_fte'))} FTE"
        elif key == "energy":
            detail = f"{f.number(dig(output, 'cost', 'billed_energy_mwh_per_year'))} MWh per year"
        lines.append(
            _line(
                "Opex per year",
                item,
                detail,
                unit="year",
                unit_usd=priced.get("value") if key in {"software"} else None,
                total_usd=total,
                basis=priced.get(
                    "source", "colocation rate (see the facility lines)" if key == "colocation" else ""
                ),
                cost="opex per year",
            )
        )
    return lines


def _mark_unsourced(lines: list[dict[str, Any]]) -> None:
    """A priced line with neither a price basis nor a source says so (no unsourced line unmarked)."""
    for line in lines:
        priced = isinstance(line.get("total_usd"), int | float) and line["total_usd"] > 0
        if priced and not str(line.get("basis") or "").strip() and not str(line.get("source") or "").strip():
            line["basis"] = UNSOURCED


def procurement_bom(*, result: ScenarioResult, scenario: Scenario) -> list[ProcurementLine]:
    """Every line of the bill of materials, in procurement order (compute, network, storage, facility, other
    capex, then opex per year). Capex lines add up to the engine's capex, opex lines to its opex per year."""
    lines = _capex_lines(result=result, scenario=scenario)
    lines.extend(_extra_capex_lines(result, scenario))
    lines.extend(_opex_lines(result))
    _mark_unsourced(lines)
    return lines


def _capex_lines(*, result: ScenarioResult, scenario: Scenario) -> list[dict[str, Any]]:
    output = result.output
    lines: list[dict[str, Any]] = []
    for row in hardware_bom(result=result, scenario=scenario):
        item = row["item"]
        if item == SERVERS_ROW:
            lines.append(_server_line(result, scenario, row))
        elif item == GPUS_ROW:
            lines.append(_gpu_line(scenario, row))
            host = _host_parts_line(result, scenario)
            if host is not None:
                lines.append(host)
        elif item == CPUS_ROW:
            lines.append(_cpu_line(scenario, row))
        elif item == NETWORK_ROW:
            lines.extend(_network_lines(scenario, output))
        elif item == STORAGE_ROW:
            lines.append(_storage_line(output, row))
        elif item != FACILITY_ROW:
            lines.append(
                _line("Other", item, row["detail"], quantity=row["quantity"], total_usd=row["total_usd"])
            )
    if output.get("network") and not any(line["category"] == "Network" for line in lines):
        lines.extend(_network_lines(scenario, output))
    lines.extend(_facility_lines(result, scenario))
    return lines


def bom_total_usd(lines: list[ProcurementLine], cost: str = "capex") -> float:
    """The sum of the extended prices of one kind of line ("capex", or "opex per year"); lines priced inside
    another line have none."""
    return sum(
        line["total_usd"]
        for line in lines
        if line.get("cost", "capex") == cost and isinstance(line.get("total_usd"), int | float)
    )
