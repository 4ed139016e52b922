"""IT and facility power, PUE, racks, energy, carbon and the reverse question."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.engine.facility.power import (
    COOLING_PRESETS,
    GPU_LOAD_FACTOR_DEFAULT,
    HOST_POWER_W_PER_GPU_DEFAULT,
    NETWORK_POWER_W_PER_GPU_DEFAULT,
    PUE_DEFAULT,
    CoolingSpec,
    PowerInputs,
    carbon_kg,
    cooling_from,
    cooling_preset,
    energy_j,
    estimate_power,
    max_gpus_for_power,
    node_it_power_w,
)
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.units import DAY, HOUR, KW, KWH, YEAR

AIR = COOLING_PRESETS["air_crac_crah"]
DLC = COOLING_PRESETS["dlc_cold_plate"]


def h100_nodes(nodes: int, **kw) -> PowerInputs:
    return PowerInputs(nodes=nodes, gpus_per_node=8, gpu_tdp_w=700.0, **kw)


# Validation README: an 8x H100 node averaged 6.741 kW DC in MLPerf Training v4.0 (smc.co, MLCommons power)
def test_default_parts_model_reproduces_the_measured_mlperf_h100_node():
    gpus_w, host_w = node_it_power_w(h100_nodes(1))
    assert gpus_w == pytest.approx(8 * 700 * GPU_LOAD_FACTOR_DEFAULT)
    assert gpus_w + host_w == pytest.approx(6741.0, rel=1e-12)
    host_w_per_gpu = HOST_POWER_W_PER_GPU_DEFAULT
    assert host_w_per_gpu == pytest.approx((6741 - 8 * 700 * 0.85) / 8)


def test_node_max_power_is_scaled_by_the_measured_utilisation():
    result = estimate_power(h100_nodes(1, node_max_power_w=10_200.0), AIR)
    assert result.it_power_w == pytest.approx(6741.0, rel=1e-12)  # 10.2 kW x 6.741/10.2
    assert result.peak_it_power_w == pytest.approx(10_200.0)


def test_it_and_facility_power_add_up_by_hand():
    inputs = h100_nodes(
        16, host_power_w_per_node=2000.0, network_power_w=10_000.0, storage_power_w=2_000.0, pue=1.2
    )
    result = estimate_power(inputs, AIR)
    it_w = 16 * (8 * 700 * 0.85 + 2000) + 10_000 + 2_000
    assert result.it_power_w == pytest.approx(it_w)
    assert result.facility_power_w == pytest.approx(it_w * 1.2)
    out = result.as_dict()
    assert out["breakdown_kw"]["gpus"] == pytest.approx(16 * 8 * 700 * 0.85 / 1e3)
    assert out["breakdown_kw"]["hosts"] == pytest.approx(32.0)
    assert out["breakdown_kw"]["cooling_overhead"] == pytest.approx(it_w * 0.2 / 1e3)
    assert sum(out["breakdown_kw"].values()) == pytest.approx(out["facility_kw"])


def test_pue_comes_from_the_input_then_the_cooling_then_the_default():
    assert estimate_power(h100_nodes(2, pue=1.4), DLC).pue == 1.4
    assert estimate_power(h100_nodes(2), DLC).pue == DLC.pue == 1.2
    assert estimate_power(h100_nodes(2), CoolingSpec(name="custom")).pue == PUE_DEFAULT
    assert "not sourced" in estimate_power(h100_nodes(2), DLC).assumptions["power.pue"]["source"]


def test_cooling_presets_carry_the_catalog_values():
    assert COOLING_PRESETS["immersion_1p"].pue == 1.10  # cooling.csv immersion_1p high end
    assert COOLING_PRESETS["immersion_2p"].pue == 1.05
    assert AIR.pue == 1.56  # Uptime 2024 average
    assert AIR.capex_usd_per_w * KW == pytest.approx(1750.0)  # midpoint of USD 1,000-2,500 per kW
    assert DLC.rack_density_w == 100 * KW
    assert cooling_preset("dlc") is DLC


def test_cooling_overrides_are_echoed_as_input():
    spec = cooling_from("air", pue=1.25, rack_density_w=40 * KW)
    assert (spec.pue, spec.rack_density_w, spec.pue_source, spec.rack_density_source) == (
        1.25,
        40 * KW,
        "input",
        "input",
    )


def test_it_rejects_an_unknown_cooling_technology():
    with pytest.raises(SpecError) as err:
        cooling_preset("peltier")
    assert err.value.problems[0].path == "cluster.cooling.name"


def test_racks_hold_whole_nodes_within_the_rack_density():
    # DGX H100 peaks at 10.2 kW: one per 20 kW air rack, nine per 100 kW DLC rack
    air = estimate_power(h100_nodes(16, node_max_power_w=10_200.0), AIR)
    dlc = estimate_power(h100_nodes(16, node_max_power_w=10_200.0), DLC)
    assert (air.racks, air.nodes_per_rack) == (16, 1)
    assert (dlc.racks, dlc.nodes_per_rack) == (math.ceil(16 / 9), 9)


def test_network_and_storage_gear_take_their_own_racks():
    result = estimate_power(h100_nodes(4, node_max_power_w=10_200.0, network_power_w=25_000.0), AIR)
    assert result.racks == 4 + math.ceil(25_000 / 20_000)


def test_a_node_larger_than_the_rack_density_is_flagged():
    nvl72 = PowerInputs(nodes=2, gpus_per_node=72, gpu_tdp_w=1200.0, node_max_power_w=120_000.0)
    result = estimate_power(nvl72, AIR)
    assert result.racks == 2 and result.warnings


def test_energy_and_carbon():
    assert energy_j(1000.0, HOUR) == pytest.approx(KWH)
    assert carbon_kg(KWH * 1000, 0.4) == pytest.approx(400.0)
    result = estimate_power(h100_nodes(8, pue=1.3), AIR)
    out = result.as_dict(run_time_s=10 * DAY, grid_kgco2_per_kwh=0.4)
    facility_kwh = result.facility_power_w * 10 * DAY / KWH
    assert out["energy_mwh"] == pytest.approx(facility_kwh / 1e3)
    assert out["co2_t"] == pytest.approx(facility_kwh * 0.4 / 1e3)
    assert out["energy_mwh_per_year"] == pytest.approx(result.facility_power_w * YEAR / KWH / 1e3)
    assert out["water_m3_per_year"] == pytest.approx(result.it_power_w * YEAR / KWH * 1.8 / 1e3)


def test_without_a_run_time_or_grid_intensity_the_fields_are_null():
    out = estimate_power(h100_nodes(1), AIR).as_dict()
    assert out["energy_mwh"] is None and out["co2_t"] is None and out["co2_t_per_year"] is None


@pytest.mark.parametrize("budget_w", [1e6, 5e6, 123_456.0])
def test_max_gpus_for_a_power_budget_fits_and_one_more_node_does_not(budget_w):
    pue = 1.3
    gpus_w, host_w = node_it_power_w(h100_nodes(1))
    gpus = max_gpus_for_power(budget_w, gpus_per_node=8, per_node_it_power_w=gpus_w + host_w, pue=pue)
    nodes = gpus // 8

    def facility_w(n: int) -> float:
        net_w = n * 8 * NETWORK_POWER_W_PER_GPU_DEFAULT
        return estimate_power(h100_nodes(n, network_power_w=net_w, pue=pue), AIR).facility_power_w

    assert gpus % 8 == 0 and nodes > 0
    assert facility_w(nodes) <= budget_w * (1 + 1e-9)
    assert facility_w(nodes + 1) > budget_w


def test_a_budget_below_one_node_holds_no_gpus():
    assert max_gpus_for_power(1000.0, gpus_per_node=8, per_node_it_power_w=6741.0, pue=1.2) == 0


def test_it_rejects_a_pue_below_one_naming_the_field():
    with pytest.raises(SpecError) as err:
        estimate_power(h100_nodes(1, pue=0.9), AIR)
    assert err.value.problems[0].path == "cluster.pue"


@given(
    nodes=st.integers(min_value=0, max_value=10_000),
    gpus_per_node=st.integers(min_value=1, max_value=72),
    tdp_w=st.floats(min_value=50, max_value=2000),
    load=st.floats(min_value=0.01, max_value=1.0),
    node_max_w=st.one_of(st.none(), st.floats(min_value=100, max_value=200_000)),
    network_w=st.floats(min_value=0, max_value=1e7),
    pue=st.one_of(st.none(), st.floats(min_value=1.0, max_value=3.0)),
    cooling=st.sampled_from(sorted(COOLING_PRESETS)),
    run_s=st.one_of(st.none(), st.floats(min_value=0, max_value=1e9)),
)
def test_random_valid_inputs_give_finite_non_negative_power(
    nodes, gpus_per_node, tdp_w, load, node_max_w, network_w, pue, cooling, run_s
):
    inputs = PowerInputs(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        gpu_tdp_w=tdp_w,
        gpu_load_factor=load,
        node_max_power_w=node_max_w,
        network_power_w=network_w,
        pue=pue,
    )
    result = estimate_power(inputs, COOLING_PRESETS[cooling])
    out = result.as_dict(run_time_s=run_s, grid_kgco2_per_kwh=0.4)
    values = [v for v in out.values() if isinstance(v, float)] + list(out["breakdown_kw"].values())
    assert all(math.isfinite(v) and v >= 0 for v in values)
    assert result.facility_power_w >= result.it_power_w
