"""Catalog test helpers: a loaded catalog and plain `make_*` factories with readable defaults."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command

from catalog.models import Gpu, System


def run_load_catalog(*args: str) -> str:
    """Run `manage.py load_catalog` and return what it printed."""
    out = io.StringIO()
    call_command("load_catalog", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def catalog(db) -> str:
    """The whole seed catalog loaded into the test database; returns the command's output."""
    return run_load_catalog()


def make_gpu(**overrides: Any) -> Gpu:
    values: dict[str, Any] = {
        "id": "test_gpu_80gb",
        "vendor": "Testvendor",
        "model": "Test GPU 80GB",
        "memory_gb": 80.0,
        "memory_type": "HBM3",
        "mem_bandwidth_tbs": 3.0,
        "bf16_tflops": 500.0,
        "fp16_tflops": 500.0,
        "tdp_w": 500.0,
        "source": "https://example.com/test-gpu-datasheet",
        "verified": True,
    }
    values.update(overrides)
    gpu = Gpu(**values)
    gpu.full_clean()
    gpu.save()
    return gpu


def make_system(**overrides: Any) -> System:
    values: dict[str, Any] = {
        "id": "test_system",
        "vendor": "Testvendor",
        "name": "Test Server",
        "gpus": 8,
        "source": "https://example.com/test-server",
    }
    values.update(overrides)
    system = System(**values)
    system.full_clean()
    system.save()
    return system
