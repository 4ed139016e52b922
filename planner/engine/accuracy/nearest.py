"""The shipped validation case nearest to a training layout ("state in the result which published
case is nearest to the chosen layout").

Each time-like case of data/validation.csv that is not a hold-out is described by its GPU generation, its layout
family (`layout_family`), its parameter count and its GPU count; the distance to a scenario is

    GENERATION_WEIGHT · [other generation] + FAMILY_WEIGHT · [other family]
    + |log2(params / case params)| + SCALE_WEIGHT · |log2(GPUs / case GPUs)|

so that a case on the same GPU generation and layout family wins over one of a closer size on other hardware
(the two differences that move the engine's error most in `validate`), and a factor of two in model size counts
as much as a factor of four in GPU count. The weights order cases; they are not fitted and no estimate uses them.

This module reads the CSV itself (no engine evaluation), so `estimate` can name the case at no cost.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from planner.engine.inputs.errors import Problem
from planner.engine.inputs.fields import Fields
from planner.engine.inputs.model import parse_model
from planner.engine.transformer.shape import shape_of

DATA = Path(__file__).resolve().parent / "data"
TIME_LIKE = ("korthikanti2022", "megatron2021", "whole_run", "benchmark")
GENERATION_WEIGHT = 4.0
FAMILY_WEIGHT = 2.0
SCALE_WEIGHT = 0.5
#: GPU generations by a needle in the catalog id or name (Hopper parts share the H100's).
GENERATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("a100", ("a100",)),
    ("h100", ("h100", "h200", "h800", "gh200")),
)


@dataclass(frozen=True)
class Case:
    id: str
    group: str
    generation: str
    family: str
    params_b: float
    gpus: int
    source: str


def generation(gpu_key: str) -> str:
    key = gpu_key.lower()
    for name, needles in GENERATIONS:
        if any(n in key for n in needles):
            return name
    return "other"


def layout_family(tp: int, pp: int, zero_stage: int) -> str:
    """ "fsdp" (ZeRO-3, no model parallelism), "megatron" (tensor or pipeline parallel without ZeRO-3), "hybrid"
    (both), "dp" (plain data parallel): the families accuracy/validation.py reports its cases by."""
    model_parallel = tp > 1 or pp > 1
    sharded = zero_stage == 3
    if model_parallel and sharded:
        return "hybrid"
    if sharded:
        return "fsdp"
    return "megatron" if model_parallel else "dp"


def _params_b(row: dict[str, str], extra: dict[str, Any]) -> float:
    if row["model"] in extra:
        model: Any = dict(extra[row["model"]]["model"])
    elif row["model"]:
        model = row["model"]
    else:
        h = int(row["hidden"])
        model = {"layers": int(row["layers"]), "hidden": h, "heads": int(row["heads"]), "vocab": 51200}
    problems: list[Problem] = []
    spec = parse_model(Fields({"model": model}, "workload", problems, ("model",)), problems, {})
    return 0.0 if spec is None else shape_of(spec).total_params / 1e9


@lru_cache(maxsize=1)
def cases() -> tuple[Case, ...]:
    with open(DATA / "models.json", encoding="utf-8") as handle:
        extra = {k: v for k, v in json.load(handle).items() if not k.startswith("_")}
    with open(DATA / "validation.csv", newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["group"] in TIME_LIKE and not r.get("holdout")]
    return tuple(
        Case(
            id=r["id"],
            group=r["group"],
            generation=generation(r["gpu"]),
            family=layout_family(int(r["tp"]), int(r["pp"]), int(r["zero_stage"])),
            params_b=_params_b(r, extra),
            gpus=int(r["gpus"]),
            source=r["source"],
        )
        for r in rows
    )


def distance(case: Case, gen: str, family: str, params_b: float, gpus: int) -> float:
    return (
        GENERATION_WEIGHT * (case.generation != gen)
        + FAMILY_WEIGHT * (case.family != family)
        + abs(math.log2(max(params_b, 1e-3) / max(case.params_b, 1e-3)))
        + SCALE_WEIGHT * abs(math.log2(max(gpus, 1) / max(case.gpus, 1)))
    )


def nearest_case(
    gpu_key: str, tp: int, pp: int, zero_stage: int, params_b: float, gpus: int
) -> dict[str, Any]:
    """The nearest shipped case and how it differs (the `time.nearest_validated_case` output; a fresh copy)."""
    found = _nearest(gpu_key, tp, pp, zero_stage, params_b, gpus)
    return {**found, "differs_in": list(found["differs_in"])}


@lru_cache(maxsize=1024)
def _nearest(gpu_key: str, tp: int, pp: int, zero_stage: int, params_b: float, gpus: int) -> dict[str, Any]:
    gen, family = generation(gpu_key), layout_family(tp, pp, zero_stage)
    best = min(cases(), key=lambda c: distance(c, gen, family, params_b, gpus))
    differs = [
        label
        for label, same in (
            (f"GPU generation ({best.generation})", best.generation == gen),
            (f"layout family ({best.family})", best.family == family),
        )
        if not same
    ]
    return {
        "id": best.id,
        "group": best.group,
        "gpu_generation": best.generation,
        "layout_family": best.family,
        "params_b": best.params_b,
        "gpus": best.gpus,
        "distance": distance(best, gen, family, params_b, gpus),
        "differs_in": differs,
        "source": best.source,
    }
