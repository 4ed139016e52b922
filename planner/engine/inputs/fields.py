"""A small reader for JSON objects that collects every problem (with its field path) instead of stopping at the
first: unknown keys with a "did you mean" hint, missing required keys, wrong types and out-of-range values."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from planner.engine.inputs.errors import Problem
from planner.engine.inputs.suggest import did_you_mean

_MISSING = object()
#: Largest magnitude any number may have: far beyond every real quantity, small enough that products of a few
#: inputs stay finite in float64.
MAX_MAGNITUDE = 1e12


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class Fields:
    """Reads one JSON object at `path`; appends Problems to the shared `problems` list."""

    def __init__(self, obj: Any, path: str, problems: list[Problem], allowed: Iterable[str]) -> None:
        self.path = path
        self.problems = problems
        self.allowed = tuple(allowed)
        self.ok = isinstance(obj, dict)
        self.obj: dict[str, Any] = obj if isinstance(obj, dict) else {}
        if not self.ok:
            problems.append(Problem(path or "(input)", f"must be an object (got {_type_name(obj)})"))
            return
        for key in self.obj:
            if key not in self.allowed:
                extra = did_you_mean(str(key), self.allowed, list_known=True)
                problems.append(Problem(join(path, str(key)), f"unknown field{extra}"))

    def has(self, key: str) -> bool:
        return key in self.obj and self.obj[key] is not None

    def raw(self, key: str, default: Any = None) -> Any:
        value = self.obj.get(key, default)
        return default if value is None else value

    def problem(self, key: str, message: str) -> None:
        self.problems.append(Problem(join(self.path, key), message))

    def number(
        self,
        key: str,
        *,
        default: Any = _MISSING,
        required: bool = False,
        integer: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        above: float | None = None,
        below: float | None = None,
    ) -> Any:
        """A number (int when `integer`), checked against inclusive `minimum`/`maximum` and exclusive
        `above`/`below`; returns `default` (None unless given) when absent, None when invalid."""
        if not self.has(key):
            if required:
                self.problem(key, "is required")
                return None
            return None if default is _MISSING else default
        value = self.obj[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.problem(key, f"must be a number (got {_type_name(value)})")
            return None
        try:
            finite = math.isfinite(value)
        except OverflowError:
            finite = False
        if not finite or abs(value) > MAX_MAGNITUDE:
            self.problem(key, f"must be a finite number of magnitude at most {MAX_MAGNITUDE:g}")
            return None
        if integer:
            if float(value) != int(value):
                self.problem(key, f"must be a whole number (got {value})")
                return None
            value = int(value)
        message = _range_problem(value, minimum, maximum, above, below)
        if message:
            self.problem(key, f"{message} (got {_fmt(value)})")
            return None
        return value

    def string(
        self, key: str, *, default: Any = _MISSING, required: bool = False, choices: Iterable[str] = ()
    ) -> Any:
        if not self.has(key):
            if required:
                self.problem(key, "is required")
                return None
            return None if default is _MISSING else default
        value = self.obj[key]
        if not isinstance(value, str):
            self.problem(key, f"must be a string (got {_type_name(value)})")
            return None
        options = tuple(choices)
        if options and value not in options:
            extra = did_you_mean(value, options)
            self.problem(key, f"must be one of {', '.join(options)} (got '{value}'){extra}")
            return None
        return value

    def boolean(self, key: str, *, default: bool) -> bool | None:
        if not self.has(key):
            return default
        value = self.obj[key]
        if not isinstance(value, bool):
            self.problem(key, f"must be true or false (got {_type_name(value)})")
            return None
        return value

    def boolean_or_choice(self, key: str, *, default: bool, choices: Iterable[str]) -> bool | str | None:
        """true, false or one of `choices` (a switch with named variants, e.g. `flash_attention: "v1"`);
        returns `default` when absent, None when invalid."""
        if not self.has(key):
            return default
        value = self.obj[key]
        options = tuple(choices)
        if isinstance(value, bool) or (isinstance(value, str) and value in options):
            return value
        if isinstance(value, str):
            shown = f"'{value}'"
        elif isinstance(value, int | float):
            shown = _fmt(value)
        else:
            shown = _type_name(value)
        named = ", ".join(f"'{o}'" for o in options)
        self.problem(key, f"must be true, false or one of {named} (got {shown})")
        return None

    def child(self, key: str, allowed: Iterable[str], *, required: bool = False) -> Fields | None:
        """The nested object at `key` (None when absent; a problem when required)."""
        if not self.has(key):
            if required:
                self.problem(key, "is required")
            return None
        return Fields(self.obj[key], join(self.path, key), self.problems, allowed)


def _range_problem(
    value: float, minimum: float | None, maximum: float | None, above: float | None, below: float | None
) -> str:
    """The first bound `value` breaks, as a message ("" when it keeps them all); formatted only on failure."""
    if minimum is not None and value < minimum:
        return f"must be at least {_fmt(minimum)}"
    if maximum is not None and value > maximum:
        return f"must be at most {_fmt(maximum)}"
    if above is not None and value <= above:
        return "must be greater than 0" if above == 0 else f"must be greater than {_fmt(above)}"
    if below is not None and value >= below:
        return f"must be less than {_fmt(below)}"
    return ""


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
