"""`manage.py export_scenarios [-o FILE] [--owner USERNAME]`: every scenario with all its results as one JSON
document that `import_scenarios` reads back.

Scenario and result columns are written generically (every concrete field but ids and pointers; catalog rows
by their string id), so a column added to the models travels without changing this command. Share links are
not exported: their tokens are credentials.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

from planner.models import Scenario, ScenarioResult

FORMAT = "gpu-cluster-planner/scenarios"
VERSION = 1
#: Columns not exported: identity and ownership are rebuilt on import, latest_result by the "latest" flag.
SCENARIO_SKIPPED = frozenset({"id", "owner", "latest_result"})
RESULT_SKIPPED = frozenset({"id", "scenario"})


def exported_fields(model: type[models.Model], skipped: frozenset[str]) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields if f.name not in skipped]


def row_values(obj: models.Model, fields: list[models.Field]) -> dict[str, Any]:
    """Field name -> value (a foreign key as the related row's id)."""
    return {f.name: f.value_from_object(obj) for f in fields}


def scenario_document(scenario: Scenario, results: list[ScenarioResult]) -> dict[str, Any]:
    return {
        "owner": scenario.owner.get_username(),
        "fields": row_values(scenario, exported_fields(Scenario, SCENARIO_SKIPPED)),
        "results": [
            {
                "latest": result.pk == scenario.latest_result_id,
                "fields": row_values(result, exported_fields(ScenarioResult, RESULT_SKIPPED)),
            }
            for result in results
        ],
    }


def export_document(*, owner: str | None = None) -> dict[str, Any]:
    scenarios = Scenario.objects.select_related("owner").order_by("pk")
    if owner is not None:
        scenarios = scenarios.filter(owner__username=owner)
    results: dict[int, list[ScenarioResult]] = {}
    for result in ScenarioResult.objects.filter(scenario__in=scenarios).order_by("created_at", "pk"):
        results.setdefault(result.scenario_id, []).append(result)
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now(),
        "scenarios": [scenario_document(s, results.get(s.pk, [])) for s in scenarios],
    }


class Command(BaseCommand):
    help = "Export every scenario with its results as JSON (read back by import_scenarios)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("-o", "--output", help="File to write (default: standard output).")
        parser.add_argument("--owner", help="Only this user's scenarios (username).")

    def handle(self, *args: Any, **options: Any) -> None:
        document = export_document(owner=options["owner"])
        text = json.dumps(document, cls=DjangoJSONEncoder, indent=1, ensure_ascii=False)
        if options["output"]:
            try:
                with open(options["output"], "w", encoding="utf-8") as handle:
                    handle.write(text + "\n")
            except OSError as exc:
                raise CommandError(f"cannot write {options['output']}: {exc.strerror}") from exc
            results = sum(len(s["results"]) for s in document["scenarios"])
            self.stderr.write(
                f"Exported {len(document['scenarios'])} scenarios and {results} results to {options['output']}."
            )
        else:
            self.stdout.write(text)
