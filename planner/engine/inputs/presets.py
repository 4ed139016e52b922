"""Model presets: published shapes with their sources, in the contract's `model` JSON form.

Each preset carries `published_params_b`, the parameter count its source states, and the test suite checks that
the count derived from the shape (transformer/params.py) lies within 2% of it.
"""

from __future__ import annotations

from typing import Any

_GPT = {
    "ffn_type": "gelu",
    "tied_embeddings": True,
    "bias": True,
    "norm": "layernorm",
    "position_embedding": "learned",
}
_LLAMA = {
    "ffn_type": "swiglu",
    "tied_embeddings": False,
    "bias": False,
    "norm": "rmsnorm",
    "position_embedding": "rotary",
}
_NEOX = {
    "ffn_type": "gelu",
    "tied_embeddings": False,
    "bias": True,
    "norm": "layernorm",
    "position_embedding": "rotary",
}
_MPT = {
    "ffn_type": "gelu",
    "tied_embeddings": True,
    "bias": False,
    "norm": "layernorm",
    "position_embedding": "alibi",
}


def _gpt(layers: int, hidden: int, heads: int, vocab: int = 51200, seq_len: int = 2048) -> dict[str, Any]:
    """A Megatron-LM GPT (arXiv:2104.04473 §5.1): 4h FFN, learned positions, biases, LayerNorm, tied."""
    return {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": heads,
        "ffn_hidden": 4 * hidden,
        "vocab": vocab,
        "seq_len": seq_len,
        **_GPT,
    }


PRESETS: dict[str, dict[str, Any]] = {
    "gpt3-175b": {
        "label": "GPT-3 175B",
        "source": "Brown et al. 2020 arXiv:2005.14165 Table 2.1 (96 layers, d 12288, 96 heads, ctx 2048); "
        "vocabulary 50257 (GPT-2 BPE)",
        "published_params_b": 175.0,
        "model": _gpt(96, 12288, 96, vocab=50257),
    },
    "llama2-7b": {
        "label": "Llama 2 7B",
        "source": "Touvron et al. 2023 arXiv:2307.09288 Table 1/App. A; HF meta-llama/Llama-2-7b-hf config "
        "(6,738,415,616 parameters)",
        "published_params_b": 6.738,
        "model": {
            "layers": 32,
            "hidden": 4096,
            "heads": 32,
            "kv_heads": 32,
            "ffn_hidden": 11008,
            "vocab": 32000,
            "seq_len": 4096,
            **_LLAMA,
        },
    },
    "llama2-13b": {
        "label": "Llama 2 13B",
        "source": "Touvron et al. 2023 arXiv:2307.09288; HF meta-llama/Llama-2-13b-hf config (13,015,864,320)",
        "published_params_b": 13.016,
        "model": {
            "layers": 40,
            "hidden": 5120,
            "heads": 40,
            "kv_heads": 40,
            "ffn_hidden": 13824,
            "vocab": 32000,
            "seq_len": 4096,
            **_LLAMA,
        },
    },
    "llama2-70b": {
        "label": "Llama 2 70B",
        "source": "Touvron et al. 2023 arXiv:2307.09288 (GQA, 8 KV heads); HF meta-llama/Llama-2-70b-hf config "
        "(68,976,648,192)",
        "published_params_b": 68.977,
        "model": {
            "layers": 80,
            "hidden": 8192,
            "heads": 64,
            "kv_heads": 8,
            "ffn_hidden": 28672,
            "vocab": 32000,
            "seq_len": 4096,
            **_LLAMA,
        },
    },
    "llama3.1-8b": {
        "label": "Llama 3.1 8B",
        "source": "Dubey et al. 2024 arXiv:2407.21783 Table 3; HF meta-llama/Llama-3.1-8B config "
        "(8,030,261,248); pre-training sequence 8192",
        "published_params_b": 8.030,
        "model": {
            "layers": 32,
            "hidden": 4096,
            "heads": 32,
            "kv_heads": 8,
            "ffn_hidden": 14336,
            "vocab": 128256,
            "seq_len": 8192,
            **_LLAMA,
        },
    },
    "llama3.1-70b": {
        "label": "Llama 3.1 70B",
        "source": "Dubey et al. 2024 arXiv:2407.21783 Table 3; HF meta-llama/Llama-3.1-70B config (70,553,706,496)",
        "published_params_b": 70.554,
        "model": {
            "layers": 80,
            "hidden": 8192,
            "heads": 64,
            "kv_heads": 8,
            "ffn_hidden": 28672,
            "vocab": 128256,
            "seq_len": 8192,
            **_LLAMA,
        },
    },
    "llama3.1-405b": {
        "label": "Llama 3.1 405B",
        "source": "Dubey et al. 2024 arXiv:2407.21783 Table 3 (126 layers, 16384, 128 heads, 8 KV heads, FFN 53248); "
        "HF meta-llama/Llama-3.1-405B config (405,853,388,800)",
        "published_params_b": 405.853,
        "model": {
            "layers": 126,
            "hidden": 16384,
            "heads": 128,
            "kv_heads": 8,
            "ffn_hidden": 53248,
            "vocab": 128256,
            "seq_len": 8192,
            **_LLAMA,
        },
    },
    "mixtral-8x7b": {
        "label": "Mixtral 8x7B",
        "source": "Jiang et al. 2024 arXiv:2401.04088 Table 1 and §2 (46.7B total, 12.9B active per token; "
        "8 experts, top-2, 32k context)",
        "published_params_b": 46.7,
        "published_active_params_b": 12.9,
        "model": {
            "layers": 32,
            "hidden": 4096,
            "heads": 32,
            "kv_heads": 8,
            "ffn_hidden": 14336,
            "vocab": 32000,
            "seq_len": 32768,
            **_LLAMA,
            "moe": {
                "experts": 8,
                "top_k": 2,
                "expert_ffn_hidden": 14336,
                "shared_experts": 0,
                "dense_layers": 0,
            },
        },
    },
    "deepseek-v3": {
        "label": "DeepSeek-V3",
        "source": "DeepSeek-AI 2024 arXiv:2412.19437 §2 and §4.2 (671B total, 37B activated; 61 layers, MLA, "
        "3 dense layers, 1 shared + 256 routed experts, top-8; 4K pre-training sequence); HF config.json",
        "published_params_b": 671.0,
        "published_active_params_b": 37.0,
        "model": {
            "layers": 61,
            "hidden": 7168,
            "heads": 128,
            "kv_heads": 128,
            "ffn_hidden": 18432,
            "vocab": 129280,
            "seq_len": 4096,
            **_LLAMA,
            "moe": {
                "experts": 256,
                "top_k": 8,
                "expert_ffn_hidden": 2048,
                "shared_experts": 1,
                "dense_layers": 3,
            },
            "mla": {
                "q_lora_rank": 1536,
                "kv_lora_rank": 512,
                "qk_nope_head_dim": 128,
                "qk_rope_head_dim": 64,
                "v_head_dim": 128,
            },
        },
    },
    "nemotron-4-340b": {
        "label": "Nemotron-4 340B",
        "source": "NVIDIA 2024 arXiv:2406.11704 Table 1 (96 layers, 18432, 96 heads, 8 KV heads, squared-ReLU "
        "FFN 4h, vocab 256000, seq 4096; 9.4B embedding + 331.6B non-embedding parameters)",
        "published_params_b": 341.0,
        "model": {
            "layers": 96,
            "hidden": 18432,
            "heads": 96,
            "kv_heads": 8,
            "ffn_hidden": 73728,
            "vocab": 256000,
            "seq_len": 4096,
            "ffn_type": "gelu",
            "tied_embeddings": False,
            "bias": False,
            "norm": "layernorm",
            "position_embedding": "rotary",
        },
    },
    "mpt-7b": {
        "label": "MPT-7B",
        "source": "MosaicML 2023, 'Introducing MPT-7B' and HF mosaicml/mpt-7b config (32 layers, 4096, 32 heads, "
        "expansion 4, vocab 50432, ALiBi, no biases; 6.7B parameters)",
        "published_params_b": 6.7,
        "model": {
            "layers": 32,
            "hidden": 4096,
            "heads": 32,
            "kv_heads": 32,
            "ffn_hidden": 16384,
            "vocab": 50432,
            "seq_len": 2048,
            **_MPT,
        },
    },
    "mpt-30b": {
        "label": "MPT-30B",
        "source": "MosaicML 2023, 'MPT-30B' and HF mosaicml/mpt-30b config (48 layers, 7168, 64 heads, vocab "
        "50432, 8k context; 30B parameters)",
        "published_params_b": 30.0,
        "model": {
            "layers": 48,
            "hidden": 7168,
            "heads": 64,
            "kv_heads": 64,
            "ffn_hidden": 28672,
            "vocab": 50432,
            "seq_len": 8192,
            **_MPT,
        },
    },
    "mpt-70b": {
        "label": "MPT-70B (llm-foundry benchmark config; no released model)",
        "source": "MosaicML never released an MPT-70B model. Shape from mosaicml/llm-foundry's benchmark "
        "configuration (scripts/train/benchmarking/README.md: '70b', NumParams 64,862,437,376): 80 layers, "
        "8192, 64 heads, expansion 4, vocab 50368, seq 2048",
        "published_params_b": 64.862,
        "model": {
            "layers": 80,
            "hidden": 8192,
            "heads": 64,
            "kv_heads": 64,
            "ffn_hidden": 32768,
            "vocab": 50368,
            "seq_len": 2048,
            **_MPT,
        },
    },
    "bloom-176b": {
        "label": "BLOOM 176B",
        "source": "BigScience 2022 arXiv:2211.05100 Table 1 and §3.2 (70 layers, 14336, 112 heads, ALiBi, "
        "embedding LayerNorm, vocab 250,880 padded; 176,247,271,424 parameters)",
        "published_params_b": 176.247,
        "model": {
            "layers": 70,
            "hidden": 14336,
            "heads": 112,
            "kv_heads": 112,
            "ffn_hidden": 57344,
            "vocab": 250880,
            "seq_len": 2048,
            "ffn_type": "gelu",
            "tied_embeddings": True,
            "bias": True,
            "norm": "layernorm",
            "position_embedding": "alibi",
        },
    },
    # --- the validation cases' models (planner/engine/accuracy/data/validation.csv) ---
    "megatron-22b": {
        "label": "GPT 22B (Korthikanti et al. 2022)",
        "source": "Korthikanti et al. 2022 arXiv:2205.05198 Table 3 (48 layers, 6144, 64 heads, seq 2048, "
        "vocab 51200)",
        "published_params_b": 22.0,
        "model": _gpt(48, 6144, 64),
    },
    "megatron-530b": {
        "label": "GPT 530B (MT-NLG shape, Korthikanti et al. 2022)",
        "source": "Korthikanti et al. 2022 arXiv:2205.05198 Table 3 (105 layers, 20480, 128 heads); "
        "Narayanan et al. 2021 Table 1 (529.6B)",
        "published_params_b": 529.6,
        "model": _gpt(105, 20480, 128),
    },
    "megatron-1t": {
        "label": "GPT 1T (Megatron-LM)",
        "source": "Narayanan et al. 2021 arXiv:2104.04473 Table 1 (128 layers, 25600, 160 heads; 1008.0B)",
        "published_params_b": 1008.0,
        "model": _gpt(128, 25600, 160),
    },
    "llama-65b": {
        "label": "LLaMA 65B",
        "source": "Touvron et al. 2023 arXiv:2302.13971 Table 2 (80 layers, 8192, 64 heads, 2048 seq); "
        "65.2B parameters",
        "published_params_b": 65.2,
        "model": {
            "layers": 80,
            "hidden": 8192,
            "heads": 64,
            "kv_heads": 64,
            "ffn_hidden": 22016,
            "vocab": 32000,
            "seq_len": 2048,
            **_LLAMA,
        },
    },
    "pythia-12b": {
        "label": "Pythia 12B",
        "source": "Biderman et al. 2023 arXiv:2304.01373 Table 1 (36 layers, 5120, 40 heads; 11,327,027,200 "
        "non-embedding) + untied 50304-token embeddings",
        "published_params_b": 11.842,
        "model": {
            "layers": 36,
            "hidden": 5120,
            "heads": 40,
            "kv_heads": 40,
            "ffn_hidden": 20480,
            "vocab": 50304,
            "seq_len": 2048,
            **_NEOX,
        },
    },
    "pythia-2.8b": {
        "label": "Pythia 2.8B",
        "source": "Biderman et al. 2023 arXiv:2304.01373 Table 1 (32 layers, 2560, 32 heads)",
        "published_params_b": 2.775,
        "model": {
            "layers": 32,
            "hidden": 2560,
            "heads": 32,
            "kv_heads": 32,
            "ffn_hidden": 10240,
            "vocab": 50304,
            "seq_len": 2048,
            **_NEOX,
        },
    },
    "pythia-410m": {
        "label": "Pythia 410M",
        "source": "Biderman et al. 2023 arXiv:2304.01373 Table 1 (24 layers, 1024, 16 heads)",
        "published_params_b": 0.405,
        "model": {
            "layers": 24,
            "hidden": 1024,
            "heads": 16,
            "kv_heads": 16,
            "ffn_hidden": 4096,
            "vocab": 50304,
            "seq_len": 2048,
            **_NEOX,
        },
    },
    "opt-13b": {
        "label": "OPT 13B",
        "source": "Zhang et al. 2022 arXiv:2205.01068 Table 1 (40 layers, 40 heads, d 5120); 12.85B parameters "
        "(HF facebook/opt-13b)",
        "published_params_b": 12.853,
        "model": {
            "layers": 40,
            "hidden": 5120,
            "heads": 40,
            "kv_heads": 40,
            "ffn_hidden": 20480,
            "vocab": 50272,
            "seq_len": 2048,
            **_GPT,
        },
    },
}


def preset_names() -> list[str]:
    return list(PRESETS)


def preset_model(name: str) -> dict[str, Any]:
    """A copy of a preset's contract `model` dict (KeyError for an unknown name). Preset values are scalars or
    flat dicts of scalars (moe, mla), so copying two levels is a full copy (a test checks the shape)."""
    return {k: dict(v) if isinstance(v, dict) else v for k, v in PRESETS[name]["model"].items()}


def presets() -> dict[str, dict[str, Any]]:
    """name -> contract `model` dict plus `label`, `source` and `published_params_b` (docs/engine-contract.md)."""
    out: dict[str, dict[str, Any]] = {}
    for name, p in PRESETS.items():
        entry = preset_model(name)
        entry["label"] = p["label"]
        entry["source"] = p["source"]
        entry["published_params_b"] = p["published_params_b"]
        out[name] = entry
    return out
