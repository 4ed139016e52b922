"""A prepared query (planner/prepared.py) answers exactly what the same queryset answers through the ORM: the
same fields, related objects and annotations, None where the ORM finds nothing."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict

from planner import selectors
from planner.models import Scenario
from planner.prepared import PreparedQuery
from tests.planner.conftest import make_scenario


def _orm(pk: int, owner_id: int) -> Scenario | None:
    return selectors._results_page_queryset(pk, owner_id).first()


def _same(prepared: Scenario, orm: Scenario) -> None:
    assert model_to_dict(prepared) == model_to_dict(orm)
    assert (prepared.created_at, prepared.updated_at) == (orm.created_at, orm.updated_at)
    for flag in ("has_earlier_results", "has_share_links", "catalog_generation"):
        assert getattr(prepared, flag) == getattr(orm, flag), flag
    if orm.latest_result is None:
        assert prepared.latest_result is None
    else:
        assert Scenario._meta.get_field("latest_result").is_cached(prepared)  # no second query
        for name in ("pk", "output", "input_payload", "catalog_snapshot", "created_at", "engine_version"):
            assert getattr(prepared.latest_result, name) == getattr(orm.latest_result, name), name


def test_the_results_page_query_matches_the_orm(alice, bob, catalog):
    scenario = make_scenario(alice)
    query = selectors._RESULTS_PAGE_QUERY
    _same(query.first(pk=scenario.pk, owner_id=alice.pk), _orm(scenario.pk, alice.pk))
    scenario.share_links.create(token="t" * 32)
    Scenario.objects.filter(pk=scenario.pk).update(latest_result=None)
    _same(query.first(pk=scenario.pk, owner_id=alice.pk), _orm(scenario.pk, alice.pk))
    assert query.first(pk=scenario.pk, owner_id=bob.pk) is None
    assert query.first(pk=scenario.pk + 1000, owner_id=alice.pk) is None
    assert query.first(pk=10**20, owner_id=alice.pk) is None  # past the integer range: no row, no error


def test_values_must_match_the_placeholders(db):
    query = PreparedQuery(lambda pk: Scenario.objects.filter(pk=pk), "pk")
    with pytest.raises(TypeError):
        query.first(id=1)
    twice = PreparedQuery(lambda pk: Scenario.objects.filter(pk=pk, owner_id=pk), "pk")
    with pytest.raises(ValueError, match="appears 2 times"):
        twice.first(pk=1)
