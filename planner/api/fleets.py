"""Fleet plan API: plan a fleet in one call (the engine's `fleet` verb), or save plans, solve them (in the request
when quick, else queued with progress) and read their answers. The same services as the fleet page; another
user's plan is a 404; bad input is a 400 naming each field path (docs/fleet-contract.md)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from planner.api import schemas
from planner.api.base import ApiViewMixin
from planner.api.errors import InvalidInput, ServiceUnavailable
from planner.api.throttles import EstimateThrottle, SweepThrottle
from planner.engine.fleet import plan as engine_plan
from planner.engine.inputs.errors import SpecError
from planner.fleets import selectors, services
from planner.fleets.models import FleetPlan

QUEUE_RETRY_AFTER_S = 30
_OBJECT = {"type": "object", "additionalProperties": True}
FLEET_INPUT_SCHEMA: dict[str, Any] = {
    **_OBJECT,
    "description": "The fleet input of docs/fleet-contract.md: horizon, pools, teams, workloads, facility, "
    "economics, objective, options.",
    "required": ["horizon", "pools", "workloads"],
}
FLEET_ANSWER_SCHEMA: dict[str, Any] = {
    **_OBJECT,
    "description": "The fleet answer of docs/fleet-contract.md: feasible, purchases, installed, placements, "
    "utilisation, queues, per_period, chargeback, unserved, sharing, cost, solver, assumptions, warnings.",
    "required": ["engine_version", "feasible", "purchases", "placements", "unserved", "cost", "solver"],
}
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "url": {"type": "string"},
        "page_url": {"type": "string"},
        "status": {"type": "string", "enum": ["draft", "pending", "running", "done", "failed"]},
        "phase": {"type": "string"},
        "progress": {"type": "number", "description": "Share of the solve done, 0-1."},
        "error": {"type": "string"},
        "engine_version": {"type": "string"},
        "updated_at": {"type": "string", "format": "date-time"},
        "solved_at": {"type": "string", "format": "date-time", "nullable": True},
        "feasible": {"type": "boolean", "nullable": True},
        "result_url": {"type": "string"},
        "solve_url": {"type": "string"},
    },
    "required": ["id", "name", "status", "progress"],
}
PLAN_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "input": FLEET_INPUT_SCHEMA,
        "solve": {"type": "boolean", "description": "Solve right after saving (default false)."},
    },
    "required": ["input"],
    "additionalProperties": False,
}


def plan_brief(plan: FleetPlan) -> dict[str, Any]:
    return {
        "id": plan.pk,
        "name": plan.name,
        "url": reverse("api_fleet_detail", args=[plan.pk]),
        "page_url": plan.get_absolute_url(),
        "status": plan.status,
        "phase": plan.phase,
        "progress": plan.progress,
        "error": plan.error,
        "engine_version": plan.engine_version,
        "updated_at": plan.updated_at.isoformat(),
        "solved_at": plan.solved_at.isoformat() if plan.solved_at else None,
        "feasible": (plan.result or {}).get("feasible") if plan.result else None,
        "result_url": reverse("api_fleet_result", args=[plan.pk]),
        "solve_url": reverse("api_fleet_solve", args=[plan.pk]),
    }


def _body(data: Any) -> tuple[str, dict[str, Any], bool]:
    if not isinstance(data, dict):
        raise InvalidInput({"(input)": ["must be an object with `input` (and optionally `name`, `solve`)"]})
    unknown = [k for k in data if k not in ("name", "input", "solve")]
    if unknown:
        raise InvalidInput({str(k): ["unknown field"] for k in unknown})
    name, payload, solve = data.get("name", "Fleet plan"), data.get("input"), data.get("solve", False)
    problems: dict[str, list[str]] = {}
    if not isinstance(name, str):
        problems["name"] = ["must be a string"]
    if not isinstance(payload, dict):
        problems["input"] = ["is required: the fleet input object (docs/fleet-contract.md)"]
    if not isinstance(solve, bool):
        problems["solve"] = ["must be true or false"]
    if problems:
        raise InvalidInput(problems)
    return name, payload, solve  # type: ignore[return-value]


def _spec_errors(err: SpecError, prefix: str = "") -> InvalidInput:
    return InvalidInput({f"{prefix}{path}": messages for path, messages in err.as_dict().items()})


def _solve(plan: FleetPlan) -> Response:
    try:
        plan = services.plan_solve(plan=plan)
    except services.QueueUnavailable as err:
        raise ServiceUnavailable(err.message, retry_after_s=QUEUE_RETRY_AFTER_S) from err
    code = status.HTTP_200_OK if plan.status in ("done", "failed") else status.HTTP_202_ACCEPTED
    return Response(plan_brief(plan), status=code)


class FleetPlanView(ApiViewMixin, APIView):
    throttle_classes = [EstimateThrottle]

    @extend_schema(
        operation_id="fleet_plan",
        summary="Plan a fleet in one call (nothing saved)",
        description="The engine's `fleet` verb: what to buy each period and where each workload runs. 400 names "
        "each bad field by its path (`workloads[2].deadline_period`). Plans with training or inference workloads "
        "(model sizing takes seconds) are refused here: save them with `solve: true` and poll.",
        request={"application/json": FLEET_INPUT_SCHEMA},
        responses={
            200: OpenApiResponse(FLEET_ANSWER_SCHEMA),
            **schemas.error_responses(400, 401, 403, 413, 415, 429),
        },
        tags=["fleets"],
    )
    def post(self, request: Request) -> Response:
        if isinstance(request.data, dict) and services.needs_worker(request.data):
            raise InvalidInput(
                {
                    "workloads": [
                        "sizing training or inference workloads takes seconds: save the plan with POST "
                        "/api/fleets/ and `solve: true`, then poll it"
                    ]
                }
            )
        try:
            return Response(engine_plan(request.data))
        except SpecError as err:
            raise _spec_errors(err) from err


class FleetListView(ApiViewMixin, APIView):
    def get_throttles(self) -> list[BaseThrottle]:
        return [SweepThrottle()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="fleets_list",
        summary="Your saved fleet plans, latest first",
        description="Status, solve progress and whether each solved plan serves all demand (`feasible`).",
        responses={
            200: OpenApiResponse({"type": "array", "items": PLAN_SCHEMA}),
            **schemas.error_responses(401, 403),
        },
        tags=["fleets"],
    )
    def get(self, request: Request) -> Response:
        return Response([plan_brief(p) for p in selectors.plan_list(user=request.user)])

    @extend_schema(
        operation_id="fleets_create",
        summary="Save a fleet plan (and solve it with `solve: true`)",
        description="The input is validated by the engine (400 with `input.<field path>`). Solved in the request "
        "when quick (no model to size), else queued: 202, poll `url` for `progress`.",
        request={"application/json": PLAN_REQUEST_SCHEMA},
        responses={
            201: OpenApiResponse(PLAN_SCHEMA, description="Saved (and solved)."),
            202: OpenApiResponse(PLAN_SCHEMA, description="Saved and queued."),
            **schemas.error_responses(400, 401, 403, 413, 415, 429, 503),
        },
        tags=["fleets"],
    )
    def post(self, request: Request) -> Response:
        name, payload, solve = _body(request.data)
        try:
            plan = services.plan_create(owner=request.user, name=name, payload=payload)
        except SpecError as err:
            raise _spec_errors(err, "input.") from err
        if solve:
            response = _solve(plan)
            if response.status_code == status.HTTP_200_OK:
                response.status_code = status.HTTP_201_CREATED
            return response
        return Response(plan_brief(plan), status=status.HTTP_201_CREATED)


class FleetDetailView(ApiViewMixin, APIView):
    @extend_schema(
        operation_id="fleets_retrieve",
        summary="A fleet plan's status, progress and input",
        description="Poll it while the plan is solving: `status`, `phase` and `progress` (0-1).",
        responses={
            200: OpenApiResponse(
                {**PLAN_SCHEMA, "properties": {**PLAN_SCHEMA["properties"], "input": FLEET_INPUT_SCHEMA}}
            ),
            **schemas.error_responses(401, 403, 404),
        },
        tags=["fleets"],
    )
    def get(self, request: Request, pk: int) -> Response:
        plan = selectors.plan_get(user=request.user, pk=pk)
        return Response({**plan_brief(plan), "input": plan.payload})

    @extend_schema(
        operation_id="fleets_update",
        summary="Replace a fleet plan's name and input",
        description="Validated by the engine (400 with `input.<field path>`); the answer is cleared when the "
        "input changes.",
        request={"application/json": PLAN_REQUEST_SCHEMA},
        responses={
            200: OpenApiResponse(PLAN_SCHEMA),
            **schemas.error_responses(400, 401, 403, 404, 413, 415),
        },
        tags=["fleets"],
    )
    def put(self, request: Request, pk: int) -> Response:
        plan = selectors.plan_get(user=request.user, pk=pk)
        name, payload, _ = _body(request.data)
        try:
            plan = services.plan_update(plan=plan, name=name, payload=payload)
        except SpecError as err:
            raise _spec_errors(err, "input.") from err
        return Response(plan_brief(plan))

    @extend_schema(
        operation_id="fleets_destroy",
        summary="Delete a fleet plan",
        description="Deletes the plan and its answer.",
        responses={204: OpenApiResponse(description="Deleted."), **schemas.error_responses(401, 403, 404)},
        tags=["fleets"],
    )
    def delete(self, request: Request, pk: int) -> Response:
        services.plan_delete(plan=selectors.plan_get(user=request.user, pk=pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class FleetSolveView(ApiViewMixin, APIView):
    throttle_classes = [SweepThrottle]

    @extend_schema(
        operation_id="fleets_solve",
        summary="Solve a saved fleet plan",
        description="200 when solved in the request (quick plans), 202 when queued (poll the plan's `url`); 503 "
        "when the task queue is down.",
        request=None,
        responses={
            200: OpenApiResponse(PLAN_SCHEMA),
            202: OpenApiResponse(PLAN_SCHEMA),
            **schemas.error_responses(400, 401, 403, 404, 429, 503),
        },
        tags=["fleets"],
    )
    def post(self, request: Request, pk: int) -> Response:
        return _solve(selectors.plan_get(user=request.user, pk=pk))


class FleetResultView(ApiViewMixin, APIView):
    @extend_schema(
        operation_id="fleets_result",
        summary="A solved fleet plan's answer",
        description="404 until the plan is solved.",
        responses={200: OpenApiResponse(FLEET_ANSWER_SCHEMA), **schemas.error_responses(401, 403, 404)},
        tags=["fleets"],
    )
    def get(self, request: Request, pk: int) -> Response:
        plan = selectors.plan_get(user=request.user, pk=pk)
        if not plan.result:
            return Response(
                {"errors": {"(result)": ["not solved yet: POST solve_url"]}}, status=status.HTTP_404_NOT_FOUND
            )
        return Response(plan.result)
