"""The "size a service" input (docs/engine-contract.md, "Sizing a service") -> a ServiceRequest, every problem named by
its field path.

    {"model": "llama3.1-70b", "precision": "fp8",
     "serving": {"requests_per_s": 40, "context_len": 4096, "output_len": 512, "max_ttft_s": 2, "max_tpot_s": 0.05},
     "candidates": ["nvidia_h100_sxm5_80gb", {"gpu": "nvidia_b200_hgx", "cloud_usd_per_gpu_hour": 5.25}],
     "economics": {...the estimate's economics object...}}
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from planner.engine.facility.tco import EconomicsSpec
from planner.engine.inference.continuous import engine_settings
from planner.engine.inference.sizing import Candidate, ServiceRequest
from planner.engine.inputs.cluster import ECONOMICS_KEYS, parse_economics, resolve_gpu
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.fields import Fields
from planner.engine.inputs.model import parse_model
from planner.engine.inputs.serving import SERVING_KEYS, SERVING_PRECISIONS, parse_serving
from planner.engine.inputs.units import BITS_PER_BYTE, GIGA

TOP_KEYS = (
    "model",
    "precision",
    "serving",
    "candidates",
    "economics",
    "max_gpus_per_replica",
    "disaggregation",
    "curves",
)
CANDIDATE_KEYS = ("gpu", "gpus_per_node", "scaleout_gbps_per_gpu", "cloud_usd_per_gpu_hour", "gpu_server_usd")
GPUS_PER_NODE_DEFAULT = 8
SCALEOUT_GBPS_DEFAULT = 400.0
MAX_CANDIDATES = 16


@dataclass(frozen=True)
class SizingInput:
    request: ServiceRequest
    economics: EconomicsSpec | None
    server_usd: tuple[float | None, ...]  # per candidate, per node
    curves: bool
    assumptions: dict[str, Any]


def _candidate(
    value: Any, path: str, problems: list[Problem], assumptions: dict[str, Any]
) -> tuple[Any, Any]:
    if isinstance(value, str):
        gpu = resolve_gpu(value, path, problems, assumptions)
        return (Candidate(gpu) if gpu else None), None
    c = Fields(value, path, problems, CANDIDATE_KEYS)
    if not c.ok:
        return None, None
    gpu = resolve_gpu(c.raw("gpu"), f"{path}.gpu", problems, assumptions) if c.has("gpu") else None
    if not c.has("gpu"):
        c.problem("gpu", "is required (a catalog id or a gpu object)")
    gpn = c.number("gpus_per_node", integer=True, minimum=1, maximum=1024, default=GPUS_PER_NODE_DEFAULT)
    scaleout = c.number("scaleout_gbps_per_gpu", minimum=0, default=SCALEOUT_GBPS_DEFAULT)
    cloud = c.number("cloud_usd_per_gpu_hour", minimum=0)
    server = c.number("gpu_server_usd", minimum=0)
    if gpu is None or gpn is None or scaleout is None:
        return None, None
    return Candidate(gpu, gpn, scaleout * GIGA / BITS_PER_BYTE, cloud), server


def parse_service_request(payload: Any) -> SizingInput:
    """Validate the sizing input; SpecError lists every problem."""
    problems: list[Problem] = []
    assumptions: dict[str, Any] = {}
    top = Fields(payload, "", problems, TOP_KEYS)
    if not top.ok:
        raise SpecError(problems)
    model = parse_model(top, problems, assumptions) if top.has("model") else None
    if not top.has("model"):
        top.problem("model", "is required (a preset name or a model object)")
    precision = top.string("precision", default="bf16", choices=SERVING_PRECISIONS)
    s = top.child("serving", SERVING_KEYS, required=True)
    serving = (
        parse_serving(s, model, (1, 1, 1, False), problems, assumptions) if s is not None and s.ok else None
    )
    if serving is not None and serving.rate_per_s is None and s is not None:
        s.problem("requests_per_s", "is required to size a service (or give target_tokens_per_s)")
    raw = top.raw("candidates")
    candidates: list[Candidate] = []
    servers: list[float | None] = []
    if not isinstance(raw, list) or not raw:
        top.problem("candidates", "must be a non-empty list of catalog GPU ids or candidate objects")
    elif len(raw) > MAX_CANDIDATES:
        top.problem("candidates", f"at most {MAX_CANDIDATES} GPU types per sizing")
    else:
        for i, value in enumerate(raw):
            cand, server = _candidate(value, f"candidates[{i}]", problems, assumptions)
            if cand is not None:
                candidates.append(cand)
                servers.append(server)
    economics = parse_economics(top.child("economics", ECONOMICS_KEYS), problems, assumptions)
    max_gpus = top.number("max_gpus_per_replica", integer=True, minimum=1, maximum=64, default=16)
    disaggregation = top.boolean("disaggregation", default=True)
    curves = top.boolean("curves", default=False)
    if problems or model is None or serving is None or serving.rate_per_s is None:
        raise SpecError(problems or [Problem("serving", "is invalid")])
    if economics is not None:
        candidates = [
            c
            if c.cloud_usd_per_gpu_hour is not None
            else replace(c, cloud_usd_per_gpu_hour=economics.cloud_usd_per_gpu_hour)
            for c in candidates
        ]
    request = ServiceRequest(
        model=model,
        workload=serving.workload(),
        requests_per_s=serving.rate_per_s,
        candidates=tuple(candidates),
        ttft_target_s=serving.max_ttft_s,
        tpot_target_s=serving.max_tpot_s,
        percentile=serving.latency_percentile,
        weight_precision=precision or "bf16",
        dense_weight_precision=serving.dense_precision,
        kv_precision=serving.kv_precision,
        attention_precision=serving.attention_precision or "bf16",
        engine=engine_settings(serving),
        max_gpus_per_replica=max_gpus or 16,
        disaggregation=bool(disaggregation),
    )
    return SizingInput(request, economics, tuple(servers), bool(curves), assumptions)
