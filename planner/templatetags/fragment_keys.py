"""`{% fragment_source "template name" as key %}`: the source part of a cached fragment's key (planner/fragments.py),
so a `{% cache %}` block varies on the code that renders it: `{% cache ttl name key other_vary_on %}`."""

from __future__ import annotations

from django import template

from planner import fragments

register = template.Library()


@register.simple_tag
def fragment_source(template_name: str) -> str:
    """A short hash of the template, the templates it includes and the URLconf (fragments.source_key)."""
    return fragments.source_key(template_name)
