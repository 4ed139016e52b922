"""Sweep test helpers: engine specs (no database), a loaded catalog, scenarios made with the ORM, and Celery in
eager mode."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command

from planner.celery import app
from planner.models import ParallelismMode, Scenario

H100 = "nvidia_h100_sxm5_80gb"
A100 = "nvidia_a100_sxm4_80gb"
ECONOMICS = {"electricity_usd_per_kwh": 0.08, "years": 5, "utilization": 0.8, "cloud_usd_per_gpu_hour": 2.5}


def engine_spec(**overrides: Any) -> dict[str, Any]:
    """A small pure-engine sweep: Llama 3.1 8B on H100 and A100 nodes, every degree searched but the
    virtual stages and CP (kept small so a test evaluates it in well under a second)."""
    spec: dict[str, Any] = {
        "base": {
            "cluster": {"gpus_per_node": 8},
            "workload": {
                "kind": "training",
                "model": "llama3.1-8b",
                "tokens_b": 1000,
                "precision": "bf16",
                "parallelism": {"global_batch": 512},
            },
            "economics": ECONOMICS,
        },
        "gpus": [
            {
                "label": "H100 SXM5 80GB",
                "catalog_id": H100,
                "cluster": {"gpu": H100},
                "economics": {"gpu_server_usd": 300_000},
            },
            {
                "label": "A100 SXM4 80GB",
                "catalog_id": A100,
                "cluster": {"gpu": A100},
                "economics": {"gpu_server_usd": 150_000},
            },
        ],
        "nodes": [2, 4, 8],
        "space": {"virtual_stages": [1], "cp": [1, 2]},
        "objective": "min_time",
        "constraints": {},
        "top_n": 10,
    }
    spec.update(overrides)
    return spec


def load_catalog() -> None:
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())


@pytest.fixture
def catalog(db) -> None:
    load_catalog()


def make_scenario(owner: Any, **overrides: Any) -> Scenario:
    """A saved training scenario (no stored result: sweeps only read its inputs): Llama 3.1 8B on 2 H100 nodes."""
    fields: dict[str, Any] = {
        "owner": owner,
        "name": "Alice 8B plan",
        "gpu_id": H100,
        "nodes": 2,
        "gpus_per_node": 8,
        "workload_kind": "training",
        "model_preset": "llama3.1-8b",
        "tokens_b": 1000.0,
        "precision": "bf16",
        "parallelism_mode": ParallelismMode.AUTOMATIC,
        "global_batch": 512,
        "electricity_usd_per_kwh": 0.08,
        "years": 5,
        "utilization": 0.8,
    }
    fields.update(overrides)
    return Scenario.objects.create(**fields)


@pytest.fixture
def alice_scenario(catalog, alice) -> Scenario:
    return make_scenario(alice)


@pytest.fixture
def eager() -> Iterator[None]:
    """Run Celery tasks in-process (group.apply_async evaluates every chunk before returning)."""
    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = before
