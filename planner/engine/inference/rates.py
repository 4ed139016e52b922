"""Inference's own achieved rates: fractions of the datasheet HBM bandwidth and tensor peaks that serving kernels
reach, the per-step fixed cost of a serving engine, and the defaults of the engines themselves.

None of these is borrowed from the training calibration (planner/engine/rates.py). Each is either a published
measurement (source next to it) or one of the few constants fitted ONCE on the whole serving calibration group
(planner/engine/serving/calibrate.py; `python -m planner.engine validate` prints the fit and its errors). The fitted
ones say so in their source and stay inside the published range given beside them.

Sources (with the figures they quote):
* DeepGEMM (deepseek-ai/DeepGEMM README @ 55ab91f7, H800 SXM5: 3.35 TB/s, 1,979 dense FP8 TFLOPS): FP8 GEMMs with
  M = 64 tokens stream weights at 1,688-2,668 GB/s (0.50-0.80 of spec HBM); M = 4,096 reaches 751-1,426 TFLOPS
  (0.38-0.72 of FP8 peak), "up to 1550 TFLOPS" (0.78) after the 2025-04 kernels; grouped GEMMs for MoE decode
  (masked layout, 4 groups x 256 tokens) stream at 2,047-2,064 GB/s (0.61), contiguous grouped prefill GEMMs run
  at 1,093-1,297 TFLOPS (0.55-0.66); GROUPED_GEMM_CURVE takes the whole table as efficiency against tokens per
  expert.
* FlashMLA (deepseek-ai/FlashMLA README @ 414a2f3e): the MLA decode kernel reaches "up to 3000 GB/s" on H800
  (0.90 of spec) when memory-bound and 580-660 TFLOPS BF16 (0.59-0.67 of 989) when compute-bound.
* DeepEP (deepseek-ai/DeepEP README @ ebfe47e4, dd758caf): all-to-all dispatch/combine at 153-158 GB/s over
  H800 NVLink (of ~160 GB/s), 726-740 GB/s on SM100 NVLink, 43-47 GB/s per GPU over 400 Gb/s RDMA (0.9 of line).
* Mooncake transfer engine (kvcache-ai/Mooncake docs @ 3b5a5941): vLLM P/D KV transfer at 142 GB/s = 71% of
  8 x 200 Gb/s RoCE.
* vLLM engine defaults: KV block 16 tokens; gpu_memory_utilization 0.9; V1 OpenAI server on GPUs with >= 70 GiB
  (not A100): max_num_seqs 1024, max_num_batched_tokens 8192, otherwise 256 and 2048
  (vllm/engine/arg_utils.py EngineArgs.get_batch_defaults).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# --- measured fractions (sourced) ------------------------------------------------------------------------------

#: Achieved fraction of spec HBM bandwidth when attention reads the KV cache in decode: FlashMLA "up to 3000
#: GB/s" of 3.35 TB/s on H800 (memory-bound configuration).
KV_READ_HBM_FRACTION = 0.90
#: DeepGEMM's FP8 grouped/normal GEMMs on H800 SXM5 (deepseek-ai/DeepGEMM README @ 4cc65afa, "Performance"),
#: the two expert GEMM shapes of DeepSeek-V3 (gate+up N x K = 4096 x 7168, down 7168 x 2048): tokens per expert
#: (M, or M per group) -> achieved TFLOPS of each shape. M = 64 and 128: normal GEMMs; 256-1024: masked grouped
#: (4 x 256, 2 x 512, 1 x 1024); 4096 and 8192: contiguous grouped (8 x 4096, 4 x 8192).
DEEPGEMM_H800_TFLOPS: tuple[tuple[int, float, float], ...] = (
    (64, 287.0, 295.0),
    (128, 533.0, 510.0),
    (256, 932.0, 815.0),
    (512, 1040.0, 916.0),
    (1024, 1233.0, 925.0),
    (4096, 1288.0, 1093.0),
    (8192, 1297.0, 1099.0),
)
#: The H800 SXM5's datasheet FP8 dense peak and HBM bandwidth the table above is measured against.
DEEPGEMM_H800_PEAK_FLOP_PER_S, DEEPGEMM_H800_HBM_BYTES_PER_S = 1979e12, 3.35e12


def _grouped_gemm_curve() -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(x, fraction) points of the grouped-GEMM efficiency curve from DEEPGEMM_H800_TFLOPS: x is the tokens per
    expert over the GPU's ridge point (the M at which an FP8 GEMM's arithmetic intensity, 2M FLOP per weight byte,
    equals peak / HBM bandwidth: 295 tokens on the H800), the fraction is the achieved share of the dense FP8 peak
    of the whole expert FFN (gate+up twice the FLOPs of down, so the two shapes' times add 2:1)."""
    ridge = DEEPGEMM_H800_PEAK_FLOP_PER_S / (2.0 * DEEPGEMM_H800_HBM_BYTES_PER_S)
    xs, fs = [], []
    for m, up, down in DEEPGEMM_H800_TFLOPS:
        xs.append(m / ridge)
        rate_flop_per_s = 1.0 / ((2.0 / 3.0) / (up * 1e12) + (1.0 / 3.0) / (down * 1e12))
        fs.append(rate_flop_per_s / DEEPGEMM_H800_PEAK_FLOP_PER_S)
    return tuple(xs), tuple(fs)


#: Grouped-GEMM efficiency against tokens per expert relative to the ridge point (see _grouped_gemm_curve): 0.15 of
#: peak at 0.22 x the ridge (memory-bound, 0.68 of HBM bandwidth) to 0.62 at 28 x (compute-bound). Other GPUs and
#: precisions: the same curve over their own ridge point (peak of the experts' GEMM precision x matmul ceiling /
#: HBM bandwidth, per weight byte), i.e. the H800's achieved fractions scaled by each GPU's peak and bandwidth (an
#: assumption: no grouped-GEMM table for AMD was found; Blackwell NVFP4 MoE figures were found: trtllm-gen on B300
#: (flashinfer PR #5301) is 2.2-2.8x slower at 128-512 tokens per expert, on B200 (TensorRT-LLM tech blog 24) it streams
#: the weights at 0.47-0.51 of HBM where this curve has 0.68; a B300-table FP4 curve
#: was tried: calibration loss 0.3030 -> 0.3092, not adopted, docs/serving-model.md section 6).
#: Below the first point the kernel is taken as
#: memory-bound at that point's bandwidth share (fraction proportional to x); above the last, flat.
GROUPED_GEMM_CURVE = _grouped_gemm_curve()


def grouped_gemm_fraction(x: Any) -> Any:
    """Achieved fraction of the dense peak of a grouped expert GEMM at `x` = tokens per expert / ridge tokens
    (numpy arrays welcome): GROUPED_GEMM_CURVE interpolated in log x."""
    xs, fs = GROUPED_GEMM_CURVE
    x = np.maximum(np.asarray(x, dtype=float), 1e-9)
    inside = np.interp(np.log(x), np.log(xs), fs)
    return np.where(x < xs[0], fs[0] * x / xs[0], inside)


#: Attention compute at its own precision, fraction of the dense peak of that precision: FlashMLA's
#: compute-bound decode 580-660 of 989 BF16 TFLOPS (midpoint); FlashAttention-3 reports 740 of 989 (75%) for
#: BF16 forward on H100 (arXiv:2407.08608 abstract), the upper end of the same range.
ATTENTION_PEAK_FRACTION = 0.63
#: Elementwise kernels (norms, residual adds, rotary, activation, sampling) stream activations at this fraction of
#: spec HBM bandwidth: the midpoint of DeepGEMM's M = 64 weight-streaming range (0.50-0.80).
ELEMENTWISE_HBM_FRACTION = 0.65
#: Values read or written per token and layer by the elementwise kernels, in units of the hidden size (two
#: RMSNorms: read + write h each = 4h; two residual adds: read 2h, write h each = 6h; rotary on Q and K about 2h)
#: plus 3 per FFN column (SwiGLU reads gate and up, writes the product). Counted from the kernel sequence of a
#: Llama-style layer; fused kernels (TensorRT-LLM fuses norm and residual) read less, so this is an upper count.
ELEMENTWISE_HIDDEN_VALUES = 12.0
ELEMENTWISE_FFN_VALUES = 3.0
#: All-to-all (expert dispatch/combine) and all-reduce over the scale-up link: achieved fraction of one direction's
#: bandwidth. DeepEP: 153-158 of ~160 GB/s on H800 NVLink, 726-740 of 900 on SM100.
SCALEUP_FRACTION = 0.82
#: Over the scale-out NIC (RDMA), DeepEP internode: 43-47 of ~50 GB/s per 400 Gb/s CX7.
SCALEOUT_FRACTION = 0.90
#: Per-collective latency on NVLink for the small messages of decode (a one-shot all-reduce of a few hundred KB):
#: NCCL small-message all-reduce on 8 NVLink GPUs takes ~15-25 µs (nccl-tests, also in comm.py); the serving
#: engines' custom one-shot all-reduce kernels (vLLM custom_all_reduce, TensorRT-LLM) stay in that range.
SCALEUP_COLLECTIVE_LATENCY_S = 10e-6
#: The same over PCIe through the host (cards without NVLink): NCCL over PCIe x16 needs several host round trips;
#: planning figure 3x the NVLink one (not sourced; the L40S hold-out case reads it, never tunes it).
PCIE_COLLECTIVE_LATENCY_S = 30e-6
#: Attention data parallelism in a colocated server (prompt chunks and decodes in the same iterations): the mean
#: over iterations of (mean tokens per rank / busiest rank's tokens). TensorRT-LLM's ADP balance blog (NVIDIA/
#: TensorRT-LLM docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md, DeepSeek-V3 on 8 GB200, DP 8 / EP 8,
#: 16,000 requests of 803 input / 3,653 output tokens): 54.11% with round-robin scheduling, 84.33% with the
#: context wait (enable_balance, timeout_iters 50), 87.70% with batching_wait_iters 10 as well. Serving engines'
#: recommended attention-DP settings balance the context phase, so the planning figure is the context-wait one.
ATTENTION_DP_BALANCE_RATIO = 0.8433
#: The same with batch equilibration as well (attention_dp_config batching_wait_iters > 0: once every rank holds a
#: context request, ranks wait that many more iterations to accumulate contexts): 87.70% in the same blog
#: (timeout_iters 50 + batching_wait_iters 10, "full strategy").
ATTENTION_DP_BALANCE_RATIO_BATCHING = 0.8770
#: KV cache transfer between a prefill and a decode pool: achieved fraction of the fabric's line rate (Mooncake +
#: vLLM P/D: 142.25 GB/s of 200 GB/s, 71%).
KV_TRANSFER_FRACTION = 0.71

# --- fitted once on the serving calibration group (calibrate.py) ----------------------------------------------

#: Achieved fraction of spec HBM bandwidth of a pure weight stream, the memory side of a GEMM's roofline (the
#: compute side and ROOFLINE_EXPOSED_FRACTION add what a real kernel does not overlap). Published range: STREAM-like
#: copies reach 0.85-0.93 of spec on A100/H100 (stas00/ml-engineering), FlashMLA's decode 0.90; whole DeepGEMM
#: GEMMs at M = 64-128, which include the unhidden math, 0.45-0.80. Fitted (searched in 0.45-0.95): 0.95 after the
#: eager-step and case-input pass of issue 14, 0.70 since the MLPerf cases take their datasets' measured prompt
#: lengths (docs/serving-model.md section 6, prompt-length pass): below the pure-stream figures, inside the
#: whole-GEMM range; dense decode time the model does not place elsewhere, not a measured HBM fraction. The
#: per-request step cost (below) did not move it (docs section 6, per-request step cost pass).
WEIGHT_STREAM_HBM_FRACTION = 0.70
#: Achieved fraction of the dense tensor peak of a GEMM at prefill sizes, by compute precision, on an H100-class
#: matmul ceiling (layout.matmul_ceiling_ratio scales it per GPU). Published range for FP8: DeepGEMM M = 4,096,
#: 0.38-0.72 (0.78 best). 16-bit and INT8 GEMMs take FP8's fraction of their own peak: the calibration set has no
#: 16-bit NVIDIA case to fit one on, and the measured BF16 ceiling (H100 792/989 = 0.80, ml-engineering MAMF
#: table) sits as far above it as DeepGEMM's best FP8 does. FP4: no measured FP4 GEMM figure was found; fitted on
#: the NVFP4 calibration cases. Fitted: both at the top of their searched ranges (fp8 0.38-0.78, DeepGEMM's best;
#: fp4 0.15-0.70) since the per-request step cost (0.74 / 0.55 before): that cost takes time at large batches, which faster
#: prefill GEMMs give back.
GEMM_PEAK_FRACTION: dict[str, float] = {"fp8": 0.78, "fp4": 0.70}
#: Share of the shorter of a kernel's memory and compute times that is not hidden behind the longer one. The ideal
#: roofline hides all of it (0). DeepGEMM's H800 FP8 GEMMs at M = 128 (N x K = 7168 x 2048: 4.4 µs to stream the
#: weights, 1.9 µs of math) run at 0.45-0.78 of HBM bandwidth, i.e. 5.6-9.8 µs, about the sum of the two (1).
#: Fitted.
ROOFLINE_EXPOSED_FRACTION = 0.5
#: Spread of the experts' popularity (their shares of the routed tokens at one MoE layer), as the standard deviation
#: of its logarithm; inference/expert_load.py turns it into the busiest GPU's load under expert parallelism.
#: TensorRT-LLM tech blog 4 ("Scaling Expert Parallelism in TensorRT-LLM (Part 1)", Table 1: DeepSeek-R1, EP 32 on
#: GB200, a machine-translation dataset, per-layer per-iteration metrics averaged): per expert mean 128 tokens,
#: standard deviation 164.1 (CV 1.28), hottest expert 11.95x the mean; per GPU of 8 experts CV 0.48, busiest GPU
#: 2.564x the mean. A lognormal with 1.05 gives CV 1.35, hottest expert 12.0x, busiest of 32 GPUs 2.49x (1.07 / 1.19
#: / 1.40 / 1.78 at EP 2 / 4 / 8 / 16). Sourced (fitted to that table once, not to any serving case); other MoE
#: models take DeepSeek-R1's spread (an assumption: no other model's table was found).
EXPERT_POPULARITY_LOG_SIGMA = 1.05
#: The busiest GPU's load over the mean with an expert-parallel load balancer (EPLB, redundant hot experts placed
#: from measured statistics): 1.109 (EP 32, 9 slots per GPU) and 1.115 (EP 36, 8 slots), TensorRT-LLM tech blog 4,
#: Table 1. SGLang's own check (lmsys blog 2025-05-05): its default EPLB at EP 32 runs prefill at 50,302 tokens/s per
#: node, a simulated perfect balance at 59,337. Sourced.
EPLB_LOAD_IMBALANCE = 1.11
#: What the expert-parallel cases' compute-bound experts take beyond the busiest GPU's popularity share above, as a
#: multiplier of that share (so also of its dispatch/combine bytes): replaces the single fitted EXPERT_LOAD_IMBALANCE
#: 1.9 of every EP degree. Not an imbalance the sources measure (Table 1's spread gives 1.40 at EP 8 where the fit
#: charges 1.40 x 1.7 = 2.38): the per-step routing noise at smaller batches, the EP path's permute, activation-quantize and
#: finalize kernels and the padding of per-expert groups are candidates with no published size. Search range
#: 1.0-2.5 (the old constant's, from SGLang's EPLB speedups 1.49x prefill, 2.54x decode, lmsys blog 2025-05-05).
#: Fitted.
EXPERT_LOAD_SCALE = 1.7
#: Fixed cost of one engine step (scheduling, input preparation, sampling, kernel launches not in a CUDA graph).
#: No direct per-step figure was found for vLLM V1 or SGLang; vLLM's v0.6 profile (2024-09-05 blog) shows CPU
#: work was 62% of wall time before async scheduling. Fitted (searched in 0-6 ms; 6 ms before the per-request
#: step cost below took the part that grows with the batch).
STEP_OVERHEAD_S = 3.0e-3
#: CPU cost per running (decoding) request per engine step, on top of STEP_OVERHEAD_S: the scheduler's
#: per-sequence bookkeeping, input preparation, sampling and output processing (detokenisation, stop checks) grow with
#: the batch, which a fixed step cost cannot stand for. Hidden with STEP_OVERHEAD_S under `overlap_scheduling` and
#: amortised like it over `scheduler_steps`. Published range: Vidur's CPU-overhead profile of vLLM on A100
#: (microsoft/vidur data/profiling/a100/cpu_overheads.csv @ 0633efae; Llama-2-7B TP 1, batch 8 -> 64, slope per
#: request): schedule 12-14 µs, sampler 8-9 µs, prepare inputs 16-17 µs, process model outputs 62-134 µs (median -
#: mean), i.e. 36-40 µs without output processing (which vLLM v0.6's async output processor and overlap schedulers
#: take off the step) and 100-171 µs with it. Fitted (searched in 0-120 µs): 25 µs, below the old engine's figures,
#: as expected of engines since (vLLM 2024-09-05 blog: CPU work was 62% of wall time before v0.6).
STEP_OVERHEAD_PER_REQUEST_S = 25e-6
#: Share of STEP_OVERHEAD_PER_REQUEST_S that TensorRT-LLM's overlap scheduler leaves on the step's critical path
#: (EngineSettings.overlap_hides_scheduling false). Its pseudo-code (TensorRT-LLM docs/source/features/
#: overlap-scheduler.md) launches step n+1 before handling step n's outputs, so only the previous step's output
#: processing (sampling results, detokenisation, responses) runs behind the GPU; scheduling and input preparation
#: still run before each launch. Vidur's per-request slopes above: (schedule 12-14 + prepare inputs 16-17 µs) / (all
#: four, 98-174 µs) = 0.17 (means) - 0.30 (medians); the medians' 0.30 (Vidur's means carry the output processor's
#: long tail, which is the hidden part). SGLang's overlap scheduler (lmsys blog 2024-12-04, "zero-overhead batch
#: scheduler": the CPU scheduling of the next batch runs during the current batch's GPU compute) and vLLM's async
#: scheduling (the scheduler runs one step ahead of the GPU) hide all of it. The fixed STEP_OVERHEAD_S stays wholly
#: hidden under overlap for every engine: no source splits it. Sourced, not fitted.
OVERLAP_EXPOSED_PER_REQUEST_SHARE = 0.30
#: Extra fixed cost of a step that launches its kernels instead of replaying a captured CUDA graph: steps that
#: carry prompt chunks, and every step of an engine run without CUDA graphs (`cuda_graphs` false: vLLM
#: enforce_eager, as AMD's MLPerf v5.1 yamls set it; the NVIDIA MLPerf harness's use_graphs False, as its v5.1
#: Llama-2-70B, Llama-3.1-405B and Mixtral configs set it). About a dozen kernels per layer at ~5-10 µs each is
#: 5-10 ms for an 80-layer model. SGLang's overlap scheduler hid 6.1 ms per step of DeepSeek-V3 decode on 16 H200
#: (51.0 -> 60.4 tok/s per rank at 2 requests, lmsys blog 2025-07-17), the order of the whole CPU cost. Fitted
#: (searched in 0-15 ms; 3 ms before the eager-step pass, when it applied to prompt-carrying steps only; 6 ms before
#: the per-request step cost, 9 ms since).
EAGER_STEP_OVERHEAD_S = 9.0e-3

#: Fixed latency of one expert dispatch or combine over RDMA, on top of its bytes at the RDMA bandwidth (the per-token
#: term). Published range: DeepEP's low-latency kernels on H800 + CX7 (deepseek-ai/DeepEP docs/legacy.md @ 0297fc80,
#: 128 tokens per rank, hidden 7168, top-8, FP8 dispatch, BF16 combine) run at their bytes / reported bandwidth plus
#: 5-13 µs (dispatch EP8: 77 µs vs 128 x 8 x 7168 x 7/8 B / 98 GB/s = 66 µs; EP16: 118 vs 109; combine EP8: 114 vs
#: 101; EP16: 195 vs 186), the low end; the whole 128-token dispatch or combine, 77-369 µs, bounds it from above
#: (in a decode step with CUDA graphs the low-latency path is sized for the captured batch, not the tokens present:
#: vLLM PR #46404 found its DeepEP V2 decode dispatch processing the buffer's whole capacity).
#: Before issue 14's MoE pass it was 260 µs at any token count (half of 520 µs per dispatch + combine). Fitted
#: (searched in 10-260 µs).
RDMA_COLLECTIVE_LATENCY_S = 135e-6

# --- the user's statement of their own stack (workload.serving.kernel_efficiency) -------------------------------

#: `workload.serving.kernel_efficiency` when the input leaves it out: the fractions above as fitted, i.e. the average
#: of the published serving stacks in the calibration group (TensorRT-LLM, vLLM, SGLang releases in MLPerf and
#: vendor tables). Those stacks differ by release: the same 8 H200 with Llama 2 70B on TensorRT-LLM delivered 3,467,
#: 3,913 and 4,352 output tokens/s per GPU in MLPerf Inference v4.0, v4.1 and v5.1 (cases C032, H006 and the v5.1
#: row of accuracy/data/serving_measurements.csv), 1.26x apart, which the engine cannot see.
KERNEL_EFFICIENCY_DEFAULT = 1.0
#: Upper bound of the kernel efficiency: it multiplies the matmul ceiling of the GEMM, grouped-GEMM and attention
#: compute (layout.serving_hardware), and at 1.25 the largest of those fractions, attention's 0.63, reaches 0.79 of
#: peak on the H100 class, i.e. 0.98 of the GPU's own measured matmul ceiling (MAMF 792/989 = 0.80,
#: perf/efficiency.py MAMF_FRACTION_BY_GPU): no kernel runs faster than the fastest measured matmul. Same bound as
#: training's `workload.efficiency_scale`.
MAX_KERNEL_EFFICIENCY = 1.25

# --- ranges (leave-one-out over the serving calibration cases) ---------------------------------------------

#: p10 and p90 of published / engine over the calibration group's throughput cases, each with its measurement left
#: out of the fit (accuracy/data/serving_loo.csv; `python -m planner.engine validate` prints the current values and
#: tests/engine/test_serving_validation.py fails when these no longer match, rounded outward to two decimals). A
#: throughput T reads [low x T, high x T].
THROUGHPUT_RANGE = (0.73, 1.22)
#: The same over the p50 TTFT/TPOT cases (saturated ones left out): a latency L reads [low x L, high x L].
LATENCY_RANGE = (0.61, 1.95)

# --- serving engine defaults (sourced) -------------------------------------------------------------------------

#: vLLM: paged KV cache block of 16 tokens when unset (vllm/platforms, PR #11259: CUDA kernels support <= 32).
KV_BLOCK_TOKENS_DEFAULT = 16
#: vLLM gpu_memory_utilization default 0.9 (TensorRT-LLM kv_cache_free_gpu_mem_fraction also 0.9).
GPU_MEMORY_UTILIZATION_DEFAULT = 0.90
#: vLLM V1 OpenAI-server defaults by GPU memory (EngineArgs.get_batch_defaults).
LARGE_GPU_GIB = 70.0
MAX_RUNNING_REQUESTS_LARGE_GPU = 1024
MAX_BATCHED_TOKENS_LARGE_GPU = 8192
MAX_RUNNING_REQUESTS_SMALL_GPU = 256
MAX_BATCHED_TOKENS_SMALL_GPU = 2048


def engine_defaults(hbm_gib: float, gpu_name: str) -> tuple[int, int]:
    """(max running requests, max batched tokens per step) a vLLM V1 server starts with on this GPU."""
    large = hbm_gib >= LARGE_GPU_GIB and "a100" not in gpu_name.lower()
    if large:
        return MAX_RUNNING_REQUESTS_LARGE_GPU, MAX_BATCHED_TOKENS_LARGE_GPU
    return MAX_RUNNING_REQUESTS_SMALL_GPU, MAX_BATCHED_TOKENS_SMALL_GPU


def kernel_efficiency_echo(kernel_efficiency: float) -> dict[str, Any]:
    """The kernel efficiency a serving result used, for its `engine` section: the value, what 1.0 means and the
    spread of the calibration cases around the engine (THROUGHPUT_RANGE) as context for choosing another value."""
    low, high = THROUGHPUT_RANGE
    return {
        "kernel_efficiency": kernel_efficiency,
        "kernel_efficiency_basis": (
            "multiplies the compute side (matmul ceiling) of GEMMs, grouped expert GEMMs and attention; 1.0 is the "
            "calibrated average of the published serving stacks in the validation set, whose measured throughput "
            f"lies {low:g}-{high:g}x the engine's (p10-p90, leave-one-out); weight and KV-cache streaming are not "
            "scaled"
        ),
        "kernel_efficiency_calibration_range": [low, high],
    }


def gemm_peak_fraction(precision: str) -> float:
    """Large-GEMM fraction of the dense peak of the GEMM's compute precision (FP8's for anything but FP4)."""
    return GEMM_PEAK_FRACTION.get(precision, GEMM_PEAK_FRACTION["fp8"])


def assumptions() -> dict[str, dict[str, Any]]:
    """Every serving rate with its source, echoed under `assumptions` of an inference result."""
    fitted = "fitted once on the serving calibration group (python -m planner.engine validate)"
    return {
        "serving.weight_stream_hbm_fraction": {
            "value": WEIGHT_STREAM_HBM_FRACTION,
            "unit": "fraction of spec HBM bandwidth",
            "source": f"{fitted}; published range DeepGEMM M=64-128 on H800: 0.45-0.80",
        },
        "serving.kv_read_hbm_fraction": {
            "value": KV_READ_HBM_FRACTION,
            "unit": "fraction of spec HBM bandwidth",
            "source": "FlashMLA README: decode up to 3000 GB/s on H800 (3.35 TB/s)",
        },
        "serving.grouped_gemm_curve": {
            "value": {f"{x:.3g}": round(f, 4) for x, f in zip(*GROUPED_GEMM_CURVE, strict=True)},
            "unit": "tokens per expert / ridge tokens -> fraction of the experts' precision peak",
            "source": "DeepGEMM README (H800 FP8 normal, masked and contiguous grouped GEMMs, DeepSeek-V3 expert "
            "shapes); other GPUs and precisions over their own ridge point (assumption)",
        },
        "serving.expert_popularity_log_sigma": {
            "value": EXPERT_POPULARITY_LOG_SIGMA,
            "unit": "standard deviation of ln(an expert's share of the routed tokens), lognormal",
            "source": "TensorRT-LLM tech blog 4, Table 1 (DeepSeek-R1, EP 32): expert CV 1.28, hottest expert 11.95x "
            "the mean, busiest GPU 2.564x; other MoE models take DeepSeek-R1's spread (assumption)",
        },
        "serving.eplb_load_imbalance": {
            "value": EPLB_LOAD_IMBALANCE,
            "unit": "busiest GPU's routed tokens / mean with an expert-parallel load balancer",
            "source": "TensorRT-LLM tech blog 4, Table 1: 1.109 (EP 32, 288 slots), 1.115 (EP 36)",
        },
        "serving.expert_load_scale": {
            "value": EXPERT_LOAD_SCALE,
            "unit": "multiplier of the busiest GPU's expert share under expert parallelism",
            "source": f"{fitted}; searched 1.0-2.5",
        },
        "serving.rdma_collective_latency_us": {
            "value": RDMA_COLLECTIVE_LATENCY_S * 1e6,
            "unit": "µs per expert dispatch or combine across nodes, on top of its bytes",
            "source": f"{fitted}; published range DeepEP low-latency kernels (docs/legacy.md): 5-13 µs beyond "
            "the bytes to the whole 128-token dispatch or combine, 77-369 µs",
        },
        "serving.gemm_peak_fraction": {
            "value": dict(GEMM_PEAK_FRACTION),
            "unit": "fraction of the dense tensor peak of the GEMM precision",
            "source": f"{fitted}; published FP8 range DeepGEMM M=4096: 0.38-0.72; BF16 below the MAMF ceilings",
        },
        "serving.attention_peak_fraction": {
            "value": ATTENTION_PEAK_FRACTION,
            "unit": "fraction of the dense peak of the attention precision",
            "source": "FlashMLA 580-660 of 989 BF16 TFLOPS; FlashAttention-3 arXiv:2407.08608: 75% on H100",
        },
        "serving.step_overhead_s": {
            "value": STEP_OVERHEAD_S,
            "unit": "s per engine step",
            "source": f"{fitted} (scheduler, sampling, launches)",
        },
        "serving.step_overhead_per_request_us": {
            "value": STEP_OVERHEAD_PER_REQUEST_S * 1e6,
            "unit": "µs per running request per engine step",
            "source": f"{fitted}; searched 0-120; Vidur's vLLM A100 CPU profile: 36-40 µs without output "
            "processing, 100-171 µs with it",
        },
        "serving.overlap_exposed_per_request_share": {
            "value": OVERLAP_EXPOSED_PER_REQUEST_SHARE,
            "unit": "fraction of the per-request step cost TensorRT-LLM's overlap scheduler leaves exposed",
            "source": "TensorRT-LLM overlap-scheduler.md (only the previous step's output processing overlaps); "
            "Vidur's vLLM A100 CPU profile: (schedule + prepare inputs) / all, 0.17 (means) - 0.30 (medians)",
        },
        "serving.eager_step_overhead_s": {
            "value": EAGER_STEP_OVERHEAD_S,
            "unit": "s per step that carries prompt chunks (no CUDA graph)",
            "source": f"{fitted}; SGLang overlap scheduling hid 6.1 ms per step (lmsys blog 2025-07-17)",
        },
        "serving.scaleup_fraction": {
            "value": SCALEUP_FRACTION,
            "unit": "fraction of one direction's scale-up bandwidth",
            "source": "DeepEP README: 153-158 of ~160 GB/s (H800 NVLink), 726-740 of 900 GB/s (SM100)",
        },
        "serving.collective_latency_us": {
            "value": {"nvlink": SCALEUP_COLLECTIVE_LATENCY_S * 1e6, "pcie": PCIE_COLLECTIVE_LATENCY_S * 1e6},
            "unit": "µs per all-reduce or all-to-all",
            "source": "nccl-tests small-message latency on 8 NVLink GPUs; PCIe 3x (planning assumption)",
        },
        "serving.attention_dp_balance_ratio": {
            "value": ATTENTION_DP_BALANCE_RATIO,
            "unit": "mean tokens per attention-DP rank / busiest rank's, colocated steps",
            "source": "TensorRT-LLM ADP balance blog (tech_blog10): 84.33% with the context wait, DeepSeek-V3 DP8 GB200",
        },
        "serving.attention_dp_balance_ratio_batching": {
            "value": ATTENTION_DP_BALANCE_RATIO_BATCHING,
            "unit": "mean tokens per attention-DP rank / busiest rank's, colocated steps, batching_wait_iters > 0",
            "source": "TensorRT-LLM ADP balance blog (tech_blog10): 87.70% with context wait and batch equilibration",
        },
        "serving.kv_transfer_fraction": {
            "value": KV_TRANSFER_FRACTION,
            "unit": "fraction of the fabric line rate",
            "source": "Mooncake + vLLM P/D: 142.25 GB/s of 8 x 200 Gb/s RoCE",
        },
        "serving.ranges": {
            "value": {"throughput": list(THROUGHPUT_RANGE), "latency": list(LATENCY_RANGE)},
            "unit": "x the engine's figure (low, high)",
            "source": "p10 and p90 of published / engine over the serving calibration cases, leave-one-out "
            "(python -m planner.engine validate)",
        },
        "serving.engine_defaults": {
            "value": {
                "kv_block_tokens": KV_BLOCK_TOKENS_DEFAULT,
                "gpu_memory_utilization": GPU_MEMORY_UTILIZATION_DEFAULT,
                "max_running_requests": [MAX_RUNNING_REQUESTS_LARGE_GPU, MAX_RUNNING_REQUESTS_SMALL_GPU],
                "max_batched_tokens": [MAX_BATCHED_TOKENS_LARGE_GPU, MAX_BATCHED_TOKENS_SMALL_GPU],
            },
            "unit": "vLLM V1 server defaults (GPUs >= 70 GiB except A100, others)",
            "source": "vllm/engine/arg_utils.py EngineArgs.get_batch_defaults; vLLM CacheConfig",
        },
    }
