"""trtllm-bench's own batch limits (accuracy/trtllm_bench.py), checked against the rounding rules of
tensorrt_llm/bench/build/tuning.py worked by hand."""

from __future__ import annotations

from planner.engine.accuracy.serving import _model
from planner.engine.accuracy.trtllm_bench import engine_setting, finetune_setting


def test_finetune_rounds_batch_and_tokens_as_trtllm_bench_does():
    assert finetune_setting(444.3, 1024, 1024) == (512, 2048)  # batch to 128s, tokens at least 2,048
    assert finetune_setting(100.0, 1024, 1024) == (128, 2048)  # below 256: to 32s
    assert finetune_setting(10.0, 1024, 1024) == (64, 2048)  # at least 64
    assert finetune_setting(1472.9, 1000, 1000) == (1536, 3072)  # above 1,024: to 256s; tokens to 256s
    assert finetune_setting(5000.0, 8192, 1024) == (4096, 32768)  # both caps


def test_llama_70b_on_one_b200_gets_2048_tokens_not_the_api_default():
    # NVFP4 checkpoint: 40.6e9 safetensors elements x 0.5 B (packed values + FP8 scales, embeddings 16-bit);
    # (179.1 GiB - 20.3 GB) x 0.95 / (163,840 B x 2,048) = 487 requests -> (512, 2048)
    assert engine_setting(_model("llama3.1-70b"), "nvidia_b200_hgx", "fp4", 1, 1, 1024, 1024) == (512, 2048)
    # more memory per request (8K prompts) -> fewer requests; chunked prefill off (trtllm-bench's default), so the
    # token budget holds the whole 8,192-token prompt plus one token per request of the batch
    bs, tokens = engine_setting(_model("llama3.1-70b"), "nvidia_h200_sxm_141gb", "fp8", 2, 1, 8192, 1024)
    assert (bs, tokens) == (160, 8192 + 160)
    assert engine_setting(
        _model("llama3.1-70b"), "nvidia_h200_sxm_141gb", "fp8", 2, 1, 8192, 1024, chunked_prefill=True
    ) == (160, 2048)


def test_mla_models_take_the_generic_config_kv_size_per_attention_dp_rank():
    # DeepSeek's config: 128 KV heads, head_size 7168 / 128 = 56 -> 2 x 61 x 128 x 56 x 1 B = 874,496 B per token;
    # (8 x 140.4 GiB - 671.0e9 B) x 0.95 / (874,496 B x 2,048) = 284 requests -> (384, 2048)
    assert engine_setting(_model("deepseek-v3"), "nvidia_h200_sxm_141gb", "fp8", 8, 1, 1024, 1024) == (
        384,
        2048,
    )
    # the NVFP4 checkpoint holds fewer elements (packed experts), so more requests fit: 1,024/8,192 on 4 B200
    bs, _ = engine_setting(_model("deepseek-v3"), "nvidia_b200_hgx", "fp4", 4, 1, 1024, 8192)
    assert bs == 96
