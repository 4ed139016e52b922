"""`workload.parallelism` -> ParallelismSpec: one fixed training layout with its cross-field rules
(`layout_problems`), or a search's space of degrees (parse.py parses the rest of the workload and the whole).
"""

from __future__ import annotations

import math
from typing import Any

from planner.engine.inputs.cluster import assume, cluster_valid
from planner.engine.inputs.errors import Problem
from planner.engine.inputs.fields import Fields, join
from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.specs import (
    FLASH_ATTENTION_DEFAULT,
    FLASH_ATTENTION_VERSIONS,
    ModelSpec,
    ParallelismSpec,
)

PARALLELISM_KEYS = (
    "tp",
    "pp",
    "dp",
    "cp",
    "ep",
    "virtual_stages",
    "sequence_parallel",
    "zero_stage",
    "recompute",
    "micro_batch",
    "global_batch",
    "flash_attention",
    "dp_overlap",
    "reshard_after_forward",
    "hsdp",
    "pipeline_split",
    "auto",
)
#: Degrees and modes the automatic layout may choose; given alongside `"auto": true` they are fixed (a value) or
#: restricted (a list) in its search, as in the `search` command.
AUTO_SEARCHED_KEYS = (
    "tp",
    "pp",
    "dp",
    "cp",
    "ep",
    "virtual_stages",
    "micro_batch",
    "zero_stage",
    "recompute",
)
#: Tokens per optimizer step when an automatic layout is asked for without a global batch: 4M tokens, the batch
#: of LLaMA (Touvron et al. 2023 arXiv:2302.13971 §2.2, "a batch size of 4M tokens") and Llama 2 (Touvron et
#: al. 2023 arXiv:2307.09288 §2.2, "4M tokens"), rounded to a power of two of sequences.
AUTO_BATCH_TOKENS = 4 * 2**20
RECOMPUTE = ("none", "selective", "full")
#: workload.parallelism.pipeline_split (training/memory.py stage_layers).
PIPELINE_SPLITS = ("balanced", "even")
PIPELINE_SPLIT_DEFAULT = "balanced"
PIPELINE_SPLIT_SOURCE = (
    "the input embedding and the output layer + loss count as one layer each when placing layers on stages: "
    "Megatron-LM --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split; Llama 3 "
    "(Dubey et al. 2024 arXiv:2407.21783 §3.3.2) 'reduce one Transformer layer each from the first and the last "
    "stages'"
)

#: Defaults of optional inputs (echoed under `assumptions` when used).
ZERO_STAGE_DEFAULT = 1  # Megatron-LM distributed optimizer / DeepSpeed ZeRO-1, the common LLM default
RECOMPUTE_DEFAULT = "selective"
FLASH_ATTENTION_SOURCE = (
    'FlashAttention-2 (true = "v2"; "v1": FlashAttention v1 at half its speed; false: none)'
)
DP_OVERLAP_SOURCE = (
    "gradient reduction overlapped with the last backward (Megatron-LM, DeepSpeed without pipeline, FSDP); "
    "false for DeepSpeed's PipelineEngine (GPT-NeoX), which reduces after all backward passes"
)

_DEGREE_CHECKS: tuple[tuple[str, dict[str, int]], ...] = (
    ("tp", {"minimum": 1}),
    ("pp", {"minimum": 1}),
    ("dp", {"minimum": 1}),
    ("cp", {"minimum": 1}),
    ("ep", {"minimum": 1}),
    ("virtual_stages", {"minimum": 1}),
    ("micro_batch", {"minimum": 1}),
    ("zero_stage", {"minimum": 0, "maximum": 3}),
)


def _degrees(p: Fields, *, searching: bool) -> dict[str, Any]:
    """The parallel degrees and recompute mode: values, or (search only) lists of values; None when absent."""
    values = {key: _list_or_int(p, key, searching, **checks) for key, checks in _DEGREE_CHECKS}
    if searching and isinstance(p.raw("recompute"), list):
        rec = p.raw("recompute")
        if not rec or any(r not in RECOMPUTE for r in rec):
            p.problem("recompute", f"must be a list of {', '.join(RECOMPUTE)}")
        values["recompute"] = sorted(set(rec), key=RECOMPUTE.index)
    else:
        values["recompute"] = p.string("recompute", default=None, choices=RECOMPUTE)
    return values


def parse_search_space(
    p: Fields | None, problems: list[Problem], *, default_global_batch: int | None = None
) -> tuple[ParallelismSpec, dict[str, Any]]:
    """Search: each degree fixed (a number), listed (a list) or free (absent); cross-checks are applied per
    configuration by the enumeration (search/layouts.py) instead of here. `global_batch` is required unless a
    default is given (the automatic layout of `estimate`)."""
    p = p or Fields({}, "workload.parallelism", problems, PARALLELISM_KEYS)
    values = _degrees(p, searching=True) if p.ok else {}
    global_batch = None
    if p.ok:
        global_batch = p.number(
            "global_batch", required=default_global_batch is None, integer=True, minimum=1
        )
        if global_batch is None and not p.has("global_batch"):
            global_batch = default_global_batch
    flags = _switches(p) if p.ok else None
    if p.ok and p.has("auto"):
        p.boolean("auto", default=True)
    return ParallelismSpec(global_batch=global_batch or 1, **(flags or {})), values


def wants_auto_layout(p: Fields | None) -> bool:
    """Whether `workload.parallelism` asks for the automatic layout: omitted, `"auto": true`, or no layout in it
    (no degree, ZeRO stage, recompute mode or micro-batch; only the batch or switches) unless `"auto": false`."""
    if p is None:
        return True
    if not p.ok:
        return False
    auto = p.raw("auto")
    return auto is True or (not p.has("auto") and not any(p.has(k) for k in AUTO_SEARCHED_KEYS))


def auto_global_batch(model: ModelSpec | None) -> int:
    """The global batch (sequences) of an automatic layout given none: AUTO_BATCH_TOKENS rounded to a power of
    two of sequences."""
    seq_len = model.seq_len if model is not None else 2048
    return int(2 ** max(round(math.log2(AUTO_BATCH_TOKENS / seq_len)), 0))


def parse_auto_layout(
    p: Fields | None,
    model: ModelSpec | None,
    problems: list[Problem],
    assumptions: dict[str, Any],
) -> tuple[ParallelismSpec, dict[str, Any]]:
    """`"auto": true` (or no `parallelism`): the workload-level switches and the global batch, and the search
    space of the degrees (given ones fixed or listed); `estimate` then picks the layout the search would
    (search/layouts.py `choose_layout`)."""
    default_batch = auto_global_batch(model)
    fixed, space = parse_search_space(p, problems, default_global_batch=default_batch)
    if p is None or not p.has("global_batch"):
        assume(
            assumptions,
            "workload.parallelism.global_batch",
            fixed.global_batch,
            "sequences",
            f"automatic layout: {AUTO_BATCH_TOKENS / 2**20:.0f}M tokens per step rounded to a power of two of "
            "sequences (LLaMA, arXiv:2302.13971 §2.2; Llama 2, arXiv:2307.09288 §2.2)",
        )
    return fixed, {k: v for k, v in space.items() if k in AUTO_SEARCHED_KEYS and v is not None}


def _switches(p: Fields) -> dict[str, Any] | None:
    """The workload-level switches (fixed in a search too) as ParallelismSpec fields; None when one is invalid.

    `flash_attention`: false, true (= "v2") or the version, "v1" or "v2" (perf/efficiency.py). `dp_overlap`: whether
    the data-parallel gradient reduction overlaps the last backward (training/step_time.py `_dp_comm_s`)."""
    sp = p.boolean("sequence_parallel", default=True)
    flash = p.boolean_or_choice("flash_attention", default=True, choices=FLASH_ATTENTION_VERSIONS)
    dp_overlap = p.boolean("dp_overlap", default=True)
    reshard = p.boolean("reshard_after_forward", default=True)
    hsdp = p.boolean("hsdp", default=False)
    split = p.string("pipeline_split", default=PIPELINE_SPLIT_DEFAULT, choices=PIPELINE_SPLITS)
    if sp is None or flash is None or dp_overlap is None or reshard is None or hsdp is None or split is None:
        return None
    return {
        "sequence_parallel": sp,
        "flash_attention": flash is not False,
        "flash_attention_version": flash if isinstance(flash, str) else FLASH_ATTENTION_DEFAULT,
        "dp_overlap": dp_overlap,
        "reshard_after_forward": reshard,
        "hsdp": hsdp,
        "pipeline_split": split,
    }


def _list_or_int(p: Fields, key: str, searching: bool, **checks: Any) -> Any:
    """A parallelism degree: an integer, or (search only) a list of integers."""
    if searching and isinstance(p.raw(key), list):
        values = p.raw(key)
        if not values or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= checks.get("minimum", 0) for v in values
        ):
            p.problem(
                key, f"must be a non-empty list of whole numbers of at least {checks.get('minimum', 0)}"
            )
            return None
        return sorted(set(values))
    return p.number(key, integer=True, **checks)


def parse_parallelism(
    p: Fields | None,
    sc: Scenario,
    model: ModelSpec | None,
    problems: list[Problem],
    assumptions: dict[str, Any],
    warnings: list[str],
) -> ParallelismSpec | None:
    """Read and cross-check one fixed layout."""
    path = join("workload", "parallelism")
    p = p or Fields({}, path, problems, PARALLELISM_KEYS)
    if not p.ok:
        return None
    gpus = sc.cluster.gpus
    values = _degrees(p, searching=False)
    if p.has("auto"):
        p.boolean("auto", default=False)
    global_batch = p.number("global_batch", required=True, integer=True, minimum=1)
    flags = _switches(p)
    if any(values[k] is None and p.has(k) for k in values) or flags is None:
        return None
    tp = values["tp"] or 1
    pp = values["pp"] or 1
    cp = values["cp"] or 1
    ep = values["ep"] or 1
    v = values["virtual_stages"] or 1
    mb = values["micro_batch"] or 1
    zero = ZERO_STAGE_DEFAULT if values["zero_stage"] is None else values["zero_stage"]
    recompute = values["recompute"] or RECOMPUTE_DEFAULT
    for key, value, default, source in (
        (
            "zero_stage",
            values["zero_stage"],
            ZERO_STAGE_DEFAULT,
            "Megatron-LM distributed optimizer (ZeRO-1)",
        ),
        ("recompute", values["recompute"], RECOMPUTE_DEFAULT, "Korthikanti et al. 2022 selective recompute"),
        ("flash_attention", p.raw("flash_attention"), FLASH_ATTENTION_DEFAULT, FLASH_ATTENTION_SOURCE),
        ("dp_overlap", p.raw("dp_overlap"), True, DP_OVERLAP_SOURCE),
        ("pipeline_split", p.raw("pipeline_split"), PIPELINE_SPLIT_DEFAULT, PIPELINE_SPLIT_SOURCE),
    ):
        if value is None:
            assume(assumptions, f"workload.parallelism.{key}", default, "", source)
    problems_before = len(problems)
    dp = layout_problems(
        tp=tp,
        pp=pp,
        dp=values["dp"],
        cp=cp,
        ep=ep,
        v=v,
        mb=mb,
        global_batch=global_batch,
        gpus=gpus if cluster_valid(sc) else None,
        model=model,
        path=path,
        problems=problems,
    )
    if len(problems) > problems_before or global_batch is None:
        return None
    if values["dp"] is None:
        assume(assumptions, "workload.parallelism.dp", dp, "", "derived: gpus / (tp·pp·cp)")
    if cluster_valid(sc) and tp > sc.cluster.gpus_per_node:
        warnings.append(
            f"tp {tp} is larger than a node ({sc.cluster.gpus_per_node} GPUs): tensor-parallel collectives cross "
            "the scale-out network every layer, which is slow"
        )
    if model is not None and tp > model.kv_heads and model.mla is None:
        assume(
            assumptions,
            "workload.parallelism.kv_heads_replicated",
            tp // model.kv_heads,
            "copies",
            "tp > kv_heads: each KV head is replicated on tp/kv_heads ranks (Megatron-Core GQA)",
        )
    return ParallelismSpec(
        tp=tp,
        pp=pp,
        dp=dp,
        cp=cp,
        ep=ep,
        virtual_stages=v,
        zero_stage=zero,
        recompute=recompute,
        micro_batch=mb,
        global_batch=global_batch,
        **flags,
    )


def layout_problems(
    *,
    tp: int,
    pp: int,
    dp: int | None,
    cp: int,
    ep: int,
    v: int,
    mb: int,
    global_batch: int | None,
    gpus: int | None,
    model: ModelSpec | None,
    path: str,
    problems: list[Problem],
) -> int:
    """Cross-field rules of a training layout; returns dp (derived when None). Problems name the field to change.
    `gpus=None` (the cluster itself is invalid) skips the rules that need the GPU count, `global_batch=None` (missing
    or invalid, already reported) the batch rule."""

    def bad(key: str, message: str) -> None:
        problems.append(Problem(f"{path}.{key}", message))

    if gpus is None:
        gpus = tp * pp * cp * (dp or 1)

    for key, value in (("tp", tp), ("pp", pp), ("cp", cp)):
        if gpus % value:
            bad(key, f"must divide gpus (got {value} for {gpus} GPUs)")
    model_parallel = tp * pp * cp
    if dp is None:
        dp = max(gpus // model_parallel, 1)
        if gpus % model_parallel and not any(gpus % x for x in (tp, pp, cp)):
            bad("tp", f"tp·pp·cp = {model_parallel} must divide gpus ({gpus})")
    elif model_parallel * dp != gpus:
        bad("dp", f"tp·pp·dp·cp = {model_parallel * dp} but the cluster has {gpus} GPUs")
    if model is not None:
        if pp > model.layers:
            bad("pp", f"must not exceed the model's layers (got pp {pp} for {model.layers} layers)")
        elif v > 1 and model.layers % (pp * v):
            bad("virtual_stages", f"pp·virtual_stages = {pp * v} must divide layers ({model.layers})")
        if v > 1 and pp == 1:
            bad("virtual_stages", "the interleaved schedule needs pp > 1")
        if model.heads % tp:
            bad("tp", f"must divide the attention heads (got tp {tp} for {model.heads} heads)")
        elif model.mla is None and tp > model.kv_heads and tp % model.kv_heads:
            bad("tp", f"with tp > kv_heads ({model.kv_heads}), kv_heads must divide tp (got tp {tp})")
        elif model.mla is None and tp <= model.kv_heads and model.kv_heads % tp:
            bad("tp", f"must divide kv_heads (got tp {tp} for {model.kv_heads} KV heads)")
        if model.seq_len % cp:
            bad("cp", f"must divide seq_len (got cp {cp} for {model.seq_len})")
        if ep > 1 and model.moe is None:
            bad("ep", "expert parallelism needs a mixture-of-experts model (model.moe)")
        elif model.moe is not None and model.moe.experts % ep:
            bad("ep", f"must divide the experts (got ep {ep} for {model.moe.experts} experts)")
        if ep > 1 and (dp * cp) % ep:
            bad("ep", f"must divide dp·cp = {dp * cp} (expert parallelism is carved from data parallelism)")
    if global_batch is not None and global_batch % (mb * dp):
        bad("global_batch", f"must be a multiple of micro_batch·dp = {mb * dp} (got {global_batch})")
    return dp
