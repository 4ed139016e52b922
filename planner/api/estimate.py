"""`POST /api/estimate/`: the engine contract over HTTP."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.api import schemas
from planner.api.base import ApiViewMixin
from planner.api.errors import InvalidInput
from planner.api.services import estimate_run
from planner.api.throttles import EstimateThrottle
from planner.engine.inputs.errors import SpecError


class EstimateView(ApiViewMixin, APIView):
    throttle_classes = [EstimateThrottle]

    @extend_schema(
        operation_id="estimate",
        summary="Size one cluster for one workload",
        description="Takes the engine contract's input and returns its output: memory fit per GPU, step time and "
        "training days, IT and facility power, and (with `economics`) capex, opex and TCO. Invalid input "
        "answers 400 with every problem under its field path. Rate-limited per user (429 + Retry-After).",
        request={"application/json": schemas.ESTIMATE_REQUEST_SCHEMA},
        responses={
            200: OpenApiResponse(schemas.ESTIMATE_RESPONSE_SCHEMA, description="The engine's answer."),
            **schemas.error_responses(400, 401, 403, 405, 413, 415, 429),
        },
        examples=schemas.ESTIMATE_EXAMPLES,
        tags=["estimate"],
    )
    def post(self, request: Request) -> Response:
        try:
            return Response(estimate_run(payload=request.data))
        except SpecError as exc:
            raise InvalidInput(exc.as_dict()) from exc
