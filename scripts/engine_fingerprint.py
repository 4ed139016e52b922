"""The engine's answers on a fixed set of inputs, to show that a speed change changes no number.

    .venv/bin/python scripts/engine_fingerprint.py dump > after.json     # in this checkout
    (cd ../before && .venv/bin/python ../this/scripts/engine_fingerprint.py dump) > before.json
    .venv/bin/python scripts/engine_fingerprint.py compare before.json after.json

The set: `make bench`'s cases (estimate, the search, serving, sizing), every shipped validation case, automatic
layouts on dense and MoE models (one node without a scale-out network included), and 400 seeded random layouts
(every degree, ZeRO stage, recompute mode and switch) of 6 presets on 8 to 1,024 GPUs, through `estimate`; an
input the engine refuses is recorded with its message. `compare` exits 1 when a number differs by more than
1e-9 relative or anything else (keys, strings, booleans, messages) differs, and prints how many numbers are
bit-identical. Timings (`elapsed_s`, `solver.elapsed_s`) are left out.
"""

from __future__ import annotations

import copy
import json
import math
import random
import sys
from typing import Any

from planner.engine.api import SpecError, estimate, search, size_service
from planner.engine.bench import H100, SCENARIOS, SEARCH, SERVING_RATE, SIZING

REL_TOL = 1e-9
SKIP_KEYS = {"elapsed_s"}
RANDOM_LAYOUTS = 400
MODELS = ("llama3.1-8b", "llama2-70b", "llama3.1-70b", "gpt3-175b", "mixtral-8x7b", "deepseek-v3")


def _answer(call: Any, payload: Any) -> Any:
    try:
        return call(payload)
    except SpecError as exc:
        return {"error": str(exc)}


def _training(model: str, nodes: int, parallelism: dict[str, Any] | None, **cluster: Any) -> dict[str, Any]:
    workload: dict[str, Any] = {"kind": "training", "model": model, "tokens_b": 1000}
    if parallelism is not None:
        workload["parallelism"] = parallelism
    return {"cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": nodes, **cluster}, "workload": workload}


def _random_layouts(count: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(13)
    out = {}
    for i in range(count):
        model = rng.choice(MODELS)
        nodes = rng.choice((1, 2, 4, 16, 64, 128))
        p: dict[str, Any] = {
            "tp": rng.choice((1, 2, 4, 8)),
            "pp": rng.choice((1, 1, 2, 3, 4, 8, 16)),
            "cp": rng.choice((1, 1, 2, 4)),
            "micro_batch": rng.choice((1, 2, 4)),
            "zero_stage": rng.choice((0, 1, 2, 3)),
            "recompute": rng.choice(("none", "selective", "full")),
            "global_batch": rng.choice((256, 512, 1024, 4096)),
            "sequence_parallel": rng.random() < 0.5,
            "flash_attention": rng.random() < 0.8,
            "dp_overlap": rng.random() < 0.8,
            "reshard_after_forward": rng.random() < 0.7,
            "hsdp": rng.random() < 0.2,
        }
        framework = rng.choice(("typical", "megatron", "fsdp", "deepspeed"))
        if p["pp"] > 1 and rng.random() < 0.3:
            p["virtual_stages"] = rng.choice((2, 4))
        if model in ("mixtral-8x7b", "deepseek-v3"):
            p["ep"] = rng.choice((1, 2, 4, 8))
        gpus = nodes * 8
        p["dp"] = max(gpus // (p["tp"] * p["pp"] * p["cp"]), 1)
        payload = _training(model, nodes, p)
        payload["workload"]["framework"] = framework
        out[f"random {i}: {model} on {gpus} GPUs"] = payload
    return out


def fingerprint() -> dict[str, Any]:
    from planner.engine.accuracy.validation import load_rows, payload_for
    from planner.engine.api import evaluate
    from planner.engine.inputs.parse import parse

    out: dict[str, Any] = {}
    for name, payload in SCENARIOS.items():
        out[f"bench {name}"] = _answer(estimate, payload)
    out["bench serving at a rate"] = _answer(estimate, SERVING_RATE)
    out["bench search"] = _answer(search, SEARCH)
    out["bench sizing"] = _answer(size_service, SIZING)
    moe_search = copy.deepcopy(SEARCH)
    moe_search["workload"]["model"] = "mixtral-8x7b"
    moe_search.pop("economics")
    moe_search["search"] = {"nodes": [2, 8], "objective": "min_cost", "max_results": 20}
    out["search mixtral, no economics, min_cost"] = _answer(search, moe_search)
    for row in load_rows():
        out[f"validation {row['id']}"] = _answer(
            lambda p: evaluate(parse(p), time_without_fit=True), payload_for(row)
        )
    autos = {
        "auto llama3.1-70b on 64 H100": _training("llama3.1-70b", 8, None),
        "auto llama3.1-8b on 8 H100, no scale-out": _training(
            "llama3.1-8b", 1, {"auto": True, "global_batch": 64}, scaleout_gbps_per_gpu=0
        ),
        "auto mixtral on 32 H100, tp fixed": _training("mixtral-8x7b", 4, {"auto": True, "tp": 2}),
        "auto deepseek-v3 on 256 H100": _training("deepseek-v3", 32, {"auto": True}),
        "auto gpt3-175b on 8 H100 (does not fit)": _training("gpt3-175b", 1, None),
    }
    for name, payload in {**autos, **_random_layouts(RANDOM_LAYOUTS)}.items():
        out[name] = _answer(estimate, payload)
    return out


def compare(a: Any, b: Any, path: str, problems: list[str], counts: list[int]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            problems.append(f"{path}: keys differ: {sorted(set(a) ^ set(b))}")
        for k in set(a) & set(b):
            if k not in SKIP_KEYS:
                compare(a[k], b[k], f"{path}.{k}", problems, counts)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{path}: lengths differ: {len(a)} vs {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            compare(x, y, f"{path}[{i}]", problems, counts)
    elif isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool | None):
        counts[0] += 1
        if a == b or (math.isnan(a) and math.isnan(b)):
            counts[1] += 1
        elif not math.isclose(a, b, rel_tol=REL_TOL, abs_tol=0.0):
            problems.append(f"{path}: {a!r} vs {b!r}")
    elif a != b or type(a) is not type(b):
        problems.append(f"{path}: {a!r} vs {b!r}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["dump"]:
        json.dump(fingerprint(), sys.stdout, sort_keys=True, indent=0)
        return 0
    if argv[:1] == ["compare"] and len(argv) == 3:
        with open(argv[1]) as f1, open(argv[2]) as f2:
            before, after = json.load(f1), json.load(f2)
        problems: list[str] = []
        counts = [0, 0]
        compare(before, after, "", problems, counts)
        errors = sum(1 for v in before.values() if isinstance(v, dict) and "error" in v)
        print(
            f"{len(before)} answers ({errors} refused inputs), {counts[0]:,} numbers, {counts[1]:,} bit-identical"
        )
        for p in problems[:50]:
            print("DIFFERS", p)
        print(f"{len(problems)} differences beyond {REL_TOL:g} relative")
        return 1 if problems else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
