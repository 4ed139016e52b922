"""The ORM-to-engine boundary: the payload a scenario sends, the catalog values it records, and the mapping of
engine problem paths back to form fields."""

from __future__ import annotations

import statistics

import pytest

from catalog.models import Cooling, EconomicsFact, Gpu, Interconnect, Switch, System
from catalog.price_models import CloudPrice
from planner import adapters
from planner import snapshot as snapshots
from planner.models import Scenario
from tests.planner.conftest import scenario_inputs

pytestmark = pytest.mark.django_db


def _scenario(starter: str = "llama70b-h100", **overrides) -> Scenario:
    scenario = Scenario()
    for name, value in scenario_inputs(starter, **overrides).items():
        setattr(scenario, name, value)
    return scenario


def test_catalog_gpu_scenario_payload_has_the_contract_shape(catalog):
    payload = adapters.scenario_payload(_scenario(parallelism_mode="manual", tp=8, pp=2, global_batch=512))
    assert set(payload) == {"cluster", "workload", "economics"}
    h100 = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    gpu = payload["cluster"]["gpu"]
    assert gpu["name"] == h100.model
    assert gpu["memory_gb"] == h100.memory_gb
    assert gpu["memory_bandwidth_tbs"] == h100.mem_bandwidth_tbs
    assert gpu["tflops"]["bf16"] == h100.bf16_tflops and gpu["tflops"]["fp8"] == h100.fp8_tflops
    assert gpu["tdp_w"] == h100.tdp_w and gpu["scaleup_bandwidth_gbs"] == h100.scaleup_bw_gbs
    assert gpu["price_usd"] == h100.price_usd
    assert all(v is not None for v in gpu["tflops"].values())
    cluster = payload["cluster"]
    assert (cluster["nodes"], cluster["gpus_per_node"]) == (8, 8)
    assert cluster["scaleout_gbps_per_gpu"] == Interconnect.objects.get(pk="ib_ndr").port_rate_gbps
    qm9700 = Switch.objects.get(pk="nvidia_qm9700")
    assert cluster["network"]["topology"] == "rail_optimized"
    assert cluster["network"]["switch"]["ports"] == qm9700.ports
    assert cluster["network"]["switch"]["port_gbps"] == qm9700.port_speed_gbps
    workload = payload["workload"]
    assert workload == {
        "kind": "training",
        "model": "llama3.1-70b",
        "precision": "bf16",
        "tokens_b": 15_000.0,
        "optimizer": "adamw",
        "parallelism": {
            "tp": 8,
            "pp": 2,
            "cp": 1,
            "ep": 1,
            "zero_stage": 1,
            "recompute": "selective",
            "micro_batch": 1,
            "global_batch": 512,
        },
    }
    economics = payload["economics"]
    assert (
        economics["electricity_usd_per_kwh"] == EconomicsFact.objects.get(pk="elec_us_industrial_2023").value
    )
    assert economics["colocation_usd_per_kw_month"] == EconomicsFact.objects.get(pk="colo_na_2024h2").value
    assert (economics["years"], economics["utilization"], economics["discount_rate"]) == (5, 0.8, 0.0)
    # No server or cloud price typed: catalog GPU price plus host parts, and the published rental midpoint.
    host_per_slot = adapters.HOST_BOM_USD_PER_8_GPU_SERVER / adapters.HOST_BOM_GPU_SLOTS
    assert economics["gpu_server_usd"] == pytest.approx(8 * (h100.price_usd + host_per_slot))
    # The rental price is the median of the H100's on-demand rows in the catalog's cloud prices.
    on_demand = sorted(
        CloudPrice.objects.filter(gpu_id="nvidia_h100_sxm5_80gb", term="on_demand").values_list(
            "usd_per_gpu_hour", flat=True
        )
    )
    assert len(on_demand) >= 3
    assert economics["cloud_usd_per_gpu_hour"] == pytest.approx(statistics.median(on_demand))
    notes = {n["name"]: n for n in adapters.planning_inputs(_scenario())}
    assert set(notes) == {"economics.gpu_server_usd", "economics.cloud_usd_per_gpu_hour"}
    assert "epoch-research" in notes["economics.gpu_server_usd"]["source"]
    assert "street price" in notes["economics.gpu_server_usd"]["source"]  # what the GPU price is
    assert "AWS" in notes["economics.cloud_usd_per_gpu_hour"]["source"]
    assert "1-year commitment from" in notes["economics.cloud_usd_per_gpu_hour"]["source"]


def test_typed_prices_are_used_and_not_reported_as_defaults(catalog):
    scenario = _scenario(server_price_usd=310_000, cloud_usd_per_gpu_hour=2.2)
    economics = adapters.scenario_payload(scenario)["economics"]
    assert (economics["gpu_server_usd"], economics["cloud_usd_per_gpu_hour"]) == (310_000, 2.2)
    assert adapters.planning_inputs(scenario) == []


def test_system_template_supplies_gpu_power_and_price(catalog):
    payload = adapters.scenario_payload(_scenario(gpu_source="system", system="nvidia_dgx_b200"))
    system = System.objects.get(pk="nvidia_dgx_b200")
    assert payload["cluster"]["gpu"]["name"] == system.gpu.model
    assert payload["cluster"]["gpus_per_node"] == system.gpus
    assert payload["cluster"]["node_max_power_kw"] == system.system_max_power_kw
    if system.price_usd is not None:
        assert payload["economics"]["gpu_server_usd"] == system.price_usd
    else:  # no published DGX B200 price: the GPUs at their catalog price plus host parts
        host_per_slot = adapters.HOST_BOM_USD_PER_8_GPU_SERVER / adapters.HOST_BOM_GPU_SLOTS
        expected = system.gpus * (system.gpu.price_usd + host_per_slot)
        assert payload["economics"]["gpu_server_usd"] == pytest.approx(expected)


def test_overrides_and_own_facility(catalog):
    payload = adapters.scenario_payload(
        _scenario(
            facility="own",
            electricity_usd_per_kwh=0.05,
            server_price_usd=320_000,
            cooling="dlc_cold_plate",
            pue=1.15,
            storage_tb=500,
        )
    )
    assert "colocation_usd_per_kw_month" not in payload["economics"]  # own facility: the engine's default
    assert payload["economics"]["electricity_usd_per_kwh"] == 0.05
    assert payload["economics"]["gpu_server_usd"] == 320_000
    assert payload["cluster"]["cooling"] == {"name": "dlc_cold_plate", "pue": 1.15}
    assert payload["cluster"]["storage_tb"] == 500


def test_inference_and_job_payloads(catalog):
    serving = adapters.scenario_payload(_scenario("llama8b-serving"))["workload"]
    assert serving == {
        "kind": "inference",
        "model": "llama3.1-8b",
        "precision": "bf16",
        "parallelism": {"tp": 1, "pp": 1},
        "serving": {
            "batching": "continuous",
            "context_len": 4096,
            "output_len": 512,
            "requests_per_s": 10.0,
            "max_ttft_s": 2.0,
            "max_tpot_s": 0.05,
        },
    }
    job = adapters.scenario_payload(_scenario("md-job"))["workload"]
    assert job == {
        "kind": "job",
        "job": {"single_gpu_hours": 12.0, "parallel_fraction": 0.95, "scaling": "amdahl"},
    }


def test_search_payload_searches_every_layout_on_the_scenarios_gpus(catalog):
    scenario = _scenario(global_batch=1024)
    payload = adapters.search_payload(scenario)
    assert payload["workload"]["parallelism"] == {"global_batch": 1024}
    assert payload["search"]["nodes"] == [8]
    assert payload["search"]["gpus"] == [payload["cluster"]["gpu"]]
    assert payload["search"]["objective"] == "min_time"
    assert "economics" not in payload  # the fastest layout does not depend on prices
    chosen = adapters.with_parallelism(adapters.scenario_payload(scenario), {"tp": 4, "pp": 4, "step_s": 3.0})
    assert chosen["workload"]["parallelism"]["tp"] == 4 and "step_s" not in chosen["workload"]["parallelism"]


def test_snapshot_records_rows_and_detects_changes(catalog):
    scenario = _scenario(cooling="air_crac_crah")
    before = snapshots.catalog_snapshot(scenario)
    assert set(before) >= {"gpu", "network", "switch", "cooling", "electricity", "colocation"}
    assert snapshots.catalog_changes(before, snapshots.catalog_snapshot(scenario)) == []
    assert snapshots.snapshot_hash(before) == snapshots.snapshot_hash(snapshots.catalog_snapshot(scenario))
    fact = EconomicsFact.objects.get(pk="elec_us_industrial_2023")
    fact.value = 0.1
    fact.save()
    scenario.electricity = fact
    after = snapshots.catalog_snapshot(scenario)
    [change] = snapshots.catalog_changes(before, after)
    assert (change.role, change.field, change.new) == ("electricity", "value", 0.1)
    assert snapshots.snapshot_hash(before) != snapshots.snapshot_hash(after)
    assert Cooling.objects.filter(pk="air_crac_crah").exists()


@pytest.mark.parametrize(
    ("path", "custom_gpu", "custom_model", "field"),
    [
        ("workload.parallelism.tp", False, False, "tp"),
        ("workload.parallelism.global_batch", False, False, "global_batch"),
        ("workload.precision", False, False, "precision"),
        ("cluster.nodes", False, False, "nodes"),
        ("cluster.gpu.tflops.fp8", False, False, "gpu"),
        ("cluster.gpu.memory_gb", True, False, "custom_gpu_memory_gb"),
        ("workload.model", False, False, "model_preset"),
        ("workload.model.heads", False, True, "custom_model_heads"),
        ("workload.serving.context_len", False, False, "context_len"),
        ("economics.utilization", False, False, "utilization_pct"),
        ("economics.colocation_usd_per_kw_month", False, False, "colocation"),
        ("cluster.network.switch.ports", False, False, "switch"),
        ("something.unknown", False, False, None),
    ],
)
def test_engine_paths_map_to_form_fields(path, custom_gpu, custom_model, field):
    assert adapters.field_for_path(path, custom_gpu=custom_gpu, custom_model=custom_model) == field


def test_eight_dgx_h100_from_the_gpu_or_the_template_give_the_same_racks_and_provisioned_power(catalog):
    """Issue 15: 5 racks / 62 kW from the GPU catalog against 9 racks from the DGX H100 template."""
    from planner.engine import api

    manual = {"parallelism_mode": "manual", "tp": 8, "pp": 2, "global_batch": 512}
    from_gpu = adapters.scenario_payload(_scenario(**manual))
    from_template = adapters.scenario_payload(
        _scenario(gpu_source="system", system="nvidia_dgx_h100", gpu=None, **manual)
    )
    assert from_gpu["cluster"]["node_nameplate_kw"] == pytest.approx(10.2)
    assert from_template["cluster"]["node_max_power_kw"] == 10.2
    power_gpu, power_template = api.estimate(from_gpu)["power"], api.estimate(from_template)["power"]
    assert power_gpu["racks"] == power_template["racks"]
    assert power_gpu["provisioning"] == power_template["provisioning"]
    assert power_gpu["provisioning"]["it_nameplate_kw"] >= 81.6
    assert power_gpu["provisioning"]["redundancy"] == "2N"
