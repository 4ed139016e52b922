"""Whole-run time: from the steady-state step to a finished run.

`time.step_s`, `tokens_per_s` and `mfu` are the steady state. Between that and the GPU-hours a buyer plans on lie:

* **Batch ramp-up** (`ramp_up_tokens_b`, default 0): the first tokens run at a smaller global batch (GPT-3 ramps
  over the first 4-12B tokens, Brown et al. 2020 arXiv:2005.14165 App. B; BLOOM over 10B tokens, BigScience
  tr11-176B-ml README; Falcon-7B over 30B, tiiuae/falcon-7b model card). A linear ramp averages half the batch:
  the engine times those tokens at half the batch (api.py). LR warm-up changes the learning rate, not the step
  time, and costs nothing here.
* **Long-context stages** (`long_context_tokens_b` at `long_context_seq_len`, default none): part of the tokens at
  a longer sequence (Llama 3: ~800B tokens in six stages to 128k, Dubey et al. 2024 arXiv:2407.21783 §3.4.2),
  timed at that length (api.py).
* **Evaluation passes** (`eval_interval_steps`, `eval_steps`): GPT-NeoX's configs evaluate 10 batches every 1,000
  steps (EleutherAI/gpt-neox configs/20B.yml: "eval-interval": 1000, "eval-iters": 10); a forward-only batch
  costs a third of a training step (2 of the 6 FLOPs per parameter and token, Kaplan et al. 2020 §2.1).
* **Stragglers, slow nodes and other run inefficiency** (`straggler_fraction`, `straggler_per_doubling`): a
  synchronous step waits for its slowest rank; the ByteDance study of five months of LLM jobs (Lin et al. 2025,
  arXiv:2505.05713, OSDI'25) finds stragglers in a large share of jobs, with causes beyond hardware faults. The
  engine charges a slowdown of `straggler_fraction` + `straggler_per_doubling` × log2(nodes) (8-GPU nodes) of the
  compute time. Both are fitted, on the shipped whole runs at once (holdout excluded), after the steady-state
  constants (`python -m planner.engine.accuracy.calibrate`; they move no steady-state case): 0.15 and 0 (refit after the ZeRO-3/FSDP and non-matmul step model of training/step_time.py). The
  constant carries what published whole runs lose beyond every modelled part (stragglers, slow nodes, hangs,
  jitter, framework overheads); a growth with log2(nodes) was tried and the shipped runs do not support it (loss
  1.10 flat against 1.92-1.97 with 0.02-0.03 per doubling and no constant, after that step model), so it
  stays 0 unless the input states it.
* **Data-pipeline stalls** (`data_stall_fraction`, default 0): pre-tokenised, memory-mapped datasets (Megatron's
  indexed datasets, llm-foundry's streaming shards) keep loading off the critical path; state a measured stall
  share if yours does not.
* **Checkpoints, failures and restarts** (Young 1974, CACM 17(9); Daly 2006, FGCS 22(3), eq. 1): with checkpoint
  interval τ, blocking write time δ, restart time R and job MTBF M,

      wasted fraction = δ/τ + (τ/2 + R)/M,    failure goodput = 1 - wasted fraction,
      τ_opt = sqrt(2·δ·M)  (Young's interval, used unless the input fixes the interval).

  Default failure rate: Llama 3 405B saw 466 job interruptions (419 unexpected, 47 planned) in 54 days on 16,384
  H100 GPUs (Dubey et al. 2024, §3.3.4): one per 16,384 × 54 × 24 / 466 = 45,565 GPU-hours. δ = 30 s (the
  blocking part of an asynchronous checkpoint: the device-to-host copy; PyTorch Distributed Checkpoint
  async_save) and R = 3.5 min, chosen so that the model reproduces Llama 3's "higher than 90% effective training
  time" at 16,384 GPUs (calibration: failure goodput(16,384) = 0.90).

The parts compose: productive work C (steady state + ramp-up + long-context extra), then × (1 + evaluation)
× (1 + stragglers) × (1 + stalls), then ÷ failure goodput. `goodput` (time.goodput) is steady-state time over
whole-run time; `fraction` in the input replaces every multiplicative part by one measured figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.engine.inputs.units import DAY, HOUR, MINUTE

#: Llama 3 405B: 466 interruptions in 54 days on 16,384 GPUs (arXiv:2407.21783 §3.3.4).
LLAMA3_INTERRUPTIONS = 466
LLAMA3_DAYS = 54.0
LLAMA3_GPUS = 16_384
MTBF_GPU_HOURS_DEFAULT = LLAMA3_GPUS * LLAMA3_DAYS * DAY / HOUR / LLAMA3_INTERRUPTIONS
#: Blocking checkpoint write (asynchronous checkpointing: only the device-to-host copy blocks training).
CHECKPOINT_WRITE_S_DEFAULT = 30.0
#: Restart after a failure (reschedule, reload the checkpoint, warm up), calibrated with the line above so that
#: 16,384 GPUs give 90% goodput, Llama 3's reported effective training time.
RESTART_S_DEFAULT = 3.5 * MINUTE
#: GPT-NeoX configs/20B.yml: "eval-interval": 1000, "eval-iters": 10.
EVAL_INTERVAL_STEPS_DEFAULT = 1000.0
EVAL_STEPS_DEFAULT = 10.0
#: A forward-only evaluation batch against a training step: 2 of the 6 FLOPs per parameter and token.
EVAL_STEP_COST = 1.0 / 3.0
#: Whole-run slowdown beyond the modelled parts and its growth per doubling of the node count (fitted on the
#: shipped whole runs, calibrate.py; see the docstring).
STRAGGLER_FRACTION = 0.15
STRAGGLER_PER_DOUBLING = 0.0
#: GPUs per node the straggler term counts nodes in (the 8-GPU HGX/DGX node of every shipped run).
STRAGGLER_NODE_GPUS = 8.0
#: Below this the run makes almost no progress; reported with a warning.
GOODPUT_FLOOR = 0.01
SOURCE = (
    "Llama 3 405B: 466 interruptions in 54 days on 16,384 GPUs, >90% effective time (arXiv:2407.21783 §3.3.4)"
)
#: The overhead parts in the order the result lists them.
PARTS = (
    "batch_ramp_up",
    "long_context",
    "evaluation",
    "stragglers",
    "data_stalls",
    "checkpoints",
    "failures_restarts",
)


@dataclass(frozen=True)
class GoodputSpec:
    mtbf_gpu_hours: float = MTBF_GPU_HOURS_DEFAULT
    checkpoint_interval_s: float | None = None  # None: Young's optimum sqrt(2·δ·M)
    checkpoint_write_s: float = CHECKPOINT_WRITE_S_DEFAULT
    restart_s: float = RESTART_S_DEFAULT
    fraction: float | None = None  # a measured goodput that replaces the multiplicative parts
    eval_interval_steps: float = EVAL_INTERVAL_STEPS_DEFAULT
    eval_steps: float = EVAL_STEPS_DEFAULT
    straggler_fraction: float | None = None  # None: the fitted STRAGGLER_FRACTION (read at call time)
    straggler_per_doubling: float | None = None  # None: the fitted STRAGGLER_PER_DOUBLING (read at call time)
    data_stall_fraction: float = 0.0
    ramp_up_tokens: float = 0.0
    long_context_tokens: float = 0.0
    long_context_seq_len: int | None = None


@dataclass(frozen=True)
class GoodputResult:
    fraction: float  # steady-state time / whole-run time
    cluster_mtbf_s: float
    checkpoint_interval_s: float
    failures: float  # expected interruptions during the run
    warnings: tuple[str, ...]
    failure_goodput: float = 1.0  # the Young/Daly part alone
    total_s: float = 0.0
    steady_s: float = 0.0
    parts_s: tuple[tuple[str, float], ...] = ()


def cluster_mtbf_s(mtbf_gpu_hours: Any, gpus: Any) -> Any:
    """Mean time between failures of the whole job: per-GPU MTBF / N (independent failures)."""
    return mtbf_gpu_hours * HOUR / np.maximum(gpus, 1.0)


def young_interval_s(checkpoint_write_s: Any, mtbf_s: Any) -> Any:
    """Young 1974: τ_opt = sqrt(2·δ·M)."""
    return np.sqrt(2.0 * checkpoint_write_s * mtbf_s)


def wasted_fraction(interval_s: Any, write_s: Any, restart_s: Any, mtbf_s: Any) -> Any:
    """δ/τ (checkpoint writes) + (τ/2 + R)/M (lost work and restart per failure)."""
    return write_s / interval_s + (interval_s / 2.0 + restart_s) / mtbf_s


def _interval_s(spec: GoodputSpec, mtbf_s: Any) -> Any:
    if spec.checkpoint_interval_s is not None:
        return spec.checkpoint_interval_s + 0.0 * mtbf_s
    return young_interval_s(spec.checkpoint_write_s, mtbf_s)


def failure_goodput(spec: GoodputSpec, gpus: Any) -> Any:
    """Elementwise Young/Daly goodput (checkpoint writes, lost work, restarts), floored at GOODPUT_FLOOR."""
    mtbf_s = cluster_mtbf_s(spec.mtbf_gpu_hours, gpus)
    if spec.checkpoint_write_s == 0 and spec.checkpoint_interval_s is None:
        # Free checkpoints: checkpoint continuously and lose nothing but the restart.
        return np.maximum(1.0 - spec.restart_s / mtbf_s, GOODPUT_FLOOR)
    wasted = wasted_fraction(_interval_s(spec, mtbf_s), spec.checkpoint_write_s, spec.restart_s, mtbf_s)
    return np.maximum(1.0 - wasted, GOODPUT_FLOOR)


def eval_fraction(spec: GoodputSpec) -> float:
    """Evaluation time per unit of training time: eval_steps forward-only batches every eval_interval_steps."""
    return spec.eval_steps / spec.eval_interval_steps * EVAL_STEP_COST


def straggler_coefficients(spec: GoodputSpec) -> tuple[float, float]:
    """(constant, per doubling of nodes): the input's or the fitted ones."""
    base = STRAGGLER_FRACTION if spec.straggler_fraction is None else spec.straggler_fraction
    per_doubling = (
        STRAGGLER_PER_DOUBLING if spec.straggler_per_doubling is None else spec.straggler_per_doubling
    )
    return base, per_doubling


def straggler_fraction(spec: GoodputSpec, gpus: Any) -> Any:
    """Elementwise slowdown of the compute time: constant + per_doubling × log2(nodes of 8 GPUs)."""
    nodes = np.maximum(np.asarray(gpus, dtype=float) / STRAGGLER_NODE_GPUS, 1.0)
    base, per_doubling = straggler_coefficients(spec)
    return base + per_doubling * np.log2(nodes)


def goodput_fraction(spec: GoodputSpec, gpus: Any) -> Any:
    """Elementwise productive share of wall time for `gpus` GPUs when the run has no ramp-up or long-context
    extra: failure goodput / ((1 + evaluation)(1 + stragglers)(1 + stalls)), or the input's measured fraction.
    The search divides steady time by it, so each search result equals `estimate` on that layout."""
    if spec.fraction is not None:
        return spec.fraction + 0.0 * gpus
    slowdown = (
        (1.0 + eval_fraction(spec))
        * (1.0 + straggler_fraction(spec, gpus))
        * (1.0 + spec.data_stall_fraction)
    )
    return failure_goodput(spec, gpus) / slowdown


def estimate_goodput(
    spec: GoodputSpec,
    gpus: float,
    steady_time_s: float,
    ramp_up_extra_s: float = 0.0,
    long_context_extra_s: float = 0.0,
) -> GoodputResult:
    """The whole run on `gpus` GPUs from `steady_time_s` of steady-state work plus the extra time the ramp-up and
    the long-context stages take (api.py times them), split into the parts of PARTS."""
    mtbf_s = float(cluster_mtbf_s(spec.mtbf_gpu_hours, gpus))
    interval = float(_interval_s(spec, mtbf_s))
    productive = steady_time_s + ramp_up_extra_s + long_context_extra_s
    parts: dict[str, float] = {"batch_ramp_up": ramp_up_extra_s, "long_context": long_context_extra_s}
    warnings: list[str] = []
    if spec.fraction is not None:
        total = productive / spec.fraction
        fail = spec.fraction
        parts.update(dict.fromkeys(("evaluation", "stragglers", "data_stalls", "checkpoints"), 0.0))
        parts["failures_restarts"] = total - productive
    else:
        fail = float(failure_goodput(spec, float(gpus)))
        evaluation = productive * eval_fraction(spec)
        stragglers = (productive + evaluation) * float(straggler_fraction(spec, gpus))
        stalls = (productive + evaluation + stragglers) * spec.data_stall_fraction
        compute = productive + evaluation + stragglers + stalls
        total = compute / fail
        lost = total - compute
        write_share = 0.0
        if spec.checkpoint_write_s > 0:
            wasted = float(wasted_fraction(interval, spec.checkpoint_write_s, spec.restart_s, mtbf_s))
            write_share = spec.checkpoint_write_s / interval / wasted if wasted > 0 else 0.0
        parts.update(
            evaluation=evaluation,
            stragglers=stragglers,
            data_stalls=stalls,
            checkpoints=lost * write_share,
            failures_restarts=lost * (1.0 - write_share),
        )
        if fail <= GOODPUT_FLOOR:
            warnings.append(
                f"failures dominate: with an interruption every {mtbf_s / HOUR:.2f} h the job makes almost no "
                "progress; goodput floored at 1%"
            )
        elif fail < 0.8:
            warnings.append(
                f"goodput is only {fail:.0%}: failures every {mtbf_s / HOUR:.1f} h on {gpus:.0f} GPUs"
            )
    failures = total / mtbf_s
    fraction = steady_time_s / total if total > 0 else 1.0
    return GoodputResult(
        fraction=fraction,
        cluster_mtbf_s=mtbf_s,
        checkpoint_interval_s=interval,
        failures=failures,
        warnings=tuple(warnings),
        failure_goodput=fail,
        total_s=total,
        steady_s=steady_time_s,
        parts_s=tuple((name, parts[name]) for name in PARTS),
    )


def overheads(result: GoodputResult) -> dict[str, dict[str, float]]:
    """time.overheads: each part's days and share of the whole run."""
    total = result.total_s or 1.0
    return {name: {"days": s / DAY, "share": s / total} for name, s in result.parts_s}


def assumptions(spec: GoodputSpec, result: GoodputResult) -> dict[str, dict[str, Any]]:
    def item(value: Any, default: Any, unit: str, source: str) -> dict[str, Any]:
        return {"value": value, "unit": unit, "source": source if value == default else "input"}

    base, per_doubling = straggler_coefficients(spec)
    return {
        "goodput.mtbf_gpu_hours": item(
            spec.mtbf_gpu_hours, MTBF_GPU_HOURS_DEFAULT, "GPU-hours per interruption", SOURCE
        ),
        "goodput.checkpoint_write_s": item(
            spec.checkpoint_write_s,
            CHECKPOINT_WRITE_S_DEFAULT,
            "s",
            "asynchronous checkpoint, blocking copy only",
        ),
        "goodput.restart_min": item(
            spec.restart_s / MINUTE,
            RESTART_S_DEFAULT / MINUTE,
            "min",
            "calibrated: 90% goodput at 16,384 GPUs",
        ),
        "goodput.checkpoint_interval_min": {
            "value": result.checkpoint_interval_s / MINUTE,
            "unit": "min",
            "source": "input" if spec.checkpoint_interval_s else "Young 1974: sqrt(2·write·MTBF)",
        },
        "goodput.eval_steps_per_interval": {
            "value": [spec.eval_steps, spec.eval_interval_steps],
            "unit": "forward-only batches per training steps",
            "source": "input"
            if (spec.eval_steps, spec.eval_interval_steps)
            != (EVAL_STEPS_DEFAULT, EVAL_INTERVAL_STEPS_DEFAULT)
            else "EleutherAI/gpt-neox configs/20B.yml (eval-iters 10, eval-interval 1000)",
        },
        "goodput.straggler_fraction": item(
            base,
            STRAGGLER_FRACTION,
            "fraction of compute time",
            "fit on the shipped whole runs (python -m planner.engine.accuracy.calibrate): stragglers, slow nodes "
            "and other whole-run losses (arXiv:2505.05713)",
        ),
        "goodput.straggler_per_doubling": item(
            per_doubling,
            STRAGGLER_PER_DOUBLING,
            "slowdown per doubling of 8-GPU nodes",
            "fit on the shipped whole runs: they do not support a growth with scale",
        ),
        "goodput.data_stall_fraction": item(
            spec.data_stall_fraction,
            0.0,
            "fraction of compute time",
            "pre-tokenised memory-mapped data keeps loading off the critical path (state yours if not)",
        ),
        "goodput.ramp_up_tokens_b": item(
            spec.ramp_up_tokens / 1e9, 0.0, "B tokens at half the batch", "none unless stated (GPT-3: 4-12B)"
        ),
        "goodput.long_context_tokens_b": item(
            spec.long_context_tokens / 1e9,
            0.0,
            f"B tokens at {spec.long_context_seq_len or 0} tokens",
            "none unless stated (Llama 3: ~800B tokens to 128k)",
        ),
        "goodput.fraction": {
            "value": result.fraction,
            "unit": "steady-state / whole-run time",
            "source": "input" if spec.fraction is not None else "whole-run model (training/goodput.py)",
        },
    }
