"""Messy reference cells become numbers without losing what they said; GPU text resolves to catalog ids."""

from __future__ import annotations

import pytest

from catalog.matching import resolve_gpu_id
from catalog.parsing import CellParseError, Policy, format_number, parse_cell, parse_int
from catalog.presentation import display_number


def test_a_range_becomes_its_midpoint_with_low_and_high():
    parsed = parse_cell("25000-30000")
    assert (parsed.value, parsed.low, parsed.high, parsed.is_plain) == (27500, 25000, 30000, False)


def test_a_decimal_range_keeps_its_precision():
    parsed = parse_cell("0.089-0.276", Policy.LEADING)
    assert format_number(parsed.value) == "0.1825"


def test_an_approximate_value_is_marked_approximate():
    parsed = parse_cell("~3000000")
    assert parsed.value == 3_000_000 and parsed.approximate and not parsed.is_plain


def test_a_lower_bound_keeps_its_number():
    parsed = parse_cell("120+")
    assert parsed.value == 120 and parsed.lower_bound


def test_a_count_with_a_parenthetical_remark_keeps_the_count():
    parsed = parse_cell("64 (32 twin-port OSFP)", Policy.NUMBER_OR_BLANK)
    assert parsed.value == 64 and not parsed.is_plain


@pytest.mark.parametrize(
    "cell",
    [
        "6 switch chips per 8-GPU baseboard",
        "4.8 TB/s bidirectional (system aggregate)",
        "1 rack (18x 1U trays)",
    ],
)
def test_text_that_is_not_the_quantity_leaves_the_value_blank(cell):
    assert parse_cell(cell, Policy.NUMBER_OR_BLANK) is None


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("25 GT/s", 25),
        ("1.8 (direct, on-site); 7.6 (indirect)", 1.8),
        ("~0 (vendor claim)", 0),
        ("5.0 / CXL 2.0", 5),
    ],
)
def test_a_leading_number_with_a_unit_or_remark_is_read(cell, value):
    assert parse_cell(cell, Policy.LEADING).value == value


def test_plain_policy_refuses_trailing_text():
    with pytest.raises(CellParseError):
        parse_cell("400 W")


def test_blank_cells_are_none_not_zero():
    assert parse_cell("  ") is None


def test_whole_numbers_reject_fractions():
    assert parse_int("4.0")[0] == 4
    with pytest.raises(CellParseError):
        parse_int("4.5")


def test_seed_numbers_are_written_without_float_noise():
    assert format_number(27500.0) == "27500"
    assert format_number((0.089 + 0.276) / 2) == "0.1825"
    assert format_number(None) == ""


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (1979.0, None, "1,979"),
        (362.05, None, "362.05"),
        (3_000_000, None, "3,000,000"),
        (1.4128, 2, "1.41"),
        (None, None, "—"),
    ],
)
def test_numbers_are_shown_with_thousands_separators(value, decimals, text):
    assert display_number(value, decimals) == text


GPUS = [
    ("nvidia_a100_sxm4_40gb", "A100 SXM4 40GB"),
    ("nvidia_a100_sxm4_80gb", "A100 SXM4 80GB"),
    ("nvidia_h100_sxm5_80gb", "H100 SXM5 80GB"),
    ("nvidia_b200_hgx", "B200 (HGX/DGX B200, 1000 W)"),
    ("nvidia_gb200_per_gpu", "GB200 (per Blackwell GPU, NVL72, 1200 W config)"),
    ("intel_gaudi2", "Gaudi 2 (HL-225)"),
    ("intel_gaudi3", "Gaudi 3 (HL-325L OAM)"),
]


@pytest.mark.parametrize(
    ("text", "gpu_id"),
    [
        ("H100 SXM5 80GB", "nvidia_h100_sxm5_80gb"),
        ("B200 (1000 W)", "nvidia_b200_hgx"),
        ("GB200 (Blackwell GPU)", "nvidia_gb200_per_gpu"),
        ("Gaudi 3", "intel_gaudi3"),
        ("A100 SXM4 (40GB at launch; 80GB later)", None),  # names both A100 SXM4 rows
        ("MI300X", None),
        ("", None),
    ],
)
def test_system_gpu_text_resolves_to_exactly_one_catalog_gpu_or_none(text, gpu_id):
    assert resolve_gpu_id(text, GPUS) == gpu_id
