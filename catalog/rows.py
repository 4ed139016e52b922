"""A per-process copy of the catalog, so pages attach a scenario's catalog rows without a ten-table join.

The catalog is small (about 130 rows) and changes rarely, but a results page reads up to ten of its rows on
every request; joining them costs more in SQL compilation than the page's rendering. Each use checks the copy
against the database with one aggregate query: the row count and the latest `updated_at` of every catalog
table. Every way the product changes a row (admin, CSV import, API, `load_catalog`) saves it through the model,
which stamps `updated_at`, so a change or a deletion gives a new generation and the copy is reloaded before
it is used. A change made behind the ORM's back (raw SQL, `QuerySet.update`) does not stamp `updated_at`: the
copy also expires after MAX_AGE_S, so such a change shows within that time.

Rows handed out are copies: a caller that changes one cannot change what the next request sees.
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.db import connection, models

from catalog.models import Gpu, System
from catalog.tables import CATALOG_TABLES

CATALOG_MODELS: tuple[type[models.Model], ...] = tuple(CATALOG_TABLES.values())
#: Seconds after which the copy is reloaded even when the generation query sees no change (module docstring).
MAX_AGE_S = 60.0

M = TypeVar("M", bound=models.Model)


@dataclass(frozen=True)
class CatalogCopy:
    """Every catalog row by model and id, with the generation it was loaded at."""

    generation: str
    loaded_at_s: float
    rows: dict[type[models.Model], dict[str, models.Model]] = field(default_factory=dict)

    def get(self, model: type[M], pk: str | None) -> M | None:
        """A private copy of one row, or None when the id is empty or unknown."""
        if pk is None:
            return None
        row = self.rows.get(model, {}).get(pk)
        return _private(row) if row is not None else None  # type: ignore[return-value]

    def values(self, model: type[models.Model], *names: str) -> list[tuple[Any, ...]]:
        """Chosen fields of one model's rows as tuples, in the model's default ordering (no copies needed)."""
        return [tuple(getattr(row, name) for name in names) for row in self.rows.get(model, {}).values()]

    def all(self, model: type[M]) -> list[M]:
        """Private copies of one model's rows, in the model's default ordering."""
        return [_private(row) for row in self.rows.get(model, {}).values()]  # type: ignore[misc]


def _private(row: models.Model) -> models.Model:
    """A copy of a row and of the related rows cached on it (a system's GPU)."""
    private = copy.copy(row)
    cache = private._state.fields_cache
    for name, related in cache.items():
        if related is not None:
            cache[name] = copy.copy(related)
    return private


_lock = threading.Lock()
_current: CatalogCopy | None = None


def generation_sql() -> str:
    """A SQL expression whose value is the catalog's generation: "count:latest updated_at" of every catalog
    table joined by "|" (portable: `||` concatenates in SQLite and PostgreSQL). Other queries can carry it as an
    annotation, so a page checks its catalog copy without a query of its own."""
    quote = connection.ops.quote_name
    parts = [
        f"(SELECT COUNT(*) || ':' || COALESCE(MAX({quote('updated_at')}) || '', '') "
        f"FROM {quote(model._meta.db_table)})"
        for model in CATALOG_MODELS
    ]
    return " || '|' || ".join(parts)


def generation() -> str:
    """The catalog's generation (generation_sql), in one query."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {generation_sql()}")
        return str(cursor.fetchone()[0])


def _load(at_generation: str) -> CatalogCopy:
    rows = {model: {row.pk: row for row in model.objects.all()} for model in CATALOG_MODELS}
    systems = rows[System]
    for system in systems.values():  # systems carry their GPU, as select_related("system__gpu") would
        gpu = rows[Gpu].get(system.gpu_id) if system.gpu_id else None
        if gpu is not None:
            System._meta.get_field("gpu").set_cached_value(system, gpu)
    return CatalogCopy(generation=at_generation, loaded_at_s=time.monotonic(), rows=rows)


def current(known_generation: str | None = None) -> CatalogCopy:
    """The catalog as the database holds it now (reloaded when the generation changed or the copy is old).
    `known_generation` is the generation read by the caller's own query (generation_sql as an annotation)."""
    global _current
    # Read before the rows: a change in between makes the next call reload.
    now_generation = known_generation if known_generation is not None else generation()
    found = _current
    if (
        found is None
        or found.generation != now_generation
        or time.monotonic() - found.loaded_at_s > MAX_AGE_S
    ):
        found = _load(now_generation)
        with _lock:
            _current = found
    return found


def clear() -> None:
    """Forget the copy (tests: each test has its own database state)."""
    global _current
    with _lock:
        _current = None
