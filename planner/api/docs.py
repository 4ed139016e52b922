"""`/api/docs/`: the OpenAPI schema as a readable page, rendered on the server (no JavaScript, no CDN).

Every operation shows its method and path, what it does, who may call it, the request body with its examples
and each documented answer. The machine-readable schema is at `/api/schema/`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.views import View
from drf_spectacular.generators import SchemaGenerator

TEMPLATE_PATH = Path(__file__).with_name("docs.html")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@dataclass
class Operation:
    method: str
    path: str
    summary: str
    description: str
    tag: str
    public: bool
    request_schema: str = ""
    request_examples: list[tuple[str, str]] = field(default_factory=list)
    responses: list[tuple[str, str]] = field(default_factory=list)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False)


def _operation(method: str, path: str, spec: dict[str, Any]) -> Operation:
    body = spec.get("requestBody", {}).get("content", {}).get("application/json", {})
    op = Operation(
        method=method.upper(),
        path=path,
        summary=spec.get("summary", ""),
        description=spec.get("description", ""),
        tag=(spec.get("tags") or ["other"])[0],
        public=spec.get("security") in ([], [{}]),
        request_schema=_pretty(body["schema"]) if "schema" in body else "",
        request_examples=[
            (ex.get("summary") or name, _pretty(ex.get("value")))
            for name, ex in body.get("examples", {}).items()
        ],
    )
    op.responses = [
        (code, answer.get("description", "")) for code, answer in spec.get("responses", {}).items()
    ]
    return op


def operations(schema: dict[str, Any]) -> list[Operation]:
    """Every operation of an OpenAPI document, in path order."""
    return [
        _operation(method, path, item[method])
        for path, item in sorted(schema.get("paths", {}).items())
        for method in HTTP_METHODS
        if method in item
    ]


@cache
def _template() -> Any:
    return engines["django"].from_string(TEMPLATE_PATH.read_text(encoding="utf-8"))


class ApiDocsView(View):
    """Public, like the schema it renders: it describes the API and holds no data."""

    http_method_names = ["get", "head"]

    def get(self, request: HttpRequest) -> HttpResponse:
        schema = SchemaGenerator().get_schema(request=None, public=True)
        context = {"info": schema.get("info", {}), "operations": operations(schema)}
        return HttpResponse(_template().render(context, request))
