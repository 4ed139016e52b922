"""Size a service: "serve R requests/s of this model with TTFT and TPOT at the chosen percentile within targets" ->
per GPU type the cheapest layout, its replica count and GPU count, the margin left, and (when no layout can meet a
target) which bound fails and by how much.

For each GPU type every valid layout (layout.layout_problems) up to `max_gpus_per_replica` is evaluated on a grid of
load states (load.LoadModel, the same model `estimate` uses): the highest rate per replica at which the target
percentiles hold is read off the grid, interpolated between grid points. Replicas = ceil(R / that rate); the
cheapest layout is the one with the fewest GPUs (same GPU type, so the same price per GPU-hour), then the most
headroom. The count follows the request rate only: nothing here depends on a batch a user typed.

Disaggregated serving (DistServe, Zhong et al. 2024, arXiv:2401.09670): a prefill pool meets the TTFT target
(queue + prompt + KV transfer over the scale-out fabric at rates.KV_TRANSFER_FRACTION) and a decode pool the TPOT
target, each with its own best layout; the ratio of their replica counts is chosen here, and the split is offered
when it needs fewer GPUs than colocated serving.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from planner.engine.inference import rates as eff
from planner.engine.inference.kvcache import kv_bytes_per_token_per_gpu
from planner.engine.inference.layout import ServingLayout, layout_problems
from planner.engine.inference.load import PERCENTILES, SCAN_SAMPLES, LoadModel, LoadState
from planner.engine.inference.service import Deployment, EngineSettings, Prepared, prepare
from planner.engine.inference.shape import serving_shape
from planner.engine.inference.workload import Lengths, Workload
from planner.engine.inputs.specs import BYTES_PER_VALUE, GpuSpec, ModelSpec
from planner.engine.inputs.units import HOUR

#: Load states per layout on which the rate meeting the targets is searched (x / x_max, denser near zero).
GRID = np.concatenate([np.geomspace(2e-3, 0.5, 18), np.linspace(0.55, 1.0, 14)])
TP_CHOICES = (1, 2, 4, 8, 16)
PP_CHOICES = (1, 2, 4)


@dataclass(frozen=True)
class Candidate:
    """One GPU type the buyer could use, with the prices that turn GPU-hours into money."""

    gpu: GpuSpec
    gpus_per_node: int = 8
    scaleout_bytes_per_s: float = 400e9 / 8.0
    cloud_usd_per_gpu_hour: float | None = None
    own_usd_per_gpu_hour: float | None = None  # owning cost per utilised GPU-hour (tco.py), when known
    it_power_w_per_gpu: float | None = None  # average draw per GPU incl. its share of host and network


@dataclass(frozen=True)
class ServiceRequest:
    model: ModelSpec
    workload: Workload
    requests_per_s: float
    candidates: tuple[Candidate, ...]
    ttft_target_s: float | None = None
    tpot_target_s: float | None = None
    percentile: float = 90.0
    weight_precision: str = "bf16"
    dense_weight_precision: str | None = None
    kv_precision: str | None = None
    attention_precision: str = "bf16"
    engine: EngineSettings = field(default_factory=EngineSettings)
    max_gpus_per_replica: int = 16
    disaggregation: bool = True  # also consider separate prefill and decode pools


@dataclass(frozen=True)
class LayoutOption:
    """One layout of one GPU type at the requested rate."""

    layout: ServingLayout
    max_rate_per_replica: float  # meeting the targets (0: never)
    capacity_per_replica: float  # saturation, ignoring targets
    replicas: int
    gpus: int
    ttft_s: dict[float, float]  # at the operating rate (R / replicas per replica)
    tpot_s: dict[float, float]
    running_per_replica: float
    max_running_requests: int
    best_ttft_s: float  # the target percentile at the lightest load: what this layout can do at best
    best_tpot_s: float
    fits: bool

    @property
    def meets(self) -> bool:
        return self.max_rate_per_replica > 0


@dataclass(frozen=True)
class Disaggregated:
    prefill: LayoutOption
    decode: LayoutOption
    kv_transfer_s: float

    @property
    def gpus(self) -> int:
        return self.prefill.gpus + self.decode.gpus


@dataclass(frozen=True)
class GpuAnswer:
    """The sizer's answer for one GPU type."""

    gpu: str
    best: LayoutOption | None
    options: tuple[LayoutOption, ...]
    disaggregated: Disaggregated | None
    failure: str | None
    candidate: Candidate
    output_tokens_per_s: float

    @property
    def gpus(self) -> int | None:
        if self.disaggregated is not None:
            return self.disaggregated.gpus
        return self.best.gpus if self.best else None

    def usd_per_million_tokens(self) -> dict[str, float | None]:
        """GPU-hours per hour x price per GPU-hour / million output tokens per hour, own and rented."""
        gpus = self.gpus
        tokens_per_hour = self.output_tokens_per_s * HOUR / 1e6
        out: dict[str, float | None] = {"own": None, "cloud": None}
        if not gpus or tokens_per_hour <= 0:
            return out
        c = self.candidate
        if c.own_usd_per_gpu_hour is not None:
            out["own"] = gpus * c.own_usd_per_gpu_hour / tokens_per_hour
        if c.cloud_usd_per_gpu_hour is not None:
            out["cloud"] = gpus * c.cloud_usd_per_gpu_hour / tokens_per_hour
        return out


def candidate_layouts(model: ModelSpec, gpus_per_node: int, max_gpus: int) -> list[ServingLayout]:
    """Every valid layout up to `max_gpus` GPUs per replica: TP inside a node, pipeline stages across nodes; for
    mixture-of-experts models also expert parallelism over the TP group, with tensor or data-parallel attention."""
    shape = serving_shape(model)
    out: list[ServingLayout] = []
    for tp in TP_CHOICES:
        if tp > gpus_per_node:
            continue
        for pp in PP_CHOICES:
            if tp * pp > max_gpus:
                continue
            variants = [ServingLayout(tp, pp)]
            if shape.moe_layers and tp > 1:
                variants += [ServingLayout(tp, pp, ep=tp), ServingLayout(tp, pp, ep=tp, dp_attention=True)]
            out += [lay for lay in variants if not layout_problems(shape, lay)]
    return out


def _deployment(req: ServiceRequest, c: Candidate, workload: Workload | None = None) -> Deployment:
    return Deployment(
        model=req.model,
        gpu=c.gpu,
        layout=ServingLayout(),
        replicas=1,
        workload=workload or req.workload,
        weight_precision=req.weight_precision,
        dense_weight_precision=req.dense_weight_precision,
        kv_precision=req.kv_precision or req.weight_precision,
        attention_precision=req.attention_precision,
        gpus_per_node=c.gpus_per_node,
        scaleout_bytes_per_s=c.scaleout_bytes_per_s,
        engine=req.engine,
    )


def _within(value: np.ndarray, target: float | None) -> np.ndarray:
    return np.ones_like(value, dtype=bool) if target is None else value <= target


#: Bisection steps between the last grid load that meets the targets and the first that misses (each halves the
#: gap: 3 steps leave at most 0.45% of a replica's capacity between them, from the grid's 3.5%).
REFINE_STEPS = 3


def _refined_rate_meeting(
    lm: LoadModel, x: np.ndarray, usable: np.ndarray, req: ServiceRequest, check_ttft: bool, check_tpot: bool
) -> np.ndarray:
    """Per layout, the highest rate meeting the targets, bisected between the grid's last good load and its first
    bad one (a grid step of 3.5% of capacity would otherwise round a rate that just fits up to one more replica)."""
    rows = np.arange(len(x))
    first_bad = np.where(usable.all(axis=1), usable.shape[1], np.argmin(usable, axis=1))
    good = first_bad - 1
    lo = np.where(good >= 0, x[rows, np.maximum(good, 0)], 0.0)
    hi = np.where(first_bad < x.shape[1], x[rows, np.minimum(first_bad, x.shape[1] - 1)], lo)
    open_gap = (good >= 0) & (hi > lo)
    if open_gap.any():
        for _ in range(REFINE_STEPS):
            mid = 0.5 * (lo + hi)
            st = lm.state(mid[:, None], draws=SCAN_SAMPLES)
            pct = req.percentile
            ok = _within(st.ttft_s[pct], req.ttft_target_s if check_ttft else None) & _within(
                st.tpot_s[pct], req.tpot_target_s if check_tpot else None
            )
            meets = (ok & ~st.saturated)[:, 0] & open_gap
            lo = np.where(meets, mid, lo)
            hi = np.where(meets | ~open_gap, hi, mid)
    return np.where(good >= 0, lm.rate_per_s(lo), 0.0)


def _options(
    req: ServiceRequest, p: Prepared, lm: LoadModel, check_ttft: bool, check_tpot: bool
) -> list[LayoutOption]:
    """Every prepared layout evaluated on the load grid, with its replicas at the requested rate."""
    x = lm.x_max[:, None] * GRID[None, :]
    st = lm.state(x, draws=SCAN_SAMPLES)
    pct = req.percentile
    ttft, tpot = st.ttft_s[pct], st.tpot_s[pct]
    ok = _within(ttft, req.ttft_target_s if check_ttft else None) & _within(
        tpot, req.tpot_target_s if check_tpot else None
    )
    best_rate = _refined_rate_meeting(lm, x, ok & ~st.saturated, req, check_ttft, check_tpot)
    capacity = lm.max_rate_per_s()
    out = []
    for i, lay in enumerate(p.layouts):
        mem = p.memories[i]
        rate = float(best_rate[i])
        replicas = max(1, math.ceil(req.requests_per_s / rate)) if rate > 0 else 0
        out.append(
            LayoutOption(
                layout=lay,
                max_rate_per_replica=rate,
                capacity_per_replica=float(capacity[i]),
                replicas=replicas,
                gpus=replicas * lay.gpus,
                ttft_s={},
                tpot_s={},
                running_per_replica=0.0,
                max_running_requests=mem.max_running_requests,
                best_ttft_s=float(ttft[i, 0]),
                best_tpot_s=float(tpot[i, 0]),
                fits=mem.fits,
            )
        )
    return out


def _at_operating_point(
    lm: LoadModel, layouts: tuple[ServingLayout, ...], o: LayoutOption, rate_per_s: float
) -> LayoutOption:
    """Percentiles and running requests of one option at its share of the requested rate (the load model holds
    every layout of the GPU type; the others are evaluated at no load and ignored)."""
    i = layouts.index(o.layout)
    rates = np.zeros(len(layouts))
    rates[i] = rate_per_s / o.replicas if o.replicas else 0.0
    st = lm.at_rate(rates)
    return replace(
        o,
        ttft_s={p: float(st.ttft_s[p][i]) for p in PERCENTILES},
        tpot_s={p: float(st.tpot_s[p][i]) for p in PERCENTILES},
        running_per_replica=float(st.running[i]),
    )


def _failure(req: ServiceRequest, opts: list[LayoutOption], gpu: str) -> str:
    """Which target no layout meets, and by how much at the best layout's lightest load."""
    fitting = [o for o in opts if o.fits]
    if not fitting:
        return (
            f"the model does not fit on {gpu} in any layout up to {req.max_gpus_per_replica} GPUs per replica"
        )
    pct = f"p{req.percentile:g}"
    parts = []
    if req.ttft_target_s is not None:
        best = min(fitting, key=lambda o: o.best_ttft_s)
        if best.best_ttft_s > req.ttft_target_s:
            parts.append(
                f"{pct} TTFT cannot go below {best.best_ttft_s:.3g} s even at the lightest load "
                f"({best.layout.label()}), {best.best_ttft_s / req.ttft_target_s - 1:+.0%} over the "
                f"{req.ttft_target_s:g} s target"
            )
    if req.tpot_target_s is not None:
        best = min(fitting, key=lambda o: o.best_tpot_s)
        if best.best_tpot_s > req.tpot_target_s:
            parts.append(
                f"{pct} TPOT cannot go below {best.best_tpot_s * 1e3:.3g} ms even at the lightest load "
                f"({best.layout.label()}), {best.best_tpot_s / req.tpot_target_s - 1:+.0%} over the "
                f"{req.tpot_target_s * 1e3:g} ms target"
            )
    if not parts:
        parts.append("the targets hold only together at no load any layout sustains (TTFT and TPOT conflict)")
    return f"no layout on {gpu} meets the targets: " + "; ".join(parts)


def _kv_transfer_s(req: ServiceRequest, c: Candidate, prefill: ServingLayout) -> float:
    """One prompt's KV cache from a prefill to a decode replica over the scale-out NICs of the prefill replica's
    GPUs (each sends its share), at the Mooncake-measured fraction of line rate."""
    shape = serving_shape(req.model)
    kv_bpv = BYTES_PER_VALUE[req.kv_precision or req.weight_precision]
    per_token = kv_bytes_per_token_per_gpu(shape, ServingLayout(), kv_bpv)
    bandwidth = max(c.scaleout_bytes_per_s, 1.0) * prefill.gpus * eff.KV_TRANSFER_FRACTION
    return req.workload.input.mean * per_token / bandwidth


def _pool(
    req: ServiceRequest, c: Candidate, lays: list[ServingLayout], *, prefill: bool
) -> LayoutOption | None:
    """The cheapest layout of a prefill pool (TTFT target, prompts only) or a decode pool (TPOT target)."""
    wl = req.workload
    if prefill:
        pool_wl = replace(wl, output=Lengths(1.0))
        extra = [_kv_transfer_s(req, c, lay) for lay in lays]
    else:
        pool_wl = wl
        extra = None
    p = prepare(_deployment(req, c, pool_wl), lays, extra_ttft_s=extra)
    lm = p.pool_model(pool_wl, prefill=prefill)
    opts = [o for o in _options(req, p, lm, check_ttft=prefill, check_tpot=not prefill) if o.meets]
    if not opts:
        return None
    best = min(opts, key=lambda o: (o.gpus, -o.max_rate_per_replica * o.replicas))
    return _at_operating_point(lm, p.layouts, best, req.requests_per_s)


def size_gpu(req: ServiceRequest, c: Candidate) -> GpuAnswer:
    """The cheapest way to serve the request on one GPU type (module docstring)."""
    lays = candidate_layouts(req.model, c.gpus_per_node, req.max_gpus_per_replica)
    p = prepare(_deployment(req, c), lays)
    opts = _options(req, p, p.model, check_ttft=True, check_tpot=True)
    feasible = [o for o in opts if o.meets]
    best = None
    if feasible:
        best = min(feasible, key=lambda o: (o.gpus, -o.max_rate_per_replica * o.replicas))
        best = _at_operating_point(p.model, p.layouts, best, req.requests_per_s)
    disagg = None
    if req.disaggregation and lays:
        pre = _pool(req, c, lays, prefill=True)
        dec = _pool(req, c, lays, prefill=False)
        if pre is not None and dec is not None and (best is None or pre.gpus + dec.gpus < best.gpus):
            disagg = Disaggregated(pre, dec, _kv_transfer_s(req, c, pre.layout))
    failure = None if (best or disagg) else _failure(req, opts, c.gpu.name)
    served = req.requests_per_s * req.workload.output.mean if (best or disagg) else 0.0
    return GpuAnswer(c.gpu.name, best, tuple(opts), disagg, failure, c, served)


def size_service(req: ServiceRequest) -> list[GpuAnswer]:
    """Per candidate GPU type, the cheapest layout and GPU count for the service (module docstring)."""
    return [size_gpu(req, c) for c in req.candidates]


def latency_curve(
    req: ServiceRequest, c: Candidate, layout: ServingLayout, points: int = 24
) -> dict[str, Any]:
    """Throughput against latency for one layout of one GPU type: per load state the request rate per replica,
    output tokens/s per GPU and the TTFT/TPOT percentiles (for the pages' throughput-latency charts)."""
    p = prepare(replace(_deployment(req, c), layout=layout))
    grid = np.concatenate(
        [np.geomspace(1e-3, 0.5, points // 2), np.linspace(0.55, 1.0, points - points // 2)]
    )
    st: LoadState = p.model.state(p.model.x_max[:, None] * grid[None, :])
    gpus = layout.gpus
    return {
        "gpu": c.gpu.name,
        "layout": layout.as_dict(),
        "requests_per_s_per_replica": st.rate_per_s[0].tolist(),
        "output_tokens_per_s_per_gpu": (st.output_tokens_per_s[0] / gpus).tolist(),
        **{f"ttft_s_p{q:g}": st.ttft_s[q][0].tolist() for q in PERCENTILES},
        **{f"tpot_s_p{q:g}": st.tpot_s[q][0].tolist() for q in PERCENTILES},
        "saturated": st.saturated[0].tolist(),
    }
