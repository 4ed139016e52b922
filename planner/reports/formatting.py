"""Number formatting for people: thousands separators, sensible precision and the unit after a narrow space.

One place for every page, table, CSV header and PDF, so a figure reads the same everywhere. `None` (not
published, not applicable) renders as an em dash, never as 0.
"""

from __future__ import annotations

import math
from typing import Any

MISSING = "—"
NBSP = "\u00a0"


def dig(data: Any, *keys: str) -> Any:
    """data[k1][k2]... through nested dicts, or None where a level is missing or not a dict."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def number(value: Any, decimals: int = 0) -> str:
    """1234567.8 -> "1,234,568"; with decimals=1 -> "1,234,567.8"."""
    if not _is_number(value):
        return MISSING
    return f"{value:,.{decimals}f}"


def sig(value: Any, digits: int = 3) -> str:
    """About `digits` significant digits, never scientific notation, thousands separated: 93.41 -> "93.4",
    0.01234 -> "0.0123", 1234567 -> "1,234,567"."""
    if not _is_number(value):
        return MISSING
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:,.{decimals}f}"


def token_count(value_b: Any) -> str:
    """Tokens given in billions, as a person says them: 15000 -> "15 trillion", 1500 -> "1.5 trillion",
    300 -> "300 billion"."""
    if not _is_number(value_b):
        return MISSING
    value, word = (value_b / 1000, "trillion") if value_b >= 1000 else (value_b, "billion")
    text = sig(value, 3)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text} {word}"


def with_unit(text: str, unit: str) -> str:
    if text == MISSING or not unit:
        return text
    return f"{text}{NBSP}{unit}"


def quantity(value: Any, unit: str = "", digits: int = 3) -> str:
    return with_unit(sig(value, digits), unit)


def usd(value: Any) -> str:
    """Whole dollars with separators: 12345678.9 -> "$12,345,679"; small amounts keep cents: 2.5 -> "$2.50"."""
    if not _is_number(value):
        return MISSING
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if magnitude == 0:
        return "$0"
    if magnitude < 100:
        return f"{sign}${magnitude:,.2f}"
    return f"{sign}${magnitude:,.0f}"


def usd_compact(value: Any) -> str:
    """Headline dollars: 12345678 -> "$12.3 M", 2.1e9 -> "$2.10 B", 48200 -> "$48,200"."""
    if not _is_number(value):
        return MISSING
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    for threshold, suffix in ((1e9, "B"), (1e6, "M")):
        if magnitude >= threshold:
            return f"{sign}${sig(magnitude / threshold, 3)}{NBSP}{suffix}"
    return sign + usd(magnitude)


def percent(fraction: Any, decimals: int = 1) -> str:
    """A fraction as a percentage: 0.423 -> "42.3 %"."""
    if not _is_number(fraction):
        return MISSING
    return f"{fraction * 100:,.{decimals}f}{NBSP}%"


def power_kw(value_kw: Any) -> str:
    """kW below 1 MW, MW above: 850 -> "850 kW", 1234.5 -> "1.23 MW"."""
    if not _is_number(value_kw):
        return MISSING
    if abs(value_kw) >= 1000:
        return quantity(value_kw / 1000, "MW")
    return quantity(value_kw, "kW")


def days(value: Any) -> str:
    return quantity(value, "days")


#: Below these many seconds a duration reads in seconds, minutes, hours; above the last, in days.
_DURATION_UNITS: tuple[tuple[float, float, str], ...] = (
    (120.0, 1.0, "s"),
    (2 * 3600.0, 60.0, "minutes"),
    (72 * 3600.0, 3600.0, "hours"),
)


def duration_days(value_days: Any) -> str:
    """A duration given in days, in the unit a person reads it in: 0.0844 -> "2.03 hours", 34 -> "34.0 days",
    0.001 -> "86.4 s"."""
    if not _is_number(value_days):
        return MISSING
    seconds = value_days * 86_400
    for below_s, unit_s, unit in _DURATION_UNITS:
        if abs(seconds) < below_s:
            return quantity(seconds / unit_s, unit)
    return quantity(value_days, "days")


def latency(value_s: Any) -> str:
    """A latency given in seconds, as a person reads it: 0.0218 -> "21.8 ms", 1.5 -> "1.50 s"."""
    if not _is_number(value_s):
        return MISSING
    if abs(value_s) < 1:
        return quantity(value_s * 1000, "ms")
    return quantity(value_s, "s")


#: The engine's serving target names (output `inference.targets`) as the pages say them.
_TARGET_NAMES = {"ttft": "TTFT", "tpot": "TPOT"}


def serving_failures(inference: Any) -> list[str]:
    """The bounds a served rate fails, each with its figure (engine output `inference`: saturated, targets):
    ["TPOT p90 218 ms > 50.0 ms"]. Empty when nothing fails or nothing was asked."""
    if not isinstance(inference, dict):
        return []
    reasons = []
    if inference.get("saturated"):
        reasons.append(
            f"{sig(inference.get('requests_per_s'))} requests/s is more than the "
            f"{sig(inference.get('max_requests_per_s'))} it sustains"
        )
    percentile = inference.get("latency_percentile")
    tag = f" p{number(percentile)}" if _is_number(percentile) else ""
    for key, target in (inference.get("targets") or {}).items():
        if isinstance(target, dict) and target.get("met") is False:
            value = target.get("value_s")
            if value is None and inference.get("saturated"):
                continue  # unbounded because the queue grows: the saturation above says so
            shown = "unbounded (the queue grows)" if value is None else latency(value)
            reasons.append(f"{_TARGET_NAMES.get(key, key)}{tag} {shown} > {latency(target.get('target_s'))}")
    return reasons


#: Where an inference result says the kernel efficiency it used was assumed (the engine's `assumptions` key).
KERNEL_EFFICIENCY_ASSUMPTION = "workload.serving.kernel_efficiency"


def kernel_efficiency_note(output: Any) -> dict[str, Any] | None:
    """The serving kernel efficiency an inference result used, for the results page: its value, whether the
    scenario stated it (else the engine assumed the calibrated average, 1.0), the calibration cases' throughput
    spread (published / engine, p10-p90) when the engine gave it, and whether it is the continuous-batching
    model's (else static batching's roofline); numbers as plain text (1.2, not 1.20). None for other results or results computed before it existed."""
    if not isinstance(output, dict):
        return None
    engine = (output.get("inference") or {}).get("engine")
    if not isinstance(engine, dict) or not _is_number(engine.get("kernel_efficiency")):
        return None
    spread = engine.get("kernel_efficiency_calibration_range") or [None, None]
    low, high = spread[0], spread[1]
    return {
        "value": f"{engine['kernel_efficiency']:g}",
        "stated": KERNEL_EFFICIENCY_ASSUMPTION not in (output.get("assumptions") or {}),
        "low": f"{low:g}" if _is_number(low) else None,
        "high": f"{high:g}" if _is_number(high) else None,
        "continuous": (output.get("inference") or {}).get("batching") != "static",
    }


def serving_verdict(inference: Any) -> str:
    """Whether the cluster serves the rate within the latency targets, and if not the bounds that fail
    (`serving_failures`): "yes", "no: TPOT p90 218 ms > 50.0 ms"."""
    if not isinstance(inference, dict) or inference.get("meets_target") is None:
        return MISSING
    if inference["meets_target"]:
        return "yes"
    reasons = serving_failures(inference)
    return "no: " + "; ".join(reasons) if reasons else "no"


def runs(output: Any) -> bool:
    """Whether a result describes a run that can happen: False when the model does not fit in GPU memory, so
    time, throughput, latency and the run's cost are not shown as if it ran (a job has no memory check)."""
    return dig(output, "memory", "fits") is not False


def yes_no(value: Any) -> str:
    if value is None:
        return MISSING
    return "yes" if value else "no"


def assumption_value(value: Any) -> str:
    """An assumption's value: numbers to four significant digits without trailing zeros, ranges as low–high,
    switches as yes/no, text as is (the HTML results page and the PDF both use it)."""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, int | float):
        digits = sig(value, 4)
        return digits.rstrip("0").rstrip(".") if "." in digits else digits
    if isinstance(value, list | tuple):
        return "–".join(assumption_value(v) for v in value)
    return text(value)


def text(value: Any) -> str:
    if value is None or value == "":
        return MISSING
    return str(value)
