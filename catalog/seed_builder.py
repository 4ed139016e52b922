"""Build catalog/seed/*.csv from the reference catalog CSVs (run: `manage.py build_seed --from DIR`).

Every reference row is kept with its `source`; messy cells are parsed here (see catalog/parsing.py) and the
original text of every cell that was not a plain number is kept in the row's `raw_cells` column, so nothing
said in the reference is lost. The generated files are committed; the app never reads the reference at run time.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from catalog.parsing import CellParseError, format_number, parse_cell
from catalog.seed_schema import KINDS, SeedKind

#: Pounds to kilograms, exact by definition (International Yard and Pound Agreement, 1959).
KG_PER_LB = 0.45359237

#: EIA FAQ "How much carbon dioxide is produced per kilowatthour of U.S. electricity generation?": 0.81 lb/kWh (2023).
EIA_US_GRID_CO2_LB_PER_KWH_2023 = 0.81

#: Rows the reference lacks that the planner needs, with their own sources.
EXTRA_ROWS: dict[str, list[dict[str, str]]] = {
    "economics": [
        {
            "id": "grid_carbon_us_2023",
            "category": "grid carbon",
            "region": "US (national average)",
            "metric": "CO2 emissions per kWh of utility-scale electricity generation",
            "value": format_number(round(EIA_US_GRID_CO2_LB_PER_KWH_2023 * KG_PER_LB, 3)),
            "value_low": "",
            "value_high": "",
            "value_text": "0.81 lb CO2/kWh",
            "unit": "kg CO2/kWh",
            "period": "2023",
            "source": "https://www.eia.gov/tools/faqs/faq.php?id=74&t=11",
            "verified": "no",
            "notes": "EIA FAQ figure: about 0.81 lb of CO2 per kWh of US utility-scale generation in 2023, "
            "converted at 0.45359237 kg/lb = 0.367 kg/kWh. Added by the catalog builder (not in the reference "
            "catalog); the page was not re-checked when the row was added.",
            "raw_cells": "",
        }
    ]
}

#: Reference rows without a source URL, with the references their derivation rests on and why.
SOURCE_FILL_INS: dict[str, tuple[str, str]] = {
    "topo_fat_tree_oversub": (
        "https://www.adrian.idv.hk/2011-03-21-alv08-dcn/; https://infinitelexicon.com/Fattree",
        "Catalog builder: the reference row had no source; these are the fat-tree references "
        "(Al-Fares et al. 2008) the r:1 port arithmetic builds on. The oversubscribed formula itself is derived.",
    ),
}

_BOOLEAN_CELLS = {"yes": "yes", "no": "no", "": ""}


class SeedBuildError(ValueError):
    """The reference data does not fit the seed schema; the message names the file, row and column."""


def _read_reference(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _check_headers(kind: SeedKind, headers: Iterable[str]) -> None:
    expected = {column.ref for column in kind.all_columns if column.ref is not None}
    found = set(headers)
    if found != expected:
        raise SeedBuildError(
            f"{kind.filename}: reference columns changed; unexpected {sorted(found - expected)}, "
            f"missing {sorted(expected - found)}. Update catalog/seed_schema.py."
        )


def build_row(kind: SeedKind, ref_row: dict[str, str]) -> dict[str, str]:
    """One reference row -> one seed row (all cells as text)."""
    row_id = (ref_row.get("id") or "").strip()
    out = dict.fromkeys(kind.headers, "")
    raw_cells: list[str] = []
    for column in kind.all_columns:
        if column.ref is None:
            continue
        cell = (ref_row.get(column.ref) or "").strip()
        where = f"{kind.filename} row {row_id!r} column {column.ref!r}"
        if column.kind == "text":
            out[column.seed] = cell
        elif column.kind == "bool":
            if cell.lower() not in _BOOLEAN_CELLS:
                raise SeedBuildError(f"{where}: expected yes/no, got {cell!r}")
            out[column.seed] = _BOOLEAN_CELLS[cell.lower()]
        else:
            try:
                parsed = parse_cell(cell, column.policy)
            except CellParseError as exc:
                raise SeedBuildError(f"{where}: {exc}") from exc
            if column.keep_text:
                out[column.keep_text] = cell
            if parsed is None:
                if cell and not column.keep_text:
                    raw_cells.append(f"{column.seed}: {cell}")
                continue
            if column.kind == "int" and not float(parsed.value).is_integer():
                raise SeedBuildError(f"{where}: expected a whole number, got {cell!r}")
            out[column.seed] = format_number(parsed.value)
            if column.low and parsed.low is not None:
                out[column.low] = format_number(parsed.low)
            if column.high and parsed.high is not None:
                out[column.high] = format_number(parsed.high)
            if not parsed.is_plain and not column.keep_text:
                raw_cells.append(f"{column.seed}: {cell}")
    out["raw_cells"] = "\n".join(raw_cells)
    if not out["source"]:
        if row_id not in SOURCE_FILL_INS:
            raise SeedBuildError(f"{kind.filename} row {row_id!r}: no source URL")
        out["source"], note = SOURCE_FILL_INS[row_id]
        out["notes"] = f"{out['notes']} {note}".strip()
    return out


def build_kind(kind: SeedKind, reference_dir: Path) -> list[dict[str, str]]:
    headers, ref_rows = _read_reference(reference_dir / kind.filename)
    _check_headers(kind, headers)
    rows = [build_row(kind, ref_row) for ref_row in ref_rows]
    rows.extend(dict(row) for row in EXTRA_ROWS.get(kind.name, []))
    seen: set[str] = set()
    for row in rows:
        if not row["id"] or row["id"] in seen:
            raise SeedBuildError(f"{kind.filename}: missing or duplicate id {row['id']!r}")
        seen.add(row["id"])
    return rows


def write_seed(kind: SeedKind, rows: list[dict[str, str]], seed_dir: Path) -> Path:
    path = seed_dir / kind.filename
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=kind.headers, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def build_seed(*, reference_dir: Path, seed_dir: Path) -> dict[str, int]:
    """Build every seed file; returns rows written per kind. Builds all kinds before writing any file."""
    built = {kind.name: build_kind(kind, reference_dir) for kind in KINDS}
    seed_dir.mkdir(parents=True, exist_ok=True)
    for kind in KINDS:
        write_seed(kind, built[kind.name], seed_dir)
    return {name: len(rows) for name, rows in built.items()}
