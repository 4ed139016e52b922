""" "Size it for me": an inference scenario's service (model, lengths, request rate, latency targets, precision) sized on
several GPU types by the engine's sizer (planner.engine.api.size_service), for the page and its throughput-latency
curves. Read-only: nothing is stored.

The request rate is the scenario's requests/s, else its target output tokens/s over its output length (the
engine's rule: both go to the sizer as typed). Candidates: the scenario's own catalog GPU and the common serving GPUs below, each with the
catalog's rental reference and a node priced from the catalog GPU price (adapters.node_price_from_gpus).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from catalog.models import Gpu
from planner import adapters
from planner.engine import api as engine
from planner.engine.inference import rates
from planner.engine.inputs.errors import SpecError
from planner.models import Scenario, WorkloadKind

#: GPU types every sizing compares (catalog ids): the data-centre serving GPUs of the serving validation set.
SIZING_GPU_IDS = ("nvidia_h100_sxm5_80gb", "nvidia_h200_sxm_141gb", "nvidia_b200_hgx", "amd_mi300x")


#: Latency axis ticks (1-2-5 per decade, 1 ms to 1000 s) written as plain numbers: Plotly's own log ticks label
#: 20 and 0.5 as "2" and "5".
LOG_TICKS = tuple(m * 10.0**e for e in range(-3, 4) for m in (1, 2, 5))


@dataclass(frozen=True)
class SizingPage:
    scenario: Scenario
    answer: dict[str, Any] | None
    problem: str | None  # why there is no answer (not an inference scenario, no rate, an engine refusal)
    charts: tuple[dict[str, Any], ...] = ()
    throughput_range: tuple[float, float] = rates.THROUGHPUT_RANGE


def _candidate(gpu: Gpu, gpus_per_node: int) -> dict[str, Any]:
    out: dict[str, Any] = {"gpu": gpu.pk, "gpus_per_node": gpus_per_node}
    reference = adapters.cloud_price_reference(gpu.pk)
    if reference is not None:
        out["cloud_usd_per_gpu_hour"] = reference.value
    if gpu.price_usd is not None:
        out["gpu_server_usd"] = adapters.node_price_from_gpus(gpus_per_node, gpu.price_usd).value
    return out


def sizing_payload(scenario: Scenario, gpu_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """The sizer's input for an inference scenario (docs/engine-contract.md, "Sizing a service"): candidates
    `gpu_ids`, by default the scenario's own GPU and SIZING_GPU_IDS. The sizer chooses the batch limit itself under
    continuous batching, so the scenario's batch and batching stay out."""
    if gpu_ids is None:
        ids = [scenario.catalog_gpu_id] if scenario.catalog_gpu_id else []
        ids += [i for i in SIZING_GPU_IDS if i not in ids]
    else:
        ids = list(gpu_ids)
    gpus = {g.pk: g for g in Gpu.objects.filter(pk__in=ids)}
    economics = adapters.economics_payload(
        scenario
    )  # its node and rental prices are overridden per candidate
    serving = {
        "requests_per_s": scenario.requests_per_s,
        "target_tokens_per_s": scenario.target_tokens_per_s,
        "context_len": scenario.context_len,
        "output_len": scenario.output_len,
        "max_ttft_s": scenario.max_ttft_s,
        "max_tpot_s": scenario.max_tpot_s,
        "kernel_efficiency": scenario.kernel_efficiency,
    }
    return {
        "model": adapters.model_payload(scenario),
        "precision": scenario.precision,
        "serving": {k: v for k, v in serving.items() if v is not None},
        "candidates": [_candidate(gpus[i], scenario.gpus_per_node) for i in ids if i in gpus],
        "economics": economics,
        "curves": True,
    }


def size_scenario(scenario: Scenario) -> SizingPage:
    """The sizer's answer for the scenario, or the reason there is none."""
    if scenario.workload_kind != WorkloadKind.INFERENCE:
        return SizingPage(scenario, None, "Sizing a service is for inference scenarios.")
    if scenario.requests_per_s is None and scenario.target_tokens_per_s is None:
        return SizingPage(
            scenario,
            None,
            "Give a request rate (requests/s) or a target throughput (tokens/s) and an output length: the sizer "
            "needs the rate to serve.",
        )
    try:
        answer = engine.size_service(sizing_payload(scenario))
    except SpecError as error:
        return SizingPage(scenario, None, f"The sizer cannot size this service: {error}")
    return SizingPage(scenario, answer, None, tuple(curve_charts(answer)))


def _curve_trace(entry: dict[str, Any], kind: str) -> dict[str, Any]:
    curve = entry["curve"]
    points = [
        (tps, lat * (1e3 if kind == "tpot" else 1.0))
        for tps, lat, full in zip(
            curve["output_tokens_per_s_per_gpu"], curve[f"{kind}_s_p90"], curve["saturated"], strict=True
        )
        if not full
    ]
    label = entry["colocated"]["label"] if entry.get("colocated") else ""
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": f"{entry['gpu']} {label}".strip(),
        "x": [p[0] for p in points],
        "y": [p[1] for p in points],
        "hovertemplate": "%{x:,.0f} tokens/s per GPU<br>%{y:.3g}<extra>%{fullData.name}</extra>",
    }


def curve_charts(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """Throughput-latency curves of each GPU type's chosen layout (p90 TTFT and p90 TPOT against output tokens/s
    per GPU), as chart specs for static/js/planner_charts.js."""
    with_curves = [e for e in answer["answers"] if e.get("curve")]
    charts = []
    for kind, title, unit in (
        ("ttft", "Time to first token (p90) against throughput", "p90 TTFT (s)"),
        ("tpot", "Time per output token (p90) against throughput", "p90 TPOT (ms)"),
    ):
        charts.append(
            {
                "key": f"curve-{kind}",
                "title": title,
                "figure": {
                    "data": [_curve_trace(e, kind) for e in with_curves],
                    "layout": {
                        "title": {"text": title},
                        "xaxis": {"title": {"text": "output tokens/s per GPU"}, "rangemode": "tozero"},
                        "yaxis": {
                            "title": {"text": unit},
                            "type": "log",
                            "tickvals": list(LOG_TICKS),
                            "ticktext": [f"{tick:g}" for tick in LOG_TICKS],
                        },
                        "legend": {
                            "orientation": "h",
                            "x": 0,
                            "y": -0.3,
                            "xanchor": "left",
                            "yanchor": "top",
                        },
                        "margin": {"t": 50, "r": 10, "b": 120},
                        "height": 420,
                    },
                },
            }
        )
    return charts
