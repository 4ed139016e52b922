"""Frozen, typed input specs. Every quantity is SI (bytes, FLOP/s, bytes/s, seconds, watts) or USD, with the
unit in the name; the JSON parser converts the contract's units (GB, TB/s, TFLOPS, Gb/s, kW) once, on the way in.

Specs of the facility side and of the other inputs (network, cooling, economics, goodput, serving, jobs) live
beside the formulas that use them (facility/network.py, facility/power.py, facility/tco.py, training/goodput.py,
inference/workload.py, job/scaling.py); scenario.py gathers them with these into the parsed Scenario (they
cannot be re-exported here: those modules import this one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")

#: Bytes per value stored in each precision (weights, activations, KV cache).
BYTES_PER_VALUE: dict[str, float] = {
    "fp32": 4.0,
    "tf32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "fp4": 0.5,
    "int4": 0.5,  # serving weights only (AWQ/GPTQ): run weight-only on 16-bit tensor cores
}

FfnType = Literal["gelu", "swiglu"]
Recompute = Literal["none", "selective", "full"]
FlashAttentionVersion = Literal["v1", "v2"]
#: FlashAttention versions `workload.parallelism.flash_attention` names besides true (= the default, "v2") and false.
FLASH_ATTENTION_VERSIONS: tuple[str, ...] = ("v1", "v2")
FLASH_ATTENTION_DEFAULT: FlashAttentionVersion = "v2"
#: `workload.framework`: the software family whose efficiency figures apply (perf/framework.py).
FRAMEWORKS: tuple[str, ...] = ("typical", "megatron", "fsdp", "deepspeed")
FRAMEWORK_DEFAULT = "typical"


@dataclass(frozen=True)
class GpuSpec:
    """One accelerator's datasheet numbers (dense tensor peaks, no sparsity)."""

    name: str
    hbm_bytes: float  # capacity as labelled by the vendor, treated as GiB (contract)
    hbm_bandwidth_bytes_per_s: float
    peak_flop_per_s: dict[str, float]  # precision -> dense peak; missing precisions are absent
    tdp_w: float
    scaleup_bandwidth_bytes_per_s: float  # per-GPU aggregate, both directions summed (catalog convention)
    catalog_id: str | None = None
    vendor: str = ""
    price_usd: float | None = None

    def peak_for(self, precision: str) -> float | None:
        return self.peak_flop_per_s.get(precision)


@dataclass(frozen=True)
class MoeSpec:
    """Mixture-of-experts FFN (Switch/GShard style; DeepSeek-V3 adds shared experts and leading dense layers)."""

    experts: int
    top_k: int
    expert_ffn_hidden: int
    shared_experts: int = 0
    dense_layers: int = 0  # leading layers with a dense FFN of `ffn_hidden` (DeepSeek-V3: 3)
    router_bias: bool = False


@dataclass(frozen=True)
class MlaSpec:
    """Multi-head latent attention (DeepSeek-V2/V3, arXiv:2405.04434 §2.1): low-rank Q and compressed KV."""

    q_lora_rank: int
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer's shape. `params_override` is set when only a parameter count was given."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn_hidden: int
    ffn_type: FfnType
    vocab: int
    seq_len: int
    tied_embeddings: bool = False
    bias: bool = False  # linear-layer biases (GPT-2/3, BLOOM); Llama-style models have none
    norm: Literal["layernorm", "rmsnorm"] = "rmsnorm"
    position_embedding: Literal["learned", "rotary", "alibi"] = "rotary"
    moe: MoeSpec | None = None
    mla: MlaSpec | None = None
    params_override: float | None = None
    source: str = ""

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


@dataclass(frozen=True)
class ParallelismSpec:
    """How one training job is laid out over the GPUs (Megatron-LM / DeepSpeed vocabulary)."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    virtual_stages: int = 1  # interleaved 1F1B when > 1 (arXiv:2104.04473 §2.2.2)
    sequence_parallel: bool = True
    zero_stage: int = 1
    recompute: Recompute = "selective"
    flash_attention: bool = True  # FlashAttention (any version) instead of unfused attention
    flash_attention_version: FlashAttentionVersion = FLASH_ATTENTION_DEFAULT  # which one, when used
    dp_overlap: bool = True  # DP gradient reduction overlapped with the last backward (training/step_time.py)
    micro_batch: int = 1
    global_batch: int = 1  # sequences per optimizer step
    #: ZeRO-3/FSDP parameters stay gathered from a micro-batch's forward to its backward when False (no backward
    #: re-gather; the stage's whole unsharded weights are held): PyTorch FSDP2 `reshard_after_forward`.
    reshard_after_forward: bool = True
    #: Hybrid sharding (PyTorch HSDP, DeepSpeed ZeRO++ hpZ): ZeRO shards within the data-parallel ranks of one
    #: node and replicates across nodes (gradients all-reduced between replicas once per step).
    hsdp: bool = False
    framework: str = FRAMEWORK_DEFAULT  # workload.framework (perf/framework.py)
    #: How layers are placed on pipeline stages (training/memory.py stage_layers): "balanced" counts the input
    #: embedding and the output layer + loss as a layer each (Megatron-LM --account-for-embedding/loss-in-pipeline-
    #: split, the Llama 3 405B split); "even" puts ⌈L/p⌉ on each stage (Megatron-LM's default).
    pipeline_split: str = "balanced"

    @property
    def flash_attention_input(self) -> bool | str:
        """`flash_attention` as the JSON input writes it: false, true (= the default version) or the version."""
        if not self.flash_attention:
            return False
        version = self.flash_attention_version
        return True if version == FLASH_ATTENTION_DEFAULT else version
