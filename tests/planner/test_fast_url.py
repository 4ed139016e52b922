"""{% url %} is the memoised one everywhere (planner/templatetags/fast_url.py) and answers what reverse() does,
including under another script prefix, with non-plain arguments and for names that do not reverse."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.urls import NoReverseMatch, reverse, set_script_prefix

from planner.templatetags import fast_url


def _render(source: str, **context) -> str:
    return Template(source).render(Context(context))


def test_url_is_the_memoised_tag_and_agrees_with_reverse():
    fast_url._reverse.cache_clear()
    for name, args in (
        ("scenario_detail", [7]),
        ("scenario_result", [7, 9]),
        ("home", []),
        ("sweeps:list", []),
    ):
        source = "{% url name " + " ".join(f"a{i}" for i in range(len(args))) + " %}"
        context = {"name": name, **{f"a{i}": a for i, a in enumerate(args)}}
        assert _render(source, **context) == reverse(name, args=args)
        assert _render(source, **context) == reverse(name, args=args)  # from the memo
    assert fast_url._reverse.cache_info().hits >= 4


def test_the_script_prefix_is_part_of_the_key():
    plain = _render("{% url 'scenario_detail' 3 %}")
    try:
        set_script_prefix("/planner/")
        assert _render("{% url 'scenario_detail' 3 %}") == "/planner" + plain
    finally:
        set_script_prefix("/")
    assert _render("{% url 'scenario_detail' 3 %}") == plain


def test_other_arguments_are_reversed_without_the_memo():
    class Id:
        def __str__(self) -> str:
            return "12"

    fast_url._reverse.cache_clear()
    assert _render("{% url 'scenario_detail' pk %}", pk=Id()) == reverse("scenario_detail", args=["12"])
    assert fast_url._reverse.cache_info().currsize == 0


def test_a_name_that_does_not_reverse_fails_as_before_unless_stored_in_a_variable():
    with pytest.raises(NoReverseMatch):
        _render("{% url 'no_such_view' %}")
    assert _render("{% url 'no_such_view' as link %}[{{ link }}]") == "[]"
