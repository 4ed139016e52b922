"""OpenAPI pieces for the API that no serializer describes: the engine contract's input and output, and the
error shapes. The request body is a free-form JSON object whose top-level keys are documented; the engine
validates the rest and answers 400 with field paths, so a client (or a fuzzer) may send anything."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse

from planner.api.parsers import MAX_BODY_BYTES

NUMBER: dict[str, Any] = {"type": "number"}
OBJECT: dict[str, Any] = {"type": "object", "additionalProperties": True}

ERRORS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Bad input: each field path (`workload.parallelism.tp`, `cluster.gpu`, `(body)`) maps to "
    "one or more messages that name the rule and the value.",
    "properties": {
        "errors": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        }
    },
    "required": ["errors"],
}
DETAIL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}

GPU_OBJECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Datasheet numbers of one GPU: tensor TFLOPS dense (no sparsity), memory as labelled (GB).",
    "properties": {
        "name": {"type": "string"},
        "memory_gb": NUMBER,
        "memory_bandwidth_tbs": NUMBER,
        "tflops": {"type": "object", "additionalProperties": NUMBER, "example": {"bf16": 989, "fp8": 1979}},
        "tdp_w": NUMBER,
        "scaleup_bandwidth_gbs": NUMBER,
        "price_usd": NUMBER,
        "vendor": {"type": "string"},
    },
    "additionalProperties": True,
}

ESTIMATE_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The sizing engine's input contract (docs/engine-contract.md). Unknown keys are rejected "
    "with their path; every optional key has a documented default echoed under `assumptions` in the answer. "
    f"Bodies over {MAX_BODY_BYTES // 1024} KiB are refused with 413.",
    "properties": {
        "cluster": {
            "type": "object",
            "description": "The hardware: `gpu` (catalog id such as `nvidia_h100_sxm5_80gb`, resolved from "
            "this site's catalog, or an object of datasheet numbers), `gpus_per_node`, `nodes`, "
            "`scaleout_gbps_per_gpu`, `node_max_power_kw`, `pue`, `host_power_kw`, `gpu_load_factor`, "
            "`network`, `cooling`, `storage_tb`.",
            "properties": {
                "gpu": {"oneOf": [{"type": "string"}, GPU_OBJECT_SCHEMA]},
                "gpus_per_node": {"type": "integer"},
                "nodes": {"type": "integer"},
                "scaleout_gbps_per_gpu": NUMBER,
                "node_max_power_kw": NUMBER,
                "pue": NUMBER,
                "network": OBJECT,
                "cooling": OBJECT,
            },
            "additionalProperties": True,
        },
        "workload": {
            "type": "object",
            "description": "What runs: `kind` (training | inference | job), `model` (preset name, shape "
            "object or `{preset, ...overrides}`), `tokens_b`, `precision`, `optimizer`, `parallelism` "
            "(tp, pp, dp, cp, ep, zero_stage, recompute, micro_batch, global_batch ...), `goodput`, "
            "`serving` (inference), `job` (generic GPU job).",
            "properties": {
                "kind": {"type": "string", "enum": ["training", "inference", "job"]},
                "model": {"oneOf": [{"type": "string"}, OBJECT]},
                "tokens_b": NUMBER,
                "precision": {"type": "string"},
                "optimizer": {"type": "string"},
                "parallelism": OBJECT,
                "goodput": OBJECT,
                "serving": OBJECT,
                "job": OBJECT,
            },
            "additionalProperties": True,
        },
        "economics": {
            "type": "object",
            "description": "Optional; without it the answer has no `cost` section. "
            "`electricity_usd_per_kwh`, `years`, `utilization`, `gpu_server_usd`, `cloud_usd_per_gpu_hour`, "
            "`discount_rate`, `colocation_usd_per_kw_month`, ...",
            "additionalProperties": True,
        },
    },
    "required": ["cluster", "workload"],
    "additionalProperties": True,
}


def _numbers(*names: str) -> dict[str, Any]:
    return {name: NUMBER for name in names}


ESTIMATE_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The engine's answer (contract keys plus extensions). A scenario that cannot run (does not "
    "fit) is a normal answer with `memory.fits: false` and a warning, not an error.",
    "properties": {
        "engine_version": {"type": "string"},
        "kind": {"type": "string", "enum": ["training", "inference", "job"]},
        "model": {"type": "object", "properties": _numbers("params_b", "flop_per_token")},
        "memory": {
            "type": "object",
            "properties": {
                **_numbers(
                    "weights_gib",
                    "gradients_gib",
                    "optimizer_gib",
                    "activations_gib",
                    "kv_cache_gib",
                    "other_gib",
                    "per_gpu_gib",
                    "capacity_gib",
                ),
                "fits": {"type": "boolean"},
            },
        },
        "time": {
            "type": "object",
            "nullable": True,  # null when the layout does not fit in GPU memory (docs/engine-contract.md)
            "properties": {
                **_numbers(
                    "step_s",
                    "tokens_per_s",
                    "mfu",
                    "model_tflops_per_gpu",
                    "days",
                    "gpu_hours",
                    "days_low",
                    "days_high",
                    "steady_state_days",
                    "goodput",
                ),
                "breakdown_s": {"type": "object", "additionalProperties": NUMBER},
                "overheads": {
                    "type": "object",
                    "description": "The whole run beyond the steady state, per part (batch_ramp_up, long_context, "
                    "evaluation, stragglers, data_stalls, checkpoints, failures_restarts): days and share of the "
                    "whole run's days.",
                    "additionalProperties": {"type": "object", "properties": _numbers("days", "share")},
                },
                "range_ratio": {"type": "array", "items": NUMBER, "description": "(low, high) × days"},
                "range_reasons": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Why the range is wider than the leave-one-out band (empty when the scenario "
                    "is inside the validated cases).",
                },
            },
        },
        "power": {"type": "object", "properties": _numbers("it_kw", "facility_kw", "pue", "energy_mwh")},
        "cost": {
            "type": "object",
            "properties": _numbers(
                "capex_usd", "opex_usd_per_year", "tco_usd", "usd_per_gpu_hour", "run_cost_usd"
            ),
        },
        "assumptions": {"type": "object", "additionalProperties": True},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["engine_version", "assumptions", "warnings"],
    "additionalProperties": True,
}

CONTRACT_EXAMPLE: dict[str, Any] = {
    "cluster": {
        "gpu": {
            "name": "H100 SXM5 80GB",
            "memory_gb": 80,
            "memory_bandwidth_tbs": 3.35,
            "tflops": {"fp32": 67, "tf32": 494.5, "bf16": 989, "fp16": 989, "fp8": 1979},
            "tdp_w": 700,
            "scaleup_bandwidth_gbs": 900,
        },
        "gpus_per_node": 8,
        "nodes": 16,
        "scaleout_gbps_per_gpu": 400,
        "node_max_power_kw": 10.2,
        "pue": 1.2,
    },
    "workload": {
        "kind": "training",
        "model": {
            "layers": 96,
            "hidden": 12288,
            "heads": 96,
            "kv_heads": 96,
            "ffn_hidden": 49152,
            "ffn_type": "gelu",
            "vocab": 51200,
            "seq_len": 2048,
        },
        "tokens_b": 300,
        "precision": "bf16",
        "optimizer": "adam",
        "parallelism": {
            "tp": 8,
            "pp": 8,
            "dp": 2,
            "cp": 1,
            "virtual_stages": 1,
            "sequence_parallel": True,
            "zero_stage": 1,
            "recompute": "selective",
            "micro_batch": 1,
            "global_batch": 128,
        },
    },
    "economics": {
        "electricity_usd_per_kwh": 0.08,
        "years": 4,
        "utilization": 0.8,
        "gpu_server_usd": 300000,
        "cloud_usd_per_gpu_hour": 2.5,
    },
}

CATALOG_EXAMPLE: dict[str, Any] = {
    "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 8},
    "workload": {
        "kind": "training",
        "model": "llama3.1-70b",
        "tokens_b": 1000,
        "parallelism": {"tp": 8, "pp": 2, "global_batch": 512},
    },
}

ESTIMATE_EXAMPLES = [
    OpenApiExample(
        "GPT-3 175B on 128 H100 (the contract's example)", value=CONTRACT_EXAMPLE, request_only=True
    ),
    OpenApiExample("Catalog GPU id and a model preset", value=CATALOG_EXAMPLE, request_only=True),
    OpenApiExample(
        "Invalid input",
        value={"errors": {"workload.parallelism.tp": ["must divide gpus (got 3 for 64 GPUs)"]}},
        response_only=True,
        status_codes=["400"],
    ),
]


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """Documented error answers: 400 with field paths, the rest with `detail`."""
    descriptions = {
        400: "Invalid input, per field path.",
        401: "Not signed in (send `Authorization: Token <key>` or a session cookie).",
        403: "Signed in without the right (catalog writes need the catalog permissions), or a missing CSRF token "
        "with a session.",
        404: "No such object (or not yours).",
        405: "Method not allowed.",
        413: f"Request body over {MAX_BODY_BYTES // 1024} KiB.",
        412: "If-Match names a version the scenario no longer has: it was changed elsewhere; GET it again.",
        415: "Body is not application/json.",
        429: "Rate limit reached; retry after the number of seconds in the Retry-After header.",
        503: "A service behind the API (task queue or database) is down; retry after Retry-After seconds.",
    }
    return {
        code: OpenApiResponse(ERRORS_SCHEMA if code == 400 else DETAIL_SCHEMA, description=descriptions[code])
        for code in codes
    }
