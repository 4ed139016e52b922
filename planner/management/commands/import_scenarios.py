"""`manage.py import_scenarios FILE [--owner USERNAME] [--dry-run]`: read back what export_scenarios wrote.

The whole file is checked before anything is written (format, owners, every column with the models' own
validation, catalog rows that must exist), then written in one transaction: a bad file changes nothing and
the error names each problem by its place in the file (`scenarios[2].fields.nodes: ...`). Imported scenarios
are new rows (new ids) with their original timestamps; importing the same file twice makes two copies.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError, models, transaction
from django.utils.dateparse import parse_datetime

from planner.api.schemas import ESTIMATE_RESPONSE_SCHEMA
from planner.jsonshape import shape_problems
from planner.management.commands.export_scenarios import (
    FORMAT,
    RESULT_SKIPPED,
    SCENARIO_SKIPPED,
    VERSION,
    exported_fields,
)
from planner.models import Scenario, ScenarioResult

#: Timestamps kept from the file (the models set them automatically on save; restored after).
TIMESTAMPS = ("created_at", "updated_at")
_TEXT = {"type": "string", "nullable": True}
#: The shape each JSON column must have for the pages to read it (the engine's output as the API documents it;
#: the catalog snapshot and planner inputs as planner.snapshot and planner.adapters write them).
JSON_SHAPES: dict[type[models.Model], dict[str, dict[str, Any]]] = {
    Scenario: {
        "custom_gpu": {"type": "object", "nullable": True},
        "custom_model": {"type": "object", "nullable": True},
    },
    ScenarioResult: {
        "input_payload": {"type": "object"},
        "output": ESTIMATE_RESPONSE_SCHEMA,
        "search_summary": {"type": "object", "nullable": True},
        "summary": {"type": "object"},
        "input_assumptions": {
            "type": "array",
            "items": {"type": "object", "properties": {"name": _TEXT, "unit": _TEXT, "source": _TEXT}},
        },
        "catalog_snapshot": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "id": _TEXT,
                    "label": _TEXT,
                    "model": _TEXT,
                    "sources": {"type": "array", "items": {"type": "string"}},
                    "values": {"type": "object"},
                },
            },
        },
    },
}
#: Problems listed in the error message before "... and N more".
MAX_LISTED_PROBLEMS = 20


@dataclass
class Planned:
    """One scenario ready to write: unsaved rows plus the timestamps to restore."""

    scenario: Scenario
    timestamps: dict[str, Any]
    results: list[tuple[ScenarioResult, dict[str, Any], bool]] = field(default_factory=list)


class Reader:
    """Checks a parsed document and builds unsaved rows, collecting every problem with its path."""

    def __init__(self, owner: AbstractBaseUser | None) -> None:
        self.owner = owner
        self.problems: list[str] = []
        self._users: dict[str, AbstractBaseUser | None] = {}

    def problem(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def read(self, document: Any) -> list[Planned]:
        if not isinstance(document, dict):
            self.problem("(file)", "must be a JSON object written by export_scenarios")
            return []
        if document.get("format") != FORMAT:
            self.problem("format", f"must be {FORMAT!r} (got {document.get('format')!r})")
        if document.get("version") != VERSION:
            self.problem("version", f"must be {VERSION} (got {document.get('version')!r})")
        scenarios = document.get("scenarios")
        if not isinstance(scenarios, list):
            self.problem("scenarios", "must be a list")
            return []
        planned = [self._scenario(f"scenarios[{i}]", item) for i, item in enumerate(scenarios)]
        return [p for p in planned if p is not None]

    def _user(self, path: str, username: Any) -> AbstractBaseUser | None:
        if self.owner is not None:
            return self.owner
        if not isinstance(username, str) or not username:
            self.problem(path, "must be a username")
            return None
        if username not in self._users:
            self._users[username] = get_user_model().objects.filter(username=username).first()
        if self._users[username] is None:
            self.problem(path, f"no user {username!r} here (create the account, or import with --owner)")
        return self._users[username]

    def _row(
        self, path: str, model: type[models.Model], values: Any, skipped: frozenset[str], **fixed: Any
    ) -> tuple[models.Model, dict[str, Any]] | None:
        """An unsaved, validated row from `values`; the timestamps to restore beside it."""
        if not isinstance(values, dict):
            self.problem(path, "must be an object of columns")
            return None
        known = {f.name: f for f in exported_fields(model, skipped)}
        row = model(**fixed)
        timestamps: dict[str, Any] = {}
        for name, value in values.items():
            column = known.get(name)
            if column is None:
                self.problem(f"{path}.{name}", f"unknown column for a {model._meta.verbose_name}")
            elif name in TIMESTAMPS:
                parsed = parse_datetime(value) if isinstance(value, str) else None
                if parsed is None:
                    self.problem(f"{path}.{name}", f"must be an ISO 8601 date and time (got {value!r})")
                timestamps[name] = parsed
            else:
                shape = JSON_SHAPES.get(model, {}).get(name)
                for problem in shape_problems(value, shape, f"{path}.{name}") if shape else []:
                    self.problems.append(problem)
                setattr(row, column.attname, value)
        excluded = [*TIMESTAMPS, *skipped, *(f for f in fixed if fixed[f] is None)]
        try:
            row.full_clean(exclude=excluded, validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            for name, messages in exc.message_dict.items():
                where = path if name == NON_FIELD_ERRORS else f"{path}.{name}"
                for message in messages:
                    self.problem(where, message)
        return row, timestamps

    def _scenario(self, path: str, item: Any) -> Planned | None:
        if not isinstance(item, dict):
            self.problem(path, "must be an object with owner, fields and results")
            return None
        for key in item.keys() - {"owner", "fields", "results"}:
            self.problem(f"{path}.{key}", "unknown key")
        owner = self._user(f"{path}.owner", item.get("owner"))
        built = self._row(f"{path}.fields", Scenario, item.get("fields"), SCENARIO_SKIPPED, owner=owner)
        results = item.get("results", [])
        if not isinstance(results, list):
            self.problem(f"{path}.results", "must be a list")
            results = []
        planned = Planned(scenario=built[0], timestamps=built[1]) if built else None
        latest_count = 0
        for j, result in enumerate(results):
            where = f"{path}.results[{j}]"
            if not isinstance(result, dict):
                self.problem(where, "must be an object with latest and fields")
                continue
            latest = result.get("latest", False)
            if not isinstance(latest, bool):
                self.problem(f"{where}.latest", "must be true or false")
            latest_count += latest is True
            row = self._row(f"{where}.fields", ScenarioResult, result.get("fields"), RESULT_SKIPPED)
            if row is not None and planned is not None:
                planned.results.append((row[0], row[1], latest is True))
        if latest_count > 1:
            self.problem(f"{path}.results", f"{latest_count} results are marked latest; at most one may be")
        return planned


def write(planned: list[Planned]) -> tuple[int, int]:
    """Save every row in one transaction, restoring timestamps and each scenario's latest result."""
    results = 0
    with transaction.atomic():
        for item in planned:
            scenario = item.scenario
            scenario.save()
            latest_id = None
            for result, timestamps, latest in item.results:
                result.scenario = scenario
                result.save()
                results += 1
                if timestamps:
                    ScenarioResult.objects.filter(pk=result.pk).update(**timestamps)
                latest_id = result.pk if latest else latest_id
            Scenario.objects.filter(pk=scenario.pk).update(latest_result_id=latest_id, **item.timestamps)
    return len(planned), results


def load(source: str) -> Any:
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {source}: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(
            f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc
    except RecursionError as exc:
        raise CommandError(f"{source} is nested too deeply to be an export") from exc


class Command(BaseCommand):
    help = "Import scenarios and their results from an export_scenarios JSON file (all or nothing)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="JSON file written by export_scenarios ('-' for standard input).")
        parser.add_argument("--owner", help="Give every imported scenario to this user (username).")
        parser.add_argument("--dry-run", action="store_true", help="Check the file; write nothing.")

    def handle(self, *args: Any, **options: Any) -> None:
        owner = None
        if options["owner"]:
            owner = get_user_model().objects.filter(username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"--owner: no user {options['owner']!r}")
        reader = Reader(owner)
        planned = reader.read(load(options["file"]))
        if reader.problems:
            listed = reader.problems[:MAX_LISTED_PROBLEMS]
            more = len(reader.problems) - len(listed)
            raise CommandError(
                f"nothing imported: {options['file']} has {len(reader.problems)} problem(s):\n  "
                + "\n  ".join(listed)
                + (f"\n  ... and {more} more" if more else "")
            )
        if options["dry_run"]:
            count = sum(len(p.results) for p in planned)
            self.stdout.write(f"{options['file']} is valid: {len(planned)} scenarios, {count} results.")
            return
        try:
            scenarios, results = write(planned)
        except DatabaseError as exc:
            raise CommandError(f"nothing imported: the database refused a row ({exc})") from exc
        self.stdout.write(f"Imported {scenarios} scenarios and {results} results.")
