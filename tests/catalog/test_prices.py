"""Every price the engine uses has a kind, a date and a source; every GPU has a cloud price row (or one saying
there is no public offering); estimates say how they were made (issue 15, point 1)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from catalog.loader import SEED_DIR
from catalog.validators import split_sources

PRICE_KINDS = {"list", "street", "quote", "estimate", "not_sold"}


def read(name: str, seed_dir: Path = SEED_DIR) -> list[dict[str, str]]:
    with (seed_dir / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def price_problems(row: dict[str, str], *, source_column: str) -> list[str]:
    """What is missing from one priced seed row: a price (unless not sold), its kind, its date, its source, and
    for an estimate the method (in `estimate_method` or the basis text)."""
    problems: list[str] = []
    kind = row.get("price_kind", "")
    if kind not in PRICE_KINDS:
        problems.append(f"price kind {kind!r}")
    if kind != "not_sold" and not row.get("price_usd"):
        problems.append("no price")
    if kind != "not_sold" and not row.get("price_date"):
        problems.append("no price date")
    sources = split_sources(row.get(source_column) or row.get("source", ""))
    if not sources or not all(url.startswith(("http://", "https://")) for url in sources):
        problems.append("no price source")
    method = row.get("estimate_method") or row.get("price_basis", "")
    if kind == "estimate" and not method.strip():
        problems.append("an estimate without its method")
    return problems


@pytest.mark.parametrize(
    ("name", "source_column"), [("gpus", "price_source"), ("systems", "price_source"), ("prices", "source")]
)
def test_every_priced_seed_row_has_a_price_kind_date_and_source(name, source_column):
    bad = {row["id"]: price_problems(row, source_column=source_column) for row in read(name)}
    assert {row_id: problems for row_id, problems in bad.items() if problems} == {}


def test_a_row_that_loses_its_source_is_caught():
    row = dict(read("gpus")[0])
    assert price_problems(row, source_column="price_source") == []
    row["price_source"] = ""
    row["source"] = ""
    assert price_problems(row, source_column="price_source") == ["no price source"]
    part = dict(next(r for r in read("prices") if r["price_kind"] == "estimate"))
    part["estimate_method"] = ""
    assert "an estimate without its method" in price_problems(part, source_column="source")


def test_every_cpu_switch_nic_optic_and_cooling_technology_has_a_part_price():
    priced = {row["part_id"] for row in read("prices") if row["part_id"]}
    cpus = {row["id"] for row in read("cpus")}
    switches = {row["id"] for row in read("switches")}
    parts = {
        row["id"] for row in read("interconnects") if row["category"] in {"NIC", "DPU", "optical transceiver"}
    }
    cooling = {row["id"] for row in read("cooling") if row["category"] == "cooling technology"}
    assert (cpus | switches | parts | cooling) - priced == set()
    kinds = {row["part_kind"] for row in read("prices")}
    assert {"cable", "storage", "software", "service", "staff", "facility"} <= kinds


def test_every_gpu_has_a_cloud_price_or_a_no_offering_row_with_its_source():
    rows = read("cloud_prices")
    gpus = {row["id"] for row in read("gpus")}
    assert {row["gpu_id"] for row in rows} == gpus
    for row in rows:
        assert split_sources(row["source"]), row["id"]
        assert row["price_date"], row["id"]
        if row["term"] == "none":
            assert row["usd_per_gpu_hour"] == "" and row["notes"], row["id"]
        else:
            assert float(row["usd_per_gpu_hour"]) > 0, row["id"]
    providers = {row["provider"] for row in rows if row["term"] != "none"}
    assert {"AWS", "Oracle", "CoreWeave", "Lambda", "RunPod", "Google Cloud", "Azure"} <= providers
    assert {row["term"] for row in rows} >= {"on_demand", "commit_1y", "commit_3y", "none"}


def test_dense_bf16_peaks_of_the_gpus_a_sweep_needs_are_filled():
    gpus = {row["id"]: row for row in read("gpus")}
    for gpu_id in ("nvidia_a10", "nvidia_h100_nvl_94gb", "nvidia_rtx6000_ada"):
        assert float(gpus[gpu_id]["bf16_tflops_dense"]) > 0, gpu_id
