"""The per-process catalog copy (catalog/rows.py) always answers with what the database holds: a saved or
deleted row is seen on the next use, rows handed out are private copies, and a change made behind the ORM's back
shows once the copy has aged."""

from __future__ import annotations

import pytest

from catalog import rows
from catalog.models import Gpu, System
from tests.catalog.conftest import make_gpu, make_system

pytestmark = pytest.mark.django_db


def test_the_copy_holds_every_row_with_systems_carrying_their_gpu(catalog):
    copy = rows.current()
    assert len(copy.all(Gpu)) == Gpu.objects.count()
    assert [g.pk for g in copy.all(Gpu)] == list(Gpu.objects.values_list("pk", flat=True))  # model ordering
    system = System.objects.exclude(gpu=None).first()
    attached = copy.get(System, system.pk)
    assert attached.gpu.pk == system.gpu_id  # no query: cached on the copy
    assert System._meta.get_field("gpu").is_cached(attached)


def test_a_saved_change_is_seen_on_the_next_use(catalog):
    before = rows.current().get(Gpu, "nvidia_h100_sxm5_80gb").price_usd
    gpu = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    gpu.price_usd = before + 1_000
    gpu.save()
    assert rows.current().get(Gpu, "nvidia_h100_sxm5_80gb").price_usd == before + 1_000


def test_an_added_and_a_deleted_row_are_seen_on_the_next_use(db):
    assert rows.current().get(Gpu, "test_gpu_80gb") is None
    make_gpu()
    assert rows.current().get(Gpu, "test_gpu_80gb").model == "Test GPU 80GB"
    make_system(gpu_id="test_gpu_80gb")
    assert rows.current().get(System, "test_system").gpu.model == "Test GPU 80GB"
    System.objects.filter(pk="test_system").delete()
    assert rows.current().get(System, "test_system") is None


def test_rows_handed_out_are_private_copies(catalog):
    system = System.objects.exclude(gpu=None).first()
    mine = rows.current().get(System, system.pk)
    mine.name = "changed by one request"
    mine.gpu.model = "changed too"
    fresh = rows.current().get(System, system.pk)
    assert fresh.name == system.name and fresh.gpu.model == system.gpu.model


def test_a_change_behind_the_orm_shows_once_the_copy_has_aged(catalog, monkeypatch):
    price = rows.current().get(Gpu, "nvidia_h100_sxm5_80gb").price_usd
    Gpu.objects.filter(pk="nvidia_h100_sxm5_80gb").update(price_usd=price + 7)  # no updated_at stamp
    assert rows.current().get(Gpu, "nvidia_h100_sxm5_80gb").price_usd == price  # within MAX_AGE_S
    monkeypatch.setattr(rows, "MAX_AGE_S", 0.0)
    assert rows.current().get(Gpu, "nvidia_h100_sxm5_80gb").price_usd == price + 7


def test_the_generation_is_one_query(catalog, django_assert_num_queries):
    rows.current()
    with django_assert_num_queries(1):
        rows.current()
