"""A database connection lost mid-request answers a clean 503 page (with Retry-After), never a 500 traceback.

The broken connection is closed so the next request reconnects (Django would otherwise keep a persistent
connection, CONN_MAX_AGE, that no longer answers). The API's exception handler does the same for JSON.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse

from planner.api.errors import DATABASE_RETRY_AFTER_S, DATABASE_UNAVAILABLE, close_broken_connections

logger = logging.getLogger(__name__)


class DatabaseUnavailableMiddleware:
    """Turn django.db.OperationalError / InterfaceError raised by a view into a 503 with a message."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.warning("database error on %s answered with 503: %s", request.path, exception)
        close_broken_connections()
        response = HttpResponse(
            f"503 Service unavailable: {DATABASE_UNAVAILABLE}.\n",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
        response["Retry-After"] = str(DATABASE_RETRY_AFTER_S)
        return response
