"""One error shape for the whole API.

Bad input is a 400 whose body maps each field path to its messages, the same paths the engine uses
(`{"errors": {"workload.parallelism.tp": ["must divide gpus (got 3 for 64 GPUs)"]}}`); everything else (401, 403,
404, 405, 413, 415, 429) keeps REST framework's `{"detail": "..."}`.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

#: Path used for problems that concern the request body as a whole (not valid JSON, not an object ...).
BODY_PATH = "(body)"
#: Path REST framework uses for errors that belong to no single field (cross-field rules).
NON_FIELD_PATH = "non_field_errors"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "Request body too large."
    default_code = "payload_too_large"


class InvalidInput(exceptions.APIException):
    """A 400 carrying `{path: [messages]}` as it is (already flattened by the caller)."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__(detail="Invalid input.")


def flatten_errors(detail: Any, path: str = "") -> dict[str, list[str]]:
    """REST framework's nested error detail -> `{"a.b.0.c": ["message", ...]}` (strings, never nested)."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            for sub_path, messages in flatten_errors(value, f"{path}.{key}" if path else str(key)).items():
                out.setdefault(sub_path, []).extend(messages)
    elif isinstance(detail, list) and any(isinstance(item, dict | list) for item in detail):
        for index, value in enumerate(detail):
            for sub_path, messages in flatten_errors(
                value, f"{path}.{index}" if path else str(index)
            ).items():
                out.setdefault(sub_path, []).extend(messages)
    elif isinstance(detail, list):
        out[path or NON_FIELD_PATH] = [str(item) for item in detail]
    else:
        out[path or NON_FIELD_PATH] = [str(detail)]
    return out


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """REST framework's handler, with validation and parse errors reshaped to `{"errors": {path: [...]}}`."""
    if isinstance(exc, InvalidInput):
        return Response({"errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"errors": flatten_errors(exc.detail)}
    elif isinstance(exc, exceptions.ParseError):
        response.data = {"errors": {BODY_PATH: [str(exc.detail)]}}
    return response
