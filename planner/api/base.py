"""What every API view shares: token or session authentication, signed-in users only, the bounded JSON
parser and the `{"errors": {path: [...]}}` error shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.parsers import BaseParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer

from planner.api.errors import api_exception_handler
from planner.api.parsers import BoundedJSONParser


class ApiViewMixin:
    # Mixed into every APIView / ViewSet. Token authentication comes first so an anonymous request is told how
    # to authenticate (401). A comment, not a docstring: drf-spectacular would publish a docstring as the
    # description of every operation that has none of its own.

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes: list[type[BaseParser]] = [BoundedJSONParser]
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer]

    def get_exception_handler(self) -> Callable[[Exception, dict[str, Any]], Any]:
        return api_exception_handler
