"""Power as a facility provisions it (issue 15, point 2): nameplate per node from the system row or its parts,
racks from provisioned kW, redundancy stated, UPS and generators sized; power capping with its throughput cost."""

from __future__ import annotations

import copy

import pytest

from planner.engine import api
from planner.engine.facility import power
from planner.engine.inputs import catalog
from planner.engine.inputs.errors import SpecError

EIGHT_DGX_H100 = {
    "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 8},
    "workload": {
        "kind": "training",
        "model": "llama3.1-70b",
        "tokens_b": 1000,
        "parallelism": {"tp": 8, "pp": 2, "global_batch": 512},
    },
}


def _power(payload: dict) -> dict:
    return api.estimate(payload)["power"]


def _template(payload: dict) -> dict:
    """The same cluster as the DGX H100 template sends it: the GPU object plus the system's 10.2 kW maximum."""
    out = copy.deepcopy(payload)
    out["cluster"]["gpu"] = catalog.catalog_gpu("nvidia_h100_sxm5_80gb")
    out["cluster"]["node_max_power_kw"] = 10.2
    return out


def test_eight_dgx_h100_from_the_gpu_or_the_template_provision_the_same_racks_and_power():
    from_gpu, from_template = _power(EIGHT_DGX_H100), _power(_template(EIGHT_DGX_H100))
    assert from_gpu["racks"] == from_template["racks"]
    assert from_gpu["peak_it_kw"] == pytest.approx(from_template["peak_it_kw"])
    assert from_gpu["provisioning"]["it_nameplate_kw"] >= 81.6  # 8 x 10.2 kW plus the fabric
    assert from_gpu["provisioning"]["node_nameplate_kw"] == pytest.approx(10.2)
    assert from_gpu["provisioning"]["redundancy"] == "2N"
    assert from_gpu["it_kw"] < from_gpu["peak_it_kw"]  # energy and cost stay on average draw
    # air cooling holds 20 kW per rack: one 10.2 kW node per rack, plus the fabric's rack
    assert from_gpu["nodes_per_rack"] == 1 and from_gpu["racks"] >= 8


def test_redundancy_sizes_feeds_ups_and_generators():
    it_kw = 100.0
    for name, factor in (("N", 1.0), ("2N", 2.0)):
        inputs = power.PowerInputs(
            nodes=1, gpus_per_node=8, gpu_tdp_w=700.0, node_nameplate_w=it_kw * 1000, redundancy=name
        )
        result = power.estimate_power(inputs)
        prov = result.provisioning
        assert prov.ups_capacity_w == pytest.approx(it_kw * 1000 * factor)
        assert prov.generator_kva == pytest.approx(it_kw * result.pue * factor / power.GENERATOR_POWER_FACTOR)
    n1 = power.estimate_power(
        power.PowerInputs(
            nodes=3, gpus_per_node=8, gpu_tdp_w=700.0, node_nameplate_w=400_000.0, redundancy="N+1"
        )
    ).provisioning
    assert n1.ups_capacity_w == pytest.approx(1_200_000.0 * 4 / 3)  # three 500 kW modules carry it, one more


def test_a_gpu_no_system_carries_is_provisioned_by_the_fit_over_the_dgx_systems():
    assert pytest.approx(192.32 / 105.6) == power.NAMEPLATE_PER_TDP
    inputs = power.PowerInputs(nodes=2, gpus_per_node=8, gpu_tdp_w=350.0)  # 8 x L40S
    assert power.node_peak_power_w(inputs) == pytest.approx(8 * 350.0 * 192.32 / 105.6)


def test_an_unknown_redundancy_is_refused_with_the_field():
    payload = copy.deepcopy(EIGHT_DGX_H100)
    payload["cluster"]["power_redundancy"] = "3N"
    with pytest.raises(SpecError) as err:
        api.estimate(payload)
    assert err.value.problems[0].path == "cluster.power_redundancy"


def test_a_power_cap_slows_the_run_lowers_the_draw_and_is_sourced():
    base = api.estimate(EIGHT_DGX_H100)
    payload = copy.deepcopy(EIGHT_DGX_H100)
    payload["cluster"]["gpu_power_limit_w"] = 600
    capped = api.estimate(payload)
    fraction = power.power_cap_throughput_fraction(600, 700)
    assert fraction == pytest.approx(0.875)
    assert capped["time"]["days"] > base["time"]["days"]
    assert capped["power"]["it_kw"] < base["power"]["it_kw"]
    assert capped["power"]["provisioning"]["node_nameplate_kw"] == pytest.approx(10.2 - 0.8)
    assert "factryze" in capped["assumptions"]["cluster.gpu_power_cap_throughput"]["source"]


@pytest.mark.parametrize(("limit", "words"), [(800, "must not exceed"), (300, "half the TDP")])
def test_a_power_cap_outside_the_known_range_is_refused(limit, words):
    payload = copy.deepcopy(EIGHT_DGX_H100)
    payload["cluster"]["gpu_power_limit_w"] = limit
    with pytest.raises(SpecError) as err:
        api.estimate(payload)
    assert err.value.problems[0].path == "cluster.gpu_power_limit_w"
    assert words in err.value.problems[0].message


def test_a_run_longer_than_the_hardware_life_is_warned_in_the_result():
    payload = copy.deepcopy(EIGHT_DGX_H100)
    payload["economics"] = {"gpu_server_usd": 300_000, "cloud_usd_per_gpu_hour": 3.0}
    days = api.estimate(payload)["time"]["days"]
    payload["economics"]["years"] = round(days / 365.25 / 2, 3)  # a life half as long as the run
    warnings = api.estimate(payload)["warnings"]
    assert any("longer than the hardware's" in w for w in warnings), warnings
    payload["economics"]["years"] = 5
    assert not any("longer than the hardware's" in w for w in api.estimate(payload)["warnings"])


CAPS_W = (700, 675, 650, 600, 550, 500, 450, 400, 350)


def test_lower_caps_lower_kw_and_throughput_monotonically():
    results = []
    for limit in CAPS_W:
        payload = copy.deepcopy(EIGHT_DGX_H100)
        payload["cluster"]["gpu_power_limit_w"] = limit
        results.append(api.estimate(payload))
    for higher, lower in zip(results, results[1:], strict=False):
        assert lower["power"]["it_kw"] < higher["power"]["it_kw"]
        assert lower["power"]["peak_it_kw"] < higher["power"]["peak_it_kw"]
        assert (
            lower["power"]["gpu_power_cap"]["throughput_fraction"]
            < (higher["power"]["gpu_power_cap"]["throughput_fraction"])
        )
        assert lower["time"]["days"] > higher["time"]["days"]
    cap = results[-1]["power"]["gpu_power_cap"]
    assert cap["tdp_w"] == 700 and cap["fraction_of_tdp"] == pytest.approx(0.5)
    assert cap["gpu_power_cut_kw"] == pytest.approx(64 * 350 / 1000)
    assert "extrapolated" in cap["source"]


def test_a_cap_equal_to_the_tdp_changes_nothing():
    base = api.estimate(EIGHT_DGX_H100)
    payload = copy.deepcopy(EIGHT_DGX_H100)
    payload["cluster"]["gpu_power_limit_w"] = 700
    same = api.estimate(payload)
    assert same["time"] == base["time"]
    assert same.get("cost") == base.get("cost")
    cap = same["power"].pop("gpu_power_cap")
    assert cap["throughput_fraction"] == 1.0 and cap["gpu_power_cut_kw"] == 0.0
    assert same["power"] == base["power"]


JOB = {
    "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 1},
    "workload": {"kind": "job", "job": {"single_gpu_hours": 12, "parallel_fraction": 0.9}},
}


def test_a_cap_slows_a_generic_job_by_the_same_relation():
    base = api.estimate(JOB)
    payload = copy.deepcopy(JOB)
    payload["cluster"]["gpu_power_limit_w"] = 600
    capped = api.estimate(payload)
    fraction = power.power_cap_throughput_fraction(600, 700)
    assert capped["job"]["time_s"] == pytest.approx(base["job"]["time_s"] / fraction)
    assert capped["power"]["it_kw"] < base["power"]["it_kw"]


@pytest.mark.parametrize("limit", [0, -100, "lots"])
def test_a_cap_that_is_not_a_positive_number_names_the_field(limit):
    payload = copy.deepcopy(EIGHT_DGX_H100)
    payload["cluster"]["gpu_power_limit_w"] = limit
    with pytest.raises(SpecError) as err:
        api.estimate(payload)
    assert err.value.problems[0].path == "cluster.gpu_power_limit_w"
