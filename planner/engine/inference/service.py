"""One serving deployment (a model on replicas of one layout on one GPU type) under a load: the entry point that
estimate, the sizer, the curves and the validation cases all use.

Loads:
* Rate(requests_per_s): open loop, Poisson arrivals spread evenly over the replicas;
* Concurrency(clients): closed loop, clients spread evenly over the replicas;
* Offline(): everything queued at once (MLPerf Offline, trtllm-bench max throughput); the saturated state's rate, or,
  given the run's size, what it serves until its last request completes (inference/drain.py);
* PrefillOnly(): a prefill pool's replica at its token budget (disaggregated serving, prompts only);
* DecodeOnly(running_per_replica): a decode pool's replica holding that many running requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from planner.engine.inference import rates as eff
from planner.engine.inference.drain import offline_drain_factor
from planner.engine.inference.kvcache import ReplicaMemory, replica_memory
from planner.engine.inference.layout import ServingHardware, ServingLayout, serving_hardware
from planner.engine.inference.load import LoadModel, LoadState, Replicas
from planner.engine.inference.shape import ServingShape, serving_shape
from planner.engine.inference.step import StepCoefficients, cycle_time_s, step_coefficients
from planner.engine.inference.workload import EngineLimits, Workload
from planner.engine.inputs.specs import BYTES_PER_VALUE, GpuSpec, ModelSpec


@dataclass(frozen=True)
class EngineSettings:
    """The serving engine's knobs (None = the vLLM V1 default for the GPU, rates.engine_defaults)."""

    max_running_requests: int | None = None  # per attention-DP rank (vLLM max_num_seqs)
    max_batched_tokens: int | None = None  # per rank and step (vLLM max_num_batched_tokens)
    gpu_memory_utilization: float = eff.GPU_MEMORY_UTILIZATION_DEFAULT
    kv_block_tokens: int = eff.KV_BLOCK_TOKENS_DEFAULT
    chunked_prefill: bool = True
    overlap_scheduling: bool = False  # CPU work of step n+1 overlapped with GPU step n (SGLang, vLLM async)
    #: the overlap also hides the scheduling and input preparation of the next step (SGLang, vLLM async scheduling);
    #: False: only the previous step's output processing (TensorRT-LLM's overlap scheduler), so
    #: rates.OVERLAP_EXPOSED_PER_REQUEST_SHARE of the per-request step cost stays
    overlap_hides_scheduling: bool = True
    two_batch_overlap: bool = False  # collectives of one half-batch overlapped with the other's compute
    scheduler_steps: int = 1  # vLLM multi-step scheduling (num_scheduler_steps): decode steps per schedule
    #: gpu_memory_utilization is a fraction of the memory left after weights (TensorRT-LLM's
    #: kv_cache_free_gpu_mem_fraction) rather than of the whole GPU (vLLM)
    memory_fraction_of_free: bool = False
    #: TensorRT-LLM attention_dp_config with enable_balance: a context request waits until every attention-DP rank
    #: has one, at most this many iterations (timeout_iters); None when the engine does not wait
    adp_balance_timeout_iters: int | None = None
    #: attention_dp_config batching_wait_iters: once every rank holds a context request, the contexts wait this many
    #: more iterations (batch equilibration; the busiest rank's share falls to rates.ATTENTION_DP_BALANCE_RATIO_BATCHING)
    adp_batching_wait_iters: int = 0
    #: the FFN's SwiGLU computed in the gate/up GEMM's epilogue (TensorRT-LLM gemm_swiglu_plugin), no elementwise
    #: SwiGLU kernel (step._elementwise_ffn_values)
    fused_gemm_swiglu: bool = False
    #: the user's kernel efficiency against the calibrated average of published stacks (1.0): multiplies the matmul
    #: ceiling of the compute side of dense and grouped GEMMs and attention (layout.serving_hardware)
    kernel_efficiency: float = eff.KERNEL_EFFICIENCY_DEFAULT
    #: an expert-parallel load balancer (EPLB: hot experts replicated and placed from measured statistics) evens the
    #: experts' load over the GPUs (expert_load.expert_load_imbalance)
    eplb: bool = False
    #: decode steps replay a captured CUDA graph; False: every step launches its kernels (vLLM enforce_eager,
    #: the NVIDIA MLPerf harness's use_graphs False)
    cuda_graphs: bool = True

    def limits(self, hw: ServingHardware) -> tuple[int, int]:
        running, tokens = eff.engine_defaults(hw.hbm_gib, hw.name)
        return (
            self.max_running_requests if self.max_running_requests is not None else running,
            self.max_batched_tokens if self.max_batched_tokens is not None else tokens,
        )


@dataclass(frozen=True)
class Deployment:
    model: ModelSpec
    gpu: GpuSpec
    layout: ServingLayout
    replicas: int
    workload: Workload
    weight_precision: str = "bf16"
    dense_weight_precision: str | None = None  # non-expert weights when stored apart (NVFP4 MoE: FP8)
    kv_precision: str = "bf16"
    attention_precision: str = "bf16"
    gpus_per_node: int = 8
    scaleout_bytes_per_s: float = 50e9
    engine: EngineSettings = field(default_factory=EngineSettings)

    @property
    def gpus(self) -> int:
        return self.replicas * self.layout.gpus


#: MLPerf LoadGen sizes an Offline query at 1.1 x min_duration x offline_expected_qps samples (kSlack,
#: loadgen/test_settings_internal.cc), so a valid run outlasts min_duration.
OFFLINE_SLACK = 1.1


@dataclass(frozen=True)
class Rate:
    requests_per_s: float


@dataclass(frozen=True)
class Concurrency:
    clients: float


@dataclass(frozen=True)
class Offline:
    """`requests` queued at once (whole cluster; at least 1.1 x `min_duration_s` x the saturated rate, as MLPerf
    LoadGen sizes an Offline query): throughput until the last completes, the drain included (inference/drain.py),
    with outputs capped at `max_output_tokens`. Without them, the saturated state's rate."""

    requests: float = 0.0
    min_duration_s: float = 0.0
    max_output_tokens: float | None = None


@dataclass(frozen=True)
class PrefillOnly:
    pass


@dataclass(frozen=True)
class DecodeOnly:
    running_per_replica: float


Load = Rate | Concurrency | Offline | PrefillOnly | DecodeOnly


@dataclass(frozen=True)
class Prepared:
    """A deployment's layouts made numeric once (the sizer evaluates many layouts of one GPU type together)."""

    shape: ServingShape
    hw: ServingHardware
    layouts: tuple[ServingLayout, ...]
    memories: tuple[ReplicaMemory, ...]
    coef: StepCoefficients
    replicas: Replicas
    model: LoadModel
    engine: EngineSettings

    def pool_model(self, wl: Workload, *, prefill: bool) -> LoadModel:
        """The same replicas as a disaggregated prefill pool (prompts only) or decode pool (no prompts)."""
        r = self.replicas
        return LoadModel(
            Replicas(r.coef, r.max_running, r.max_batched_tokens, True, r.extra_ttft_s),
            wl,
            overlap_scheduling=self.engine.overlap_scheduling,
            overlap_hides_scheduling=self.engine.overlap_hides_scheduling,
            scheduler_steps=self.engine.scheduler_steps,
            adp_balance_timeout_iters=self.engine.adp_balance_timeout_iters,
            adp_batching_wait_iters=self.engine.adp_batching_wait_iters,
            cuda_graphs=self.engine.cuda_graphs,
            prefill_only=prefill,
            decode_only=not prefill,
        )


def prepare(d: Deployment, layouts: list[ServingLayout] | None = None, extra_ttft_s: Any = None) -> Prepared:
    """Shape, hardware, memory and step coefficients for `layouts` (default: the deployment's own)."""
    lays = layouts or [d.layout]
    shape = serving_shape(d.model)
    hw = serving_hardware(
        d.gpu,
        weight_precision=d.weight_precision,
        attention_precision=d.attention_precision,
        gpus_per_node=d.gpus_per_node,
        scaleout_bytes_per_s=d.scaleout_bytes_per_s,
        dense_weight_precision=d.dense_weight_precision,
        kernel_efficiency=d.engine.kernel_efficiency,
    )
    w_bpv, kv_bpv = BYTES_PER_VALUE[d.weight_precision], BYTES_PER_VALUE[d.kv_precision]
    dense_bpv = BYTES_PER_VALUE[d.dense_weight_precision or d.weight_precision]
    running, tokens = d.engine.limits(hw)
    batching = d.engine.adp_batching_wait_iters > 0
    memories, limits = [], []
    for lay in lays:
        mem = replica_memory(
            shape,
            hw,
            lay,
            weight_bpv=w_bpv,
            kv_bpv=kv_bpv,
            dense_weight_bpv=dense_bpv,
            gpu_memory_utilization=d.engine.gpu_memory_utilization,
            memory_fraction_of_free=d.engine.memory_fraction_of_free,
            kv_block_tokens=d.engine.kv_block_tokens,
            max_running_requests=running,
            max_batched_tokens=tokens,
            mean_context_tokens=d.workload.mean_context_tokens,
        )
        memories.append(mem)
        limits.append(
            EngineLimits(mem.max_running_requests, tokens * lay.attention_dp, d.engine.chunked_prefill)
        )
    coef = step_coefficients(
        shape,
        hw,
        lays,
        weight_bpv=w_bpv,
        kv_bpv=kv_bpv,
        dense_weight_bpv=dense_bpv,
        comm_overlap=d.engine.two_batch_overlap,
        fused_gemm_swiglu=d.engine.fused_gemm_swiglu,
        eplb=d.engine.eplb,
        adp_balance_ratio=eff.ATTENTION_DP_BALANCE_RATIO_BATCHING if batching else None,
    )
    reps = Replicas.of(coef, limits, extra_ttft_s)
    model = LoadModel(
        reps,
        d.workload,
        overlap_scheduling=d.engine.overlap_scheduling,
        overlap_hides_scheduling=d.engine.overlap_hides_scheduling,
        scheduler_steps=d.engine.scheduler_steps,
        adp_balance_timeout_iters=d.engine.adp_balance_timeout_iters,
        adp_batching_wait_iters=d.engine.adp_batching_wait_iters,
        cuda_graphs=d.engine.cuda_graphs,
    )
    return Prepared(shape, hw, tuple(lays), tuple(memories), coef, reps, model, d.engine)


@dataclass(frozen=True)
class ServingResult:
    """One deployment under one load (per replica unless named per GPU or cluster)."""

    deployment: Deployment
    memory: ReplicaMemory
    state: LoadState | None
    output_tokens_per_s: float  # cluster
    input_tokens_per_s: float  # cluster (prefill pools)
    requests_per_s: float  # cluster, served
    max_requests_per_s: float  # cluster, most it sustains
    saturated: bool

    @property
    def output_tokens_per_s_per_gpu(self) -> float:
        return self.output_tokens_per_s / self.deployment.gpus

    def latency(self, kind: str, percentile: float) -> float | None:
        if self.state is None:
            return None
        source = self.state.ttft_s if kind == "ttft" else self.state.tpot_s
        return float(np.asarray(source[percentile]).ravel()[0])


def evaluate(d: Deployment, load: Load) -> ServingResult:
    """The deployment under `load` (module docstring)."""
    p = prepare(d)
    mem = p.memories[0]
    reps = d.replicas
    cap = float(p.model.max_rate_per_s()[0])
    if isinstance(load, PrefillOnly):
        return _prefill_only(d, p, mem, cap)
    if isinstance(load, DecodeOnly):
        return _decode_only(d, p, mem, load.running_per_replica)
    if isinstance(load, Rate):
        state = p.model.at_rate(np.asarray([load.requests_per_s / reps]))
    elif isinstance(load, Concurrency):
        state = p.model.at_concurrency(np.asarray([load.clients / reps]))
    else:
        state = p.model.offline()
    rate = float(state.rate_per_s[0])
    if isinstance(load, Offline) and (load.requests > 0 or load.min_duration_s > 0):
        # LoadGen's Offline sample count: max(min_query_count, kSlack 1.1 x min_duration x expected QPS)
        requests = max(load.requests, OFFLINE_SLACK * load.min_duration_s * cap * reps)
        rate *= float(offline_drain_factor(p.model, requests / reps, load.max_output_tokens)[0])
    return ServingResult(
        deployment=d,
        memory=mem,
        state=state,
        output_tokens_per_s=rate * d.workload.output.mean * reps,
        input_tokens_per_s=rate * d.workload.input.mean * reps,
        requests_per_s=rate * reps,
        max_requests_per_s=cap * reps,
        saturated=bool(np.asarray(state.saturated).ravel()[0]),
    )


def _prefill_only(d: Deployment, p: Prepared, mem: ReplicaMemory, cap: float) -> ServingResult:
    """Prompts only, each step filled to the token budget: input tokens / step time."""
    budget = float(p.replicas.max_batched_tokens[0])
    wl = d.workload
    pairs_per_token = wl.prefill_pairs_per_request / max(wl.new_input_tokens, 1.0)
    t = float(
        cycle_time_s(
            p.coef,
            decode_tokens=np.zeros(1),
            prefill_tokens=np.asarray([budget]),
            cached_tokens=np.zeros(1),
            prefill_pairs=np.asarray([budget * pairs_per_token]),
            step_overhead_s=p.model.overhead + p.model.eager_overhead,
            colocated=False,
        )[0]
    )
    tokens = budget / t / (1.0 - wl.prefix_hit_rate) * d.replicas
    rate = tokens / wl.input.mean
    return ServingResult(d, mem, None, 0.0, tokens, rate, rate, True)


def _decode_only(d: Deployment, p: Prepared, mem: ReplicaMemory, running: float) -> ServingResult:
    """A decode pool replica holding `running` requests at their average context: one token (tau with
    speculation) per request per step."""
    lm = p.model
    t = float(lm._decode_cycle(np.asarray([running]), colocated=False)[0])
    tokens = running * d.workload.speculation.acceptance_length / t * d.replicas
    rate = tokens / d.workload.output.mean
    return ServingResult(d, mem, None, tokens, 0.0, rate, rate, True)
