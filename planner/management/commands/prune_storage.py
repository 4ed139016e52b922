"""`manage.py prune_storage`: the retention pass Celery beat runs daily (planner/retention.py), on demand."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from planner import retention


class Command(BaseCommand):
    help = "Delete old PDFs, old sweeps' per-configuration rows and all but the latest results per scenario."

    def handle(self, *args: Any, **options: Any) -> None:
        done = retention.prune()
        self.stdout.write(
            f"Pruned {done.reports} reports, the rows of {done.sweep_chunks} sweep chunks and {done.results} "
            "scenario results."
        )
