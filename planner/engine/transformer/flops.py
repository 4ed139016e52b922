"""Floating-point operations of one training token: model FLOPs (MFU) and hardware FLOPs (HFU).

Model FLOPs follow PaLM (Chowdhery et al. 2022, arXiv:2204.02311, App. B): 6·N + 12·L·H·Q·T per token, where N
counts the matmul weights a token passes through (active parameters for MoE, the output projection V·h included,
the input embedding lookup excluded), and the attention term is the NON-causal form (every query against all T
keys), as PaLM and Megatron-LM count it. For a GPT this is exactly Narayanan et al. 2021 (arXiv:2104.04473,
§5.1) without recomputation: 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)) per batch.

Hardware FLOPs add activation recomputation (Korthikanti et al. 2022, arXiv:2205.05198, §6.3): selective
recompute repeats the forward of the attention core (QKᵀ and attention·V), full recompute one extra forward of
every transformer layer (not of the output layer), which gives Megatron-LM's 96·B·s·l·h²·(1 + s/(6h) + V/(16lh)).
"""

from __future__ import annotations

from planner.engine.transformer.shape import ModelShape

#: Forward + backward = 3 forward passes (backward computes input and weight gradients: 2 GEMMs per GEMM).
TRAINING_PASSES = 3.0
#: Multiply-accumulate = 2 FLOPs.
FLOP_PER_MAC = 2.0


def dense_layer_matmul_flop_per_token(sh: ModelShape) -> float:
    """Forward matmul FLOPs of one dense layer: 2 · (attention weights + FFN weights)."""
    return FLOP_PER_MAC * (sh.attention_matmul_params + sh.dense_ffn_matmul_params)


def moe_layer_matmul_flop_per_token(sh: ModelShape) -> float:
    """Forward matmul FLOPs of one MoE layer: attention, router, top-k routed and all shared experts."""
    experts_used = sh.top_k + sh.shared_experts
    return FLOP_PER_MAC * (
        sh.attention_matmul_params + experts_used * sh.expert_matmul_params + sh.router_matmul_params
    )


def layer_matmul_flop_per_token(sh: ModelShape) -> float:
    """Forward matmul FLOPs per token of the average layer (dense and MoE layers weighted by their count)."""
    dense = sh.dense_layers * dense_layer_matmul_flop_per_token(sh)
    moe = sh.moe_layers * moe_layer_matmul_flop_per_token(sh) if sh.moe_layers else 0.0
    return (dense + moe) / sh.layers


def attention_score_flop_per_token(sh: ModelShape) -> float:
    """Forward FLOPs of the attention core per token per layer, non-causal (PaLM App. B):
    QKᵀ 2·s·heads·d_qk + attention·V 2·s·heads·d_v  (= 4·s·h for standard attention)."""
    return FLOP_PER_MAC * sh.seq_len * sh.heads * (sh.qk_head_dim + sh.v_head_dim)


def logits_flop_per_token(sh: ModelShape) -> float:
    """Forward FLOPs of the output projection: 2·h·V."""
    return FLOP_PER_MAC * sh.hidden * sh.vocab


def model_flop_per_token(sh: ModelShape) -> float:
    """Training model FLOPs per token (forward + backward, attention included, no recompute)."""
    forward = sh.layers * (layer_matmul_flop_per_token(sh) + attention_score_flop_per_token(sh))
    return TRAINING_PASSES * (forward + logits_flop_per_token(sh))


def recompute_flop_per_token(sh: ModelShape, recompute: str) -> float:
    """Extra forward FLOPs spent on activation recomputation (Korthikanti et al. 2022 §5, §6.3)."""
    if recompute == "selective":
        return sh.layers * attention_score_flop_per_token(sh)
    if recompute == "full":
        return sh.layers * (layer_matmul_flop_per_token(sh) + attention_score_flop_per_token(sh))
    return 0.0
