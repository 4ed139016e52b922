"""Load catalog/seed/*.csv into the database: `catalog_load(*, seed_dir, force)`, used by `manage.py load_catalog`.

Idempotent upsert by id in one transaction: new rows are created, changed rows updated, identical rows left
untouched (a second run reports everything unchanged). Rows staff edited in the admin (`locally_edited`) are
skipped and named unless `force=True`. Every row is validated with the model's `full_clean()`; any bad row
aborts the whole load with a message naming file, line, id and field.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import models, transaction

from catalog.matching import resolve_gpu_id
from catalog.seed_schema import LOADED_KINDS, SYSTEMS, Column, SeedKind

SEED_DIR = Path(__file__).resolve().parent / "seed"

_TRUE_CELLS = {"yes", "true", "1"}
_FALSE_CELLS = {"no", "false", "0", ""}


class CatalogLoadError(Exception):
    """The seed files hold bad rows; nothing was saved. `problems` names each one."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class KindReport:
    name: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped_ids: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> int:
        return len(self.skipped_ids)


@dataclass
class LoadReport:
    kinds: list[KindReport]
    unresolved_systems: list[tuple[str, str]] = field(default_factory=list)  # (system id, GPU text)

    def by_name(self, name: str) -> KindReport:
        return next(kind for kind in self.kinds if kind.name == name)


@dataclass(frozen=True)
class SeedRow:
    line: int
    values: dict[str, Any]  # model field name -> value

    @property
    def id(self) -> str:
        return str(self.values["id"])


def _convert(cell: str, column: Column) -> Any:
    """Seed cell -> Python value for the model field; raises ValueError with a readable message."""
    cell = cell.strip()
    if column.kind == "text":
        return cell
    if column.kind == "bool":
        if cell.lower() not in _TRUE_CELLS | _FALSE_CELLS:
            raise ValueError(f"expected yes/no, got {cell!r}")
        return cell.lower() in _TRUE_CELLS
    if not cell:
        return None
    try:
        number = float(cell)
    except ValueError:
        raise ValueError(f"expected a number, got {cell!r}") from None
    if column.kind == "int":
        if not number.is_integer():
            raise ValueError(f"expected a whole number, got {cell!r}")
        return int(number)
    return number


def read_seed(kind: SeedKind, seed_dir: Path, problems: list[str]) -> list[SeedRow]:
    """Read and type-convert one seed file; conversion problems are appended to `problems`."""
    path = seed_dir / kind.filename
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [header for header in kind.headers if header not in (reader.fieldnames or [])]
        if missing:
            problems.append(f"{kind.filename}: missing columns {missing}")
            return []
        rows: list[SeedRow] = []
        for line, cells in enumerate(reader, start=2):
            values: dict[str, Any] = {}
            for column in kind.all_columns:
                try:
                    values[column.field] = _convert(cells[column.seed] or "", column)
                except ValueError as exc:
                    problems.append(
                        f"{kind.filename} line {line} ({cells.get('id', '?')}): {column.seed}: {exc}"
                    )
            rows.append(SeedRow(line=line, values=values))
    return rows


def _validation_problems(kind: SeedKind, row: SeedRow, error: ValidationError) -> list[str]:
    return [
        f"{kind.filename} line {row.line} ({row.id}): {name}: {message}"
        for name, messages in error.message_dict.items()
        for message in messages
    ]


def _upsert_kind(
    kind: SeedKind, rows: list[SeedRow], *, force: bool, report: LoadReport, problems: list[str]
) -> KindReport:
    model: type[models.Model] = apps.get_model(kind.model)
    kind_report = KindReport(kind.name)
    existing = model.objects.in_bulk([row.id for row in rows])
    gpus = list(apps.get_model("catalog.Gpu").objects.values_list("id", "model")) if kind is SYSTEMS else []
    for row in rows:
        values = dict(row.values)
        if kind is SYSTEMS:
            values["gpu_id"] = values.get("gpu_id") or resolve_gpu_id(values["gpu_model_text"], gpus)
            if values["gpu_id"] is None and values["gpu_model_text"]:
                report.unresolved_systems.append((row.id, values["gpu_model_text"]))
        instance = existing.get(row.id)
        if instance is None:
            instance = model(**values)
            outcome = "created"
        else:
            changed = [name for name, value in values.items() if getattr(instance, name) != value]
            if instance.locally_edited and not force:
                if changed:
                    kind_report.skipped_ids.append(row.id)
                else:
                    kind_report.unchanged += 1
                continue
            if not changed and not instance.locally_edited:
                kind_report.unchanged += 1
                continue
            for name, value in values.items():
                setattr(instance, name, value)
            instance.locally_edited = False
            outcome = "updated"
        try:
            instance.full_clean(validate_unique=False)
        except ValidationError as exc:
            problems.extend(_validation_problems(kind, row, exc))
            continue
        instance.save(force_insert=outcome == "created")
        setattr(kind_report, outcome, getattr(kind_report, outcome) + 1)
    return kind_report


def catalog_load(*, seed_dir: Path = SEED_DIR, force: bool = False) -> LoadReport:
    """Upsert every seed row by id in one transaction. Raises CatalogLoadError (nothing saved) on bad rows."""
    problems: list[str] = []
    rows_by_kind = {kind.name: read_seed(kind, seed_dir, problems) for kind in LOADED_KINDS}
    if problems:
        raise CatalogLoadError(problems)
    report = LoadReport(kinds=[])
    with transaction.atomic():
        for kind in LOADED_KINDS:
            report.kinds.append(
                _upsert_kind(kind, rows_by_kind[kind.name], force=force, report=report, problems=problems)
            )
        if problems:
            transaction.set_rollback(True)
    if problems:
        raise CatalogLoadError(problems)
    return report
