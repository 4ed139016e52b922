"""Engine tests: fast, no database. Catalog ids resolve from catalog/seed/gpus.csv; while that file is missing (it
is built by another task) they resolve from a copy under tests/engine/fixtures/."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from planner.engine.inputs import catalog

FIXTURE_GPUS = Path(__file__).parent / "fixtures" / "gpus.csv"

H100: dict[str, Any] = {
    "name": "H100 SXM5 80GB",
    "memory_gb": 80,
    "memory_bandwidth_tbs": 3.35,
    "tflops": {"fp32": 67, "tf32": 494.5, "bf16": 989, "fp16": 989, "fp8": 1979},
    "tdp_w": 700,
    "scaleup_bandwidth_gbs": 900,
}
TRAIN: dict[str, Any] = {
    "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 4, "scaleout_gbps_per_gpu": 400, "pue": 1.3},
    "workload": {
        "kind": "training",
        "model": {
            "layers": 32,
            "hidden": 4096,
            "heads": 32,
            "kv_heads": 8,
            "ffn_hidden": 14336,
            "ffn_type": "swiglu",
            "vocab": 128256,
            "seq_len": 8192,
        },
        "tokens_b": 1000,
        "precision": "bf16",
        "optimizer": "adam",
        "parallelism": {
            "tp": 2,
            "pp": 1,
            "dp": 16,
            "zero_stage": 1,
            "recompute": "selective",
            "micro_batch": 1,
            "global_batch": 512,
        },
    },
    "economics": {
        "electricity_usd_per_kwh": 0.1,
        "years": 5,
        "utilization": 0.7,
        "gpu_server_usd": 280000,
        "cloud_usd_per_gpu_hour": 3.0,
    },
}
INFER: dict[str, Any] = {
    "cluster": {"gpu": H100, "gpus_per_node": 8, "nodes": 1, "scaleout_gbps_per_gpu": 400},
    "workload": {
        "kind": "inference",
        "model": TRAIN["workload"]["model"],
        "precision": "bf16",
        "parallelism": {"tp": 1, "pp": 1},
        "serving": {"batch": 16, "context_len": 4000, "output_len": 500},
    },
}


@pytest.fixture(autouse=True)
def _gpu_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    if not catalog.GPU_SEED_PATH.exists():
        monkeypatch.setattr(catalog, "GPU_SEED_PATH", FIXTURE_GPUS)


@pytest.fixture
def train() -> dict[str, Any]:
    return copy.deepcopy(TRAIN)


@pytest.fixture
def infer() -> dict[str, Any]:
    return copy.deepcopy(INFER)
