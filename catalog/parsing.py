"""Turn the reference catalog's hand-written cells into numbers, keeping what was said.

The reference CSVs (see their README, "Conventions") write ranges as `low-high`, approximations with a leading
`~`, lower bounds with a trailing `+`, and sometimes a unit or a remark after the number
("25 GT/s", "64 (32 twin-port OSFP)", "1.8 (direct, on-site); 7.6 (indirect)"). Three policies:

- `PLAIN`: only a number, a `~number`, a `number+` or a `low-high` range; anything else is an error, so a new
  kind of messy cell is noticed instead of guessed.
- `LEADING`: the first number counts and any remark after it is allowed (the builder keeps the original cell).
- `NUMBER_OR_BLANK`: a number optionally followed by a parenthetical remark; any other text means the cell is
  not that quantity at all ("6 switch chips per baseboard" is not a port count), so the value is blank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Policy(Enum):
    PLAIN = "plain"
    LEADING = "leading"
    NUMBER_OR_BLANK = "number_or_blank"


class CellParseError(ValueError):
    """A cell that the chosen policy cannot read as a number."""


@dataclass(frozen=True)
class ParsedCell:
    """A number read from a cell. `low`/`high` are set for ranges; `value` is then their midpoint."""

    value: float
    low: float | None = None
    high: float | None = None
    approximate: bool = False
    lower_bound: bool = False
    is_plain: bool = True  # the cell held nothing but the number


_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?|\.\d+"
_HEAD_RE = re.compile(
    rf"^\s*(?P<approx>~)?\s*(?P<a>{_NUM})\s*(?:[-–]\s*~?\s*(?P<b>{_NUM}))?\s*(?P<plus>\+)?(?P<rest>.*)$",
    re.DOTALL,
)
_PAREN_ONLY_RE = re.compile(r"^\s*(\([^()]*\))?\s*$")


def _to_float(text: str) -> float:
    return float(text.replace(",", ""))


def parse_cell(cell: str | None, policy: Policy = Policy.PLAIN) -> ParsedCell | None:
    """Read one cell under `policy`. Blank -> None. Raises CellParseError when the policy forbids the text.

    >>> parse_cell("25000-30000").value
    27500.0
    >>> parse_cell("64 (32 twin-port OSFP)", Policy.NUMBER_OR_BLANK).value
    64.0
    """
    text = (cell or "").strip()
    if not text:
        return None
    match = _HEAD_RE.match(text)
    if match is None:
        if policy is Policy.NUMBER_OR_BLANK:
            return None
        raise CellParseError(f"no number at the start of {text!r}")
    rest = match.group("rest").strip()
    if rest:
        if policy is Policy.PLAIN:
            raise CellParseError(f"unexpected text after the number in {text!r}")
        if policy is Policy.NUMBER_OR_BLANK and not _PAREN_ONLY_RE.match(rest):
            return None
    first = _to_float(match.group("a"))
    low = high = None
    value = first
    if match.group("b") is not None:
        low, high = first, _to_float(match.group("b"))
        if low > high:
            raise CellParseError(f"range low exceeds high in {text!r}")
        value = (low + high) / 2
    approximate = match.group("approx") is not None
    lower_bound = match.group("plus") is not None
    is_plain = not (rest or approximate or lower_bound or low is not None or "," in match.group("a"))
    return ParsedCell(
        value=value, low=low, high=high, approximate=approximate, lower_bound=lower_bound, is_plain=is_plain
    )


def parse_int(cell: str | None, policy: Policy = Policy.PLAIN) -> tuple[int | None, ParsedCell | None]:
    """Like parse_cell, for whole-number quantities (years, counts, PCIe generations: "4.0" -> 4)."""
    parsed = parse_cell(cell, policy)
    if parsed is None:
        return None, None
    if not float(parsed.value).is_integer():
        raise CellParseError(f"expected a whole number in {cell!r}")
    return int(parsed.value), parsed


def format_number(value: float | int | None) -> str:
    """Write a number to a seed cell without float noise: 27500.0 -> "27500", 0.18250000000000002 -> "0.1825"."""
    if value is None:
        return ""
    rounded = round(float(value), 9)
    if rounded.is_integer():
        return str(int(rounded))
    return repr(rounded)
