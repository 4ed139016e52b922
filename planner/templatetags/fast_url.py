"""{% url %} with memoised reversing, installed as a template builtin (settings.TEMPLATES "builtins"), so every
template's {% url %} is this one.

Django reverses a URL from scratch on each {% url %} (about 15 µs); the results page has 22 of them on every
view. A URL is a pure function of the view name, its arguments, the current app, the script prefix, the URLconf
and the active language, so the memo is keyed by all of these. Only plain int and str arguments are memoised
(a model instance's text could change under the same key); anything else is reversed as Django does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import template
from django.conf import settings
from django.template.base import Parser, Token
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as builtin_url
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import translation

register = template.Library()

#: Distinct URLs remembered per process (an LRU: old ones are dropped first).
MEMO_SIZE = 16_384


@lru_cache(maxsize=MEMO_SIZE)
def _reverse(
    view_name: str,
    args: tuple[int | str, ...],
    kwargs: tuple[tuple[str, int | str], ...],
    current_app: str | None,
    _prefix: str,
    _urlconf: Any,
    _root_urlconf: str,
    _language: str | None,
) -> str:
    """reverse(), remembered under everything its answer depends on (the last four only key the memo)."""
    return reverse(view_name, args=list(args), kwargs=dict(kwargs), current_app=current_app)


def _plain(values: Any) -> bool:
    return all(type(value) in (int, str) for value in values)


def reverse_memoised(view_name: str, args: list[Any], kwargs: dict[str, Any], current_app: str | None) -> str:
    if not (isinstance(view_name, str) and _plain(args) and _plain(kwargs.values())):
        return reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
    return _reverse(
        view_name,
        tuple(args),
        tuple(sorted(kwargs.items())),
        current_app,
        get_script_prefix(),
        get_urlconf(),
        str(settings.ROOT_URLCONF),
        translation.get_language(),
    )


class MemoURLNode(URLNode):
    """Django's URLNode with reverse() replaced by reverse_memoised() (same errors, same escaping)."""

    def render(self, context: template.Context) -> str:
        from django.urls import NoReverseMatch
        from django.utils.html import conditional_escape

        args = [arg.resolve(context) for arg in self.args]
        kwargs = {k: v.resolve(context) for k, v in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        url = ""
        try:
            url = reverse_memoised(view_name, args, kwargs, current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser: Parser, token: Token) -> MemoURLNode:
    """Parsed exactly as Django's {% url %}."""
    node = builtin_url(parser, token)
    return MemoURLNode(node.view_name, node.args, node.kwargs, node.asvar)
