"""One error shape for the whole API.

Bad input is a 400 whose body maps each field path to its messages, the same paths the engine uses
(`{"errors": {"workload.parallelism.tp": ["must divide gpus (got 3 for 64 GPUs)"]}}`); everything else (401, 403,
404, 405, 413, 415, 429) keeps REST framework's `{"detail": "..."}`.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import InterfaceError, OperationalError, connections
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

logger = logging.getLogger(__name__)

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


#: Seconds a client should wait after the database dropped its connection (reconnects on the next request).
DATABASE_RETRY_AFTER_S = 5
DATABASE_UNAVAILABLE = "database unavailable: the connection to the database was lost; retry in a few seconds"


class PreconditionFailed(exceptions.APIException):
    """If-Match named an ETag the object no longer has (optimistic locking)."""

    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "The object was changed elsewhere; GET it again for its current ETag."
    default_code = "precondition_failed"


class ServiceUnavailable(exceptions.APIException):
    """A 503 with a message and a Retry-After header (task queue or database down)."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "Service unavailable."
    default_code = "service_unavailable"

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail=detail)
        self.retry_after_s = retry_after_s


def close_broken_connections() -> None:
    """Close every database connection that errored and no longer answers, so the next query reconnects."""
    for connection in connections.all(initialized_only=True):
        if _is_broken(connection):
            connection.close()


def _is_broken(connection: Any) -> bool:
    """The socket is gone (psycopg marks it `broken`/`closed`); outside a transaction, also a failed ping. Inside
    one a ping fails for a merely aborted transaction, which must be rolled back, not closed."""
    raw = connection.connection
    if raw is None:
        return False
    if getattr(raw, "broken", False) or getattr(raw, "closed", False) is True:
        return True
    return not connection.in_atomic_block and not connection.is_usable()


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
    if isinstance(exc, OperationalError | InterfaceError):  # connection dropped mid-request: 503, not 500
        logger.warning("database error answered with 503: %s", exc)
        close_broken_connections()
        exc = ServiceUnavailable(DATABASE_UNAVAILABLE, retry_after_s=DATABASE_RETRY_AFTER_S)
    if isinstance(exc, ServiceUnavailable):
        return Response(
            {"detail": str(exc.detail)},
            status=exc.status_code,
            headers={"Retry-After": str(exc.retry_after_s)},
        )
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"errors": flatten_errors(exc.detail)}
    elif isinstance(exc, exceptions.ParseError):
        response.data = {"errors": {BODY_PATH: [str(exc.detail)]}}
    return response
