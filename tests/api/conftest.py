"""API test helpers: DRF clients per persona (token-authenticated), a cleared rate-limit cache, payloads."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import Gpu
from planner.api.economics import economics_memo_clear
from planner.api.schemas import CATALOG_EXAMPLE, CONTRACT_EXAMPLE
from planner.api.services import gpu_memo_clear
from tests.sweeps.conftest import alice_scenario, catalog, eager  # noqa: F401 (fixtures for the sweep API)

ESTIMATE_URL = "/api/estimate/"
CATALOG_GPU_ID = "nvidia_h100_sxm5_80gb"


@pytest.fixture(autouse=True)
def _fresh_caches() -> Any:
    """Throttle counters live in the cache and resolved catalog GPUs and economics rows in per-process memos:
    every test starts (and ends) with none, since a rolled-back test row sends no signal."""
    cache.clear()
    gpu_memo_clear()
    economics_memo_clear()
    yield
    cache.clear()
    gpu_memo_clear()
    economics_memo_clear()


def token_client(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def anon_api() -> APIClient:
    return APIClient()


@pytest.fixture
def alice_api(alice) -> APIClient:
    return token_client(alice)


@pytest.fixture
def staff_api(staff) -> APIClient:
    return token_client(staff)


def contract_payload(**section_overrides: dict[str, Any]) -> dict[str, Any]:
    """The contract's example input, with top-level sections merged over (e.g. workload={...})."""
    payload = copy.deepcopy(CONTRACT_EXAMPLE)
    for section, values in section_overrides.items():
        payload.setdefault(section, {}).update(values)
    return payload


def catalog_payload() -> dict[str, Any]:
    return copy.deepcopy(CATALOG_EXAMPLE)


def make_gpu(**overrides: Any) -> Gpu:
    values: dict[str, Any] = {
        "id": "test_gpu_80gb",
        "vendor": "Testvendor",
        "model": "Test GPU 80GB",
        "memory_gb": 80.0,
        "mem_bandwidth_tbs": 3.0,
        "bf16_tflops": 500.0,
        "fp16_tflops": 500.0,
        "tdp_w": 500.0,
        "price_usd": 25000.0,
        "source": "https://example.com/test-gpu-datasheet",
    }
    values.update(overrides)
    gpu = Gpu(**values)
    gpu.full_clean()
    gpu.save()
    return gpu
