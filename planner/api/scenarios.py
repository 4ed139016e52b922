"""Scenario API: each user's own scenarios (another user's id is a 404), their stored results, re-evaluation.

A scenario is written through the same ScenarioForm and services as the planning pages, so the API accepts
exactly what the pages accept. The body is the form's fields (the `inputs` object a GET returns: change it and
send it back); omitted fields take the new-scenario defaults on create and keep their values on PATCH.
Engine problems come back under the form field they concern, like the pages show them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django import forms as django_forms
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from planner import selectors, services
from planner.api import schemas
from planner.api.base import ApiViewMixin
from planner.api.errors import NON_FIELD_PATH, InvalidInput, PreconditionFailed
from planner.api.selectors import owned_result, owned_scenario
from planner.api.throttles import EstimateThrottle, FairUseThrottle
from planner.engine.inputs.errors import SpecError
from planner.forms import ScenarioForm, initial_from_scenario
from planner.models import Scenario, ScenarioInputs, ScenarioResult
from planner.starters import DEFAULT_INITIAL, STARTERS_BY_KEY

#: Optional body key naming a ready-made scenario to start from (planner.starters.STARTERS).
STARTER_KEY = "starter"


# ------------------------------------------------------------------------------------------ representation


def result_brief(result: ScenarioResult) -> dict[str, Any]:
    return {
        "id": result.pk,
        "url": reverse("api_scenario_result", args=[result.scenario_id, result.pk]),
        "created_at": result.created_at.isoformat(),
        "engine_version": result.engine_version,
        "summary": result.summary,
    }


def result_full(result: ScenarioResult) -> dict[str, Any]:
    return {
        **result_brief(result),
        "elapsed_ms": result.elapsed_ms,
        "input_payload": result.input_payload,
        "output": result.output,
        "search_summary": result.search_summary,
        "catalog_snapshot": result.catalog_snapshot,
        "catalog_hash": result.catalog_hash,
    }


def scenario_brief(scenario: Scenario) -> dict[str, Any]:
    latest = scenario.latest_result
    return {
        "id": scenario.pk,
        "name": scenario.name,
        "url": reverse("api_scenario_detail", args=[scenario.pk]),
        "page_url": scenario.get_absolute_url(),
        "workload_kind": scenario.workload_kind,
        "total_gpus": scenario.total_gpus,
        "created_at": scenario.created_at.isoformat(),
        "updated_at": scenario.updated_at.isoformat(),
        "latest_result": result_brief(latest) if latest is not None else None,
    }


def scenario_etag(scenario: Scenario) -> str:
    """A strong validator of the scenario's inputs: its version, raised by every saved edit."""
    return f'"v{scenario.version}"'


def expected_version(if_match: str | None) -> int | None:
    """The version an If-Match header names (None: no header or `*`); PreconditionFailed for one that names
    no version of ours."""
    if not if_match or if_match.strip() == "*":
        return None
    tag = if_match.split(",")[0].strip().removeprefix("W/").strip('"')
    if not (tag.startswith("v") and tag[1:].isdigit()):
        raise PreconditionFailed(f'If-Match must be an ETag this API sent, such as "v3" (got {if_match!r}).')
    return int(tag[1:])


def scenario_full(scenario: Scenario) -> dict[str, Any]:
    return {
        **scenario_brief(scenario),
        "version": scenario.version,
        "inputs": initial_from_scenario(scenario),
        "results_url": reverse("api_scenario_results", args=[scenario.pk]),
    }


# ------------------------------------------------------------------------------------------ input


def _form_errors(form: ScenarioForm) -> dict[str, list[str]]:
    return {
        NON_FIELD_PATH if name == "__all__" else name: [str(e["message"]) for e in errors]
        for name, errors in form.errors.get_json_data().items()
    }


def form_data(body: Any, base: dict[str, Any]) -> dict[str, Any]:
    """The request body over `base` (defaults, a starter or the scenario's current inputs) as form data.
    Raises InvalidInput for a body that is not a flat object of the form's fields."""
    if not isinstance(body, dict):
        raise InvalidInput({"(input)": ["must be an object of scenario fields (see `inputs` in a GET)"]})
    allowed = set(ScenarioForm.base_fields) | {STARTER_KEY}
    problems: dict[str, list[str]] = {}
    for key, value in body.items():
        if key not in allowed:
            problems[str(key)] = ["unknown field"]
        elif isinstance(value, dict | list):
            problems[key] = ["must be a single value (a number, a string, true/false or null)"]
    starter = body.get(STARTER_KEY)
    if starter is not None and starter not in STARTERS_BY_KEY:
        problems[STARTER_KEY] = [f"unknown starter; one of: {', '.join(STARTERS_BY_KEY)}"]
    if problems:
        raise InvalidInput(problems)
    merged = {**(STARTERS_BY_KEY[starter].initial if starter else base), **body}
    merged.pop(STARTER_KEY, None)
    return {key: "" if value is None else value for key, value in merged.items()}


def validated_inputs(data: dict[str, Any]) -> tuple[ScenarioForm, ScenarioInputs]:
    form = ScenarioForm(data)
    if not form.is_valid():
        raise InvalidInput(_form_errors(form))
    return form, form.scenario_inputs()


def _engine_errors(form: ScenarioForm, error: SpecError) -> InvalidInput:
    form.add_engine_problems(error.problems)
    return InvalidInput(_form_errors(form))


# ------------------------------------------------------------------------------------------ schema


def _choice_keys(choices: Any) -> list[str]:
    """Choice values, flattening option groups, without the blank choice."""
    keys: list[str] = []
    for key, label in choices:
        if isinstance(label, list | tuple):
            keys += _choice_keys(label)
        elif key != "":
            keys.append(str(key))
    return keys


def _field_schema(field: django_forms.Field) -> dict[str, Any]:
    if isinstance(field, django_forms.ModelChoiceField):
        schema: dict[str, Any] = {"type": "string", "description": "Catalog id."}
    elif isinstance(field, django_forms.BooleanField):
        schema = {"type": "boolean"}
    elif isinstance(
        field, django_forms.FloatField | django_forms.DecimalField
    ):  # before IntegerField: subclasses
        schema = {"type": "number"}
    elif isinstance(field, django_forms.IntegerField):
        schema = {"type": "integer"}
    elif isinstance(field, django_forms.ChoiceField):
        keys = _choice_keys(field.choices)  # empty when the form fills the choices in at run time
        schema = {"type": "string", "enum": keys} if keys else {"type": "string"}
    else:
        schema = {"type": "string"}
    help_text = " ".join(str(t) for t in (field.label, field.help_text) if t)
    if help_text:
        schema["description"] = f"{help_text} {schema.get('description', '')}".strip()
    if not field.required:
        schema["nullable"] = True
    return schema


@cache
def inputs_schema() -> dict[str, Any]:
    properties = {name: _field_schema(field) for name, field in ScenarioForm.base_fields.items()}
    properties[STARTER_KEY] = {
        "type": "string",
        "enum": list(STARTERS_BY_KEY),
        "description": "Start from a ready-made scenario instead of the defaults (create only).",
    }
    return {
        "type": "object",
        "description": "The scenario form's fields; omitted fields take the defaults (create) or keep their "
        "values (PATCH). Percentages are in percent (`utilization_pct: 80`).",
        "properties": properties,
        "additionalProperties": False,
    }


RESULT_BRIEF_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "url": {"type": "string"},
        "created_at": {"type": "string", "format": "date-time"},
        "engine_version": {"type": "string"},
        "summary": {"type": "object", "additionalProperties": True},
    },
    "required": ["id", "url", "created_at", "engine_version", "summary"],
}
RESULT_FULL_SCHEMA = {
    "type": "object",
    "properties": {
        **RESULT_BRIEF_SCHEMA["properties"],
        "elapsed_ms": {"type": "number"},
        "input_payload": {"type": "object", "additionalProperties": True},
        "output": schemas.ESTIMATE_RESPONSE_SCHEMA,
        "search_summary": {"type": "object", "nullable": True, "additionalProperties": True},
        "catalog_snapshot": {"type": "object", "additionalProperties": True},
        "catalog_hash": {"type": "string"},
    },
    "required": [*RESULT_BRIEF_SCHEMA["required"], "input_payload", "output"],
}
SCENARIO_BRIEF_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "url": {"type": "string"},
        "page_url": {"type": "string"},
        "workload_kind": {"type": "string"},
        "total_gpus": {"type": "integer"},
        "created_at": {"type": "string", "format": "date-time"},
        "updated_at": {"type": "string", "format": "date-time"},
        "latest_result": {**RESULT_BRIEF_SCHEMA, "nullable": True},
    },
    "required": ["id", "name", "url", "latest_result"],
}
SCENARIO_FULL_SCHEMA = {
    "type": "object",
    "properties": {
        **SCENARIO_BRIEF_SCHEMA["properties"],
        "inputs": {"type": "object", "additionalProperties": True},
        "results_url": {"type": "string"},
    },
    "required": [*SCENARIO_BRIEF_SCHEMA["required"], "inputs"],
}
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description='The ETag a GET answered (such as `"v3"`): the change is made only if nobody saved the '
    "scenario since (else 412). Without it the change is made whatever the current version.",
)
CREATE_EXAMPLE = OpenApiExample(
    "Llama 3.1 70B on 128 H100s",
    value={"starter": "llama70b-h100", "name": "70B on 16 nodes", "nodes": 16},
    request_only=True,
)


# ------------------------------------------------------------------------------------------ views


class ScenarioApiView(ApiViewMixin, APIView):
    # Writes run the engine (and, for automatic parallelism, a layout search): rate-limited like estimate, and
    # by the pages' fair-use limit of what they do (planner.ratelimit: "create", "evaluate").
    fair_use_scopes: dict[str, str] = {}

    def get_throttles(self) -> list[BaseThrottle]:
        if self.request.method in ("GET", "HEAD", "OPTIONS"):
            return []
        scope = self.fair_use_scopes.get(self.request.method or "")
        return [EstimateThrottle(), *([FairUseThrottle(scope)] if scope else [])]

    def scenario(self, pk: int) -> Scenario:
        return owned_scenario(user=self.request.user, pk=pk)


class ScenarioListView(ScenarioApiView):
    fair_use_scopes = {"POST": "create"}

    @extend_schema(
        operation_id="scenarios_list",
        summary="Your scenarios, most recently changed first",
        description="Each with its id, its links (API and page) and the headline figures of its latest result "
        "(`latest_result.summary`: fits, days, power, capex, TCO).",
        responses={
            200: OpenApiResponse({"type": "array", "items": SCENARIO_BRIEF_SCHEMA}),
            **schemas.error_responses(401, 403),
        },
        tags=["scenarios"],
    )
    def get(self, request: Request) -> Response:
        return Response([scenario_brief(s) for s in selectors.scenario_list(user=request.user)])

    @extend_schema(
        operation_id="scenarios_create",
        summary="Create and evaluate a scenario",
        description="The body is the planning form's fields (a GET of a scenario returns them under `inputs`); "
        "`starter` names a ready-made plan to start from and omitted fields take the new-scenario defaults, "
        "catalog prices included. The engine runs before anything is saved: a problem answers 400 under the "
        "field it concerns and nothing is stored.",
        request={"application/json": inputs_schema()},
        responses={
            201: OpenApiResponse(SCENARIO_FULL_SCHEMA, description="Saved with its first result."),
            **schemas.error_responses(400, 401, 403, 413, 415, 429),
        },
        examples=[CREATE_EXAMPLE],
        tags=["scenarios"],
    )
    def post(self, request: Request) -> Response:
        form, inputs = validated_inputs(form_data(request.data, DEFAULT_INITIAL))
        try:
            scenario = services.scenario_create(owner=request.user, inputs=inputs)
        except SpecError as error:
            raise _engine_errors(form, error) from error
        return Response(scenario_full(scenario), status=status.HTTP_201_CREATED)


class ScenarioDetailView(ScenarioApiView):
    fair_use_scopes = {"PUT": "evaluate", "PATCH": "evaluate"}

    def _update(self, request: Request, pk: int, base: dict[str, Any] | None) -> Response:
        scenario = self.scenario(pk)
        version = expected_version(request.headers.get("If-Match"))
        if version is not None and version != scenario.version:
            raise PreconditionFailed()
        data = form_data(request.data, initial_from_scenario(scenario) if base is None else base)
        form, inputs = validated_inputs(data)
        try:
            scenario = services.scenario_update(scenario=scenario, inputs=inputs, expected_version=version)
        except SpecError as error:
            raise _engine_errors(form, error) from error
        except services.ScenarioChanged as changed:
            raise PreconditionFailed() from changed
        return Response(scenario_full(scenario), headers={"ETag": scenario_etag(scenario)})

    @extend_schema(
        operation_id="scenarios_retrieve",
        summary="One of your scenarios with its inputs",
        description="`inputs` is what the form holds: change it and send it back with PUT or PATCH. Another "
        "user's scenario answers 404.",
        responses={200: OpenApiResponse(SCENARIO_FULL_SCHEMA), **schemas.error_responses(401, 403, 404)},
        tags=["scenarios"],
    )
    def get(self, request: Request, pk: int) -> Response:
        scenario = self.scenario(pk)
        return Response(scenario_full(scenario), headers={"ETag": scenario_etag(scenario)})

    @extend_schema(
        operation_id="scenarios_update",
        summary="Replace a scenario's inputs (omitted fields take the defaults) and evaluate it again",
        description="A new result is stored; earlier ones stay readable under `results/`.",
        request={"application/json": inputs_schema()},
        responses={
            200: OpenApiResponse(SCENARIO_FULL_SCHEMA),
            **schemas.error_responses(400, 401, 403, 404, 412, 413, 415, 429),
        },
        parameters=[IF_MATCH],
        tags=["scenarios"],
    )
    def put(self, request: Request, pk: int) -> Response:
        return self._update(request, pk, DEFAULT_INITIAL)

    @extend_schema(
        operation_id="scenarios_partial_update",
        summary="Change some inputs and evaluate again (earlier results stay in the history)",
        description='Fields you leave out keep their current values, so `{"nodes": 16}` re-sizes the plan.',
        request={"application/json": inputs_schema()},
        responses={
            200: OpenApiResponse(SCENARIO_FULL_SCHEMA),
            **schemas.error_responses(400, 401, 403, 404, 412, 413, 415, 429),
        },
        parameters=[IF_MATCH],
        tags=["scenarios"],
    )
    def patch(self, request: Request, pk: int) -> Response:
        return self._update(request, pk, None)

    @extend_schema(
        operation_id="scenarios_destroy",
        summary="Delete a scenario with its results and share links",
        description="Its share links stop working at once.",
        responses={
            204: OpenApiResponse(description="Deleted."),
            **schemas.error_responses(401, 403, 404, 429),
        },
        tags=["scenarios"],
    )
    def delete(self, request: Request, pk: int) -> Response:
        services.scenario_delete(scenario=self.scenario(pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ScenarioResultsView(ScenarioApiView):
    @extend_schema(
        operation_id="scenarios_results_list",
        summary="A scenario's stored results, newest first",
        description="Brief entries with their headline figures; follow `url` for the full engine input and output.",
        responses={
            200: OpenApiResponse({"type": "array", "items": RESULT_BRIEF_SCHEMA}),
            **schemas.error_responses(401, 403, 404),
        },
        tags=["scenarios"],
    )
    def get(self, request: Request, pk: int) -> Response:
        results = self.scenario(pk).results.defer(
            "input_payload", "output", "catalog_snapshot", "search_summary"
        )
        return Response([result_brief(r) for r in results])


class ScenarioResultView(ScenarioApiView):
    @extend_schema(
        operation_id="scenarios_results_retrieve",
        summary="One stored result: the engine input exactly as sent, its output and the catalog values used",
        description="`input_payload` is a complete `POST /api/estimate/` body: sent as it is, it gives `output` "
        "again as long as the engine version is the same.",
        responses={200: OpenApiResponse(RESULT_FULL_SCHEMA), **schemas.error_responses(401, 403, 404)},
        tags=["scenarios"],
    )
    def get(self, request: Request, pk: int, result_id: int) -> Response:
        return Response(result_full(owned_result(user=request.user, scenario_pk=pk, result_id=result_id)))


class ScenarioEvaluateView(ScenarioApiView):
    fair_use_scopes = {"POST": "evaluate"}

    @extend_schema(
        operation_id="scenarios_evaluate",
        summary="Evaluate again with today's catalog and engine (a new result; the old ones are kept)",
        description="For a plan saved before a catalog edit or an engine update: the inputs stay, the figures "
        "are recomputed.",
        request=None,
        responses={
            201: OpenApiResponse(RESULT_FULL_SCHEMA),
            **schemas.error_responses(400, 401, 403, 404, 429),
        },
        tags=["scenarios"],
    )
    def post(self, request: Request, pk: int) -> Response:
        scenario = self.scenario(pk)
        try:
            result = services.scenario_reevaluate(scenario=scenario)
        except SpecError as error:
            raise InvalidInput(error.as_dict()) from error
        return Response(result_full(result), status=status.HTTP_201_CREATED)
