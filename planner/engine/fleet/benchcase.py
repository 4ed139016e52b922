"""The fleet benchmark (make bench; the fleet speed targets): 20 workloads x 6 pools x 8 quarters, and a queue of
100,000 jobs. Printed by planner/engine/bench.py, not asserted."""

from __future__ import annotations

from typing import Any

import numpy as np

from planner.engine.fleet import queues

PERIODS = 8


def fleet_payload() -> dict[str, Any]:
    """3 training runs, 5 inference services, 8 small services and 4 job queues on 6 pools over 8 quarters."""
    grow = [1.0, 1.3, 1.6, 2.0, 2.4, 2.8, 3.2, 3.6]
    pools = [
        {"id": "a100", "gpu": "nvidia_a100_sxm4_80gb", "existing_nodes": 16, "mig": True},
        {"id": "h100", "gpu": "nvidia_h100_sxm5_80gb", "existing_nodes": 8, "mig": True},
        {"id": "h200", "gpu": "nvidia_h200_sxm_141gb"},
        {"id": "b200", "gpu": "nvidia_b200_hgx"},
        {"id": "l40s", "gpu": "nvidia_l40s", "max_nodes": 32, "time_slicing": True},
        {"id": "mi300x", "gpu": "amd_mi300x", "node_usd": 250000},
    ]
    training = [
        {
            "id": "pretrain-70b",
            "model": "llama3.1-70b",
            "tokens_b": 6000,
            "start_period": 0,
            "deadline_period": 3,
        },
        {
            "id": "pretrain-8b",
            "model": "llama3.1-8b",
            "tokens_b": 15000,
            "start_period": 2,
            "deadline_period": 4,
        },
        {"id": "moe", "model": "mixtral-8x7b", "tokens_b": 4000, "start_period": 4, "deadline_period": 7},
    ]
    inference = [
        ("chat-70b", "llama3.1-70b", 80, 1000, 300, 1.0, 0.05),
        ("chat-8b", "llama3.1-8b", 200, 800, 200, 0.5, 0.03),
        ("code-8b", "llama3.1-8b", 120, 2000, 400, 1.0, 0.04),
        ("rag-70b", "llama3.1-70b", 30, 4000, 250, 2.0, 0.06),
        ("mixtral-api", "mixtral-8x7b", 60, 1000, 300, 1.0, 0.05),
    ]
    workloads: list[dict[str, Any]] = [
        {"team": "research", "kind": "training", "reference_gpus": 256, **w} for w in training
    ]
    workloads += [
        {
            "id": name,
            "team": "product",
            "kind": "inference",
            "model": model,
            "precision": "fp8",
            "requests_per_s": [round(rate * g, 2) for g in grow],
            "input_tokens": inp,
            "output_tokens": out,
            "max_ttft_s": ttft,
            "max_tpot_s": tpot,
        }
        for name, model, rate, inp, out, ttft, tpot in inference
    ]
    workloads += [
        {
            "id": f"svc-{i}",
            "team": "platform",
            "kind": "service",
            "gpu_memory_gib": [8, 8, 15, 18, 30, 8, 12, 20][i],
            "gpu_share": [0.125, 0.1, 0.14, 0.25, 0.4, 0.12, 0.14, 0.25][i],
            "replicas": [4 + i + 2 * t for t in range(PERIODS)],
        }
        for i in range(8)
    ]
    workloads += [
        {
            "id": f"queue-{i}",
            "team": "science",
            "kind": "jobs",
            "jobs_per_period": [200 + 50 * t for t in range(PERIODS)],
            "gpus_per_job": [1, 4, 8, 8][i],
            "single_gpu_hours": [2, 12, 24, 40][i],
            "parallel_fraction": [1.0, 0.95, 0.93, 0.9][i],
        }
        for i in range(4)
    ]
    return {
        "horizon": {"periods": PERIODS, "period": "quarter", "start": "2027-Q1"},
        "pools": pools,
        "teams": [
            {"id": "research", "max_share": 0.7},
            {"id": "product", "max_gpus": {"h100": 256}},
            {"id": "platform"},
            {"id": "science", "max_share": 0.3},
        ],
        "workloads": workloads,
        "facility": {"power_mw": [2, 2, 3, 3, 4, 4, 5, 5], "racks": 300, "cooling": "dlc_cold_plate"},
        "economics": {
            "budget_usd": [40e6, 10e6, 20e6, 10e6, 20e6, 10e6, 10e6, 10e6],
            "discount_rate": 0.08,
            "cloud_burst": True,
        },
    }


def queue_case(jobs: int = 100_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """A quarter of mixed jobs (1-8 GPUs, 0.5-24 h) on 256 GPUs at about 85% load."""
    rng = np.random.default_rng(seed)
    period_h = 2191.5
    width = rng.choice(np.array([1, 2, 4, 8]), size=jobs, p=[0.4, 0.2, 0.2, 0.2])
    runtime = rng.lognormal(mean=0.0, sigma=1.0, size=jobs)
    capacity = 256
    runtime *= 0.85 * capacity * period_h / float(np.sum(width * runtime))
    arrival = queues.poisson_arrivals(jobs, period_h, rng)
    return arrival, width, runtime, capacity, period_h
