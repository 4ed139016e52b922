"""The committed seed files: complete, sourced, and usable by the engine without a database."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from catalog.loader import SEED_DIR
from catalog.seed_schema import GPUS, LOADED_KINDS
from catalog.validators import split_sources

# Row counts of the reference catalog (its README table: gpus 26, cpus 11, interconnects 33, switches 9,
# systems 8, cooling 13, economics 26) plus the one grid-carbon row the builder adds to economics, and the two
# hand-written price files (part prices, cloud prices per GPU).
EXPECTED_ROWS = {
    "gpus": 26,
    "cpus": 11,
    "interconnects": 33,
    "switches": 9,
    "systems": 8,
    "cooling": 13,
    "economics": 27,
    "prices": 44,
    "cloud_prices": 56,
}

# Columns the sizing engine reads from gpus.csv without a database (catalog_models.md).
ENGINE_GPU_COLUMNS = {
    "id", "vendor", "model", "memory_gb", "mem_bandwidth_tbs", "fp32_tflops", "tf32_tflops_dense",
    "bf16_tflops_dense", "fp16_tflops_dense", "fp8_tflops_dense", "int8_tops_dense", "fp4_tflops_dense",
    "tdp_w", "scaleup_bw_gbs_bidir", "price_usd", "source",
}  # fmt: skip


def read_rows(name: str) -> list[dict[str, str]]:
    with (SEED_DIR / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("kind", LOADED_KINDS, ids=lambda kind: kind.name)
def test_each_seed_file_has_the_reference_row_count_and_its_declared_columns(kind):
    with (SEED_DIR / kind.filename).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames == kind.headers
    assert len(rows) == EXPECTED_ROWS[kind.name]
    assert len({row["id"] for row in rows}) == len(rows)


@pytest.mark.parametrize("kind", LOADED_KINDS, ids=lambda kind: kind.name)
def test_every_seed_row_has_a_source_url_and_a_verified_flag(kind):
    for row in read_rows(kind.name):
        urls = split_sources(row["source"])
        assert urls, f"{kind.filename} {row['id']} has no source"
        assert all(url.startswith(("http://", "https://")) for url in urls), row["id"]
        assert row["verified"] in {"yes", "no"}, row["id"]


def test_gpu_seed_keeps_the_column_names_the_engine_reads():
    assert set(GPUS.headers) >= ENGINE_GPU_COLUMNS


def test_every_gpu_has_its_key_specs_or_a_note_saying_why_not():
    reasons = {
        "memory_gb": ("memory",),
        "mem_bandwidth_tbs": ("bandwidth",),
        "tdp_w": ("power", "tdp"),
        "16-bit": ("tflops", "tensor"),
    }
    for row in read_rows("gpus"):
        notes = row["notes"].lower()
        values = dict(row)
        values["16-bit"] = row["bf16_tflops_dense"] or row["fp16_tflops_dense"]
        for column, words in reasons.items():
            if not values[column]:
                assert any(word in notes for word in words), (
                    f"{row['id']}: no {column} and no note explaining it"
                )


def test_price_ranges_are_stored_as_midpoint_with_low_and_high():
    h100 = next(row for row in read_rows("gpus") if row["id"] == "nvidia_h100_sxm5_80gb")
    assert (h100["price_usd"], h100["price_low_usd"], h100["price_high_usd"]) == ("27500", "25000", "30000")
    assert "price_usd: 25000-30000" in h100["raw_cells"]


def test_switch_ports_are_numbers_with_the_original_cell_kept():
    switches = {row["id"]: row for row in read_rows("switches")}
    assert switches["nvidia_qm9700"]["ports"] == "64"
    assert switches["nvidia_qm9700"]["ports_text"] == "64 (32 twin-port OSFP)"
    assert switches["nvidia_nvswitch_gen2_dgxa100"]["ports"] == ""  # "6 switch chips ..." is not a port count


def test_grid_carbon_row_carries_the_eia_figure_and_source():
    row = next(row for row in read_rows("economics") if row["category"] == "grid carbon")
    assert float(row["value"]) == pytest.approx(0.81 * 0.45359237, abs=5e-4)
    assert row["unit"] == "kg CO2/kWh"
    assert row["source"] == "https://www.eia.gov/tools/faqs/faq.php?id=74&t=11"
    assert row["verified"] == "no"
    assert "EIA FAQ" in row["notes"]


def test_the_project_does_not_read_the_shared_reference_at_run_time():
    for path in Path(SEED_DIR).parent.rglob("*.py"):
        if path.name in {"seed_builder.py", "build_seed.py"}:
            continue  # the builder reads the folder given by --from, not a fixed path
        assert "/work/shared" not in path.read_text() and "../shared" not in path.read_text(), path
