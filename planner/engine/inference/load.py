"""A replica under load: a fluid model of continuous batching with queueing for the waits, and percentiles from a
fixed Monte-Carlo sample of requests. Vectorised over layouts and loads; deterministic (fixed seed).

Fluid state. Let x be the requests that arrive per engine step (x = rate · step time). In steady state every step
carries B = x · (output / tau) decoding requests (Little's law: each decodes for output / tau steps), their
D = B · (k + 1) verify tokens, and P = x · (1 - h) · input prompt tokens in chunks; the decode tokens attend to
K = D · (input + E[o²] / (2 E[o])) cached tokens (the running set is length-biased: output / 2 for fixed
lengths, (1 + cv²) · output / 2 with a spread; Workload.mean_context_tokens). The step time is then explicit,
T(x) = cycle(D, P, K, pairs) plus the draft passes (step.py), and the rate it serves is lambda(x) = x / T(x),
increasing in x. So a rate maps to one x by bisection, and the most a replica sustains is lambda at the largest x its limits allow: the running-request limit
(B <= max_running) and the per-step token budget (D + P <= max_batched_tokens, chunked prefill). Beyond that rate
the queue grows without bound ("saturated").

Latency of one request at a fluid state:
* TTFT = the rest of the step in progress when it arrives (uniform, when a step is in progress; with vLLM's
           multi-step scheduling, `scheduler_steps` decode steps run between scheduling points, so the rest of
           those, and the per-step CPU cost is shared by them)
         + the wait for prefill capacity (an M/G/1 queue on the token budget left by decodes, Pollaczek-Khinchine
           mean and an exponential tail, Kingman) + the wait for a free running slot (M/M/c with Sakasegawa's
           approximation, only near the running limit)
         + its own prefill steps: full chunks of the left budget, then the step carrying its last chunk on top of
           the average prefill load;
         + with TensorRT-LLM's attention-DP balance, the wait until every rank has a prompt (capped by its timeout);
  without chunked prefill the prompt runs in a prefill step of its own batch of prompts.
* TPOT = the step time over the steps a request decodes, / tau. The running count fluctuates (Poisson occupancy of
  an M/G/inf system, averaged over a request's life: variance 2B/3) and so does the prefill load (compound Poisson
  arrivals, averaged over its decode steps).
Percentiles are taken over SAMPLES requests drawn once (numpy default_rng(SEED)): lengths from their distributions,
the uniforms and normals above. Closed-loop load (a fixed number of clients, each sending its next request when the
previous one finishes) solves N = lambda · (E[TTFT] + output / tau · T) for x; offline load (everything queued at
once) is the saturated state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.engine.inference import rates as eff
from planner.engine.inference.step import StepCoefficients, cycle_time_s
from planner.engine.inference.workload import EngineLimits, Workload

SAMPLES = 256
#: Requests drawn when a sizer scans many load states for the rate that meets its targets (the answer's own
#: operating point is then evaluated with all SAMPLES).
SCAN_SAMPLES = 96
SEED = 14
#: Variance of the running count averaged over one request's decode life, relative to its mean (M/G/inf with
#: deterministic service: the autocovariance B(1 - |u|/D) averaged over a window D gives 2B/3).
OCCUPANCY_VARIANCE_FRACTION = 2.0 / 3.0
PERCENTILES = (50.0, 90.0, 99.0)
_SECANT_STEPS = 4
#: Fluid states x / x_max on which a rate is first located (denser near zero, where latency changes fastest).
#: Remainders (as shares of the left budget) at which the last-chunk step is evaluated and then interpolated.
_NODES = np.linspace(0.0, 1.0, 9)
_GRID = np.concatenate([[0.0], np.geomspace(1e-4, 1.0, 63)])


@dataclass(frozen=True)
class Replicas:
    """One GPU type's candidate layouts: step coefficients and engine limits per layout (arrays)."""

    coef: StepCoefficients
    max_running: np.ndarray  # per replica
    max_batched_tokens: np.ndarray  # per replica
    chunked_prefill: bool = True
    extra_ttft_s: np.ndarray | None = None  # e.g. KV transfer between pools, per layout

    @staticmethod
    def of(coef: StepCoefficients, limits: list[EngineLimits], extra_ttft_s: Any = None) -> Replicas:
        return Replicas(
            coef=coef,
            max_running=np.asarray([x.max_running_requests for x in limits], dtype=float),
            max_batched_tokens=np.asarray([x.max_batched_tokens for x in limits], dtype=float),
            chunked_prefill=all(x.chunked_prefill for x in limits),
            extra_ttft_s=None if extra_ttft_s is None else np.asarray(extra_ttft_s, dtype=float),
        )


@dataclass(frozen=True)
class LoadState:
    """Fluid states (arrays shaped like x: layouts first) and their latency percentiles."""

    x: np.ndarray  # requests arriving per step
    rate_per_s: np.ndarray  # per replica
    step_s: np.ndarray
    running: np.ndarray
    prefill_tokens_per_step: np.ndarray
    saturated: np.ndarray  # bool
    ttft_s: dict[float, np.ndarray]  # percentile -> seconds
    tpot_s: dict[float, np.ndarray]
    ttft_mean_s: np.ndarray
    tpot_mean_s: np.ndarray
    queue_requests: np.ndarray  # mean requests waiting (Little's law)
    prefill_utilisation: np.ndarray
    output_tokens_per_s: np.ndarray  # per replica


def _col(a: np.ndarray, like: np.ndarray) -> np.ndarray:
    return a.reshape(a.shape + (1,) * (like.ndim - a.ndim)) if like.ndim > a.ndim else a


class LoadModel:
    """One workload on one set of replicas (module docstring)."""

    def __init__(
        self,
        rep: Replicas,
        wl: Workload,
        *,
        overlap_scheduling: bool = False,
        overlap_hides_scheduling: bool = True,
        scheduler_steps: int = 1,
        adp_balance_timeout_iters: int | None = None,
        adp_batching_wait_iters: int = 0,
        prefill_only: bool = False,
        decode_only: bool = False,
        cuda_graphs: bool = True,
    ) -> None:
        """`overlap_scheduling`: the CPU work of each step is hidden behind the GPU's (SGLang's overlap scheduler,
        vLLM's async scheduling); `overlap_hides_scheduling` False: the overlap hides only the previous step's output
        processing, so rates.OVERLAP_EXPOSED_PER_REQUEST_SHARE of the per-request cost stays (TensorRT-LLM's overlap
        scheduler); `scheduler_steps`: vLLM multi-step scheduling; `prefill_only`: a disaggregated
        prefill pool (prompts only; the first token then leaves); `decode_only`: a decode pool (requests arrive with
        their KV cache, no prompt tokens in its steps); `adp_balance_timeout_iters`: TensorRT-LLM's attention-DP
        balance holds a context request until every rank has one, at most that many iterations, and
        `adp_batching_wait_iters` more once every rank has one (_adp_wait);
        `cuda_graphs` False: no step replays a captured CUDA graph (vLLM enforce_eager, the NVIDIA MLPerf harness's
        use_graphs False), so every step pays rates.EAGER_STEP_OVERHEAD_S, not only those that carry prompts."""
        self.rep, self.wl = rep, wl
        self.colocated = not (prefill_only or decode_only)
        self.adp_timeout_iters = adp_balance_timeout_iters
        self.adp_batching_iters = max(0, adp_batching_wait_iters)
        self.scheduler_steps = max(1, scheduler_steps)
        hidden = overlap_scheduling
        self.overhead = 0.0 if hidden else eff.STEP_OVERHEAD_S / self.scheduler_steps
        self.eager_overhead = 0.0 if hidden else eff.EAGER_STEP_OVERHEAD_S
        #: CPU cost per running request per step (rates.STEP_OVERHEAD_PER_REQUEST_S), amortised as the fixed step
        #: overhead is; under overlap all of it hidden, or all but the exposed share (scheduling, input preparation)
        exposed = (
            (0.0 if overlap_hides_scheduling else eff.OVERLAP_EXPOSED_PER_REQUEST_SHARE) if hidden else 1.0
        )
        self.per_request = exposed * eff.STEP_OVERHEAD_PER_REQUEST_S / self.scheduler_steps
        self.cuda_graphs = cuda_graphs
        spec = wl.speculation
        self.verify = 1.0 + spec.draft_tokens
        self.steps_out = 0.0 if prefill_only else wl.decode_steps
        self.new_in = 0.0 if decode_only else wl.new_input_tokens
        self.pairs = 0.0 if decode_only else wl.prefill_pairs_per_request
        #: second moment of the prompt tokens computed per request (0 in a decode pool)
        self.in_second_moment = (
            0.0 if decode_only else (1.0 - wl.prefix_hit_rate) ** 2 * wl.input.second_moment
        )
        rng = np.random.default_rng(SEED)
        u = rng.random((7, SAMPLES))
        z = rng.standard_normal((4, SAMPLES))
        self.u = u
        self.z = z
        self.exponential = -np.log1p(-u[5])  # unit-mean exponential draws for the waits
        self.adp_uniform = 0.5 * (1.0 + _erf(z[3] / np.sqrt(2.0)))  # uniform draws for the attention-DP wait
        self.in_samples = wl.input.sample(u[0], z[0])
        self.out_samples = wl.output.sample(u[1], z[1])
        x_b = (
            rep.max_running / self.steps_out if self.steps_out > 0 else np.full_like(rep.max_running, np.inf)
        )
        if rep.chunked_prefill:
            x_tok = rep.max_batched_tokens / (self.verify * self.steps_out + self.new_in)
            self.x_max = np.minimum(x_b, x_tok)
        else:
            self.x_max = x_b

    # --- fluid ------------------------------------------------------------------------------------------------

    def _cycle(
        self,
        d: Any,
        p: Any,
        k: Any,
        a: Any,
        like: np.ndarray,
        eager: Any = 0.0,
        colocated: bool | None = None,
    ) -> np.ndarray:
        """Cycle time; `eager` is the share of such steps that carry prompt chunks and so run without a CUDA
        graph (rates.EAGER_STEP_OVERHEAD_S). Each decoding request in the step adds self.per_request (its scheduling,
        sampling and detokenisation), counted from the decode tokens over the tokens verified per request."""
        requests = np.asarray(d, dtype=float) / self.verify
        return cycle_time_s(
            self.rep.coef,
            decode_tokens=d + 0.0 * like,
            prefill_tokens=p + 0.0 * like,
            cached_tokens=k + 0.0 * like,
            prefill_pairs=a + 0.0 * like,
            step_overhead_s=self.overhead
            + self.eager_overhead * (eager if self.cuda_graphs else 1.0)
            + self.per_request * requests,
            colocated=self.colocated if colocated is None else colocated,
        )

    def eager_share(self, x: np.ndarray, decode_tokens: Any) -> np.ndarray:
        """Share of steps that carry a prompt chunk: x prompts arrive per step, each in ceil(input / left budget)
        chunks."""
        if self.new_in <= 0:
            return np.zeros_like(x)
        budget = _col(self.rep.max_batched_tokens, x)
        left = np.maximum(budget - decode_tokens, 1.0)
        return np.minimum(1.0, x * np.maximum(1.0, np.ceil(self.new_in / left)))

    def _decode_cycle(self, running: np.ndarray, colocated: bool | None = None) -> np.ndarray:
        """A decode-only cycle of `running` requests plus their draft passes."""
        d = running * self.verify
        t = self._cycle(d, 0.0, d * self.wl.mean_context_tokens, 0.0, running, colocated=colocated)
        spec = self.wl.speculation
        if spec.draft_tokens:
            draft = self._cycle(
                running, 0.0, running * self.wl.mean_context_tokens, 0.0, running, colocated=colocated
            )
            t = t + spec.draft_tokens * spec.draft_cost_fraction * draft
        return t

    def step_s(self, x: np.ndarray) -> np.ndarray:
        """Mean step time at x requests arriving per step."""
        running = x * self.steps_out
        d = running * self.verify
        pairs = x * self.pairs
        if self.rep.chunked_prefill:
            t = self._cycle(
                d, x * self.new_in, d * self.wl.mean_context_tokens, pairs, x, self.eager_share(x, d)
            )
            spec = self.wl.speculation
            if spec.draft_tokens:
                draft = self._cycle(running, 0.0, running * self.wl.mean_context_tokens, 0.0, x)
                t = t + spec.draft_tokens * spec.draft_cost_fraction * draft
            return t
        batch = np.maximum(1.0, x)
        prefill = self._cycle(0.0, batch * self.new_in, 0.0, batch * self.pairs, x, 1.0)
        return self._decode_cycle(running) + np.minimum(1.0, x) * prefill

    def rate_per_s(self, x: np.ndarray) -> np.ndarray:
        return x / self.step_s(x)

    def max_rate_per_s(self) -> np.ndarray:
        """The highest request rate each layout sustains (0 when it holds no request)."""
        x = np.maximum(self.x_max, 0.0)
        return np.where(x > 0, x / self.step_s(x), 0.0)

    def _invert(self, f: Any, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The state x in [0, x_max] where the increasing function f(x) reaches `target` (x_max where it cannot),
        and f(x_max): read off a grid of _GRID states, then refined with secant steps."""
        x_max = _col(self.x_max, target) + 0.0 * target
        grid = x_max[..., None] * _GRID
        values = f(grid)
        idx = np.clip((values < target[..., None]).sum(axis=-1), 1, len(_GRID) - 1)
        x0 = np.take_along_axis(grid, idx[..., None] - 1, axis=-1)[..., 0]
        x1 = np.take_along_axis(grid, idx[..., None], axis=-1)[..., 0]
        f0 = np.take_along_axis(values, idx[..., None] - 1, axis=-1)[..., 0]
        f1 = np.take_along_axis(values, idx[..., None], axis=-1)[..., 0]
        for _ in range(_SECANT_STEPS):
            step = f1 - f0
            slope = np.where(np.abs(step) > 1e-300, (x1 - x0) / np.where(step == 0, 1.0, step), 0.0)
            x2 = np.clip(x1 + (target - f1) * slope, 0.0, x_max)
            x0, f0 = x1, f1
            x1, f1 = x2, f(x2)
        at_max = values[..., -1]
        return np.where(at_max <= target, x_max, x1), at_max

    def x_for_rate(self, rate_per_s: np.ndarray) -> np.ndarray:
        """The fluid state serving `rate_per_s` per replica (x_max where it cannot: saturated); lambda(x) is
        increasing."""
        x, _ = self._invert(self.rate_per_s, np.asarray(rate_per_s, dtype=float))
        return x

    # --- latency --------------------------------------------------------------------------------------------------

    def _mean_ttft_s(self, x: np.ndarray, t: np.ndarray, open_loop: bool = True) -> np.ndarray:
        """Mean TTFT from the same components as the sampled one, without sampling (closed-loop solve)."""
        parts = self._ttft_parts(x, t, open_loop)
        a, cap, extra = parts["adp_span"], parts["adp_cap"], parts["adp_batching"]
        # share of requests whose group of dp fills before the timeout
        synced = np.where(a > cap, cap / np.maximum(a, 1e-30), 1.0)
        adp_mean = 0.5 * a * synced**2 + extra * synced + cap * (1.0 - synced)
        return (
            parts["busy"] * 0.5 * self.scheduler_steps * t + parts["wait_mean"] + parts["own_mean"] + adp_mean
        )

    def _ttft_parts(self, x: np.ndarray, t: np.ndarray, open_loop: bool = True) -> dict[str, np.ndarray]:
        """TTFT components at a state. The wait for a running slot is an open-loop queue (M/M/c); with a fixed
        number of clients the requests beyond the running limit wait in turn instead (at_concurrency adds that)."""
        rep, wl = self.rep, self.wl
        running = x * self.steps_out
        d = running * self.verify
        budget = _col(rep.max_batched_tokens, x)
        rate = x / t
        busy = 1.0 - np.exp(-(running + x))
        if rep.chunked_prefill:
            left = np.maximum(budget - d, 1.0)
            # The prefill queue's server is busy in the steps that carry prompt chunks, and those steps take
            # longer than the mean step t: a busy step carries the whole budget left by the decodes (the sampled
            # own prefill already times its full chunks so, _own_prefill_s). A prompt of n tokens is served in
            # n x tau seconds, tau = full step / budget left; the queue's utilisation is then the share of time
            # spent in such steps, lambda x E[S] (M/G/1, Pollaczek-Khinchine), not the share of steps x n / left
            # (which times the service in mean steps and so undercounts the wait when prompts are long).
            full_step = self._cycle(
                d, left, d * wl.mean_context_tokens, self.pairs * left / max(self.new_in, 1.0), x, 1.0
            )
            tau = full_step / left
            rho_p = np.clip(rate * self.new_in * tau, 0.0, 0.999)
            s2 = self.in_second_moment * tau**2
            last = np.minimum(left, self.new_in + x * self.new_in)
            own_mean = (np.ceil(self.new_in / left) - 1.0) * t + self._cycle(
                d, last, d * wl.mean_context_tokens, (x + 1.0) * self.pairs, x, 1.0
            )
        else:
            batch = np.maximum(1.0, x)
            t_pre = self._cycle(0.0, batch * self.new_in, 0.0, batch * self.pairs, x, 1.0)
            rho_p = np.clip(np.minimum(1.0, x) * t_pre / t, 0.0, 0.999)
            s2 = t_pre**2
            own_mean = t_pre
            left = budget
        wait_p = rate * s2 / (2.0 * (1.0 - rho_p))
        c = _col(rep.max_running, x)
        rho_s = np.clip(running / np.maximum(c, 1.0), 0.0, 0.999)
        p_wait_s = np.minimum(1.0, rho_s ** np.maximum(np.sqrt(2.0 * (c + 1.0)) - 1.0, 0.0))
        lq = rho_s ** np.sqrt(2.0 * (c + 1.0)) / (1.0 - rho_s)
        wait_s = np.where((rate > 0) & open_loop, lq / np.maximum(rate, 1e-30), 0.0)
        extra = 0.0 if rep.extra_ttft_s is None else _col(rep.extra_ttft_s, x)
        adp_span, adp_cap, adp_batching = self._adp_wait(x, t, rate)
        return {
            "adp_span": adp_span,
            "adp_cap": adp_cap,
            "adp_batching": adp_batching,
            "busy": busy,
            "left": left,
            "rho_p": rho_p,
            "wait_p": wait_p,
            "p_wait_s": p_wait_s,
            "wait_s": wait_s,
            "wait_mean": wait_p + wait_s,
            "own_mean": own_mean + extra,
            "extra": extra + 0.0 * x,
        }

    def _adp_wait(
        self, x: np.ndarray, t: np.ndarray, rate: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """TensorRT-LLM attention-DP balance (attention_dp_config enable_balance; ADP balance blog, NVIDIA/TensorRT-LLM
        docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md): a context request is held until every one of
        the dp ranks has one, at most timeout_iters iterations. Requests reach the ranks in turn, so a request waits
        for the rest of its group of dp arrivals: uniform over [0, (dp - 1) / rate], capped at timeout_iters steps.
        When the group fills in time the contexts wait batching_wait_iters more iterations (batch equilibration); a
        timed-out group is released at once (PyExecutor._balance_adp_requests: the batching counter runs only while
        every rank holds a context, the timeout releases without it). Returns (span of that uniform, cap, batching
        wait), zero when the engine does not wait."""
        zero = np.zeros_like(x)
        if self.adp_timeout_iters is None or not self.colocated or self.new_in <= 0:
            return zero, zero, zero
        dp = _col(self.rep.coef.dp, x)
        waits = (dp > 1) & (rate > 0)
        span = np.where(waits, (dp - 1.0) / np.maximum(rate, 1e-30), 0.0)
        return span, self.adp_timeout_iters * t + zero, np.where(waits, self.adp_batching_iters * t, 0.0)

    def state(
        self,
        x: np.ndarray,
        *,
        closed_loop_extra_wait_s: Any = 0.0,
        open_loop: bool = True,
        draws: int = SAMPLES,
    ) -> LoadState:
        """Fluid state and sampled latency percentiles at x (any shape with layouts first)."""
        wl = self.wl
        x = np.asarray(x, dtype=float)
        t = self.step_s(x)
        rate = x / t
        running = x * self.steps_out
        d = running * self.verify
        parts = self._ttft_parts(x, t, open_loop)
        e = (Ellipsis, None)  # add the sample axis
        u, z = self.u[:, :draws], self.z[:, :draws]  # the first `draws` requests of the fixed sample
        exponential = self.exponential[:draws]
        ts = t[e]
        in_new = (1.0 - wl.prefix_hit_rate) * self.in_samples[:draws] * (1.0 if self.new_in > 0 else 0.0)
        # TTFT samples
        residual = np.where(u[2] < parts["busy"][e], u[3] * ts * self.scheduler_steps, 0.0)
        rho_p = parts["rho_p"][e]
        wait_p = np.where(u[4] < rho_p, (parts["wait_p"][e] / np.maximum(rho_p, 1e-30)) * exponential, 0.0)
        p_s = parts["p_wait_s"][e]
        wait_s = np.where(u[6] < p_s, (parts["wait_s"][e] / np.maximum(p_s, 1e-30)) * exponential, 0.0)
        own = self._own_prefill_s(x, d, parts, in_new)
        held = self.adp_uniform[:draws] * parts["adp_span"][e]
        cap = parts["adp_cap"][e]
        adp = np.where(held < cap, held + parts["adp_batching"][e], cap)
        ttft = (
            residual + wait_p + wait_s + own + adp + parts["extra"][e] + _as(closed_loop_extra_wait_s, x)[e]
        )
        # TPOT samples: the step time, linear in the running count and the prefill tokens around the mean state
        a, b = self._step_slopes(x, t)
        steps = np.maximum(self.out_samples[:draws] / wl.speculation.acceptance_length, 1.0)
        kappa = np.sqrt(OCCUPANCY_VARIANCE_FRACTION) if open_loop else 0.0
        sd_running = kappa * np.sqrt(running)
        sd_prefill = np.sqrt(x * self.in_second_moment)  # tokens per step, one step
        sd_step = np.sqrt((a * sd_running)[e] ** 2 + ((b * sd_prefill)[e] / np.sqrt(steps)) ** 2)
        step_i = np.maximum(ts + sd_step * z[2], 0.5 * ts)
        tpot = step_i / wl.speculation.acceptance_length
        wait_mean = parts["wait_mean"] + _as(closed_loop_extra_wait_s, x)
        return LoadState(
            x=x,
            rate_per_s=rate,
            step_s=t,
            running=running,
            prefill_tokens_per_step=x * self.new_in,
            saturated=x >= _col(self.x_max, x) * (1.0 - 1e-9),
            ttft_s=_percentiles(ttft),
            tpot_s=_percentiles(tpot),
            ttft_mean_s=ttft.mean(axis=-1),
            tpot_mean_s=tpot.mean(axis=-1),
            queue_requests=rate * wait_mean,
            prefill_utilisation=parts["rho_p"],
            output_tokens_per_s=rate * wl.output.mean,
        )

    def _own_prefill_s(
        self, x: np.ndarray, d: np.ndarray, parts: dict[str, np.ndarray], in_new: np.ndarray
    ) -> np.ndarray:
        """Each sampled request's own prefill steps: full chunks of the budget left by decodes, then the step that
        carries its last chunk on top of the average prefill load; without chunked prefill, the prefill step of its
        batch of prompts. Cycle times are evaluated at NODES remainders and interpolated per sample."""
        wl, e = self.wl, (Ellipsis, None)
        xs = x[e]
        if self.rep.chunked_prefill:
            left = parts["left"]
            full = self._cycle(d, left, d * wl.mean_context_tokens, 0.0, x, 1.0)
            nodes = left[e] * _NODES
            last_nodes = self._cycle(
                d[e],
                np.minimum(left[e], nodes + xs * self.new_in),
                d[e] * wl.mean_context_tokens,
                nodes * (wl.input.mean - nodes / 2.0) + xs * self.pairs,
                nodes,
                1.0,
            )
            if wl.input.distribution == "fixed":  # every request the same: one value per state
                in_new = in_new[:1]
            chunks = np.ceil(in_new / left[e])
            remainder = in_new - (chunks - 1.0) * left[e]
            return (chunks - 1.0) * full[e] + _interp(remainder, nodes, last_nodes)
        batch = np.maximum(1.0, xs)
        top = max(float(in_new.max()), 1.0)
        nodes = top * _NODES + 0.0 * xs
        own_nodes = self._cycle(
            0.0,
            (batch - 1.0) * self.new_in + nodes,
            0.0,
            (batch - 1.0) * self.pairs + nodes**2 / 2.0,
            nodes,
            1.0,
        )
        return _interp(in_new + 0.0 * xs, nodes, own_nodes)

    def _step_slopes(self, x: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """d(step)/d(running requests) and d(step)/d(prefill tokens per step) at the mean state (finite
        differences of step_s), for the TPOT spread."""
        running = x * self.steps_out
        h_run = np.maximum(1.0, 0.05 * running)
        h_x = np.maximum(1e-3, 0.05 * x)
        if self.steps_out > 0:
            dx_run = h_run / self.steps_out
            a = (self.step_s(x + dx_run) - t) / h_run
        else:
            a = np.zeros_like(x)
        if self.new_in > 0:
            b = (self.step_s(x + h_x) - t) / (h_x * self.new_in) - a * self.steps_out / self.new_in
        else:
            b = np.zeros_like(x)
        return np.maximum(a, 0.0), np.maximum(b, 0.0)

    # --- load kinds ---------------------------------------------------------------------------------------------

    def at_rate(self, rate_per_s: Any) -> LoadState:
        """Open loop: requests arrive as a Poisson process at `rate_per_s` per replica."""
        rate = np.asarray(rate_per_s, dtype=float)
        return self.state(self.x_for_rate(rate))

    def at_concurrency(self, clients: Any) -> LoadState:
        """Closed loop: `clients` per replica each send their next request when the previous one finishes; the
        requests in flight, lambda x (E[TTFT] + output / tau x T), increase with x."""
        n = np.asarray(clients, dtype=float)

        def in_flight(x: np.ndarray) -> np.ndarray:
            t = self.step_s(x)
            return x * self.steps_out + x * self._mean_ttft_s(x, t, open_loop=False) / t

        x, at_max = self._invert(in_flight, n)
        full = at_max <= n
        rate = x / self.step_s(x)
        extra = np.where(full, (n - at_max) / np.maximum(rate, 1e-30), 0.0)
        return self.state(x, closed_loop_extra_wait_s=extra, open_loop=False)

    def offline(self) -> LoadState:
        """Everything queued at once (MLPerf Offline, trtllm-bench): the saturated state."""
        return self.state(self.x_max.copy(), open_loop=False)


def _interp(values: np.ndarray, nodes: np.ndarray, at_nodes: np.ndarray) -> np.ndarray:
    """Piecewise-linear interpolation along the last axis between evenly spaced `nodes` (values outside clamp)."""
    lead = np.broadcast_shapes(values.shape[:-1], nodes.shape[:-1], at_nodes.shape[:-1])
    v = np.broadcast_to(values, lead + values.shape[-1:])
    n = np.broadcast_to(nodes, lead + nodes.shape[-1:])
    f = np.broadcast_to(at_nodes, lead + at_nodes.shape[-1:])
    k = n.shape[-1]
    span = np.maximum(n[..., -1:] - n[..., :1], 1e-30)
    pos = np.clip((v - n[..., :1]) / span * (k - 1), 0.0, k - 1.0)
    low = np.minimum(np.floor(pos).astype(int), k - 2)
    frac = pos - low
    f_low = np.take_along_axis(f, low, axis=-1)
    f_high = np.take_along_axis(f, low + 1, axis=-1)
    return f_low + (f_high - f_low) * frac


def _percentiles(samples: np.ndarray) -> dict[float, np.ndarray]:
    """PERCENTILES of the last axis (linear interpolation between order statistics, numpy's default)."""
    ordered = np.sort(samples, axis=-1)
    n = ordered.shape[-1]
    out = {}
    for p in PERCENTILES:
        rank = p / 100.0 * (n - 1)
        low = int(rank)
        high = min(low + 1, n - 1)
        out[p] = ordered[..., low] + (ordered[..., high] - ordered[..., low]) * (rank - low)
    return out


def _erf(v: np.ndarray) -> np.ndarray:
    """Error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7), so a normal draw maps to a uniform one."""
    sign = np.sign(v)
    a = np.abs(v)
    k = 1.0 / (1.0 + 0.3275911 * a)
    poly = k * (0.254829592 + k * (-0.284496736 + k * (1.421413741 + k * (-1.453152027 + k * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _as(value: Any, like: np.ndarray) -> np.ndarray:
    return np.asarray(value, dtype=float) + 0.0 * like
