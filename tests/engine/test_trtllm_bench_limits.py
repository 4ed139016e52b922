"""trtllm-bench's own batch limits (accuracy/trtllm_bench.py), checked against the rounding rules of
tensorrt_llm/bench/build/tuning.py worked by hand."""

from __future__ import annotations

import pytest

from planner.engine.accuracy.serving import _model
from planner.engine.accuracy.trtllm_bench import engine_setting, finetune_setting


def test_finetune_rounds_batch_and_tokens_as_trtllm_bench_does():
    assert finetune_setting(444.3, 1024, 1024) == (512, 2048)  # batch to 128s, tokens at least 2,048
    assert finetune_setting(100.0, 1024, 1024) == (128, 2048)  # below 256: to 32s
    assert finetune_setting(10.0, 1024, 1024) == (64, 2048)  # at least 64
    assert finetune_setting(1472.9, 1000, 1000) == (1536, 3072)  # above 1,024: to 256s; tokens to 256s
    assert finetune_setting(5000.0, 8192, 1024) == (4096, 32768)  # both caps


def test_llama_70b_on_one_b200_gets_2048_tokens_not_the_api_default():
    # (179.1 GiB - 70.6e9 x 0.5 B) x 0.95 / (163,840 B x 2,048) = 444 requests -> (512, 2048)
    assert engine_setting(_model("llama3.1-70b"), "nvidia_b200_hgx", "fp4", 1, 1, 1024, 1024) == (512, 2048)
    # more memory per request (8K prompts) -> fewer requests, same token floor
    bs, tokens = engine_setting(_model("llama3.1-70b"), "nvidia_h200_sxm_141gb", "fp8", 2, 1, 8192, 1024)
    assert (bs, tokens) == (160, 2048)


def test_mla_models_are_refused():
    with pytest.raises(ValueError):
        engine_setting(_model("deepseek-v3"), "nvidia_h200_sxm_141gb", "fp8", 8, 1, 1024, 1024)
