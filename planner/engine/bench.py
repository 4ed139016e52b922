"""`python -m planner.engine.bench` (make bench): the engine's speed, printed, not asserted.

Targets (issue #3): `estimate` median <= 2 ms per scenario in-process; `search` >= 100,000 configurations
evaluated per second on a 2-core machine (Calculon: ~170 per second per core).
"""

from __future__ import annotations

import statistics
import sys
from time import perf_counter
from typing import Any, TextIO

from planner.engine.api import estimate, search

H100 = {
    "name": "H100 SXM5 80GB",
    "memory_gb": 80,
    "memory_bandwidth_tbs": 3.35,
    "tflops": {"fp32": 67, "tf32": 494.5, "bf16": 989, "fp16": 989, "fp8": 1979},
    "tdp_w": 700,
    "scaleup_bandwidth_gbs": 900,
    "price_usd": 27500,
}
A100 = {
    **H100,
    "name": "A100 SXM4 80GB",
    "memory_bandwidth_tbs": 2.039,
    "tflops": {"fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312},
    "tdp_w": 400,
    "scaleup_bandwidth_gbs": 600,
}
ECONOMICS = {
    "electricity_usd_per_kwh": 0.1,
    "years": 5,
    "utilization": 0.7,
    "gpu_server_usd": 300000,
    "cloud_usd_per_gpu_hour": 2.5,
}

SCENARIOS: dict[str, dict[str, Any]] = {
    "training llama3.1-70b, 128 H100, TP8 PP2": {
        "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 16},
        "workload": {
            "kind": "training",
            "model": "llama3.1-70b",
            "tokens_b": 2000,
            "parallelism": {"tp": 8, "pp": 2, "micro_batch": 1, "global_batch": 1024},
        },
        "economics": ECONOMICS,
    },
    "training deepseek-v3 (MoE), 2048 H100, TP1 PP16 EP64": {
        "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 256},
        "workload": {
            "kind": "training",
            "model": "deepseek-v3",
            "tokens_b": 14800,
            "parallelism": {
                "tp": 1,
                "pp": 16,
                "ep": 64,
                "zero_stage": 1,
                "recompute": "full",
                "global_batch": 15360,
            },
        },
        "economics": ECONOMICS,
    },
    "inference llama2-70b, 8 H100, TP8": {
        "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 1},
        "workload": {
            "kind": "inference",
            "model": "llama2-70b",
            "parallelism": {"tp": 8},
            "serving": {"batch": 32, "context_len": 4000, "output_len": 500, "target_tokens_per_s": 10000},
        },
        "economics": ECONOMICS,
    },
    "job (Amdahl), 64 GPUs": {
        "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 8},
        "workload": {"kind": "job", "job": {"single_gpu_hours": 500, "parallel_fraction": 0.98}},
        "economics": ECONOMICS,
    },
}
SEARCH: dict[str, Any] = {
    "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 16},
    "workload": {
        "kind": "training",
        "model": "llama3.1-70b",
        "tokens_b": 2000,
        "parallelism": {"global_batch": 1024},
    },
    "economics": ECONOMICS,
    "search": {"gpus": [H100, A100], "nodes": [16, 32, 64, 128], "objective": "min_time", "max_results": 10},
}
ESTIMATE_REPEATS = 300
SEARCH_REPEATS = 3


def bench_estimate(payload: dict[str, Any], repeats: int = ESTIMATE_REPEATS) -> float:
    """Median wall time of one in-process estimate, in seconds (after one warm-up call)."""
    estimate(payload)
    times = []
    for _ in range(repeats):
        t0 = perf_counter()
        estimate(payload)
        times.append(perf_counter() - t0)
    return statistics.median(times)


def bench_search(payload: dict[str, Any], repeats: int = SEARCH_REPEATS) -> tuple[int, float]:
    """(configurations evaluated, best wall time of the whole search call in seconds)."""
    search(payload)
    best = float("inf")
    evaluated = 0
    for _ in range(repeats):
        t0 = perf_counter()
        result = search(payload)
        best = min(best, perf_counter() - t0)
        evaluated = result["evaluated"]
    return evaluated, best


def main(out: TextIO = sys.stdout) -> int:
    print(f"estimate (in-process, median of {ESTIMATE_REPEATS} calls; target <= 2 ms)", file=out)
    for name, payload in SCENARIOS.items():
        print(f"  {name:58} {1e3 * bench_estimate(payload):7.3f} ms", file=out)
    evaluated, seconds = bench_search(SEARCH)
    print(
        f"search (whole call incl. parsing and ranking, best of {SEARCH_REPEATS}; target >= 100,000/s)",
        file=out,
    )
    print(
        f"  llama3.1-70b, 2 GPU types x 4 node counts, every free degree: {evaluated:,} configurations "
        f"in {seconds:.3f} s = {evaluated / seconds:,.0f} configurations/s",
        file=out,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
