"""`build_seed --from DIR` turns reference CSVs into seed files, parsing messy cells and refusing bad ones."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalog.seed_schema import KINDS, SeedKind

SOURCE = "https://example.com/ref"


def reference_headers(kind: SeedKind) -> list[str]:
    return [column.ref for column in kind.all_columns if column.ref is not None]


def write_reference(folder: Path, overrides: dict[str, dict[str, str]]) -> None:
    """One row per kind: id, source, verified, plus the cells given in `overrides[kind]`."""
    for kind in KINDS:
        headers = reference_headers(kind)
        row = dict.fromkeys(headers, "")
        row.update({"id": f"ref_{kind.name}", "source": SOURCE, "verified": "yes"})
        row.update(overrides.get(kind.name, {}))
        with (folder / kind.filename).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=headers)
            writer.writeheader()
            writer.writerow(row)


def read_seed(folder: Path, name: str) -> list[dict[str, str]]:
    with (folder / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_it_builds_seed_rows_from_messy_reference_cells(tmp_path):
    reference, seed = tmp_path / "ref", tmp_path / "seed"
    reference.mkdir()
    write_reference(
        reference,
        {
            "gpus": {"memory_gb": "80", "price_usd": "25000-30000", "tdp_w": "700"},
            "switches": {"ports": "64 (32 twin-port OSFP)", "switching_capacity_tbps": "7.2 TB/s per chip"},
            "cooling": {"max_rack_density_kw_typical": "15-20", "max_rack_density_kw_high": "120+"},
            "systems": {"price_usd": "~3000000"},
        },
    )
    call_command("build_seed", "--from", str(reference), "--to", str(seed), stdout=io.StringIO())
    gpu = read_seed(seed, "gpus")[0]
    assert (gpu["price_usd"], gpu["price_low_usd"], gpu["price_high_usd"]) == ("27500", "25000", "30000")
    switch = read_seed(seed, "switches")[0]
    assert (switch["ports"], switch["ports_text"], switch["switching_capacity_tbps"]) == (
        "64",
        "64 (32 twin-port OSFP)",
        "",
    )
    assert "switching_capacity_tbps: 7.2 TB/s per chip" in switch["raw_cells"]
    cooling = read_seed(seed, "cooling")[0]
    assert (cooling["rack_density_kw_typical"], cooling["rack_density_kw_typical_low"]) == ("17.5", "15")
    assert cooling["rack_density_kw_high"] == "120"
    assert read_seed(seed, "systems")[0]["price_usd"] == "3000000"
    economics = read_seed(seed, "economics")
    assert [row["category"] for row in economics] == ["", "grid carbon"]  # the reference row + the added one


def test_it_names_the_file_row_and_column_of_an_unreadable_cell(tmp_path):
    write_reference(tmp_path, {"gpus": {"tdp_w": "about seven hundred"}})
    with pytest.raises(CommandError, match=r"gpus.csv row 'ref_gpus' column 'tdp_w'"):
        call_command("build_seed", "--from", str(tmp_path), "--to", str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()  # nothing written when any file is bad


def test_it_refuses_a_reference_row_without_a_source(tmp_path):
    write_reference(tmp_path, {"cpus": {"source": ""}})
    with pytest.raises(CommandError, match="ref_cpus.*no source"):
        call_command("build_seed", "--from", str(tmp_path), "--to", str(tmp_path / "out"))


def test_it_refuses_reference_files_whose_columns_changed(tmp_path):
    write_reference(tmp_path, {})
    path = tmp_path / "cpus.csv"
    path.write_text(path.read_text().replace("family_codename", "codename", 1))
    with pytest.raises(CommandError, match="reference columns changed"):
        call_command("build_seed", "--from", str(tmp_path), "--to", str(tmp_path / "out"))
