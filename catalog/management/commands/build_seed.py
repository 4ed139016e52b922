"""`manage.py build_seed --from DIR`: regenerate catalog/seed/*.csv from the reference catalog CSVs in DIR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.loader import SEED_DIR
from catalog.seed_builder import SeedBuildError, build_seed


class Command(BaseCommand):
    help = "Regenerate catalog/seed/*.csv from the reference catalog CSVs (gpus.csv, cpus.csv, ...) in DIR."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from", dest="reference_dir", required=True, help="folder with the reference CSVs"
        )
        parser.add_argument(
            "--to", dest="seed_dir", default=str(SEED_DIR), help="output folder (catalog/seed/)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        reference_dir = Path(options["reference_dir"])
        if not reference_dir.is_dir():
            raise CommandError(f"--from {reference_dir}: not a folder")
        try:
            counts = build_seed(reference_dir=reference_dir, seed_dir=Path(options["seed_dir"]))
        except (SeedBuildError, FileNotFoundError) as exc:
            raise CommandError(str(exc)) from exc
        for name, count in counts.items():
            self.stdout.write(f"  {name:<14} {count:>3} rows")
        self.stdout.write(self.style.SUCCESS(f"Wrote {sum(counts.values())} rows to {options['seed_dir']}"))
