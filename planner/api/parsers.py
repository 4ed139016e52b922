"""A JSON body parser that refuses what would otherwise become a 500 or an unbounded amount of work.

- bodies over `MAX_BODY_BYTES` -> 413 (read at most one byte past the limit, whatever Content-Length says);
- `NaN`, `Infinity` and numbers that overflow a float (`1e400`) -> 400: the engine works in finite floats;
- nesting deeper than the decoder's recursion limit -> 400 instead of a RecursionError;
- bytes that are not UTF-8 -> 400.
"""

from __future__ import annotations

import json
import math
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from planner.api.errors import PayloadTooLarge

#: Largest request body accepted (bytes). The contract's full example is about 1 KB; a sweep or scenario with
#: every optional block is under 10 KB, so 256 KiB leaves a wide margin while bounding parse work per request.
MAX_BODY_BYTES = 256 * 1024


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is too large for a 64-bit float")
    return value


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON (numbers must be finite)")


def _declared_length(parser_context: dict[str, Any] | None) -> int | None:
    request = (parser_context or {}).get("request")
    raw = request.META.get("CONTENT_LENGTH") if request is not None else None
    try:
        return int(raw) if raw else None
    except (TypeError, ValueError):
        return None


def read_bounded(stream: IO[bytes], limit_bytes: int) -> bytes:
    """Read the whole stream, raising PayloadTooLarge as soon as it passes `limit_bytes`."""
    data = stream.read(limit_bytes + 1)
    if len(data) > limit_bytes:
        raise PayloadTooLarge(f"Request body too large: the limit is {limit_bytes // 1024} KiB.")
    return data


def loads_strict(data: bytes) -> Any:
    """Decode a JSON document with finite numbers only; ParseError (400) with the reason otherwise."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"Request body is not UTF-8 text ({exc.reason} at byte {exc.start}).") from exc
    try:
        return json.loads(text, parse_float=_finite_float, parse_constant=_reject_constant)
    except RecursionError as exc:
        raise ParseError("JSON parse error - nested too deeply.") from exc
    except ValueError as exc:
        raise ParseError(f"JSON parse error - {exc}") from exc


class BoundedJSONParser(JSONParser):
    """`application/json` with a size limit and finite numbers (see module docstring)."""

    max_body_bytes = MAX_BODY_BYTES

    def parse(
        self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None
    ) -> Any:
        declared = _declared_length(parser_context)
        if declared is not None and declared > self.max_body_bytes:
            raise PayloadTooLarge(f"Request body too large: the limit is {self.max_body_bytes // 1024} KiB.")
        if stream is None:
            raise ParseError("JSON parse error - the request body is empty.")
        return loads_strict(read_bounded(stream, self.max_body_bytes))
