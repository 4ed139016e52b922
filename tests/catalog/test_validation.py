"""Model validation rejects impossible values with a message on the offending field."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Cooling, Cpu, EconomicsFact, Gpu, Interconnect, Switch

SOURCE = "https://example.com/datasheet"

pytestmark = pytest.mark.django_db  # full_clean() checks id uniqueness


def field_errors(instance) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as excinfo:
        instance.full_clean()
    return excinfo.value.message_dict


def gpu(**overrides) -> Gpu:
    values = {"id": "x_gpu", "vendor": "X", "model": "X GPU", "memory_gb": 80, "tdp_w": 700, "source": SOURCE}
    values.update(overrides)
    return Gpu(**values)


@pytest.mark.parametrize(
    "field",
    ["memory_gb", "mem_bandwidth_tbs", "bf16_tflops", "fp8_tflops", "tdp_w", "scaleup_bw_gbs", "price_usd"],
)
@pytest.mark.parametrize("bad_value", [0, -1.5])
def test_it_rejects_zero_or_negative_gpu_quantities(field, bad_value):
    errors = field_errors(gpu(**{field: bad_value}))
    assert list(errors) == [field]
    assert "greater than zero" in errors[field][0]


def test_a_valid_gpu_with_blank_unpublished_figures_passes():
    gpu(mem_bandwidth_tbs=None, bf16_tflops=None, launch_year=None).full_clean()


@pytest.mark.parametrize("year", [1989, 2101])
def test_it_rejects_launch_years_outside_1990_to_2100(year):
    errors = field_errors(gpu(launch_year=year))
    assert "between 1990 and 2100" in errors["launch_year"][0]


def test_it_rejects_a_price_range_whose_low_exceeds_its_high():
    errors = field_errors(gpu(price_usd=30000, price_low_usd=40000, price_high_usd=20000))
    assert "price_low_usd" in errors
    assert "price_usd" in errors  # 30,000 lies below the 40,000 low


def test_it_rejects_a_row_without_a_source_url():
    errors = field_errors(gpu(source=""))
    assert list(errors) == ["source"]


def test_it_rejects_a_source_that_is_not_a_url():
    errors = field_errors(gpu(source="https://example.com/ok; see the datasheet"))
    assert "see the datasheet" in errors["source"][0]


def test_it_rejects_an_id_that_is_not_a_slug():
    errors = field_errors(gpu(id="NVIDIA H100"))
    assert "lower-case" in errors["id"][0]


def test_it_rejects_zero_switch_ports():
    switch = Switch(id="x_switch", vendor="X", model="X", ports=0, port_speed_gbps=400, source=SOURCE)
    assert "ports" in field_errors(switch)


def test_it_rejects_pue_below_one():
    errors = field_errors(Cooling(id="x_cool", category="benchmark", name="X", pue_low=0.95, source=SOURCE))
    assert "cannot be below 1.0" in errors["pue_low"][0]


def test_it_rejects_pue_low_above_pue_high():
    errors = field_errors(
        Cooling(id="x_cool", category="benchmark", name="X", pue_low=1.5, pue_high=1.2, source=SOURCE)
    )
    assert list(errors) == ["pue_low"]


def test_it_allows_zero_water_use_but_not_negative():
    Cooling(id="x_cool", category="tech", name="X", wue_l_per_kwh=0, source=SOURCE).full_clean()
    errors = field_errors(Cooling(id="x_cool", category="tech", name="X", wue_l_per_kwh=-0.1, source=SOURCE))
    assert list(errors) == ["wue_l_per_kwh"]


def test_it_rejects_a_cpu_whose_base_clock_exceeds_its_boost_and_fewer_threads_than_cores():
    cpu = Cpu(
        id="x_cpu", vendor="X", model="X", base_ghz=3.5, boost_ghz=3.0, cores=64, threads=32, source=SOURCE
    )
    errors = field_errors(cpu)
    assert set(errors) == {"base_ghz", "threads"}


def test_it_rejects_one_way_bandwidth_above_two_way():
    link = Interconnect(
        id="x_link",
        category="link",
        name="X",
        aggregate_bw_gbs_unidir=900,
        aggregate_bw_gbs_bidir=450,
        source=SOURCE,
    )
    assert list(field_errors(link)) == ["aggregate_bw_gbs_unidir"]


@pytest.mark.parametrize(
    ("unit", "value", "ok"),
    [("percent", 30, True), ("percent", 130, False), ("fraction", 0.4, True), ("fraction", 1.4, False)],
)
def test_it_keeps_percentages_and_fractions_in_range(unit, value, ok):
    fact = EconomicsFact(
        id="x_fact", category="colocation", region="X", metric="m", value=value, unit=unit, source=SOURCE
    )
    if ok:
        fact.full_clean()
    else:
        assert list(field_errors(fact)) == ["value"]


def test_it_rejects_a_planning_value_outside_its_published_range():
    fact = EconomicsFact(
        id="x_fact",
        category="depreciation",
        region="X",
        metric="m",
        value=7,
        value_low=3,
        value_high=6,
        unit="years",
        source=SOURCE,
    )
    assert list(field_errors(fact)) == ["value"]
