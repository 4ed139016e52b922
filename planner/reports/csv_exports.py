"""CSV exports, streamed with the standard library's csv writer (StreamingHttpResponse): a scenario's figures,
bill of materials, TCO by year and sensitivity; a comparison; every configuration a sweep evaluated; the catalog.

Headers come from the shared column declarations (planner/reports/columns.py, planner/sweeps/columns.py) with
their units; cells hold the raw values (full precision, no thousands separators), so a spreadsheet or pandas
reads the engine's numbers, not rounded text. Text cells that a spreadsheet would run as a formula are quoted
with a leading apostrophe (OWASP "CSV injection").
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.http import HttpResponseBase, StreamingHttpResponse
from django.utils.http import content_disposition_header

from planner.reports import columns as cols

#: Rows per piece of the streamed body (one write to the socket per piece).
ROWS_PER_PIECE = 2000
#: Sweep rows converted to Python values at a time (bounds memory to one slice, not one chunk, of lists).
SWEEP_SLICE_ROWS = 5_000
#: First characters that make a spreadsheet treat a cell as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
CONTENT_TYPE = "text/csv; charset=utf-8"


class _Echo:
    """A file-like object whose write returns the line, so csv.writer can feed a generator."""

    def write(self, value: str) -> str:
        return value


def _safe(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def csv_lines(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """The header line, then the rows in pieces of ROWS_PER_PIECE lines."""
    writer = csv.writer(_Echo())
    yield writer.writerow([_safe(h) for h in header])
    piece: list[str] = []
    for row in rows:
        piece.append(writer.writerow([_safe(v) for v in row]))
        if len(piece) >= ROWS_PER_PIECE:
            yield "".join(piece)
            piece = []
    if piece:
        yield "".join(piece)


def attach(response: HttpResponseBase, filename: str) -> HttpResponseBase:
    """Mark a response as a download named `filename` (RFC 6266: a non-ASCII name is sent as filename*)."""
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


def csv_response(filename: str, lines: Iterable[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=CONTENT_TYPE)
    attach(response, filename)
    response["X-Content-Type-Options"] = "nosniff"
    return response


def table_lines(columns: Sequence[cols.Column], items: Iterable[Any]) -> Iterator[str]:
    """One row per item, one column per declared Column (header with unit, raw value)."""
    header = [c.raw_header for c in columns]
    return csv_lines(header, ([c.value(item) for c in columns] for item in items))


# --------------------------------------------------------------------------------------------- scenario


METRIC_HEADER = ("metric", "value", "unit", "key")


def metrics_lines(*, output: dict[str, Any], kind: str) -> Iterator[str]:
    """One row per figure of the result: metric (label), value (raw), unit, key (stable identifier)."""
    rows = (
        (c.header, c.value(output), c.unit, c.key)
        for c in cols.report_metrics_for(kind)
        if c.value(output) is not None
    )
    return csv_lines(METRIC_HEADER, rows)


# --------------------------------------------------------------------------------------------- comparison


def comparison_lines(scenarios: Sequence[Any]) -> Iterator[str]:
    """Inputs and figures side by side: key, metric, unit, then one column per scenario (raw values); the same
    rows as the comparison page (planner.selectors.comparison_rows)."""
    header = ["key", "metric", "unit", *(f"{s.name} (#{s.pk})" for s in scenarios)]
    outputs = [s.latest_result.output if s.latest_result else {} for s in scenarios]
    kinds = {s.workload_kind for s in scenarios}
    rows: list[list[Any]] = [
        [c.key, c.header, c.unit, *(c.value(s) for s in scenarios)]
        for c in cols.INPUT_ROWS
        if c.kinds & kinds
    ]
    for column in cols.METRICS:
        values = [column.value(o) for o in outputs]
        if column.kinds & kinds and any(v is not None for v in values):
            rows.append([column.key, column.header, column.unit, *values])
    return csv_lines(header, rows)


# --------------------------------------------------------------------------------------------- sweep


def _sweep_slices(run: Any) -> Iterator[list[tuple[Any, ...]]]:
    """Rows of every finished chunk, a slice of SWEEP_SLICE_ROWS at a time, in the order of SWEEP_COLUMNS."""
    from planner.engine.perf.layout import RECOMPUTE_NAMES
    from planner.sweeps import columns as sweep_cols
    from planner.sweeps import selectors as sweep_selectors

    labels = [_safe(g["label"]) for g in run.spec["gpus"]]
    keys = [c.key for c in sweep_cols.SWEEP_COLUMNS]
    for _index, arrays in sweep_selectors.sweep_rows(run=run):
        count = len(arrays["gpu"])
        for start in range(0, count, SWEEP_SLICE_ROWS):
            stop = min(start + SWEEP_SLICE_ROWS, count)
            values: list[list[Any]] = []
            for key in keys:
                if key == "gpu_label":
                    values.append([labels[i] for i in arrays["gpu"][start:stop].tolist()])
                elif key == "recompute":
                    values.append([RECOMPUTE_NAMES[i] for i in arrays["recompute"][start:stop].tolist()])
                elif arrays[key].dtype.kind == "f":
                    # float32 figures in their shortest form that reads back to the same float32
                    values.append(arrays[key][start:stop].astype(str).tolist())
                else:
                    values.append(arrays[key][start:stop].tolist())
            yield list(zip(*values, strict=True))
        del arrays


def sweep_lines(run: Any) -> Iterator[str]:
    """Every configuration the sweep evaluated, streamed chunk by chunk from the stored blobs; a serving sweep's
    stored rows ranked as on its page, with the engine's reason for each refused configuration."""
    from planner.sweeps import columns as sweep_cols

    if run.kind == "serving":
        from planner.sweeps import selectors as sweep_selectors

        yield from table_lines(
            sweep_cols.SERVING_SWEEP_CSV_COLUMNS, sweep_selectors.serving_sweep_rows(run=run)
        )
        return

    writer = csv.writer(_Echo())
    yield writer.writerow([c.header_with_unit for c in sweep_cols.SWEEP_COLUMNS])
    for rows in _sweep_slices(run):
        for start in range(0, len(rows), ROWS_PER_PIECE):
            yield "".join(writer.writerow(row) for row in rows[start : start + ROWS_PER_PIECE])


# --------------------------------------------------------------------------------------------- catalog


def catalog_lines(model: type) -> Iterator[str]:
    """A catalog table with the admin's import/export columns (catalog.resources), so the file re-imports."""
    from catalog.resources import RESOURCES

    resource = RESOURCES[model]()
    dataset = resource.export(queryset=model.objects.order_by("pk"))
    return csv_lines(dataset.headers, dataset)
