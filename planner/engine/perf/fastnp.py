"""numpy for formulas that run on one layout (`estimate`) and on a million (`search`): the same functions, with
`where`, `maximum`, `minimum`, `ceil` and `floor` answered in Python when every argument is one number.

The memory and step-time formulas (training/, perf/) are elementwise and written once for both: `estimate` passes
Python floats, `search` numpy arrays (perf/layout.py). On a single number numpy's functions cost 1.5-2 µs each
and `where` returns a 0-d array that makes every later operation slower still; one estimate made ~230 such
calls (about a third of its time). Here a call whose arguments are all floats (Python or numpy float64, or a
bool condition) returns the value numpy would, as a numpy float64, computed with comparisons only (no
rounding: the same bits); any other call, arrays included, goes to numpy itself. Every other name is numpy's.

Modules import it in numpy's place: `from planner.engine.perf import fastnp as np`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

_float64 = numpy.float64
_FLOATS = frozenset({float, numpy.float64})
_CONDITIONS = frozenset({bool, numpy.bool_})
_np_where = numpy.where
_np_maximum = numpy.maximum
_np_minimum = numpy.minimum
_np_ceil = numpy.ceil
_np_floor = numpy.floor


def where(condition: Any, x: Any, y: Any) -> Any:
    """numpy.where; one bool and two floats: the chosen one as a float64 (numpy: a 0-d float64 array)."""
    if type(condition) in _CONDITIONS and type(x) in _FLOATS and type(y) in _FLOATS:
        return _float64(x if condition else y)
    return _np_where(condition, x, y)


def maximum(x1: Any, x2: Any) -> Any:
    """numpy.maximum; two floats: numpy's rule for one pair (x1 if x1 > x2 or x1 is NaN, else x2: a tie
    gives x2, which matters for the sign of zero)."""
    if type(x1) in _FLOATS and type(x2) in _FLOATS:
        return _float64(x1 if (x1 > x2 or x1 != x1) else x2)
    return _np_maximum(x1, x2)


def minimum(x1: Any, x2: Any) -> Any:
    """numpy.minimum; two floats: x1 if x1 < x2 or x1 is NaN, else x2."""
    if type(x1) in _FLOATS and type(x2) in _FLOATS:
        return _float64(x1 if (x1 < x2 or x1 != x1) else x2)
    return _np_minimum(x1, x2)


def ceil(x: Any) -> Any:
    """numpy.ceil; one finite float: math.ceil (exact) with x's sign (numpy: ceil(-0.5) is -0.0) as a float64."""
    if type(x) in _FLOATS and math.isfinite(x):
        return _float64(math.copysign(math.ceil(x), x))
    return _np_ceil(x)


def floor(x: Any) -> Any:
    """numpy.floor; one finite float: math.floor (exact) with x's sign (floor(-0.0) is -0.0) as a float64."""
    if type(x) in _FLOATS and math.isfinite(x):
        return _float64(math.copysign(math.floor(x), x))
    return _np_floor(x)


def single_value(x: Any) -> float | None:
    """The one value of a number or of an array whose elements are all equal (a workload switch spread over a
    search's layouts), else None: lets a formula take one branch instead of computing both for `where`."""
    if type(x) in _FLOATS or type(x) in (int, bool):
        return float(x)
    values = numpy.asarray(x)
    if values.size and values.min() == values.max():
        return float(values.flat[0])
    return None


def __getattr__(name: str) -> Any:
    """Every other name is numpy's (looked up once, then kept here)."""
    value = getattr(numpy, name)
    globals()[name] = value
    return value
