"""Template filters for catalog numbers: `{{ gpu.memory_gb|num }}` -> "1,440", `{{ x|num:2 }}` -> "1.41"."""

from __future__ import annotations

from typing import Any

from django import template

from catalog.presentation import display_number

register = template.Library()


@register.filter
def num(value: Any, decimals: int | None = None) -> str:
    """Thousands separators and the stored precision; an em dash for blank (not published)."""
    return display_number(value, decimals)
