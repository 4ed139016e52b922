""" "Did you mean …?" for an unknown name (a catalog GPU id, a model preset, a field, a choice).

A person types part of a name more often than they mistype one: `nvidia_h100` means one of the H100 rows, not
`nvidia_a10` (the closest string). So matching goes from the most to the least telling: the same name written
differently (case, `-` `_` `.` and spaces ignored), names that start with what was typed, names that hold every
part of it (`h100`, `llama3`), then a single mistyped character (`bf17`), and only then a close spelling (difflib)
that keeps the same digits, since `llama-99b` is not a typo of `llama2-7b` but a model the list does not have. When nothing matches, the caller can
list every known name instead.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

#: At most this many names are offered.
MAX_SUGGESTIONS = 4
#: difflib similarity a misspelling must reach (names that differ in their digits never qualify).
SPELLING_CUTOFF = 0.75
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def _normal(name: str) -> str:
    return _SEPARATORS.sub("", name.lower())


def _parts(name: str) -> list[str]:
    return [p for p in _SEPARATORS.split(name.lower()) if p]


def _digits(name: str) -> str:
    return "".join(ch for ch in name if ch.isdigit())


def _one_edit(a: str, b: str) -> bool:
    """Whether one insertion, deletion or substitution turns `a` into `b` (a single mistyped key: bf17)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


def _whole_parts(value: str, option: str) -> int:
    """How many of the value's parts are whole parts of the option (`h20` is whole in `nvidia_h20_96gb`)."""
    option_parts = set(_parts(option))
    return sum(part in option_parts for part in _parts(value))


def closest(value: str, options: Sequence[str]) -> list[str]:
    """The known names `value` most likely means, best first (empty when none is likely)."""
    wanted = _normal(value)
    if not wanted:
        return []
    exact = [o for o in options if _normal(o) == wanted]
    if exact:
        return exact[:1]
    parts = [_normal(p) for p in _parts(value)]
    found = [o for o in options if _normal(o).startswith(wanted)]
    if not found:
        found = [o for o in options if all(p in _normal(o) for p in parts)]
    if found:
        # Whole-part matches first, then the options' own order (the catalog lists the flagship first).
        ranked = sorted(found, key=lambda o: -_whole_parts(value, o))
        return ranked[:MAX_SUGGESTIONS]
    typed = value.lower()
    typos = [o for o in options if _one_edit(typed, o.lower())]
    if typos:
        return typos[:1]
    digits = _digits(value)
    by_lower = {o.lower(): o for o in options}
    spelled = difflib.get_close_matches(typed, list(by_lower), n=MAX_SUGGESTIONS, cutoff=SPELLING_CUTOFF)
    return [by_lower[s] for s in spelled if _digits(s) == digits][:1]


def did_you_mean(value: str, options: Sequence[str], *, list_known: bool = False) -> str:
    """The hint appended to an "unknown …" message: "; did you mean 'x'?" (with the other likely names), or
    " (known: a, b, …)" when nothing is likely and `list_known`, else ""."""
    found = closest(value, options)
    if found:
        others = f" (or {', '.join(repr(o) for o in found[1:])})" if len(found) > 1 else ""
        return f"; did you mean {found[0]!r}?{others}"
    return f" (known: {', '.join(options)})" if list_known else ""
