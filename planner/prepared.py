"""Prepared ORM queries: compile a queryset's SQL once per process, then run it with new values.

Django compiles a queryset to SQL on every execution. For the results page's query (the scenario joined to its
latest result, two EXISTS subqueries and the catalog generation) compiling costs more than the database does:
about 1.7 ms of Python against about 0.5 ms in PostgreSQL, on every page view (docs/benchmarks.md).

A PreparedQuery builds the queryset once with placeholder values, keeps the compiled SQL and the compiler's
description of its columns, and on each call executes that SQL with the real values and builds the model
instances the way Django's own ModelIterable does (database converters, select_related objects, annotations).
Only the values given as placeholders may change between calls; everything else in the query is fixed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connections, models
from django.db.models.query import get_related_populators
from django.db.models.sql.compiler import SQLCompiler

#: Placeholder integers: values no real row id takes, each found exactly once among the compiled parameters.
_PLACEHOLDER_BASE = -7_318_462_095


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    positions: dict[str, int]
    compiler: SQLCompiler
    init_list: list[str]
    fields_start: int
    fields_end: int
    related_populators: list[Any]
    annotation_col_map: dict[str, int]


class PreparedQuery:
    """`PreparedQuery(lambda pk, owner_id: Model.objects.filter(pk=pk, owner_id=owner_id), "pk", "owner_id")`
    then `.first(pk=3, owner_id=7)`: the instance, or None. The builder receives one integer placeholder per
    name and must use each exactly once as a query parameter."""

    def __init__(self, build: Callable[..., models.QuerySet], *names: str) -> None:
        self._build = build
        self._names = names
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def first(self, *, using: str = "default", **values: int) -> Any | None:
        if set(values) != set(self._names):
            raise TypeError(f"expected values for {sorted(self._names)}, got {sorted(values)}")
        low, high = connections[using].ops.integer_field_range("BigIntegerField")
        if any(not low <= int(value) <= high for value in values.values()):
            return None  # no row has an id past the database's integer range (Django's lookups agree)
        compiled = self._compiled.get(using) or self._compile(using)
        params = list(compiled.params)
        for name, value in values.items():
            params[compiled.positions[name]] = int(value)
        with connections[using].cursor() as cursor:
            cursor.execute(compiled.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        [converted] = list(compiled.compiler.results_iter(results=[[row]]))
        instance = compiled.compiler.klass_info["model"].from_db(
            using, compiled.init_list, converted[compiled.fields_start : compiled.fields_end]
        )
        for populator in compiled.related_populators:
            populator.populate(converted, instance)
        for name, position in compiled.annotation_col_map.items():
            setattr(instance, name, converted[position])
        return instance

    def _compile(self, using: str) -> _Compiled:
        placeholders = {name: _PLACEHOLDER_BASE - index for index, name in enumerate(self._names)}
        queryset = self._build(**placeholders)
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        positions = {}
        for name, placeholder in placeholders.items():
            found = [i for i, param in enumerate(params) if param == placeholder]
            if len(found) != 1:
                raise ValueError(
                    f"placeholder for {name!r} appears {len(found)} times in the query's parameters"
                )
            positions[name] = found[0]
        select, klass_info = compiler.select, compiler.klass_info
        fields = klass_info["select_fields"]
        compiled = _Compiled(
            sql=sql,
            params=tuple(params),
            positions=positions,
            compiler=compiler,
            init_list=[column[0].target.attname for column in select[fields[0] : fields[-1] + 1]],
            fields_start=fields[0],
            fields_end=fields[-1] + 1,
            related_populators=get_related_populators(klass_info, select, using),
            annotation_col_map=dict(compiler.annotation_col_map or {}),
        )
        with self._lock:
            self._compiled[using] = compiled
        return compiled
