"""CSV exports: each loads with pandas and its numbers are the engine's; a million-row sweep streams in bounded
memory."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.urls import reverse

from catalog.models import Gpu
from planner.engine.search import sweep as engine_sweep
from planner.engine.search.sweep.rows import FLOAT_COLUMNS
from planner.reports import columns as cols
from planner.reports.procurement import procurement_bom
from planner.sensitivity import sensitivity_table
from planner.sweeps import columns as sweep_cols
from planner.sweeps.models import ChunkStatus, SweepChunk, SweepRun, SweepStatus

pytestmark = pytest.mark.django_db


def _csv(response) -> pd.DataFrame:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response.streaming
    return pd.read_csv(io.BytesIO(b"".join(response.streaming_content)), float_precision="round_trip")


def _same(a, b) -> bool:
    if b is None:
        return a is None or (isinstance(a, float) and math.isnan(a))
    if isinstance(b, bool):
        return str(a) == str(b)
    if isinstance(b, int | float):
        return float(a) == float(b)
    return str(a) == str(b)


def test_results_csv_has_one_row_per_metric_with_the_engines_value_and_unit(client, alice, alice_scenario):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:scenario_metrics_csv", args=[alice_scenario.pk])))
    assert list(frame.columns) == ["metric", "value", "unit", "key"]
    output = alice_scenario.latest_result.output
    expected = {c.key: c for c in cols.report_metrics_for("training") if c.value(output) is not None}
    assert set(frame["key"]) == set(expected)
    for _, row in frame.iterrows():
        column = expected[row["key"]]
        assert row["metric"] == column.header
        assert _same(row["value"], column.value(output)), row["key"]
        assert (row["unit"] if isinstance(row["unit"], str) else "") == column.unit
    days = frame.set_index("key").loc["days", "value"]
    assert float(days) == output["time"]["days"]


def test_bom_csv_lists_every_line_and_its_extended_prices_add_up_to_the_engines_capex(
    client, alice, alice_scenario
):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:scenario_bom_csv", args=[alice_scenario.pk])))
    assert list(frame.columns) == [c.header_with_unit for c in cols.PROCUREMENT_BOM_COLUMNS]
    result = alice_scenario.latest_result
    lines = procurement_bom(result=result, scenario=alice_scenario)
    assert list(frame["Item"]) == [line["item"] for line in lines]
    capex_lines = frame[frame["Capex or opex"] == "capex"]
    opex_lines = frame[frame["Capex or opex"] == "opex per year"]
    assert capex_lines["Extended price (USD)"].sum() == pytest.approx(
        result.output["cost"]["capex_usd"], rel=1e-12
    )
    assert opex_lines["Extended price (USD)"].sum() == pytest.approx(
        result.output["cost"]["opex_usd_per_year"], rel=1e-12
    )
    assert {"Operations staff", "Electricity", "Software licences and support (NVIDIA AI Enterprise)"} <= set(
        opex_lines["Item"]
    )
    assert {"Front-end / storage network", "Management network", "Spare servers", "Storage"} <= set(
        capex_lines["Item"]
    )
    # No priced line is left without a price basis or a source (unsourced ones are marked as such).
    priced = frame[frame["Extended price (USD)"].fillna(0) > 0]
    assert not priced[priced["Price basis"].fillna("").eq("") & priced["Source"].fillna("").eq("")].shape[0]
    network = {row["item"]: row for row in result.output["network"]["bom"]}
    for _, row in frame[frame["Category"] == "Network"].iterrows():
        key = row["Item"] if row["Item"] in network else row["Item"][0].lower() + row["Item"][1:]
        engine_row = network[key]
        assert row["Quantity"] == engine_row["quantity"]
        assert row["Unit price (USD)"] == engine_row["unit_usd"]
        assert row["Extended price (USD)"] == engine_row["total_usd"]
    servers = frame[frame["Item"] == "Servers"].iloc[0]
    assert servers["Quantity"] == alice_scenario.nodes
    assert servers["Unit price (USD)"] == result.input_payload["economics"]["gpu_server_usd"]


def test_tco_csv_is_the_engines_cost_by_year(client, alice, alice_scenario):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:scenario_tco_csv", args=[alice_scenario.pk])))
    yearly = alice_scenario.latest_result.output["cost"]["yearly"]
    assert list(frame.columns) == [c.header_with_unit for c in cols.YEARLY_COLUMNS]
    assert frame["Year"].tolist() == [row["year"] for row in yearly]
    assert frame["Cumulative (USD)"].tolist() == [row["cumulative_usd"] for row in yearly]
    assert frame["Opex (USD)"].tolist() == [row["opex_usd"] for row in yearly]


def test_sensitivity_csv_has_the_baseline_and_each_driver_at_minus_and_plus_twenty_percent(
    client, alice, alice_scenario
):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:scenario_sensitivity_csv", args=[alice_scenario.pk])))
    result = alice_scenario.latest_result
    table = sensitivity_table(payload=result.input_payload, output=result.output)
    assert frame["Factor"].tolist() == [row["factor"] for row in table.all_rows]
    assert frame["Change"].tolist() == [0.0] + [-0.2, 0.2] * 4
    assert frame["TCO (USD)"].tolist() == [row["tco_usd"] for row in table.all_rows]


def test_comparison_csv_puts_each_scenarios_raw_figures_side_by_side(
    client, alice, alice_scenario, alice_b200
):
    client.force_login(alice)
    url = reverse("reports:comparison_csv") + f"?ids={alice_scenario.pk}&ids={alice_b200.pk}"
    frame = _csv(client.get(url)).set_index("key")
    names = [f"{s.name} (#{s.pk})" for s in (alice_scenario, alice_b200)]
    assert list(frame.columns) == ["metric", "unit", *names]
    for scenario, name in zip((alice_scenario, alice_b200), names, strict=True):
        output = scenario.latest_result.output
        assert float(frame.loc["days", name]) == output["time"]["days"]
        assert float(frame.loc["tco_usd", name]) == output["cost"]["tco_usd"]
        assert int(frame.loc["total_gpus", name]) == scenario.total_gpus


def test_comparison_csv_defuses_a_scenario_name_that_a_spreadsheet_would_run(
    client, alice, alice_scenario, alice_b200
):
    alice_b200.name = '=HYPERLINK("http://evil.example","x")'
    alice_b200.save()
    client.force_login(alice)
    url = reverse("reports:comparison_csv") + f"?ids={alice_scenario.pk}&ids={alice_b200.pk}"
    header = b"".join(client.get(url).streaming_content).decode().splitlines()[0]
    assert "'=HYPERLINK" in header and ",=HYPERLINK" not in header


def test_catalog_csv_is_the_admin_export_of_the_table_for_signed_in_users(client, alice, catalog):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:catalog_csv", args=["gpus"])))
    assert len(frame) == Gpu.objects.count()
    h100 = frame.set_index("id").loc["nvidia_h100_sxm5_80gb"]
    gpu = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    assert float(h100["memory_gb"]) == gpu.memory_gb and float(h100["price_usd"]) == gpu.price_usd
    assert client.get(reverse("reports:catalog_csv", args=["passwords"])).status_code == 404


def test_sweep_csv_lists_every_evaluated_configuration_with_the_stored_figures(client, alice, alice_sweep):
    client.force_login(alice)
    frame = _csv(client.get(reverse("reports:sweep_csv", args=[alice_sweep.pk])))
    assert list(frame.columns) == [c.header_with_unit for c in sweep_cols.SWEEP_COLUMNS]
    assert len(frame) == alice_sweep.evaluated_configs == alice_sweep.result["evaluated"]
    stored = [engine_sweep.unpack_rows(c.rows) for c in alice_sweep.chunks.order_by("index")]
    for column in sweep_cols.SWEEP_COLUMNS:
        if column.key in ("gpu_label", "recompute"):
            continue
        expected = np.concatenate([rows[column.key] for rows in stored])
        written = frame[column.header_with_unit].to_numpy().astype(expected.dtype)
        assert np.array_equal(written, expected), column.key
    labels = [g["label"] for g in alice_sweep.spec["gpus"]]
    gpus = np.concatenate([rows["gpu"] for rows in stored])
    assert frame["GPU model"].tolist() == [labels[i] for i in gpus]
    # the ranked lists keep the engine's float64 figures; the stored rows (and so the CSV) are their float32
    best = alice_sweep.result["best"]["min_time"][0]
    days = frame["Training time (days)"].to_numpy().astype(np.float32)
    tco = frame["TCO (USD)"].to_numpy().astype(np.float32)
    match = frame[(days == np.float32(best["days"])) & (tco == np.float32(best["tco_usd"]))]
    assert best["gpu_label"] in set(match["GPU model"])


MILLION = 1_000_000
CHUNK_ROWS = 100_000  # SWEEP_CHUNK_CONFIGS default
#: Peak resident memory growth allowed while streaming a million rows (~130 MB of CSV): one chunk's arrays
#: (~20 MB) and one slice of rows, with room for the allocator.
STREAM_RSS_GROWTH_MAX_KB = 80 * 1024


def _rss_kb() -> tuple[int, int]:
    """(peak, current) resident set size of this process in kB (Linux /proc)."""
    status = Path("/proc/self/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", status)[1]), int(re.search(r"VmRSS:\s+(\d+)", status)[1])


def _synthetic_chunk(index: int, rng: np.random.Generator) -> bytes:
    rows = {key: rng.integers(0, 2, CHUNK_ROWS) for key, _ in engine_sweep.ROW_COLUMNS}
    for key in FLOAT_COLUMNS:
        rows[key] = rng.random(CHUNK_ROWS) * 1e6
    rows["recompute"] = rng.integers(0, 3, CHUNK_ROWS)
    rows["nodes"] = np.full(CHUNK_ROWS, index + 1)
    return engine_sweep.pack_rows(rows)


def test_a_million_row_sweep_csv_streams_in_bounded_memory(client, alice, catalog):
    from tests.reports.conftest import sweep_spec

    run = SweepRun.objects.create(
        owner=alice,
        name="Million",
        spec=sweep_spec(),
        status=SweepStatus.DONE,
        engine_version="test",
        total_configs=MILLION,
        evaluated_configs=MILLION,
        chunks_total=MILLION // CHUNK_ROWS,
    )
    rng = np.random.default_rng(6)
    for index in range(MILLION // CHUNK_ROWS):
        SweepChunk.objects.create(
            run=run,
            index=index,
            pieces=[],
            size=CHUNK_ROWS,
            status=ChunkStatus.DONE,
            rows=_synthetic_chunk(index, rng),
        )
    client.force_login(alice)
    response = client.get(reverse("reports:sweep_csv", args=[run.pk]))
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current RSS
    _, before_kb = _rss_kb()
    lines, total_bytes, last_nodes = 0, 0, b""
    for piece in response.streaming_content:
        total_bytes += len(piece)
        lines += piece.count(b"\n")
        last_nodes = piece.rsplit(b"\n", 2)[-2].split(b",")[1]
    peak_kb, _ = _rss_kb()
    assert lines == MILLION + 1
    assert last_nodes == str(MILLION // CHUNK_ROWS).encode()
    assert total_bytes > 1.5 * STREAM_RSS_GROWTH_MAX_KB * 1024
    assert peak_kb - before_kb < STREAM_RSS_GROWTH_MAX_KB, f"grew {(peak_kb - before_kb) / 1024:.0f} MiB"
