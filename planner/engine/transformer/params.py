"""Parameter counts of decoder-only transformers, dense and mixture-of-experts.

Dense count per Narayanan et al. 2021 (arXiv:2104.04473, §5.1): P = 12·l·h²·(1 + 13/(12h) + (V+s)/(12·l·h)) for a
GPT with learned positions, biases and LayerNorm; the terms below reproduce it exactly and generalise it to
GQA/MQA (arXiv:2305.13245), SwiGLU (arXiv:2002.05202), RMSNorm, untied embeddings, MoE and MLA.
"""

from __future__ import annotations

from planner.engine.inputs.specs import ModelSpec


def attention_params(m: ModelSpec) -> float:
    """Attention weights (and biases) of one layer.

    Standard/GQA: W_q (h·h) + W_k, W_v (h·kv·d each) + W_o (h·h); biases add h + 2·kv·d + h.
    MLA (arXiv:2405.04434 §2.1): W_DQ (h·r_q) + W_UQ (r_q·a·(d_nope+d_rope)) + W_DKV (h·(r_kv+d_rope))
    + W_UKV (r_kv·a·(d_nope+d_v)) + W_O (a·d_v·h), plus the two low-rank norms (r_q + r_kv).
    """
    h = m.hidden
    if m.mla is not None:
        a, x = m.heads, m.mla
        return (
            h * x.q_lora_rank  # W_DQ, query down-projection
            + x.q_lora_rank * a * (x.qk_nope_head_dim + x.qk_rope_head_dim)  # W_UQ
            + h * (x.kv_lora_rank + x.qk_rope_head_dim)  # W_DKV and decoupled rope key
            + x.kv_lora_rank * a * (x.qk_nope_head_dim + x.v_head_dim)  # W_UK and W_UV
            + a * x.v_head_dim * h  # W_O
            + x.q_lora_rank
            + x.kv_lora_rank  # RMSNorms on the latents
        )
    kv_dim = m.kv_heads * m.head_dim
    weights = 2 * h * h + 2 * h * kv_dim  # W_q, W_o, W_k, W_v
    biases = (2 * h + 2 * kv_dim) if m.bias else 0
    return float(weights + biases)


def ffn_params(hidden: int, ffn_hidden: int, ffn_type: str, bias: bool) -> float:
    """One FFN: GELU has two matrices (h·f + f·h), SwiGLU three (gate, up, down: 3·h·f); biases f + h."""
    matrices = 3 if ffn_type == "swiglu" else 2
    biases = (ffn_hidden * (matrices - 1) + hidden) if bias else 0
    return float(matrices * hidden * ffn_hidden + biases)


def norm_params(m: ModelSpec) -> float:
    """One normalisation layer: LayerNorm has scale and shift (2h), RMSNorm only a scale (h)."""
    return float(2 * m.hidden if m.norm == "layernorm" else m.hidden)


def moe_layer_count(m: ModelSpec) -> int:
    return 0 if m.moe is None else m.layers - m.moe.dense_layers


def expert_params(m: ModelSpec) -> float:
    """One routed expert's FFN (same form as a dense FFN with `expert_ffn_hidden`)."""
    assert m.moe is not None
    return ffn_params(m.hidden, m.moe.expert_ffn_hidden, m.ffn_type, m.bias)


def embedding_params(m: ModelSpec) -> float:
    """Token embedding V·h, the output projection V·h unless tied, learned positions s·h."""
    token = m.vocab * m.hidden
    output = 0 if m.tied_embeddings else m.vocab * m.hidden
    positions = m.seq_len * m.hidden if m.position_embedding == "learned" else 0
    return float(token + output + positions)


def _layer_params(m: ModelSpec, *, routed_experts: float) -> float:
    """All transformer layers with `routed_experts` routed experts counted per MoE layer."""
    per_layer_common = attention_params(m) + 2 * norm_params(m)
    dense_ffn = ffn_params(m.hidden, m.ffn_hidden, m.ffn_type, m.bias)
    if m.moe is None:
        return m.layers * (per_layer_common + dense_ffn)
    x = m.moe
    moe_ffn = (
        routed_experts * expert_params(m)
        + x.shared_experts * expert_params(m)  # shared experts see every token
        + m.hidden * x.experts  # router
    )
    return m.layers * per_layer_common + x.dense_layers * dense_ffn + moe_layer_count(m) * moe_ffn


def total_params(m: ModelSpec) -> float:
    """Every parameter stored (all experts)."""
    if m.params_override is not None:
        return m.params_override
    experts = m.moe.experts if m.moe else 0
    return _layer_params(m, routed_experts=experts) + norm_params(m) + embedding_params(m)


def active_params(m: ModelSpec) -> float:
    """Parameters one token passes through (top-k routed experts only); equals total for dense models."""
    if m.moe is None or m.params_override is not None:
        return total_params(m)
    return _layer_params(m, routed_experts=m.moe.top_k) + norm_params(m) + embedding_params(m)


def kv_values_per_token(m: ModelSpec) -> float:
    """Values cached per token for all layers: 2·layers·kv_heads·head_dim (K and V), or for MLA
    layers·(kv_lora_rank + qk_rope_head_dim) (arXiv:2405.04434 §2.1.2, the compressed latent and rope key)."""
    if m.mla is not None:
        return float(m.layers * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim))
    return float(2 * m.layers * m.kv_heads * m.head_dim)
