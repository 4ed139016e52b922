"""Numbers for people: separators, precision, units, and the best value of a comparison row."""

from __future__ import annotations

import pytest

from planner.reports import formatting as f
from planner.reports.columns import METRICS_BY_KEY, best_index, summary_from_output


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (93.41, "93.4"),
        (0.012345, "0.0123"),
        (1234567.0, "1,234,567"),
        (0, "0"),
        (None, "—"),
        (float("nan"), "—"),
    ],
)
def test_sig_keeps_three_significant_digits_with_separators(value, expected):
    assert f.sig(value) == expected


def test_money_and_power_read_naturally():
    assert f.usd(12_345_678.9) == "$12,345,679"
    assert f.usd(2.5) == "$2.50"
    assert f.usd_compact(12_345_678) == "$12.3\u00a0M"
    assert f.usd_compact(2.1e9) == "$2.10\u00a0B"
    assert f.usd_compact(48_200) == "$48,200"
    assert f.power_kw(850) == "850\u00a0kW"
    assert f.power_kw(1234.5) == "1.23\u00a0MW"
    assert f.percent(0.423) == "42.3\u00a0%"
    assert f.quantity(93.41, "GiB") == "93.4\u00a0GiB"
    assert f.number(None) == "—" and f.yes_no(False) == "no"


@pytest.mark.parametrize(
    ("billions", "expected"),
    [
        (15_000, "15 trillion"),
        (1_500, "1.5 trillion"),
        (15_600, "15.6 trillion"),
        (300, "300 billion"),
        (7.5, "7.5 billion"),
        (2_000_000, "2,000 trillion"),
        (None, "—"),
    ],
)
def test_token_counts_read_as_people_say_them(billions, expected):
    assert f.token_count(billions) == expected


def test_best_value_of_a_row_depends_on_direction():
    assert best_index([3.0, 1.0, 2.0], "min") == {1}
    assert best_index([3.0, 1.0, 3.0], "max") == {0, 2}
    assert best_index([3.0, None], "min") == set()
    assert best_index([3.0, 1.0], None) == set()


def test_columns_read_the_engine_output_without_computing():
    output = {"time": {"days": 12.5}, "cost": {"tco_usd": 1e7}, "memory": {"fits": True}}
    assert METRICS_BY_KEY["days"].display(output) == "12.5"
    assert METRICS_BY_KEY["tco_usd"].display(output) == "$10,000,000"
    assert METRICS_BY_KEY["it_kw"].display(output) == "—"
    summary = summary_from_output(output)
    assert summary["days"] == 12.5 and summary["fits"] is True and summary["it_kw"] is None


def test_equal_values_have_no_best():
    assert best_index([2.0, 2.0, 2.0], "min") == set()
