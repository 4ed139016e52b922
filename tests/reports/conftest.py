"""Report test helpers: a loaded catalog, evaluated scenarios (real engine), a finished sweep, Celery in eager
mode, and pdftotext / pdftoppm wrappers (poppler-utils)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from planner.celery import app
from planner.models import Scenario
from planner.reports.models import Report, ReportKind, ReportStatus
from tests.planner.conftest import load_catalog, make_scenario
from tests.sweeps.conftest import engine_spec

H100 = "nvidia_h100_sxm5_80gb"


@pytest.fixture
def catalog(db) -> None:
    load_catalog()


@pytest.fixture
def alice_scenario(catalog, alice) -> Scenario:
    """The acceptance plan: Llama 3.1 70B on 8 nodes × 8 H100 SXM5, 15T tokens (the form's starter)."""
    return make_scenario(alice, name="Llama 3.1 70B on 64 H100s")


@pytest.fixture
def alice_b200(catalog, alice) -> Scenario:
    return make_scenario(alice, "llama70b-b200", name="Llama 3.1 70B on 64 B200s")


@pytest.fixture
def eager() -> Iterator[None]:
    """Celery tasks run in-process."""
    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = before


def render_history(kind: str, render_ms: float, owner: Any, count: int = 5) -> None:
    """Finished reports of `kind` that took `render_ms` each: what the direct-or-worker decision reads."""
    for i in range(count):
        Report.objects.create(
            owner=owner,
            kind=kind,
            params={"history": i},
            fingerprint=f"history-{kind}-{i}",
            title="earlier report",
            status=ReportStatus.DONE,
            render_ms=render_ms,
        )


@pytest.fixture
def renders_fast(alice) -> None:
    for kind in ReportKind.values:
        render_history(kind, 50.0, alice)


def sweep_spec() -> dict[str, Any]:
    """A small sweep: Llama 3.1 8B on H100 and A100 nodes (evaluates in well under a second)."""
    return engine_spec(nodes=[2, 4], constraints={"days_max": 400.0})


@pytest.fixture
def alice_sweep(catalog, alice) -> Any:
    """A finished sweep owned by Alice (chunks run in-process, as workers would)."""
    from planner.sweeps import services as sweep_services
    from planner.sweeps.models import SweepRun

    with override_settings(SWEEP_CHUNK_CONFIGS=2000):
        run = sweep_services.sweep_create(
            owner=alice, scenario=None, spec=sweep_spec(), name="Alice 8B sweep"
        )
    for index in range(run.chunks_total):
        sweep_services.sweep_chunk_run(run_id=run.pk, index=index)
    return SweepRun.objects.get(pk=run.pk)


def pdf_text(
    content: bytes, tmp_path: Path, *, first: int | None = None, last: int | None = None, raw: bool = False
) -> str:
    """pdftotext of a PDF with whitespace (and no-break spaces) collapsed to single spaces: table rows on one
    line (-layout), or with raw=True in drawing order (a wrapped table cell stays together)."""
    source = tmp_path / "report.pdf"
    source.write_bytes(content)
    args = ["pdftotext", "-raw" if raw else "-layout"]
    if first:
        args += ["-f", str(first)]
    if last:
        args += ["-l", str(last)]
    text = subprocess.run([*args, str(source), "-"], check=True, capture_output=True).stdout.decode()
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ").replace("\u202f", " "))


def pdf_pages(content: bytes, tmp_path: Path) -> int:
    source = tmp_path / "info.pdf"
    source.write_bytes(content)
    info = subprocess.run(["pdfinfo", str(source)], check=True, capture_output=True).stdout.decode()
    return int(re.search(r"Pages:\s+(\d+)", info)[1])


def page_png(content: bytes, tmp_path: Path, page: int = 1, dpi: int = 60) -> Path:
    source = tmp_path / "page.pdf"
    source.write_bytes(content)
    stem = tmp_path / f"page{page}"
    subprocess.run(
        [
            "pdftoppm",
            "-f",
            str(page),
            "-l",
            str(page),
            "-r",
            str(dpi),
            "-png",
            "-singlefile",
            str(source),
            str(stem),
        ],
        check=True,
        capture_output=True,
    )
    return stem.with_suffix(".png")


def flat(text: str) -> str:
    """A formatted figure as pdf_text writes it (no-break spaces as spaces)."""
    return text.replace("\u00a0", " ").replace("\u202f", " ")
