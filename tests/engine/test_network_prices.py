"""The engine's network price defaults are the catalog's part prices (one home: catalog/seed/prices.csv)."""

from __future__ import annotations

import csv
from pathlib import Path

from planner.engine.facility import network

PRICES = Path(__file__).resolve().parents[2] / "catalog" / "seed" / "prices.csv"


def _price(row_id: str) -> float:
    with PRICES.open(newline="", encoding="utf-8") as handle:
        return next(float(row["price_usd"]) for row in csv.DictReader(handle) if row["id"] == row_id)


def test_network_price_defaults_equal_the_catalog_part_prices():
    assert _price("price_nvidia_qm9700") == network.SWITCH_USD_DEFAULT
    assert _price("price_nic_cx7") == network.NIC_USD_DEFAULT
    assert _price("price_xcvr_osfp_400g") == network.TRANSCEIVER_USD_DEFAULT
    assert _price("price_cable_mpo_trunk") == network.CABLE_USD_DEFAULT


def test_no_network_price_is_echoed_as_unsourced():
    echoed = network.assumptions()
    for key in ("network.switch_usd", "network.nic_usd", "network.transceiver_usd", "network.cable_usd"):
        assert "not sourced" not in echoed[key]["source"], key
    assert echoed["network.switch_usd"]["source"].startswith("ESTIMATE")
