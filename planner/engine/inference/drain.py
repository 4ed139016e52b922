"""The end of a finite offline run: the queue empties, the running requests finish one by one, the batch shrinks.

A benchmark that queues N requests at once and divides what it served by the time until the last one completes
(MLPerf Offline: LoadGen issues max(min_query_count, 1.1 x min_duration x offline_expected_qps) samples as one query
and times it to the last completion, loadgen/test_settings_internal.cc) runs the saturated state until its queue is
empty and then drains. At that moment the B running requests are the equilibrium running set, so each has a
remaining output R with the length-biased residual law P(R > t) = E[(o - t)+] / E[o] (renewal theory: the
equilibrium residual of a length drawn in proportion to itself). The batch then decays as B·P(R > t) over the
output tokens t still to come, each decode step of that batch taking the decode-only cycle time, until fewer than
one request is left. With fixed lengths that tail is one output's worth of steps at a linearly shrinking batch; with
a wide spread (DeepSeek-R1's reasoning outputs: mean 3,886, capped at 20,000) it is up to the cap, at a small batch.

Lengths may be capped (a benchmark's maximum output): o' = min(o, cap) has E[(o' - t)+] = E[(o - t)+] - E[(o - cap)+]
for t < cap, 0 beyond. Lognormal: E[(o - t)+] = m·Φ(d1) - t·Φ(d2), d1 = (ln(m / t) + σ²/2) / σ, d2 = d1 - σ (the
Black-Scholes call formula on a lognormal of mean m).

The saturated rate charges every decode token its share of the prompts' prefill; the drained requests' prompts were
computed before the drain, so their prefill time (the saturated step less a decode-only step, per admitted request)
is added to the saturated phase. Not modelled: the ramp at the start (every running slot prefilled at once), the
remaining requests' own longer contexts during the drain (the running set's mean context is kept).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from planner.engine.inference.load import LoadModel
from planner.engine.inference.workload import Lengths

#: Output-token points on which the drain is integrated (trapezoids).
GRID_POINTS = 257


def expected_excess(lengths: Lengths, t: np.ndarray) -> np.ndarray:
    """E[(o - t)+] per request, tokens, for t >= 0 (uncapped)."""
    m = lengths.mean
    t = np.maximum(np.asarray(t, dtype=float), 0.0)
    if lengths.distribution == "exponential":
        return m * np.exp(-t / m)
    if lengths.distribution == "lognormal" and lengths.cv > 0:
        sigma = np.sqrt(np.log1p(lengths.cv**2))
        safe = np.maximum(t, 1e-300)
        d1 = (np.log(m / safe) + sigma**2 / 2.0) / sigma
        return np.where(t > 0, m * ndtr(d1) - t * ndtr(d1 - sigma), m)
    return np.maximum(m - t, 0.0)


def residual_survival(lengths: Lengths, t: np.ndarray, cap: float | None = None) -> np.ndarray:
    """P(R > t): share of the equilibrium running set with more than t output tokens to go (module docstring)."""
    t = np.asarray(t, dtype=float)
    if cap is None:
        return expected_excess(lengths, t) / lengths.mean
    over = float(expected_excess(lengths, np.asarray(cap)))
    capped_mean = lengths.mean - over
    return np.where(t < cap, (expected_excess(lengths, np.minimum(t, cap)) - over) / capped_mean, 0.0)


def offline_drain_factor(
    model: LoadModel, requests_per_replica: float, cap: float | None = None
) -> np.ndarray:
    """Served output tokens / (time until the last request completes) of a run of `requests_per_replica` queued at
    once, relative to the saturated state's rate; one value per layout (1 when nothing runs)."""
    wl = model.wl
    x = np.maximum(model.x_max, 0.0)
    t_full = model.step_s(x)
    running = x * model.steps_out
    tokens_per_s = np.where(t_full > 0, x / np.maximum(t_full, 1e-30) * wl.output.mean, 0.0)
    end = cap if cap is not None else _tail_end(wl.output, float(np.max(running, initial=1.0)))
    t = np.linspace(0.0, end, GRID_POINTS)
    batch = running[:, None] * residual_survival(wl.output, t, cap)[None, :]
    live = batch >= 1.0
    step = model._decode_cycle(np.maximum(batch, 1.0))
    per_token = np.where(
        live, step / wl.speculation.acceptance_length, 0.0
    )  # seconds per output token of the tail
    dt = np.diff(t)
    drain_s = (0.5 * (per_token[:, 1:] + per_token[:, :-1]) * dt).sum(axis=1)
    drain_tokens = (0.5 * (np.where(live, batch, 0.0)[:, 1:] + np.where(live, batch, 0.0)[:, :-1]) * dt).sum(
        axis=1
    )
    total = requests_per_replica * wl.output.mean
    # the saturated state's rate charges each decode token its share of the prompts' prefill; the drained requests
    # were prefilled before the drain, so their prompts' time (the saturated step less a decode-only one) is added
    prefill_s = np.maximum(t_full - model._decode_cycle(running), 0.0) / np.maximum(x, 1e-30)
    steady_s = (
        np.maximum(total - drain_tokens, 0.0) / np.maximum(tokens_per_s, 1e-30)
        + drain_tokens / wl.output.mean * prefill_s
    )
    ideal_s = total / np.maximum(tokens_per_s, 1e-30)
    return np.where((tokens_per_s > 0) & (running >= 1.0), ideal_s / (steady_s + drain_s), 1.0)


def _tail_end(lengths: Lengths, running: float) -> float:
    """Output tokens after which fewer than one of `running` requests is left (uncapped lengths)."""
    end = lengths.mean
    while running * float(residual_survival(lengths, np.asarray(end))) >= 1.0 and end < 1e9:
        end *= 2.0
    return end
