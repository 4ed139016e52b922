"""The busiest GPU's share of the routed tokens under expert parallelism.

Every GPU of an expert-parallel group waits at each MoE layer for the one whose experts received the most tokens.
Expert popularity is uneven and stable over hundreds of steps (TensorRT-LLM tech blog 4, "Scaling Expert Parallelism
in TensorRT-LLM (Part 1)", DeepSeek-R1 on 32 GB200, Figures 1-11 and Table 1), so a GPU's load is the sum of its
experts' shares: with E experts over `ep` GPUs each GPU sums E / ep shares, fewer with a larger `ep`, so the hot
experts average out less and the busiest GPU's load over the mean grows with the EP degree. Here the shares are
lognormal with a spread fitted to the blog's Table 1 (rates.EXPERT_POPULARITY_LOG_SIGMA), experts are placed
round-robin (the checkpoint's order: popularity is unrelated to the expert index), and the factor is the mean over
a fixed seeded sample of layers of max over GPUs / mean, the same per-layer average the blog reports (a step's MoE
time is the sum over its layers of each layer's busiest GPU). An expert-parallel load balancer (EPLB: redundant hot
experts and placement from measured statistics, deepseek-ai/EPLB) brings it down to the blog's measured figure
(rates.EPLB_LOAD_IMBALANCE), never above the unbalanced one.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from planner.engine.inference import rates as eff

#: layers sampled per (experts, ep): the factor's sampling error is under 0.5% at 4,096
_SAMPLED_LAYERS = 4096
_SEED = 14


@lru_cache(maxsize=8)
def _shares(experts: int, log_sigma: float) -> np.ndarray:
    """The sampled layers' expert popularity (lognormal, a fixed seed: the same sample every run)."""
    return np.exp(log_sigma * np.random.default_rng(_SEED).standard_normal((_SAMPLED_LAYERS, experts)))


@lru_cache(maxsize=64)
def _unbalanced(experts: int, ep: int, log_sigma: float) -> float:
    """Mean over sampled layers of the busiest of `ep` GPUs' summed expert shares over the mean GPU's (module
    docstring); experts not divisible by `ep` leave some GPUs one expert short."""
    if ep <= 1 or experts <= 1 or log_sigma <= 0.0:
        return 1.0
    shares = _shares(experts, log_sigma)
    per_gpu = -(-experts // ep)
    padded = np.zeros((_SAMPLED_LAYERS, per_gpu * ep))
    padded[:, :experts] = shares
    loads = padded.reshape(_SAMPLED_LAYERS, per_gpu, ep).sum(axis=1)  # expert i on GPU i mod ep
    mean = shares.sum(axis=1) / ep
    return float(np.mean(loads.max(axis=1) / mean))


def busiest_gpu_share(experts: int, ep: int, *, eplb: bool = False) -> float:
    """The busiest GPU's routed tokens over the mean GPU's at one MoE layer from the experts' popularity (module
    docstring): 1 without expert parallelism or with a uniform popularity, growing with `ep` for a given spread;
    with `eplb` the balanced figure rates.EPLB_LOAD_IMBALANCE, or the unbalanced one if that is lower."""
    unbalanced = _unbalanced(int(experts), int(ep), float(eff.EXPERT_POPULARITY_LOG_SIGMA))
    return min(unbalanced, eff.EPLB_LOAD_IMBALANCE) if eplb else unbalanced


def expert_load_imbalance(experts: int, ep: int, *, eplb: bool = False) -> float:
    """The busiest GPU's expert tokens over the mean as the step model charges them: 1 without expert parallelism,
    else busiest_gpu_share times the fitted rates.EXPERT_LOAD_SCALE."""
    return busiest_gpu_share(experts, ep, eplb=eplb) * eff.EXPERT_LOAD_SCALE if ep > 1 else 1.0
