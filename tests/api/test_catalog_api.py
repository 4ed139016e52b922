"""Catalog API per persona: anonymous is refused, alice reads, staff write; bad values are 400 naming the field
and save nothing; writes mark the row locally_edited."""

from __future__ import annotations

import pytest

from catalog.models import Cooling, Gpu, Switch
from catalog.price_models import CloudPrice
from planner.models import Scenario
from tests.api.conftest import make_gpu

pytestmark = pytest.mark.django_db

GPUS_URL = "/api/catalog/gpus/"
GPU_URL = "/api/catalog/gpus/test_gpu_80gb/"
ENDPOINTS = ("gpus", "cpus", "interconnects", "switches", "systems", "cooling", "economics")


def new_gpu(**overrides: object) -> dict[str, object]:
    values: dict[str, object] = {
        "id": "new_gpu_141gb",
        "vendor": "Newvendor",
        "model": "New GPU 141GB",
        "memory_gb": 141.0,
        "mem_bandwidth_tbs": 4.8,
        "bf16_tflops": 989.0,
        "tdp_w": 700.0,
        "source": "https://example.com/new-gpu",
    }
    values.update(overrides)
    return values


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_anonymous_cannot_read_any_catalog_list(anon_api, endpoint):
    assert anon_api.get(f"/api/catalog/{endpoint}/").status_code == 401


def test_anonymous_cannot_write(anon_api):
    make_gpu()
    assert anon_api.post(GPUS_URL, new_gpu(), format="json").status_code == 401
    assert anon_api.delete(GPU_URL).status_code == 401
    assert Gpu.objects.count() == 1


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_alice_reads_every_catalog_list(alice_api, endpoint):
    response = alice_api.get(f"/api/catalog/{endpoint}/")
    assert response.status_code == 200
    assert isinstance(response.json(), list)


def test_alice_reads_a_gpu_by_its_string_id(alice_api):
    make_gpu()
    response = alice_api.get(GPU_URL)
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "test_gpu_80gb" and body["memory_gb"] == 80.0
    assert body["source"] == "https://example.com/test-gpu-datasheet"


def test_an_unknown_id_is_404(alice_api):
    assert alice_api.get("/api/catalog/gpus/no_such_gpu/").status_code == 404


def test_alice_cannot_write_the_catalog(alice_api):
    make_gpu()
    assert alice_api.post(GPUS_URL, new_gpu(), format="json").status_code == 403
    assert alice_api.patch(GPU_URL, {"memory_gb": 1.0}, format="json").status_code == 403
    assert alice_api.put(GPU_URL, new_gpu(id="test_gpu_80gb"), format="json").status_code == 403
    assert alice_api.delete(GPU_URL).status_code == 403
    gpu = Gpu.objects.get()
    assert gpu.memory_gb == 80.0 and not gpu.locally_edited


def test_staff_create_a_gpu_marked_locally_edited(staff_api):
    response = staff_api.post(GPUS_URL, new_gpu(locally_edited=False), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["locally_edited"] is True
    assert Gpu.objects.get(pk="new_gpu_141gb").locally_edited


def test_staff_update_a_gpu_and_it_is_marked_locally_edited(staff_api):
    make_gpu()
    response = staff_api.patch(GPU_URL, {"memory_gb": 96.0}, format="json")
    assert response.status_code == 200, response.content
    gpu = Gpu.objects.get()
    assert gpu.memory_gb == 96.0 and gpu.locally_edited
    response = staff_api.put(GPU_URL, new_gpu(id="test_gpu_80gb", memory_gb=94.0), format="json")
    assert response.status_code == 200, response.content
    assert Gpu.objects.get().memory_gb == 94.0


def test_staff_delete_a_gpu(staff_api):
    make_gpu()
    assert staff_api.delete(GPU_URL).status_code == 204
    assert not Gpu.objects.exists()


def test_deleting_a_gpu_a_scenario_uses_is_409_and_keeps_it(staff_api, alice):
    gpu = make_gpu()
    Scenario.objects.create(owner=alice, name="uses the GPU", gpu=gpu)
    response = staff_api.delete(GPU_URL)
    assert response.status_code == 409
    assert "1 saved scenario" in response.json()["detail"]
    assert Gpu.objects.filter(pk=gpu.pk).exists()


BAD_GPUS = {
    "negative memory": (new_gpu(memory_gb=-5), "memory_gb"),
    "memory as text": (new_gpu(memory_gb="lots"), "memory_gb"),
    "price low above high": (new_gpu(price_low_usd=40000, price_high_usd=30000), "price_low_usd"),
    "price outside its range": (
        new_gpu(price_usd=50000, price_low_usd=30000, price_high_usd=40000),
        "price_usd",
    ),
    "launch year 1800": (new_gpu(launch_year=1800), "launch_year"),
    "id with capitals and spaces": (new_gpu(id="New GPU!"), "id"),
    "source that is not a URL": (new_gpu(source="the vendor told me"), "source"),
    "missing source": ({k: v for k, v in new_gpu().items() if k != "source"}, "source"),
    "NUL character in the model": (new_gpu(model="H100\x00"), "model"),
    "PCIe generation past the integer range": (new_gpu(pcie_gen=10**30), "pcie_gen"),
    "existing id": (new_gpu(id="test_gpu_80gb"), "id"),
}


@pytest.mark.parametrize("name", list(BAD_GPUS))
def test_bad_values_answer_400_naming_the_field_and_save_nothing(staff_api, name):
    make_gpu()
    payload, field = BAD_GPUS[name]
    response = staff_api.post(GPUS_URL, payload, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert field in errors and errors[field], errors
    assert list(Gpu.objects.values_list("pk", flat=True)) == ["test_gpu_80gb"]
    assert not Gpu.objects.get().locally_edited


def test_a_bad_update_changes_nothing(staff_api):
    make_gpu(price_usd=25000)
    response = staff_api.patch(GPU_URL, {"memory_gb": 90, "price_low_usd": 30000}, format="json")
    assert response.status_code == 400
    assert "price_usd" in response.json()["errors"]  # 25000 now lies below the new low end
    gpu = Gpu.objects.get()
    assert gpu.memory_gb == 80.0 and gpu.price_low_usd is None and not gpu.locally_edited


def test_the_id_of_an_existing_row_cannot_change(staff_api):
    make_gpu()
    response = staff_api.put(GPU_URL, new_gpu(id="renamed_gpu"), format="json")
    assert response.status_code == 400
    assert "cannot change" in response.json()["errors"]["id"][0]
    assert list(Gpu.objects.values_list("pk", flat=True)) == ["test_gpu_80gb"]


def test_cooling_pue_below_one_is_refused(staff_api):
    payload = {"id": "magic_cooling", "category": "cooling technology", "name": "Magic", "pue_low": 0.9}
    payload["source"] = "https://example.com/cooling"
    response = staff_api.post("/api/catalog/cooling/", payload, format="json")
    assert response.status_code == 400
    assert "below 1.0" in response.json()["errors"]["pue_low"][0]
    assert not Cooling.objects.exists()


def test_staff_create_a_switch(staff_api):
    payload = {"id": "test_switch", "vendor": "V", "model": "S64", "ports": 64, "port_speed_gbps": 400}
    payload["source"] = "https://example.com/switch"
    response = staff_api.post("/api/catalog/switches/", payload, format="json")
    assert response.status_code == 201, response.content
    assert Switch.objects.get().locally_edited


def test_the_gpu_list_costs_a_fixed_number_of_queries(alice_api, django_assert_max_num_queries):
    for index in range(12):
        make_gpu(id=f"test_gpu_{index}", model=f"Test GPU {index}")
    with django_assert_max_num_queries(3):  # token lookup + the list (+ a savepoint at most)
        response = alice_api.get(GPUS_URL)
    assert len(response.json()) == 12


def test_a_reference_holding_a_nul_character_is_400_naming_the_field(staff_api):
    """A cloud price whose `gpu` id holds NUL names no GPU: 400 on the field, nothing saved (PostgreSQL cannot
    compare text holding NUL, so the id is refused before the lookup; schemathesis found the 500)."""
    make_gpu()
    payload = {
        "id": "nul_price",
        "gpu": "test_gpu\x0080gb",
        "provider": "Example",
        "term": "on_demand",
        "usd_per_gpu_hour": 2.5,
        "source": "https://example.com/prices",
    }
    response = staff_api.post("/api/catalog/cloud_prices/", payload, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert "gpu" in errors and errors["gpu"], errors
    assert not CloudPrice.objects.exists()
