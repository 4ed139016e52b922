"""TCO: capex, opex, NPV, $/GPU-hour, run cost owned vs rented, break-even month."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.engine.facility.power import COOLING_PRESETS
from planner.engine.facility.tco import (
    COLOCATION_USD_PER_KW_MONTH_NA_2024H2,
    FACILITY_SCOPE_WARNING,
    EconomicsSpec,
    TcoInputs,
    estimate_tco,
)
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.units import DAY

AIR = COOLING_PRESETS["air_crac_crah"]
DLC = COOLING_PRESETS["dlc_cold_plate"]
HOURS_PER_YEAR = 365.25 * 24


def econ(**kw) -> EconomicsSpec:
    base = {
        "electricity_usd_per_kwh": 0.08,
        "years": 4,
        "utilization": 0.8,
        "gpu_server_usd": 300_000.0,
        "cloud_usd_per_gpu_hour": 2.5,
        "maintenance_fraction_per_year": 0.05,
        "storage_usd_per_tb": 200.0,
        "idle_power_fraction": 0.3,
    }
    return EconomicsSpec(**(base | kw))


ONE_NODE = TcoInputs(
    nodes=1,
    gpus=8,
    network_capex_usd=10_000.0,
    storage_tb=50.0,
    it_power_w=6741.0,
    facility_power_w=6741.0 * 1.2,
    run_time_s=10 * DAY,
    peak_it_power_w=10_200.0,
)


def test_one_node_tco_adds_up_by_hand():
    result = estimate_tco(ONE_NODE, econ(), AIR)
    out = result.as_dict()
    facility_capex = 1750.0 * 10.2  # air cooling midpoint USD per kW x peak kW
    hardware = 300_000 + 10_000 + 50 * 200
    spares = 300_000  # one spare node (at least one; one per 32 nodes)
    frontend = 1_560 + 2 * 700 + 100  # a 400G switch port, two optics and a trunk per node
    management = 31_250 / 40 + 35 + 1_000 / 48
    installation = 0.02 * (hardware + spares + frontend + management)
    capex = hardware + facility_capex + spares + frontend + management + installation
    energy = 6741.0 * 1.2 * (0.8 + 0.2 * 0.3) * HOURS_PER_YEAR / 1000 * 0.08
    maintenance = 0.05 * hardware
    staff = 3.8 * 10.2 / 1000 * 95_360  # FTE per MW x MW of IT nameplate x salary
    opex = energy + maintenance + staff  # no software: the GPU's vendor is not NVIDIA here
    assert out["capex_usd"] == pytest.approx(capex)
    assert out["capex_breakdown_usd"]["facility"] == pytest.approx(facility_capex)
    assert out["capex_breakdown_usd"]["installation"] == pytest.approx(installation)
    assert out["spare_nodes"] == 1
    assert out["opex_breakdown_usd_per_year"]["energy"] == pytest.approx(energy)
    assert out["opex_breakdown_usd_per_year"]["maintenance"] == pytest.approx(maintenance)
    assert out["opex_breakdown_usd_per_year"]["staff"] == pytest.approx(staff)
    assert out["opex_breakdown_usd_per_year"]["software"] == 0
    assert out["opex_usd_per_year"] == pytest.approx(opex)
    assert out["tco_usd"] == pytest.approx(capex + 4 * opex)
    assert out["usd_per_gpu_hour"] == pytest.approx(out["tco_usd"] / (8 * 4 * HOURS_PER_YEAR * 0.8))
    assert FACILITY_SCOPE_WARNING in out["warnings"]


def test_run_cost_is_the_runs_gpu_hours_at_the_owned_and_the_cloud_rate():
    out = estimate_tco(ONE_NODE, econ(), AIR).as_dict()
    gpu_hours = 8 * 10 * 24
    assert out["run_gpu_hours"] == pytest.approx(gpu_hours)
    assert out["run_cost_usd"] == pytest.approx(gpu_hours * out["usd_per_gpu_hour"])
    assert out["cloud_run_cost_usd"] == pytest.approx(gpu_hours * 2.5)


def test_without_a_run_time_run_costs_are_null():
    inputs = TcoInputs(
        nodes=1, gpus=8, network_capex_usd=0, storage_tb=0, it_power_w=6741, facility_power_w=8000
    )
    out = estimate_tco(inputs, econ(), AIR).as_dict()
    assert out["run_cost_usd"] is None and out["cloud_run_cost_usd"] is None


def test_npv_discounts_each_years_opex_from_the_end_of_that_year():
    result = estimate_tco(ONE_NODE, econ(discount_rate=0.1, years=3), AIR)
    out = result.as_dict()
    opex = out["opex_usd_per_year"]
    assert out["npv_usd"] == pytest.approx(out["capex_usd"] + opex / 1.1 + opex / 1.1**2 + opex / 1.1**3)
    assert out["npv_usd"] < out["tco_usd"]
    assert "npv_usd" not in estimate_tco(ONE_NODE, econ(), AIR).as_dict()


def test_yearly_rows_put_capex_in_year_one_and_sum_to_the_tco():
    out = estimate_tco(ONE_NODE, econ(years=4), AIR).as_dict()
    rows = out["yearly"]
    assert [row["year"] for row in rows] == [1, 2, 3, 4]
    assert rows[0]["capex_usd"] == pytest.approx(out["capex_usd"]) and rows[1]["capex_usd"] == 0
    assert rows[-1]["cumulative_usd"] == pytest.approx(out["tco_usd"])


def test_breakeven_month_is_where_the_own_and_rent_curves_cross():
    out = estimate_tco(ONE_NODE, econ(nodes_per_spare=0), AIR).as_dict()
    month = out["breakeven_month"]
    curves = out["monthly_own_vs_rent"]
    own, rent = curves["own_cumulative_usd"], curves["rent_cumulative_usd"]
    assert month is not None and 1 <= month <= 48
    assert own[month] <= rent[month]
    assert own[month - 1] > rent[month - 1]
    assert curves["month"] == list(range(49))
    # by hand: capex / (rent per month - opex per month)
    rent_month = 8 * HOURS_PER_YEAR / 12 * 0.8 * 2.5
    assert month == math.ceil(out["capex_usd"] / (rent_month - out["opex_usd_per_year"] / 12))


def test_no_breakeven_when_renting_stays_cheaper():
    assert estimate_tco(ONE_NODE, econ(cloud_usd_per_gpu_hour=0.5), AIR).as_dict()["breakeven_month"] is None


def test_colocation_charges_peak_it_kw_with_the_liquid_premium_and_no_fit_out():
    e = econ(colocation_usd_per_kw_month=COLOCATION_USD_PER_KW_MONTH_NA_2024H2)
    air, dlc = estimate_tco(ONE_NODE, e, AIR).as_dict(), estimate_tco(ONE_NODE, e, DLC).as_dict()
    assert air["opex_breakdown_usd_per_year"]["colocation"] == pytest.approx(184.06 * 10.2 * 12)
    assert dlc["opex_breakdown_usd_per_year"]["colocation"] == pytest.approx(184.06 * 10.2 * 12 * 1.3)
    assert air["capex_breakdown_usd"]["facility"] == 0.0


def test_explicit_facility_capex_per_kw_replaces_the_cooling_default():
    out = estimate_tco(ONE_NODE, econ(facility_capex_usd_per_kw=10_000.0), AIR).as_dict()
    assert out["capex_breakdown_usd"]["facility"] == pytest.approx(10_000.0 * 10.2)
    assert FACILITY_SCOPE_WARNING not in out["warnings"]


def test_staff_cost_is_yearly_opex():
    base = estimate_tco(ONE_NODE, econ(staff_usd_per_year=0.0), AIR)
    staffed = estimate_tco(ONE_NODE, econ(staff_usd_per_year=50_000.0), AIR)
    assert staffed.opex_usd_per_year - base.opex_usd_per_year == pytest.approx(50_000.0)
    assert staffed.assumptions["tco.staff_usd_per_year"]["source"] == "input"


def test_nvidia_gpus_pay_the_ai_enterprise_licence_per_gpu_year():
    nvidia = TcoInputs(**{**ONE_NODE.__dict__, "gpu_vendor": "NVIDIA"})
    out = estimate_tco(nvidia, econ(), AIR).as_dict()
    assert out["opex_breakdown_usd_per_year"]["software"] == pytest.approx(8 * 4_500)
    amd = TcoInputs(**{**ONE_NODE.__dict__, "gpu_vendor": "AMD"})
    assert estimate_tco(amd, econ(), AIR).as_dict()["opex_breakdown_usd_per_year"]["software"] == 0


def test_it_rejects_zero_utilisation_naming_the_field():
    with pytest.raises(SpecError) as err:
        estimate_tco(ONE_NODE, econ(utilization=0.0), AIR)
    assert err.value.problems[0].path == "economics.utilization"


@given(
    nodes=st.integers(min_value=1, max_value=5000),
    gpus_per_node=st.integers(min_value=1, max_value=72),
    it_w=st.floats(min_value=0, max_value=1e8),
    pue=st.floats(min_value=1.0, max_value=3.0),
    years=st.floats(min_value=0.1, max_value=15),
    util=st.floats(min_value=0.01, max_value=1.0),
    rate=st.floats(min_value=0.0, max_value=0.5),
    price=st.floats(min_value=0.0, max_value=1e6),
    cloud=st.floats(min_value=0.0, max_value=100.0),
    colo=st.one_of(st.none(), st.floats(min_value=0, max_value=1000)),
    cooling=st.sampled_from(sorted(COOLING_PRESETS)),
    run_s=st.one_of(st.none(), st.floats(min_value=0, max_value=1e9)),
)
def test_random_valid_inputs_give_finite_non_negative_costs(
    nodes, gpus_per_node, it_w, pue, years, util, rate, price, cloud, colo, cooling, run_s
):
    inputs = TcoInputs(
        nodes=nodes,
        gpus=nodes * gpus_per_node,
        network_capex_usd=1000.0 * nodes,
        storage_tb=10.0,
        it_power_w=it_w,
        facility_power_w=it_w * pue,
        run_time_s=run_s,
    )
    e = econ(
        years=years,
        utilization=util,
        discount_rate=rate,
        gpu_server_usd=price,
        cloud_usd_per_gpu_hour=cloud,
        colocation_usd_per_kw_month=colo,
    )
    out = estimate_tco(inputs, e, COOLING_PRESETS[cooling]).as_dict()
    numbers = [v for v in out.values() if isinstance(v, float)]
    numbers += list(out["capex_breakdown_usd"].values()) + list(out["opex_breakdown_usd_per_year"].values())
    numbers += (
        out["monthly_own_vs_rent"]["own_cumulative_usd"] + out["monthly_own_vs_rent"]["rent_cumulative_usd"]
    )
    assert all(math.isfinite(v) and v >= 0 for v in numbers)
    assert out["yearly"][-1]["cumulative_usd"] == pytest.approx(out["tco_usd"], rel=1e-9)


def test_depreciation_is_straight_line_to_the_residual_value_and_the_book_value_ends_there():
    result = estimate_tco(ONE_NODE, econ(residual_value_fraction=0.1), AIR)
    out = result.as_dict()
    hardware = 300_000 + 10_000 + 50 * 200
    assert out["residual_value_usd"] == pytest.approx(0.1 * hardware)
    rows = out["yearly"]
    assert sum(row["depreciation_usd"] for row in rows) == pytest.approx(out["capex_usd"] - 0.1 * hardware)
    assert rows[-1]["book_value_usd"] == pytest.approx(0.1 * hardware)
    assert rows[-1]["residual_usd"] == pytest.approx(0.1 * hardware)
    flat = estimate_tco(ONE_NODE, econ(), AIR).as_dict()
    assert out["tco_usd"] == pytest.approx(flat["tco_usd"] - 0.1 * hardware)


def test_energy_and_price_escalation_grow_each_years_opex():
    flat = estimate_tco(ONE_NODE, econ(), AIR).as_dict()
    result = estimate_tco(
        ONE_NODE, econ(energy_escalation_per_year=0.03, price_escalation_per_year=0.02), AIR
    )
    out = result.as_dict()
    energy, other = (
        flat["opex_breakdown_usd_per_year"]["energy"],
        flat["opex_usd_per_year"] - flat["opex_breakdown_usd_per_year"]["energy"],
    )
    for row in out["yearly"]:
        y = row["year"]
        assert row["opex_usd"] == pytest.approx(energy * 1.03 ** (y - 1) + other * 1.02 ** (y - 1))
    assert out["tco_usd"] == pytest.approx(out["capex_usd"] + sum(row["opex_usd"] for row in out["yearly"]))
    assert out["tco_usd"] > flat["tco_usd"]
    curves = out["monthly_own_vs_rent"]
    assert curves["own_cumulative_usd"][-1] == pytest.approx(out["tco_usd"])
