"""Closed-form validation cases: the engine's memory functions against the published formulas and figures.

* ZeRO (Rajbhandari et al. 2019, arXiv:1910.02054, Fig. 1 and §5.1): 7.5B parameters, mixed-precision Adam
  (K = 12), 64 data-parallel GPUs: 16Ψ = 120 GB; ZeRO-1 4Ψ + 12Ψ/Nd = 31.4 GB; ZeRO-2 2Ψ + 14Ψ/Nd = 16.6 GB;
  ZeRO-3 16Ψ/Nd = 1.9 GB (the figure rounds; the cases compare with the formulas, GB = 10^9 bytes).
* Korthikanti et al. 2022 (arXiv:2205.05198) Table 2, activation bytes per layer, for the GPT-3 175B layer
  (s 2048, b 1, h 12288, a 96) with t = 8.
* KV cache per token: OPT-13B 800 KiB (vLLM, arXiv:2309.06180 §3: "800 KB"), Llama-2-70B with 8 KV heads in
  fp16 320 KiB, 1.25 GiB for 4,096 tokens (exact).
"""

from __future__ import annotations

from planner.engine.accuracy.cases import CaseResult
from planner.engine.inputs.presets import PRESETS
from planner.engine.inputs.specs import ModelSpec
from planner.engine.inputs.units import GB, GiB, KiB
from planner.engine.perf.layout import FULL, NONE, SELECTIVE, Layout, numerics_for
from planner.engine.training.memory import layer_activation_bytes_per_token, model_state_bytes
from planner.engine.transformer.params import kv_values_per_token
from planner.engine.transformer.shape import shape_of

ZERO_PARAMS = 7.5e9
ZERO_GPUS = 64.0
ZERO_SOURCE = "Rajbhandari et al. 2019 arXiv:1910.02054 Fig. 1 (7.5B, 64 GPUs; K = 12)"
TABLE2_SOURCE = "Korthikanti et al. 2022 arXiv:2205.05198 Table 2 (s 2048, b 1, h 12288, a 96, t 8)"
KV_SOURCE = "vLLM arXiv:2309.06180 §3 (OPT-13B 800 KB); 2·layers·kv_heads·head_dim·2 bytes (Llama-2-70B)"
FORMULA_TOLERANCE = 0.01


def _model(name: str) -> ModelSpec:
    m = dict(PRESETS[name]["model"])
    return ModelSpec(name=name, **m)


def _zero_cases() -> list[CaseResult]:
    num = numerics_for("fp16", "adam")
    psi, nd = ZERO_PARAMS, ZERO_GPUS
    published = {0: 16 * psi, 1: 4 * psi + 12 * psi / nd, 2: 2 * psi + 14 * psi / nd, 3: 16 * psi / nd}
    out = []
    for stage, bytes_published in published.items():
        weights, grads, optimizer = model_state_bytes(psi, nd, float(stage), num)
        engine = float(weights + grads + optimizer)
        out.append(
            CaseResult(
                f"zero-stage{stage}-7.5b-64gpu",
                "formula",
                "model_state_gb",
                bytes_published / GB,
                engine / GB,
                FORMULA_TOLERANCE,
                "",
                ZERO_SOURCE,
            )
        )
    return out


def _table2_cases() -> list[CaseResult]:
    gpt3 = dict(PRESETS["gpt3-175b"]["model"], vocab=51200)
    sh = shape_of(ModelSpec(name="gpt3-175b", **gpt3))
    s, b, h, a, t = 2048.0, 1.0, 12288.0, 96.0, 8.0
    sbh = s * b * h
    rows = (
        ("no-parallelism", 1.0, 0.0, NONE, sbh * (34 + 5 * a * s / h)),
        ("tensor-parallel", t, 0.0, NONE, sbh * (10 + 24 / t + 5 * a * s / (h * t))),
        ("tensor+sequence-parallel", t, 1.0, NONE, sbh * (34 + 5 * a * s / h) / t),
        ("tp+sp+selective-recompute", t, 1.0, SELECTIVE, 34 * sbh / t),
        ("full-recompute", t, 0.0, FULL, 2 * sbh),
    )
    num = numerics_for("fp16", "adam")
    out = []
    for label, tp, sp, recompute, published in rows:
        lay = Layout(
            tp=tp,
            pp=1.0,
            dp=1.0,
            cp=1.0,
            ep=1.0,
            virtual_stages=1.0,
            micro_batch=b,
            global_batch=b,
            zero_stage=0.0,
            recompute=float(recompute),
            sequence_parallel=sp,
            flash_attention=0.0,
            dp_overlap=1.0,
        )
        engine = float(layer_activation_bytes_per_token(sh, lay, num, float(recompute))) * s * b
        out.append(
            CaseResult(
                f"table2-{label}",
                "formula",
                "activation_bytes_per_layer",
                published,
                engine,
                FORMULA_TOLERANCE,
                "",
                TABLE2_SOURCE,
            )
        )
    return out


def _kv_cases() -> list[CaseResult]:
    opt = kv_values_per_token(_model("opt-13b")) * 2.0
    llama = kv_values_per_token(_model("llama2-70b")) * 2.0
    return [
        CaseResult(
            "kv-opt-13b-per-token", "formula", "kv_kib_per_token", 800.0, opt / KiB, 0.0, "", KV_SOURCE
        ),
        CaseResult(
            "kv-llama2-70b-per-token", "formula", "kv_kib_per_token", 320.0, llama / KiB, 0.0, "", KV_SOURCE
        ),
        CaseResult(
            "kv-llama2-70b-4096-tokens",
            "formula",
            "kv_gib_per_sequence",
            1.25,
            llama * 4096 / GiB,
            0.0,
            "",
            KV_SOURCE,
        ),
    ]


def formula_results() -> tuple[CaseResult, ...]:
    return tuple(_zero_cases() + _table2_cases() + _kv_cases())
