"""The "size a service" answer as plain JSON values (docs/engine-contract.md, "Sizing a service"): per GPU type the
cheapest layout and GPU count at the request rate, its latency percentiles there, the margin left, power, and the
cost of a million output tokens owned and rented; or the bound that no layout meets, and by how much."""

from __future__ import annotations

import math
from typing import Any

from planner.engine.facility import power, tco
from planner.engine.inference.load import PERCENTILES
from planner.engine.inference.sizing import GpuAnswer, LayoutOption, latency_curve, size_service
from planner.engine.inputs.service import SizingInput
from planner.engine.inputs.units import HOUR
from planner.engine.version import ENGINE_VERSION


def _option(o: LayoutOption, rate: float) -> dict[str, Any]:
    return {
        "layout": o.layout.as_dict(),
        "label": o.layout.label(),
        "gpus_per_replica": o.layout.gpus,
        "replicas": o.replicas,
        "gpus": o.gpus,
        "max_requests_per_s_per_replica": o.max_rate_per_replica,
        "capacity_requests_per_s_per_replica": o.capacity_per_replica,
        "margin": (o.max_rate_per_replica * o.replicas / rate - 1.0) if o.replicas else None,
        "max_running_requests": o.max_running_requests,
        **({f"ttft_s_p{p:g}": o.ttft_s.get(p) for p in PERCENTILES} if o.ttft_s else {}),
        **({f"tpot_s_p{p:g}": o.tpot_s.get(p) for p in PERCENTILES} if o.tpot_s else {}),
        "running_requests_per_replica": o.running_per_replica if o.ttft_s else None,
    }


def _facility(a: GpuAnswer, server_usd: float | None, inp: SizingInput) -> dict[str, Any]:
    """Power of the nodes the answer needs and the cost of a million output tokens (tco.py, power.py)."""
    gpus = a.gpus or 0
    c = a.candidate
    nodes = math.ceil(gpus / c.gpus_per_node) if gpus else 0
    if not nodes:
        return {"nodes": 0, "power": None, "usd_per_million_tokens": {"own": None, "cloud": None}}
    pres = power.estimate_power(
        power.PowerInputs(nodes=nodes, gpus_per_node=c.gpus_per_node, gpu_tdp_w=c.gpu.tdp_w)
    )
    econ = inp.economics
    own = None
    if econ is not None and (server_usd is not None or econ.gpu_server_usd):
        spec = tco.EconomicsSpec(**{**econ.__dict__, "gpu_server_usd": server_usd or econ.gpu_server_usd})
        res = tco.estimate_tco(
            tco.TcoInputs(
                nodes=nodes,
                gpus=nodes * c.gpus_per_node,
                network_capex_usd=0.0,
                storage_tb=0.0,
                it_power_w=pres.it_power_w,
                facility_power_w=pres.facility_power_w,
                peak_it_power_w=pres.peak_it_power_w,
            ),
            spec,
        )
        own = res.usd_per_gpu_hour
    million_per_hour = a.output_tokens_per_s * HOUR / 1e6
    billed = nodes * c.gpus_per_node
    cost = {
        "own": billed * own / million_per_hour if own is not None and million_per_hour else None,
        "cloud": gpus * c.cloud_usd_per_gpu_hour / million_per_hour
        if c.cloud_usd_per_gpu_hour is not None and million_per_hour
        else None,
    }
    return {
        "nodes": nodes,
        "power": {
            "it_kw": pres.it_power_w / 1e3,
            "facility_kw": pres.facility_power_w / 1e3,
            "pue": pres.pue,
        },
        "usd_per_gpu_hour": {"own": own, "cloud": c.cloud_usd_per_gpu_hour},
        "usd_per_million_tokens": cost,
    }


def size_service_answer(inp: SizingInput) -> dict[str, Any]:
    """Run the sizer on a parsed input (inputs/service.py) and present it."""
    req = inp.request
    answers = []
    for a, server in zip(size_service(req), inp.server_usd, strict=True):
        best = a.best
        entry: dict[str, Any] = {
            "gpu": a.gpu,
            "gpu_id": a.candidate.gpu.catalog_id,
            "feasible": a.gpus is not None,
            "reason": a.failure,
            "gpus": a.gpus,
            "colocated": _option(best, req.requests_per_s) if best else None,
            "disaggregated": None,
            "output_tokens_per_s": a.output_tokens_per_s,
            "options": [
                _option(o, req.requests_per_s)
                for o in sorted(a.options, key=lambda o: (not o.meets, o.gpus or 10**9))
            ],
        }
        if a.disaggregated is not None:
            dis = a.disaggregated
            entry["disaggregated"] = {
                "prefill": _option(dis.prefill, req.requests_per_s),
                "decode": _option(dis.decode, req.requests_per_s),
                "kv_transfer_s": dis.kv_transfer_s,
                "gpus": dis.gpus,
                "prefill_to_decode_gpus": dis.prefill.gpus / dis.decode.gpus,
            }
        entry.update(_facility(a, server, inp))
        if inp.curves and best is not None:
            entry["curve"] = latency_curve(req, a.candidate, best.layout)
        answers.append(entry)
    costs = [
        (e["usd_per_million_tokens"]["cloud"], e["gpu"])
        for e in answers
        if e["usd_per_million_tokens"]["cloud"]
    ]
    return {
        "engine_version": ENGINE_VERSION,
        "requests_per_s": req.requests_per_s,
        "percentile": req.percentile,
        "ttft_target_s": req.ttft_target_s,
        "tpot_target_s": req.tpot_target_s,
        "answers": answers,
        "cheapest_cloud": min(costs)[1] if costs else None,
        "assumptions": inp.assumptions,
    }
