"""`manage.py load_catalog [--force]`: upsert catalog/seed/*.csv into the database (idempotent, one transaction)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.loader import SEED_DIR, CatalogLoadError, LoadReport, catalog_load


def format_report(report: LoadReport, seed_dir: Path) -> list[str]:
    """The command's table: one line per kind with created/updated/unchanged/skipped counts."""
    try:
        shown = seed_dir.resolve().relative_to(Path.cwd())
    except ValueError:
        shown = seed_dir
    lines = [f"Catalog loaded from {shown}/ (one transaction):"]
    lines.append(f"  {'kind':<14}{'created':>8}{'updated':>9}{'unchanged':>11}{'skipped':>9}")
    for kind in report.kinds:
        lines.append(
            f"  {kind.name:<14}{kind.created:>8}{kind.updated:>9}{kind.unchanged:>11}{kind.skipped:>9}"
        )
    totals = [
        sum(getattr(kind, name) for kind in report.kinds)
        for name in ("created", "updated", "unchanged", "skipped")
    ]
    lines.append(f"  {'total':<14}{totals[0]:>8}{totals[1]:>9}{totals[2]:>11}{totals[3]:>9}")
    for kind in report.kinds:
        if kind.skipped_ids:
            lines.append(
                f"Skipped {kind.name} edited in the admin (run with --force to overwrite): "
                + ", ".join(kind.skipped_ids)
            )
    if report.unresolved_systems:
        lines.append(
            "Systems left without a catalog GPU (their GPU text names no single catalog GPU): "
            + "; ".join(f'{system_id} ("{text}")' for system_id, text in report.unresolved_systems)
        )
    return lines


class Command(BaseCommand):
    help = (
        "Load the hardware catalog from catalog/seed/*.csv (upsert by id; leaves admin edits unless --force)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="also overwrite rows edited in the admin")
        parser.add_argument("--seed-dir", default=str(SEED_DIR), help="folder with the seed CSVs")

    def handle(self, *args: Any, **options: Any) -> None:
        seed_dir = Path(options["seed_dir"])
        try:
            report = catalog_load(seed_dir=seed_dir, force=options["force"])
        except FileNotFoundError as exc:
            raise CommandError(f"Seed file missing: {exc.filename}") from exc
        except CatalogLoadError as exc:
            raise CommandError("Nothing was loaded; fix these rows:\n  " + "\n  ".join(exc.problems)) from exc
        for line in format_report(report, seed_dir):
            self.stdout.write(line)
