"""`/api/docs/`: the OpenAPI schema as a page people can use, rendered on the server (no CDN); `/api/schema/`
serves the same document, generated once per process and rendered once per format.

Operations are grouped by tag in the order of `SPECTACULAR_SETTINGS["TAGS"]` (estimate and scenarios first), with
a table of contents. Every operation shows its method and path, what it does, who may call it, a copyable curl
command and a Python snippet built from its first request example, the other examples, the request schema and
each documented answer. The machine-readable schema is at `/api/schema/`.
"""

from __future__ import annotations

import json
import pprint
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views import View
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SCHEMA_KWARGS, SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from planner.starters import (
    DEFAULT_COLOCATION_ID,
    DEFAULT_GPU_ID,
    DEFAULT_NETWORK_ID,
    DEFAULT_SWITCH_ID,
)

TEMPLATE_PATH = Path(__file__).with_name("docs.html")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
#: The environment variable the examples read the token from.
TOKEN_VARIABLE = "PLANNER_TOKEN"
#: Tags whose operations start unfolded; the rest (the catalog's 42 row operations) start folded.
OPEN_TAGS = frozenset({"estimate", "scenarios", "sweeps", "fleets", "auth"})
#: Section titles by tag (the schema's tags carry names and descriptions).
TAG_TITLES: dict[str, str] = {
    "estimate": "Estimate",
    "scenarios": "Scenarios",
    "sweeps": "Sweeps",
    "fleets": "Fleet plans",
    "auth": "Authentication",
    "catalog": "Catalog",
}
#: Example values for path parameters, so a copied command names something that exists (catalog rows by table).
PATH_EXAMPLES: dict[str, str] = {"id": "1", "result_id": "1"}
CATALOG_ID_EXAMPLES: dict[str, str] = {
    "gpus": DEFAULT_GPU_ID,
    "interconnects": DEFAULT_NETWORK_ID,
    "switches": DEFAULT_SWITCH_ID,
    "economics": DEFAULT_COLOCATION_ID,
    "cooling": "dlc_cold_plate",
    "cpus": "amd_epyc_9654",
    "systems": "nvidia_dgx_h100",
}
#: The first call the page shows: a catalog GPU, a model preset, a token count and the catalog's prices.
GETTING_STARTED_BODY: dict[str, Any] = {
    "cluster": {"gpu": DEFAULT_GPU_ID, "gpus_per_node": 8, "nodes": 8},
    "workload": {
        "kind": "training",
        "model": "llama3.1-70b",
        "tokens_b": 1000,
        "parallelism": {"tp": 8, "pp": 4, "global_batch": 1024},
    },
    "economics": {},
}
_CATALOG_PATH = re.compile(r"^/api/catalog/([^/]+)/\{id\}/$")


@dataclass
class Operation:
    method: str
    path: str
    summary: str
    description: str
    tag: str
    public: bool
    anchor: str = ""
    request_schema: str = ""
    request_examples: list[tuple[str, str]] = field(default_factory=list)
    responses: list[tuple[str, str]] = field(default_factory=list)
    curl: str = ""
    python: str = ""


@dataclass
class Section:
    tag: str
    title: str
    description: str
    open: bool
    operations: list[Operation]


def inline_code(text: str) -> SafeString:
    """Escaped text with `backticked` spans as <code> (the schema's descriptions use Markdown's inline code)."""
    parts = escape(text).split("`")
    return mark_safe("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))  # noqa: S308


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False)


def _anchor(method: str, path: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
    return f"{method.lower()}-{slug}"


def _concrete_path(path: str) -> str:
    """The path with example values for its parameters (a catalog row id that exists in the shipped catalog)."""
    match = _CATALOG_PATH.match(path)
    if match and match[1] in CATALOG_ID_EXAMPLES:
        return path.replace("{id}", CATALOG_ID_EXAMPLES[match[1]])
    return re.sub(r"\{(\w+)\}", lambda m: PATH_EXAMPLES.get(m[1], "1"), path)


def _placeholder(schema: dict[str, Any]) -> Any:
    """A value of the schema's type for a body no example covers (its own example when it has one)."""
    if "example" in schema:
        return schema["example"]
    kind = schema.get("type")
    if kind == "object":
        return {}
    if kind == "array":
        return []
    return {"integer": 1, "number": 1.0, "boolean": True}.get(kind, "text")


def _generated_body(schema: dict[str, Any], method: str) -> dict[str, Any] | None:
    """A small body for an operation without an example: its required fields (PATCH: one writable field)."""
    properties = schema.get("properties") or {}
    writable = {k: v for k, v in properties.items() if not v.get("readOnly")}
    if method == "PATCH":
        name = next((k for k, v in writable.items() if v.get("type") in ("number", "integer")), None)
        name = name or next(iter(writable), None)
        return {name: _placeholder(writable[name])} if name else None
    required = [k for k in schema.get("required", []) if k in writable]
    return {name: _placeholder(writable[name]) for name in required} or None


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def curl_command(method: str, url: str, body: Any, *, public: bool) -> str:
    """A copyable curl command: the token from $PLANNER_TOKEN, JSON on one quoted argument."""
    lines = [f"curl -s -X {method} {url!s}"]
    if not public:
        lines.append(f'-H "Authorization: Token ${TOKEN_VARIABLE}"')
    if body is not None:
        lines.append('-H "Content-Type: application/json"')
        lines.append("-d " + _shell_quote(json.dumps(body, indent=2)))
    return " \\\n  ".join(lines)


def python_snippet(method: str, url: str, body: Any, *, public: bool) -> str:
    """The same call with `requests` (the token from the PLANNER_TOKEN environment variable)."""
    arguments = [repr(url)]
    if not public:
        arguments.append('headers={"Authorization": f"Token {os.environ[' + repr(TOKEN_VARIABLE) + ']}"}')
    if body is not None:
        literal = pprint.pformat(body, indent=1, width=100, sort_dicts=False).replace("\n", "\n    ")
        arguments.append(f"json={literal}")
    arguments.append("timeout=60")
    call = ",\n    ".join(arguments)
    imports = "import requests\n" if public else "import os\n\nimport requests\n"
    return (
        f"{imports}\nresponse = requests.{method.lower()}(\n    {call},\n)\n"
        "response.raise_for_status()\nprint(response.json() if response.content else response.status_code)"
    )


def _operation(method: str, path: str, spec: dict[str, Any], base_url: str) -> Operation:
    body = spec.get("requestBody", {}).get("content", {}).get("application/json", {})
    examples = [(ex.get("summary") or name, ex.get("value")) for name, ex in body.get("examples", {}).items()]
    public = spec.get("security") in ([], [{}])
    op = Operation(
        method=method.upper(),
        path=path,
        summary=spec.get("summary", ""),
        description=inline_code(spec.get("description", "")),
        tag=(spec.get("tags") or ["other"])[0],
        public=public,
        anchor=_anchor(method, path),
        request_schema=_pretty(body["schema"]) if "schema" in body else "",
        request_examples=[(name, _pretty(value)) for name, value in examples],
    )
    op.responses = [
        (code, inline_code(answer.get("description", "")))
        for code, answer in spec.get("responses", {}).items()
    ]
    if examples:
        payload = _shortest(examples)
    elif "schema" in body:
        payload = _generated_body(body["schema"], op.method)
    else:
        payload = None
    url = base_url + _concrete_path(path)
    op.curl = curl_command(op.method, url, payload, public=public)
    op.python = python_snippet(op.method, url, payload, public=public)
    return op


def _shortest(examples: list[tuple[str, Any]]) -> Any:
    """The example the copyable commands use: the shortest (a full engine contract is for reading)."""
    return min((value for _, value in examples), key=lambda value: len(json.dumps(value)))


def operations(schema: dict[str, Any], base_url: str = "") -> list[Operation]:
    """Every operation of an OpenAPI document, in path order."""
    return [
        _operation(method, path, item[method], base_url)
        for path, item in sorted(schema.get("paths", {}).items())
        for method in HTTP_METHODS
        if method in item
    ]


def sections(schema: dict[str, Any], base_url: str = "") -> list[Section]:
    """Operations grouped by tag, in the schema's tag order (tags it does not list go last, by name)."""
    tags = {t["name"]: t for t in schema.get("tags", [])}
    grouped: dict[str, list[Operation]] = {}
    for op in operations(schema, base_url):
        grouped.setdefault(op.tag, []).append(op)
    order = [name for name in tags if name in grouped] + sorted(set(grouped) - set(tags))
    return [
        Section(
            tag=name,
            title=TAG_TITLES.get(name, name.capitalize()),
            description=inline_code(tags.get(name, {}).get("description", "")),
            open=name in OPEN_TAGS,
            operations=grouped[name],
        )
        for name in order
    ]


#: Rendered schema bytes per (format, media type): YAML and JSON renders cost as much as the generation.
_RENDERED: dict[tuple[str, str], tuple[bytes, str, str]] = {}


class SchemaView(SpectacularAPIView):
    """drf-spectacular's schema view serving the cached document (and its cached rendering per format)."""

    @extend_schema(**SCHEMA_KWARGS)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.GET.get("lang") or request.GET.get("version"):
            return super().get(request, *args, **kwargs)  # rare variants are built as asked
        key = (request.accepted_renderer.format, request.accepted_media_type)
        if key not in _RENDERED:
            response = self.finalize_response(request, self._schema_response(request), *args, **kwargs)
            response.render()
            _RENDERED[key] = (response.content, response["Content-Type"], response["Content-Disposition"])
        content, content_type, disposition = _RENDERED[key]
        answer = HttpResponse(content, content_type=content_type)
        answer["Content-Disposition"] = disposition
        return answer

    def _schema_response(self, request: Request) -> Response:
        return Response(
            data=_schema(),
            headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, None)}"'},
        )


@cache
def _template() -> Any:
    return engines["django"].from_string(TEMPLATE_PATH.read_text(encoding="utf-8"))


@cache
def _schema() -> dict[str, Any]:
    """The schema as the public sees it: generated once per process (it changes only with the code)."""
    return SchemaGenerator().get_schema(request=None, public=True)


class ApiDocsView(View):
    """Public, like the schema it renders: it describes the API and holds no data."""

    http_method_names = ["get", "head"]

    def get(self, request: HttpRequest) -> HttpResponse:
        schema = _schema()
        base_url = request.build_absolute_uri("/").rstrip("/")
        context = {
            "info": schema.get("info", {}),
            "sections": sections(schema, base_url),
            "base_url": base_url,
            "token_variable": TOKEN_VARIABLE,
            "first_call": curl_command(
                "POST", f"{base_url}/api/estimate/", GETTING_STARTED_BODY, public=False
            ),
            "show_demo_account": settings.DEBUG,
        }
        return HttpResponse(_template().render(context, request))
