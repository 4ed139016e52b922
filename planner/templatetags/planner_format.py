"""Template filters for numbers with units and thousands separators (one formatter for every page:
planner.reports.formatting) and small helpers for columns and catalog links."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe

from planner.reports import formatting as f
from planner.reports.charts import whole_run_parts
from planner.reports.columns import Column, preset_label

register = template.Library()


@register.filter
def num(value: Any, decimals: int = 0) -> str:
    """{{ x|num }} -> 1,234,568; {{ x|num:1 }} -> 1,234,567.8"""
    return f.number(value, int(decimals))


@register.filter
def tokens(value_b: Any) -> str:
    """{{ s.tokens_b|tokens }} -> "15 trillion" (tokens given in billions)."""
    return f.token_count(value_b)


@register.filter
def sig(value: Any, digits: int = 3) -> str:
    return f.sig(value, int(digits))


@register.filter
def assumption_value(value: Any) -> str:
    """{{ a.value|assumption_value }} -> 0.85, 0.93–1.24, rail_optimized, yes."""
    return f.assumption_value(value)


@register.filter
def qty(value: Any, unit: str = "") -> str:
    """{{ x|qty:"GiB" }} -> 93.4 GiB (3 significant digits, thousands separated)."""
    return f.quantity(value, unit)


@register.filter
def usd(value: Any) -> str:
    return f.usd(value)


@register.filter
def usd_compact(value: Any) -> str:
    return f.usd_compact(value)


@register.filter
def pct(value: Any, decimals: int = 1) -> str:
    return f.percent(value, int(decimals))


@register.filter
def kw(value: Any) -> str:
    """kW below 1 MW, MW above."""
    return f.power_kw(value)


@register.filter
def duration(value_days: Any) -> str:
    """{{ days|duration }} -> 2.03 hours, 34.0 days (the unit a person reads the length in)."""
    return f.duration_days(value_days)


@register.filter
def latency(value_s: Any) -> str:
    return f.latency(value_s)


@register.filter
def serving_failures(inference: Any) -> list[str]:
    return f.serving_failures(inference)


@register.filter
def kernel_efficiency_note(output: Any) -> dict[str, Any] | None:
    """{% with k=output|kernel_efficiency_note %}: the serving kernel efficiency a result used (formatting.py)."""
    return f.kernel_efficiency_note(output)


@register.filter
def runs(output: Any) -> bool:
    """{% if output|runs %}: False when the model does not fit, so no time or latency is shown as if it ran."""
    return f.runs(output)


@register.filter
def run_parts(output: Any) -> list[dict[str, Any]]:
    """{% for part in output|run_parts %}: the whole run's steady state and overheads (reports/charts.py)."""
    return whole_run_parts(output) if isinstance(output, dict) else []


@register.filter
def yesno_dash(value: Any) -> str:
    return f.yes_no(value)


@register.simple_tag
def cell(column: Column, row: Any) -> str:
    """A column's formatted value for one row: {% cell column row %}."""
    return column.display(row)


@register.filter
def lookup(mapping: Any, key: Any) -> Any:
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        return None


@register.simple_tag
def catalog_url(entry: dict[str, Any]) -> str:
    """Where a catalog row used by a result is documented: its catalog page when there is one (GPUs), else its
    first source URL."""
    if entry.get("model") == "gpu":
        try:
            return reverse("catalog:gpu_detail", args=[entry["id"]])
        except NoReverseMatch:
            pass
    sources = [src for src in entry.get("sources") or [] if is_url(src)]
    return sources[0] if sources else ""


@register.filter
def is_url(value: Any) -> bool:
    """Only http(s) addresses become links: an imported `javascript:` or `data:` source stays text."""
    return isinstance(value, str) and value.startswith(("http://", "https://"))


@register.filter
def getfield(form: Any, name: str) -> Any:
    """A bound field by name: {% with field=form|getfield:name %}."""
    return form[name]


@register.filter
def url_label(url: Any) -> str:
    """A short readable label for a source URL: host and the last path part (docs.nvidia.com/…/overview)."""
    if not isinstance(url, str):
        return ""
    parts = urlsplit(url)
    host = parts.netloc.removeprefix("www.")
    tail = [p for p in parts.path.split("/") if p]
    if not tail:
        return host or url
    label = tail[-1] if len(tail[-1]) <= 40 else tail[-1][:37] + "…"
    return f"{host}/…/{label}" if len(tail) > 1 else f"{host}/{label}"


@register.filter(name="preset_label")
def preset_label_filter(name: str) -> str:
    return preset_label(name) if name else ""


@register.filter
def all_warnings(output: Any) -> list[str]:
    """The engine's warnings: top level, then the network, cost and inference sections' own, without repeats."""
    if not isinstance(output, dict):
        return []
    found: list[str] = list(output.get("warnings") or [])
    for section in ("network", "cost", "inference"):
        part = output.get(section)
        if isinstance(part, dict):
            found.extend(part.get("warnings") or [])
    return list(dict.fromkeys(str(w) for w in found))


@register.filter
def words(value: Any) -> str:
    """An engine key for people: "rail_optimized" -> "rail optimized"."""
    return str(value or "").replace("_", " ")


@register.filter
def plain(value: Any) -> str:
    """A catalog value as people read it: numbers with separators and no trailing zeros, text as is."""
    if isinstance(value, bool) or value is None or value == "":
        return f.MISSING if value in (None, "") else f.yes_no(value)
    if isinstance(value, int | float):
        text = f.sig(value, 6)
        return text.rstrip("0").rstrip(".") if "." in text else text
    return str(value)


@register.simple_tag
def gpu_options(gpus: tuple[tuple[str, str, str], ...], current_id: str | None) -> SafeString:
    """<option>s for a GPU <select> from (id, vendor, model), the scenario's own GPU disabled (one call
    instead of a template loop: the results page renders it on every request)."""
    return _gpu_options(tuple(gpus), current_id)


@lru_cache(maxsize=256)
def _gpu_options(gpus: tuple[tuple[str, str, str], ...], current_id: str | None) -> SafeString:
    return format_html_join(
        "",
        '<option value="{}"{}>{} {}</option>',
        (
            (pk, mark_safe(" disabled") if pk == current_id else "", vendor, model)
            for pk, vendor, model in gpus
        ),
    )
