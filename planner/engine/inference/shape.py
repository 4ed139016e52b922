"""What one serving step of a model reads and computes, per token and per cached token, split the way parallel
layouts split it: attention and dense weights (split by attention TP, replicated over attention-DP ranks), routed
experts (split over expert parallelism), the LM head, the KV cache and the attention math.

Parameter counts come from planner.engine.transformer.params (the same counts as training). Attention math
per (query, key) pair and layer (2 FLOPs per multiply-add; PaLM arXiv:2204.02311 App. B):
* multi-head/GQA attention: QK^T 2·a·d and AV 2·a·d, so 4·a·d;
* MLA (DeepSeek-V2 arXiv:2405.04434 §2.1): decode runs with the up-projections absorbed (FlashMLA), attending
  over the latent: QK^T 2·a·(r_kv + d_rope), AV 2·a·r_kv; prefill runs as ordinary attention with head
  dimension d_nope + d_rope for QK and d_v for AV.
The KV cache holds 2·kv_heads·d values per token and layer, or MLA's latent r_kv + d_rope (model.kv_values_per_token).
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.engine.inputs.specs import ModelSpec
from planner.engine.transformer.params import (
    attention_params,
    expert_params,
    ffn_params,
    kv_values_per_token,
    moe_layer_count,
    norm_params,
)


@dataclass(frozen=True)
class ServingShape:
    """Model numbers a serving step needs (all floats, whole model unless named per layer)."""

    name: str
    layers: int
    moe_layers: int
    hidden: int
    heads: int
    kv_heads: int
    vocab: int
    attention_params: float  # every layer's attention projections and norms
    dense_params: float  # dense FFN layers + shared experts + routers (read every step)
    expert_params: float  # one routed expert
    experts: int
    top_k: int
    head_params: float  # LM head (vocab x hidden), computed for the tokens that need logits
    embedding_params: float  # input embedding stored apart from the head (0 when tied); a lookup, not a GEMM
    kv_values_per_token_layer: float
    decode_pair_flop_per_layer: float  # attention FLOPs per (query, cached key) pair and layer, decode
    prefill_pair_flop_per_layer: float  # the same for prefill (causal)
    ffn_columns_per_token: float  # FFN width a token passes through (elementwise activation traffic)
    mla: bool

    @property
    def routed_expert_params(self) -> float:
        return self.moe_layers * self.experts * self.expert_params

    @property
    def active_gemm_params(self) -> float:
        """Parameters one token multiplies through in the transformer layers (top-k routed experts only)."""
        return self.attention_params + self.dense_params + self.moe_layers * self.top_k * self.expert_params

    @property
    def stored_params(self) -> float:
        """Parameters held in GPU memory: every expert, the LM head and an untied input embedding."""
        return (
            self.attention_params
            + self.dense_params
            + self.routed_expert_params
            + self.head_params
            + self.embedding_params
        )


def serving_shape(m: ModelSpec) -> ServingShape:
    """Split a model into the parts a parallel serving layout treats differently (module docstring)."""
    moe_layers = moe_layer_count(m)
    attn = m.layers * (attention_params(m) + 2.0 * norm_params(m))
    dense_ffn = ffn_params(m.hidden, m.ffn_hidden, m.ffn_type, m.bias)
    if m.moe is None:
        dense = m.layers * dense_ffn
        expert = 0.0
        experts, top_k = 1, 0
        ffn_columns = float(m.ffn_hidden)
    else:
        x = m.moe
        expert = expert_params(m)
        dense = x.dense_layers * dense_ffn + moe_layers * (x.shared_experts * expert + m.hidden * x.experts)
        experts, top_k = x.experts, x.top_k
        ffn_columns = (
            x.dense_layers * m.ffn_hidden + moe_layers * (x.top_k + x.shared_experts) * x.expert_ffn_hidden
        ) / m.layers
    a = m.heads
    if m.mla is not None:
        r, rope = m.mla.kv_lora_rank, m.mla.qk_rope_head_dim
        decode_pair = 2.0 * a * (r + rope) + 2.0 * a * r
        prefill_pair = 2.0 * a * (m.mla.qk_nope_head_dim + rope) + 2.0 * a * m.mla.v_head_dim
    else:
        decode_pair = prefill_pair = 4.0 * a * m.head_dim
    head = float(m.vocab * m.hidden)
    embedding = 0.0 if m.tied_embeddings else head
    if m.params_override is not None:  # only a parameter count: the rest of it is dense FFN weight
        dense = m.params_override - attn - head - embedding
    return ServingShape(
        name=m.name,
        layers=m.layers,
        moe_layers=moe_layers,
        hidden=m.hidden,
        heads=m.heads,
        kv_heads=m.kv_heads,
        vocab=m.vocab,
        attention_params=attn,
        dense_params=max(dense, 0.0),
        expert_params=expert,
        experts=experts,
        top_k=top_k,
        head_params=head,
        embedding_params=embedding,
        kv_values_per_token_layer=kv_values_per_token(m) / m.layers,
        decode_pair_flop_per_layer=decode_pair,
        prefill_pair_flop_per_layer=prefill_pair,
        ffn_columns_per_token=ffn_columns,
        mla=m.mla is not None,
    )
