"""What a service asks of a replica: request length distributions, prefix caching, speculative decoding, and the
serving engine's scheduling limits.

Length distributions (per request, tokens):
* "fixed": every request has the mean (benchmarks with synthetic ISL/OSL, trtllm-bench, MLPerf's mean);
* "exponential": memoryless lengths with the given mean (second moment 2·mean²), a heavy-ish default for chat;
* "lognormal": mean and coefficient of variation cv (sigma² = ln(1 + cv²)); ShareGPT-like traffic is close to it.
An output-length spread matters beyond the percentiles: the running requests are length-biased, so their mean
context, and with it the KV memory per running request and the attention read per step, grows with (1 + cv²)
(`Workload.mean_context_tokens`).

Speculative decoding (Leviathan et al. 2023, arXiv:2211.17192 §3.1): with k draft tokens per step each accepted with
probability alpha (i.i.d.), a verify step emits tau = (1 - alpha^(k+1)) / (1 - alpha) tokens per request on average;
the target model verifies k + 1 tokens per request per step, and the draft costs k passes of `draft_cost_fraction`
of a target decode pass (an MTP or EAGLE head is about one transformer layer; a draft model its size ratio).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LENGTH_DISTRIBUTIONS = ("fixed", "exponential", "lognormal")
SPECULATIVE_METHODS = ("mtp", "eagle", "draft_model", "ngram")
BATCHING = ("continuous", "static")
LATENCY_PERCENTILES = (50.0, 90.0, 99.0)


@dataclass(frozen=True)
class Lengths:
    mean: float
    distribution: str = "fixed"
    cv: float = 0.0  # lognormal only

    @property
    def second_moment(self) -> float:
        if self.distribution == "exponential":
            return 2.0 * self.mean**2
        if self.distribution == "lognormal":
            return self.mean**2 * (1.0 + self.cv**2)
        return self.mean**2

    def sample(self, u: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Lengths for uniforms `u` (exponential) or standard normals `z` (lognormal), at least one token."""
        if self.distribution == "exponential":
            values = -self.mean * np.log1p(-u)
        elif self.distribution == "lognormal":
            sigma2 = np.log1p(self.cv**2)
            values = np.exp(np.log(self.mean) - sigma2 / 2.0 + np.sqrt(sigma2) * z)
        else:
            values = np.full_like(u, self.mean)
        return np.maximum(values, 1.0)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"mean": self.mean, "distribution": self.distribution}
        if self.distribution == "lognormal":
            out["cv"] = self.cv
        return out


@dataclass(frozen=True)
class Speculation:
    method: str
    draft_tokens: int
    acceptance_length: float  # tau, tokens per verify step per request (bonus token included)
    draft_cost_fraction: float
    acceptance_source: str = ""

    @staticmethod
    def from_rate(
        method: str, draft_tokens: int, acceptance_rate: float, draft_cost_fraction: float, source: str
    ) -> Speculation:
        """tau from a per-token acceptance rate (Leviathan et al. 2023, eq. 1)."""
        if acceptance_rate >= 1.0:
            tau = float(draft_tokens + 1)
        else:
            tau = (1.0 - acceptance_rate ** (draft_tokens + 1)) / (1.0 - acceptance_rate)
        return Speculation(method, draft_tokens, tau, draft_cost_fraction, source)

    def as_dict(self) -> dict[str, object]:
        return {
            "method": self.method,
            "draft_tokens": self.draft_tokens,
            "acceptance_length": self.acceptance_length,
            "draft_cost_fraction": self.draft_cost_fraction,
            "acceptance_source": self.acceptance_source,
        }


NO_SPECULATION = Speculation("none", 0, 1.0, 0.0)


@dataclass(frozen=True)
class Workload:
    input: Lengths
    output: Lengths
    prefix_hit_rate: float = 0.0  # share of prompt tokens whose KV is reused from the prefix cache
    speculation: Speculation = NO_SPECULATION

    @property
    def new_input_tokens(self) -> float:
        """Prompt tokens computed per request (those not served from the prefix cache)."""
        return (1.0 - self.prefix_hit_rate) * self.input.mean

    @property
    def decode_steps(self) -> float:
        """Engine steps a request decodes for: its output tokens over the tokens each verify step emits."""
        return self.output.mean / self.speculation.acceptance_length

    @property
    def mean_context_tokens(self) -> float:
        """Average context of a running request: its prompt plus the output it has produced so far.

        Under continuous batching a request is in the running set for as long as it decodes, so the running set
        samples requests in proportion to their output length (length-biased sampling, the inspection paradox of
        renewal theory): a running request's output length is distributed as o·f(o) / E[o] and its age is uniform
        over it, so its mean output so far is E[o²] / (2·E[o]) = (1 + cv²)·E[o] / 2, not E[o] / 2. Prompt lengths
        are taken as independent of output lengths, so the prompt contributes its plain mean. Fixed lengths (cv 0)
        give prompt + output / 2."""
        if self.output.mean <= 0:
            return self.input.mean
        return self.input.mean + self.output.second_moment / (2.0 * self.output.mean)

    @property
    def prefill_pairs_per_request(self) -> float:
        """Causal attention (query, key) pairs of one prompt's computed tokens: the new (1 - h)·L tokens attend to
        the h·L cached ones and to each other, (1 - h)·(1 + h)·E[L²] / 2."""
        h = self.prefix_hit_rate
        return (1.0 - h) * (1.0 + h) * self.input.second_moment / 2.0


@dataclass(frozen=True)
class EngineLimits:
    """The serving engine's scheduling limits per replica (already multiplied by attention-DP ranks)."""

    max_running_requests: float
    max_batched_tokens: float
    chunked_prefill: bool = True


@dataclass(frozen=True)
class DisaggregationSpec:
    """Separate prefill and decode pools (DistServe, arXiv:2401.09670). GPU counts None: the sizer splits the
    cluster's replicas between the pools to serve the most requests within the targets."""

    prefill_gpus: int | None = None
    decode_gpus: int | None = None


@dataclass(frozen=True)
class ServingSpec:
    """One serving workload as `workload.serving` states it (docs/engine-contract.md).

    The first seven fields are the original static-batching inputs (`batch` concurrent requests per replica, each
    with `context_len` prompt tokens and `output_len` generated ones; `kv_precision=None` stores the KV cache in the
    weight precision). The rest describe continuous batching at a request rate; their defaults are vLLM's."""

    batch: int | None
    context_len: int
    output_len: int
    target_tokens_per_s: float | None = None
    max_ttft_s: float | None = None
    max_tpot_s: float | None = None
    kv_precision: str | None = None
    batching: str = "continuous"
    requests_per_s: float | None = None
    latency_percentile: float = 90.0
    input_distribution: str = "fixed"
    input_cv: float = 0.0
    output_distribution: str = "fixed"
    output_cv: float = 0.0
    prefix_cache_hit_rate: float = 0.0
    attention_precision: str | None = None
    dense_precision: str | None = None
    max_running_requests: int | None = None
    max_batched_tokens: int | None = None
    gpu_memory_utilization: float | None = None
    kv_block_tokens: int | None = None
    chunked_prefill: bool = True
    overlap_scheduling: bool = False
    fused_gemm_swiglu: bool = False
    eplb: bool = False
    scheduler_steps: int = 1
    #: the user's statement of their serving stack's compute-bound kernel speed against the calibrated average
    #: (1.0); multiplies the matmul ceiling the step model's GEMMs and attention math run at (rates.py)
    kernel_efficiency: float = 1.0
    cuda_graphs: bool = True
    speculative: Speculation | None = None
    disaggregated: DisaggregationSpec | None = None
    ep: int = 1
    dp_attention: bool = False

    @property
    def rate_per_s(self) -> float | None:
        """The request rate to serve: `requests_per_s`, else `target_tokens_per_s` / `output_len`."""
        if self.requests_per_s is not None:
            return self.requests_per_s
        if self.target_tokens_per_s is not None:
            return self.target_tokens_per_s / self.output_len
        return None

    def workload(self) -> Workload:
        return Workload(
            input=Lengths(float(self.context_len), self.input_distribution, self.input_cv),
            output=Lengths(float(self.output_len), self.output_distribution, self.output_cv),
            prefix_hit_rate=self.prefix_cache_hit_rate,
            speculation=self.speculative or NO_SPECULATION,
        )
