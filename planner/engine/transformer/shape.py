"""A model's shape reduced to the plain numbers the memory and time formulas need (computed once per model).

Everything here is a float so that the formulas in training/memory.py, flops.py and training/step_time.py can mix it with numpy
arrays of parallel layouts. Parameter counts come from params.py (Narayanan et al. 2021 §5.1, generalised).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from planner.engine.inputs.specs import ModelSpec
from planner.engine.transformer import params


@dataclass(frozen=True)
class ModelShape:
    name: str
    layers: float
    hidden: float
    heads: float
    kv_heads: float  # KV heads a TP rank cannot split (MLA: the query heads)
    seq_len: float
    vocab: float
    qk_head_dim: float  # per-head width of Q and K (MLA: nope + rope)
    v_head_dim: float  # per-head width of V and of the attention output
    q_width: float  # Q values per token (heads · qk_head_dim)
    k_width: float  # K values per token stored for attention (kv_heads · head_dim; MLA: heads · qk_head_dim)
    v_width: float
    # Values per token that RoPE rotates (0 with learned or ALiBi positions): all query heads, and the K heads
    # (split across TP ranks like the KV heads) or, for MLA, one rope key shared by all heads (on every TP rank).
    rotary_q_width: float
    rotary_k_width: float
    rotary_k_shared: bool
    ffn_width: float  # dense FFN hidden size
    expert_ffn_width: float
    gated_ffn: bool  # SwiGLU: three matrices and two activations stored
    experts: float
    top_k: float
    shared_experts: float
    dense_layers: float  # leading layers with a dense FFN (all layers for a dense model)
    moe_layers: float
    # Matmul weights (no biases or norms) that one token multiplies, per layer:
    attention_matmul_params: float
    dense_ffn_matmul_params: float
    expert_matmul_params: float  # one routed expert
    router_matmul_params: float
    # Stored parameters (biases and norms included), per layer:
    attention_block_params: float  # attention + both norms
    kv_projection_params: float  # W_k and W_v (+ biases): replicated when tp > kv_heads
    dense_ffn_params: float
    expert_params: float
    # Embeddings:
    input_embedding_params: float  # token (+ learned positions)
    output_layer_params: float  # V·h, present on the last stage even when tied (a copy when pp > 1)
    tied_embeddings: bool
    total_params: float
    active_params: float
    params_override: bool


def _ffn_matmul(hidden: int, ffn_hidden: int, ffn_type: str) -> float:
    return float((3 if ffn_type == "swiglu" else 2) * hidden * ffn_hidden)


def _without_override(m: ModelSpec) -> ModelSpec:
    return replace(m, params_override=None)


def shape_of(m: ModelSpec) -> ModelShape:
    """Reduce a ModelSpec to ModelShape. A `params_b`-only model becomes a dense GPT-like shape whose layer
    count and width were chosen by the parser (inputs/model.py) and whose parameter count is scaled to match.

    Cached: a pure function of a frozen ModelSpec (keyed on the type of `params_override` too, so that 7 and 7.0
    never share an entry), and a few models are asked for again and again."""
    return _shape_of(m, type(m.params_override))


@lru_cache(maxsize=256)
def _shape_of(m: ModelSpec, _override_type: type) -> ModelShape:
    h = m.hidden
    if m.mla is not None:
        qk = float(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)
        v = float(m.mla.v_head_dim)
        q_width, k_width, v_width = m.heads * qk, m.heads * qk, m.heads * v
        # MLA rotates only the decoupled rope part: per query head, and one key shared by all heads (§2.1.3).
        rotary_q, rotary_k = float(m.heads * m.mla.qk_rope_head_dim), float(m.mla.qk_rope_head_dim)
    else:
        qk = v = float(m.head_dim)
        q_width, k_width, v_width = m.heads * qk, m.kv_heads * qk, m.kv_heads * v
        rotary = m.position_embedding == "rotary"
        rotary_q, rotary_k = (float(q_width), float(k_width)) if rotary else (0.0, 0.0)
    attn_params = params.attention_params(m)
    attn_biases = 0.0
    if m.bias and m.mla is None:
        attn_biases = 2 * h + 2 * m.kv_heads * m.head_dim
    norms = 2 * params.norm_params(m)
    moe = m.moe
    dense_ffn = params.ffn_params(h, m.ffn_hidden, m.ffn_type, m.bias)
    expert = params.expert_params(m) if moe else 0.0
    positions = m.seq_len * h if m.position_embedding == "learned" else 0
    layer_scale = 1.0
    if m.params_override is not None:
        # Only a parameter count was given: scale the synthesised layers so the total matches it exactly.
        shaped = params.total_params(_without_override(m))
        embeddings = params.embedding_params(m) + params.norm_params(m)
        layer_scale = max(m.params_override - embeddings, 0.0) / max(shaped - embeddings, 1.0)
        attn_params, dense_ffn, norms = (
            attn_params * layer_scale,
            dense_ffn * layer_scale,
            norms * layer_scale,
        )
        attn_biases *= layer_scale
    return ModelShape(
        name=m.name,
        layers=float(m.layers),
        hidden=float(h),
        heads=float(m.heads),
        kv_heads=float(m.heads if m.mla is not None else m.kv_heads),
        seq_len=float(m.seq_len),
        vocab=float(m.vocab),
        qk_head_dim=qk,
        v_head_dim=v,
        q_width=float(q_width),
        k_width=float(k_width),
        v_width=float(v_width),
        rotary_q_width=rotary_q,
        rotary_k_width=rotary_k,
        rotary_k_shared=m.mla is not None,
        ffn_width=float(m.ffn_hidden),
        expert_ffn_width=float(moe.expert_ffn_hidden if moe else 0),
        gated_ffn=m.ffn_type == "swiglu",
        experts=float(moe.experts if moe else 0),
        top_k=float(moe.top_k if moe else 0),
        shared_experts=float(moe.shared_experts if moe else 0),
        dense_layers=float(moe.dense_layers if moe else m.layers),
        moe_layers=float(params.moe_layer_count(m)),
        attention_matmul_params=float(attn_params - attn_biases),
        dense_ffn_matmul_params=_ffn_matmul(h, m.ffn_hidden, m.ffn_type) * layer_scale,
        expert_matmul_params=_ffn_matmul(h, moe.expert_ffn_hidden, m.ffn_type) if moe else 0.0,
        router_matmul_params=float(h * moe.experts) if moe else 0.0,
        attention_block_params=float(attn_params + norms),
        kv_projection_params=0.0
        if m.mla is not None
        else float(2 * h * k_width + (2 * k_width if m.bias else 0)) * layer_scale,
        dense_ffn_params=float(dense_ffn),
        expert_params=float(expert),
        input_embedding_params=float(m.vocab * h + positions),
        output_layer_params=float(m.vocab * h),
        tied_embeddings=m.tied_embeddings,
        total_params=params.total_params(m),
        active_params=params.active_params(m),
        params_override=m.params_override is not None,
    )
