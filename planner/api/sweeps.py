"""Sweep API: start a sweep of one of the user's scenarios, poll its progress, cancel it, read its results.

A sweep is started through the same SweepForm and services as the sweep page, so the API accepts exactly
what the page accepts (the body is the form's fields over the page's defaults for that scenario). Another
user's sweep is a 404, like the pages. When the task queue (Celery broker) is down, starting a sweep answers
503 "queue unavailable" and nothing is saved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from planner import selectors as planner_selectors
from planner.api import schemas
from planner.api.base import ApiViewMixin
from planner.api.errors import NON_FIELD_PATH, InvalidInput, ServiceUnavailable
from planner.api.throttles import SweepThrottle
from planner.engine.inputs.errors import SpecError
from planner.models import WorkloadKind
from planner.sweeps import selectors, services, serving, serving_services
from planner.sweeps.forms import DEGREE_FIELDS, SweepForm, initial_for
from planner.sweeps.models import SweepRun

#: Body key naming the scenario to sweep around (one of the caller's own).
SCENARIO_KEY = "scenario"
#: Form fields that take several values (a JSON list).
LIST_FIELDS = ("gpus", "recompute")
#: Text fields that also take a JSON list of integers, joined as the page's "8, 16, 32".
JOINABLE_FIELDS = ("nodes", *DEGREE_FIELDS)
#: The serving sweep's request rates: a JSON list of numbers, joined as the page's "5, 10, 20".
RATES_FIELD = "rates"
#: Seconds a client should wait before retrying after a 503.
QUEUE_RETRY_AFTER_S = 30


# ------------------------------------------------------------------------------------------ representation


#: Counts and rates the brief takes from the page's progress (selectors.sweep_status), under the same names.
PROGRESS_FIELDS = (
    "total_configs",
    "enumerated_configs",
    "evaluated_configs",
    "feasible_configs",
    "chunks_total",
    "chunks_done",
    "configs_per_s",
    "elapsed_s",
    "eta_s",
)


def sweep_brief(run: SweepRun) -> dict[str, Any]:
    progress = selectors.sweep_status(run=run)
    return {
        "id": run.pk,
        "name": run.name,
        "kind": run.kind,
        "url": reverse("api_sweep_detail", args=[run.pk]),
        "page_url": run.get_absolute_url(),
        "scenario": run.scenario_id,
        "status": progress["status"],
        "active": progress["active"],
        "progress_pct": progress["percent"],
        **{key: progress[key] for key in PROGRESS_FIELDS},
        "error": run.error,
        "engine_version": run.engine_version,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "results_url": reverse("api_sweep_results", args=[run.pk]),
        "cancel_url": reverse("api_sweep_cancel", args=[run.pk]),
    }


def sweep_results(run: SweepRun) -> dict[str, Any]:
    result = run.result or {}
    return {
        "id": run.pk,
        "status": run.status,
        "complete": run.status == "done",
        "objective": result.get("objective"),
        "evaluated": result.get("evaluated", 0),
        "feasible": result.get("feasible", 0),
        "eligible": result.get("eligible", 0),
        "gpus": result.get("gpus", []),
        "best": result.get("best", {}),
        "pareto": result.get("pareto", []),
        "per_gpu": result.get("per_gpu", []),
        "warnings": result.get("warnings", []),
        "kind": run.kind,
        "rows": result.get("rows", []),
    }


# ------------------------------------------------------------------------------------------ input


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def form_data(body: Any, base: dict[str, Any], form_class: type = SweepForm) -> dict[str, Any]:
    """The request body over the page's defaults as data of `form_class` (SweepForm, or the serving sweep's
    form for an inference scenario); InvalidInput for a body that is not an object of the form's fields."""
    if not isinstance(body, dict):
        raise InvalidInput({"(input)": ["must be an object of sweep fields and `scenario`"]})
    problems: dict[str, list[str]] = {}
    data = dict(base)
    for key, value in body.items():
        if key == SCENARIO_KEY:
            continue
        if key not in form_class.base_fields:
            problems[str(key)] = ["unknown field"]
        elif key in LIST_FIELDS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                problems[key] = ["must be a list of strings"]
            else:
                data[key] = value
        elif isinstance(value, list) and key in JOINABLE_FIELDS:
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                problems[key] = ["must be a list of integers or a text such as “8-64 step 8”"]
            else:
                data[key] = ", ".join(str(v) for v in value)
        elif isinstance(value, list) and key == RATES_FIELD:
            if not all(_number(v) for v in value):
                problems[key] = ["must be a list of numbers (requests/s) or a text such as “5, 10, 20”"]
            else:
                data[key] = ", ".join(str(v) for v in value)
        elif isinstance(value, dict | list):
            problems[key] = ["must be a single value (a number, a string or null)"]
        else:
            data[key] = "" if value is None else str(value)
    if problems:
        raise InvalidInput(problems)
    return data


def _owned_scenario_id(body: Any, user: Any) -> Any:
    raw = body.get(SCENARIO_KEY) if isinstance(body, dict) else None
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 < raw < 2**63:
        raise InvalidInput({SCENARIO_KEY: ["required: the id of one of your scenarios"]})
    try:
        return planner_selectors.scenario_get(user=user, pk=raw)
    except Http404 as exc:
        raise InvalidInput({SCENARIO_KEY: ["no scenario of yours has this id"]}) from exc


def _form_errors(form: SweepForm) -> dict[str, list[str]]:
    return {
        NON_FIELD_PATH if name == "__all__" else name: [str(e["message"]) for e in errors]
        for name, errors in form.errors.get_json_data().items()
    }


# ------------------------------------------------------------------------------------------ schema

_NULLABLE_NUMBER = {"type": "number", "nullable": True}
SWEEP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "kind": {
            "type": "string",
            "enum": ["training", "serving"],
            "description": "training: GPU models x node counts x layouts; serving: an inference scenario over "
            "GPU models x node counts x TP x request rates (started from its page).",
        },
        "url": {"type": "string"},
        "page_url": {"type": "string"},
        "scenario": {"type": "integer", "nullable": True},
        "status": {"type": "string", "enum": ["pending", "running", "done", "failed", "cancelled"]},
        "active": {"type": "boolean"},
        "progress_pct": {"type": "number", "description": "Share of the space covered, in percent."},
        "total_configs": {"type": "integer"},
        "enumerated_configs": {"type": "integer"},
        "evaluated_configs": {"type": "integer", "description": "Valid layouts evaluated so far."},
        "feasible_configs": {"type": "integer"},
        "chunks_total": {"type": "integer"},
        "chunks_done": {"type": "integer"},
        "configs_per_s": _NULLABLE_NUMBER,
        "elapsed_s": {"type": "number"},
        "eta_s": _NULLABLE_NUMBER,
        "error": {"type": "string"},
        "engine_version": {"type": "string"},
        "created_at": {"type": "string", "format": "date-time"},
        "finished_at": {"type": "string", "format": "date-time", "nullable": True},
        "results_url": {"type": "string"},
        "cancel_url": {"type": "string"},
    },
    "required": ["id", "status", "progress_pct", "evaluated_configs", "configs_per_s", "eta_s"],
}
SWEEP_LIST_SCHEMA: dict[str, Any] = {"type": "array", "items": SWEEP_SCHEMA}
_ROWS = {"type": "array", "items": {"type": "object", "additionalProperties": True}}
SWEEP_RESULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "status": {"type": "string"},
        "complete": {"type": "boolean", "description": "False while running or after a cancel."},
        "objective": {"type": "string", "nullable": True},
        "evaluated": {"type": "integer"},
        "feasible": {"type": "integer"},
        "eligible": {"type": "integer"},
        "gpus": {"type": "array", "items": {"type": "string"}},
        "best": {
            "type": "object",
            "description": "Top configurations per objective (min_time, min_tco, ...), best first.",
            "additionalProperties": _ROWS,
        },
        "pareto": {**_ROWS, "description": "Pareto front of training time against TCO."},
        "per_gpu": {**_ROWS, "description": "Per GPU model: counts and the best row per objective."},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "kind": {"type": "string", "enum": ["training", "serving"]},
        "rows": {
            **_ROWS,
            "description": "A serving sweep's configurations, ranked (meeting the targets first, then $ per "
            "million output tokens owned): GPU, nodes, GPUs, TP, requests_per_s, and `output` (the engine's "
            "`inference` section and `memory.fits`) or `problem` (why the engine refused it). Empty for training.",
        },
    },
    "required": ["id", "status", "complete", "best", "pareto", "per_gpu"],
}
SWEEP_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "`scenario` plus the sweep page's fields; omitted fields take the page's defaults for "
    "that scenario (its GPU, half to four times its nodes, shortest time). For an inference scenario the "
    "serving sweep's fields: `name`, `gpus`, `nodes`, `tp` and `rates` (at most 256 configurations; defaults: "
    "its GPU, its nodes and twice, TP 1-8, its rate and twice).",
    "properties": {
        SCENARIO_KEY: {"type": "integer", "description": "Id of one of your scenarios."},
        "name": {"type": "string"},
        "gpus": {"type": "array", "items": {"type": "string"}, "description": "Catalog GPU ids."},
        "nodes": {
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}],
            "description": "A list (8, 16, 32) or a range (8-64 step 8).",
        },
        **{
            name: {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}]}
            for name in DEGREE_FIELDS
        },
        "precision": {"type": "string"},
        "recompute": {"type": "array", "items": {"type": "string"}},
        "objective": {"type": "string"},
        "capex_budget_musd": _NULLABLE_NUMBER,
        "deadline_days": _NULLABLE_NUMBER,
        "facility_mw_max": _NULLABLE_NUMBER,
        "racks_max": {"type": "integer", "nullable": True},
        RATES_FIELD: {
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "number"}}],
            "description": "Inference scenarios only: request rates (requests/s) to sweep, e.g. [5, 10, 20].",
        },
    },
    "required": [SCENARIO_KEY],
    "additionalProperties": False,
}


# ------------------------------------------------------------------------------------------ views


class SweepListView(ApiViewMixin, APIView):
    def get_throttles(self) -> list[BaseThrottle]:
        return [SweepThrottle()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="sweeps_list",
        summary="Your sweeps, newest first",
        description="Status and progress of each; a finished sweep's results are under `results/`.",
        responses={200: OpenApiResponse(SWEEP_LIST_SCHEMA), **schemas.error_responses(401, 403, 405)},
        tags=["sweeps"],
    )
    def get(self, request: Request) -> Response:
        return Response([sweep_brief(run) for run in selectors.sweep_list(user=request.user)])

    @extend_schema(
        operation_id="sweeps_create",
        summary="Start a sweep around one of your scenarios",
        description="An inference scenario starts a serving sweep (GPU models x node counts x TP x request "
        "rates, `kind` serving), a training scenario a training sweep. "
        "Validated like the sweep page (field errors under the form's field names); refused "
        "above the size limit or past your running-sweep limit (400). Rate-limited (429 + Retry-After). "
        "503 `queue unavailable` when the task queue is down: nothing is saved.",
        request={"application/json": SWEEP_REQUEST_SCHEMA},
        responses={
            202: OpenApiResponse(SWEEP_SCHEMA, description="Queued; poll `url`."),
            **schemas.error_responses(400, 401, 403, 405, 413, 415, 429, 503),
        },
        tags=["sweeps"],
    )
    def post(self, request: Request) -> Response:
        scenario = _owned_scenario_id(request.data, request.user)
        if scenario.workload_kind == WorkloadKind.INFERENCE:
            return Response(_serving_sweep_create(request, scenario), status=status.HTTP_202_ACCEPTED)
        form = SweepForm(form_data(request.data, initial_for(scenario)), scenario=scenario)
        if not form.is_valid():
            raise InvalidInput(_form_errors(form))

        def spec_errors(err: SpecError) -> dict[str, list[str]]:
            form.add_spec_errors(err)
            return _form_errors(form)

        with _creation_refusals(spec_errors):
            run = services.sweep_create_from_scenario(
                owner=request.user, scenario=scenario, inputs=form.inputs()
            )
        return Response(sweep_brief(run), status=status.HTTP_202_ACCEPTED)


@contextmanager
def _creation_refusals(spec_errors: Callable[[SpecError], dict[str, list[str]]]) -> Iterator[None]:
    """Why creating a sweep can fail, as API errors: the queue down is a 503, a refusal (size, storage) a 400 on its
    field, an engine problem with the configurations a 400 shaped by `spec_errors`."""
    try:
        yield
    except services.QueueUnavailable as err:
        raise ServiceUnavailable(err.message, retry_after_s=QUEUE_RETRY_AFTER_S) from err
    except SpecError as err:
        raise InvalidInput(spec_errors(err)) from err
    except services.SweepRefused as err:
        raise InvalidInput({err.field or NON_FIELD_PATH: [err.message]}) from err


def _serving_sweep_create(request: Request, scenario: Any) -> dict[str, Any]:
    """A serving sweep of an inference scenario through the serving sweep page's form and service."""
    data = form_data(request.data, serving.initial_for(scenario), serving.ServingSweepForm)
    form = serving.ServingSweepForm(data, scenario=scenario)
    if not form.is_valid():
        raise InvalidInput(_form_errors(form))
    with _creation_refusals(lambda err: {NON_FIELD_PATH: [p.message for p in err.problems]}):
        run = serving_services.serving_sweep_create(
            owner=request.user, scenario=scenario, inputs=form.inputs()
        )
    return sweep_brief(run)


class SweepDetailView(ApiViewMixin, APIView):
    @extend_schema(
        operation_id="sweeps_retrieve",
        summary="A sweep's status and progress",
        description="Poll it while the sweep runs: configurations evaluated out of the total, chunks done, "
        "and the status (pending, running, done, failed, cancelled).",
        responses={200: OpenApiResponse(SWEEP_SCHEMA), **schemas.error_responses(401, 403, 404, 405)},
        tags=["sweeps"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(sweep_brief(selectors.sweep_get_light(user=request.user, pk=pk)))


class SweepCancelView(ApiViewMixin, APIView):
    @extend_schema(
        operation_id="sweeps_cancel",
        summary="Cancel a waiting or running sweep (finished chunks are kept)",
        description="Idempotent: a sweep that already stopped is answered as it is, with `cancelled: false`.",
        request=None,
        responses={
            200: OpenApiResponse(
                {
                    "type": "object",
                    "properties": {"cancelled": {"type": "boolean"}, "sweep": SWEEP_SCHEMA},
                    "required": ["cancelled", "sweep"],
                }
            ),
            **schemas.error_responses(400, 401, 403, 404, 405),
        },
        tags=["sweeps"],
    )
    def post(self, request: Request, pk: int) -> Response:
        run = selectors.sweep_get(user=request.user, pk=pk)
        cancelled = services.sweep_cancel(run=run)
        run.refresh_from_db()
        return Response({"cancelled": cancelled, "sweep": sweep_brief(run)})


class SweepResultsView(ApiViewMixin, APIView):
    @extend_schema(
        operation_id="sweeps_results",
        summary="A sweep's results: best per objective, Pareto front, per-GPU summaries",
        description="Empty lists until the sweep finishes (or is cancelled, which merges what finished).",
        responses={200: OpenApiResponse(SWEEP_RESULTS_SCHEMA), **schemas.error_responses(401, 403, 404, 405)},
        tags=["sweeps"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(sweep_results(selectors.sweep_get(user=request.user, pk=pk)))
