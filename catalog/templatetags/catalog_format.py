"""Template filters for catalog numbers: `{{ gpu.memory_gb|num }}` -> "1,440", `{{ x|num:2 }}` -> "1.41"."""

from __future__ import annotations

from typing import Any

from django import template

from catalog.presentation import display_number
from catalog.presentation import short_url as _short_url

register = template.Library()


@register.filter
def num(value: Any, decimals: int | None = None) -> str:
    """Thousands separators and the stored precision; an em dash for blank (not published)."""
    return display_number(value, decimals)


@register.filter
def short_url(url: str) -> str:
    """Host and the end of the path, for link text (the full URL stays in href and title)."""
    return _short_url(url)


@register.filter
def original(row: Any, field: str) -> str:
    """The reference cell a number was parsed from ("120+", "~3000000"), or "" when it was a plain number."""
    return getattr(row, "original_cells", {}).get(field, "")
