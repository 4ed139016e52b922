"""`workload.model` -> ModelSpec: a preset name, a shape, a preset with overrides, or only `params_b`."""

from __future__ import annotations

import math
from typing import Any

from planner.engine.inputs.errors import Problem
from planner.engine.inputs.fields import Fields
from planner.engine.inputs.presets import PRESETS, preset_model
from planner.engine.inputs.specs import MlaSpec, ModelSpec, MoeSpec
from planner.engine.inputs.suggest import did_you_mean

MODEL_PATH = "workload.model"
SHAPE_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "ffn_type", "vocab", "seq_len")
OPTION_KEYS = ("tied_embeddings", "bias", "norm", "position_embedding", "moe", "mla", "params_b")
INFO_KEYS = ("preset", "name", "label", "source", "published_params_b", "published_active_params_b")
MODEL_KEYS = SHAPE_KEYS + OPTION_KEYS + INFO_KEYS
MOE_KEYS = ("experts", "top_k", "expert_ffn_hidden", "shared_experts", "dense_layers", "router_bias")
MLA_KEYS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")

#: Shape synthesised from `params_b` alone: a dense GPT-like model with GPT-3's aspect ratio
#: (hidden / layers = 12288 / 96 = 128, Brown et al. 2020 Table 2.1), head size 128, 32k vocabulary.
SYNTH_ASPECT = 128
SYNTH_HEAD_DIM = 128
SYNTH_VOCAB = 32000
SEQ_LEN_DEFAULT = 2048
#: SwiGLU FFN default: 2/3 of 4h rounded up to a multiple of 256 (Llama, Touvron et al. 2023 §2.2).
SWIGLU_MULTIPLE = 256


def _assume(assumptions: dict[str, Any], key: str, value: Any, source: str) -> None:
    assumptions[f"{MODEL_PATH}.{key}"] = {"value": value, "unit": "", "source": source}


def _merged(w: Fields, problems: list[Problem]) -> tuple[dict[str, Any] | None, str]:
    """The model object with any preset expanded (explicit fields override the preset's)."""
    raw = w.obj.get("model")
    if raw is None:
        problems.append(Problem(MODEL_PATH, 'is required (a preset name such as "llama3.1-70b" or a shape)'))
        return None, ""
    name = raw if isinstance(raw, str) else ""
    if isinstance(raw, dict) and isinstance(raw.get("preset"), str):
        name = raw["preset"]
    if name:
        if name not in PRESETS:
            extra = did_you_mean(name, list(PRESETS), list_known=True)
            path = MODEL_PATH if isinstance(raw, str) else f"{MODEL_PATH}.preset"
            problems.append(Problem(path, f"unknown model preset '{name}'{extra}"))
            return None, name
        merged = preset_model(name)
        if isinstance(raw, dict):
            overrides = {k: v for k, v in raw.items() if k != "preset"}
            if "params_b" in overrides and not any(k in overrides for k in SHAPE_KEYS):
                problems.append(
                    Problem(f"{MODEL_PATH}.params_b", "a preset already has a shape; drop params_b")
                )
            for key, value in overrides.items():
                # A nested override (moe, mla) changes only the keys it names.
                both = isinstance(value, dict) and isinstance(merged.get(key), dict)
                merged[key] = {**merged[key], **value} if both else value
        return merged, PRESETS[name]["label"]
    if not isinstance(raw, dict):
        problems.append(Problem(MODEL_PATH, "must be a preset name or an object"))
        return None, ""
    return dict(raw), str(raw.get("name") or raw.get("label") or "custom model")


def parse_model(w: Fields, problems: list[Problem], assumptions: dict[str, Any]) -> ModelSpec | None:
    merged, label = _merged(w, problems)
    if merged is None:
        return None
    m = Fields(merged, MODEL_PATH, problems, MODEL_KEYS)
    params_b = m.number("params_b", above=0)
    if params_b is not None and not any(m.has(k) for k in ("layers", "hidden", "heads")):
        return _synthesised(m, params_b, label, assumptions)
    layers = m.number("layers", required=True, integer=True, minimum=1, maximum=100_000)
    hidden = m.number("hidden", required=True, integer=True, minimum=1)
    heads = m.number("heads", required=True, integer=True, minimum=1)
    kv_heads = m.number("kv_heads", integer=True, minimum=1)
    ffn_type = m.string("ffn_type", default="gelu", choices=("gelu", "swiglu"))
    ffn_hidden = m.number("ffn_hidden", integer=True, minimum=1)
    vocab = m.number("vocab", required=True, integer=True, minimum=1)
    seq_len = m.number("seq_len", integer=True, minimum=1, maximum=10_000_000, default=None)
    tied = m.boolean("tied_embeddings", default=False)
    bias = m.boolean("bias", default=False)
    norm = m.string("norm", default="rmsnorm", choices=("layernorm", "rmsnorm"))
    position = m.string("position_embedding", default="rotary", choices=("learned", "rotary", "alibi"))
    moe = _moe(m, layers)
    mla = _mla(m)
    if None in (layers, hidden, heads, vocab, ffn_type, tied, bias, norm, position):
        return None
    if mla is None and hidden % heads:
        m.problem("heads", f"must divide hidden (got {heads} heads for hidden {hidden})")
    kv_heads = heads if kv_heads is None else kv_heads
    if heads % kv_heads:
        m.problem("kv_heads", f"must divide heads (got {kv_heads} for {heads} heads)")
    if ffn_hidden is None:
        ffn_hidden = default_ffn_hidden(hidden, ffn_type)
        _assume(assumptions, "ffn_hidden", ffn_hidden, "4h (GELU) or 2/3·4h rounded to 256 (SwiGLU, Llama)")
    if seq_len is None:
        seq_len = SEQ_LEN_DEFAULT
        _assume(assumptions, "seq_len", seq_len, "default training sequence length")
    if params_b is not None:
        _assume(assumptions, "params_b", "ignored", "the shape was given and wins over params_b (contract)")
    if (m.has("moe") and moe is None) or (m.has("mla") and mla is None):
        return None
    return ModelSpec(
        name=label,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        ffn_hidden=ffn_hidden,
        ffn_type=ffn_type,
        vocab=vocab,
        seq_len=seq_len,
        tied_embeddings=tied,
        bias=bias,
        norm=norm,
        position_embedding=position,
        moe=moe,
        mla=mla,
    )


def default_ffn_hidden(hidden: int, ffn_type: str) -> int:
    if ffn_type == "swiglu":
        return SWIGLU_MULTIPLE * math.ceil(2 * 4 * hidden / 3 / SWIGLU_MULTIPLE)
    return 4 * hidden


def _moe(m: Fields, layers: int | None) -> MoeSpec | None:
    x = m.child("moe", MOE_KEYS)
    if x is None or not x.ok:
        return None
    experts = x.number("experts", required=True, integer=True, minimum=1)
    top_k = x.number("top_k", required=True, integer=True, minimum=1)
    ffn = x.number("expert_ffn_hidden", required=True, integer=True, minimum=1)
    shared = x.number("shared_experts", integer=True, minimum=0, default=0)
    dense = x.number("dense_layers", integer=True, minimum=0, default=0)
    router_bias = x.boolean("router_bias", default=False)
    if experts is not None and top_k is not None and top_k > experts:
        x.problem("top_k", f"must not exceed experts ({experts}); got {top_k}")
        return None
    if layers is not None and dense is not None and dense >= layers:
        x.problem("dense_layers", f"must be fewer than the layers ({layers}); got {dense}")
        return None
    if None in (experts, top_k, ffn, shared, dense, router_bias):
        return None
    return MoeSpec(experts, top_k, ffn, shared, dense, bool(router_bias))


def _mla(m: Fields) -> MlaSpec | None:
    x = m.child("mla", MLA_KEYS)
    if x is None or not x.ok:
        return None
    values = [x.number(k, required=True, integer=True, minimum=1) for k in MLA_KEYS]
    if None in values:
        return None
    return MlaSpec(*values)


def _synthesised(m: Fields, params_b: float, label: str, assumptions: dict[str, Any]) -> ModelSpec | None:
    """Only `params_b` given: a GPT-like shape of that size (GPT-3 aspect ratio), scaled to the exact count."""
    params = params_b * 1e9
    seq_len = m.number("seq_len", integer=True, minimum=1, default=SEQ_LEN_DEFAULT)
    vocab = m.number("vocab", integer=True, minimum=1, default=SYNTH_VOCAB)
    for key in SHAPE_KEYS + OPTION_KEYS:
        if key not in ("seq_len", "vocab", "params_b") and m.has(key):
            m.problem(key, "give the full shape (layers, hidden, heads, vocab) or only params_b")
            return None
    if seq_len is None or vocab is None:
        return None
    hidden = max(
        SYNTH_HEAD_DIM, SYNTH_HEAD_DIM * round((params * SYNTH_ASPECT / 12.0) ** (1.0 / 3.0) / SYNTH_HEAD_DIM)
    )
    layers = max(1, round(params / (12.0 * hidden * hidden)))
    _assume(
        assumptions,
        "shape",
        {
            "layers": layers,
            "hidden": hidden,
            "heads": hidden // SYNTH_HEAD_DIM,
            "vocab": vocab,
            "seq_len": seq_len,
        },
        "synthesised from params_b: GPT-3 aspect ratio hidden/layers = 128, head size 128; the layers are "
        "scaled so the total equals params_b",
    )
    return ModelSpec(
        name=label if label != "custom model" else f"{params_b:g}B (params_b only)",
        layers=layers,
        hidden=hidden,
        heads=hidden // SYNTH_HEAD_DIM,
        kv_heads=hidden // SYNTH_HEAD_DIM,
        ffn_hidden=4 * hidden,
        ffn_type="gelu",
        vocab=vocab,
        seq_len=seq_len,
        params_override=params,
    )
