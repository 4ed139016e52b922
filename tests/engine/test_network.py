"""Scale-out fabric counts at the catalog's known points (interconnects.csv topology rows, switches.csv)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.engine.facility.network import (
    NetworkSpec,
    SwitchSpec,
    fabric_power_w_per_endpoint,
    leaf_down_ports,
    max_endpoints,
    plan_network,
)
from planner.engine.inputs.errors import SpecError

FAT_TREE = NetworkSpec(topology="fat_tree")
RAIL = NetworkSpec(topology="rail_optimized")
Q3400 = SwitchSpec(name="Q3400", ports=144, port_bandwidth_bits_per_s=800e9)


# catalog switches.csv nonblocking_2tier/3tier_max_endpoints: QM9700 2,048 / 65,536; Q3400 10,368; QM8700 16,000
@pytest.mark.parametrize(
    ("ports", "tiers", "expected"),
    [(64, 1, 64), (64, 2, 2048), (64, 3, 65_536), (144, 2, 10_368), (144, 3, 746_496), (40, 3, 16_000)],
)
def test_max_endpoints_match_the_catalog(ports, tiers, expected):
    assert max_endpoints(ports, tiers) == expected


@pytest.mark.parametrize("spec", [FAT_TREE, RAIL], ids=["fat_tree", "rail"])
def test_qm9700_holds_2048_endpoints_in_two_tiers_with_64_leaves_and_32_spines(spec):
    plan = plan_network(endpoints=2048, gpus_per_node=8, spec=spec)
    assert (plan.tiers, plan.leaf_switches, plan.spine_switches, plan.core_switches) == (2, 64, 32, 0)
    assert plan.max_endpoints == 2048


def test_q3400_holds_10368_endpoints_in_two_tiers():
    plan = plan_network(
        endpoints=10_368, gpus_per_node=8, spec=NetworkSpec(topology="fat_tree", switch=Q3400)
    )
    assert (plan.tiers, plan.leaf_switches, plan.spine_switches) == (2, 144, 72)


def test_one_more_endpoint_than_two_tiers_hold_needs_three():
    assert plan_network(endpoints=2049, gpus_per_node=1, spec=FAT_TREE).tiers == 3


def test_full_three_tier_fat_tree_has_2n_over_k_edge_and_aggregation_and_n_over_k_core():
    n, k = 65_536, 64
    plan = plan_network(endpoints=n, gpus_per_node=8, spec=FAT_TREE)
    assert (plan.leaf_switches, plan.spine_switches, plan.core_switches) == (2 * n // k, 2 * n // k, n // k)
    assert plan.switches == 5 * k * k // 4  # Al-Fares 2008: 5k^2/4 at full size


def test_a_single_switch_serves_8_nodes_of_8_gpus_on_64_ports():
    plan = plan_network(endpoints=64, gpus_per_node=8, spec=RAIL)
    assert (plan.tiers, plan.switches) == (1, 1)
    assert plan.cables == 64
    assert plan.transceivers == 128  # optics at both ends of each NIC link


def test_a_single_node_needs_no_switch():
    plan = plan_network(endpoints=8, gpus_per_node=8, spec=RAIL)
    assert plan.switches == 0 and plan.cables == 0 and plan.power_w == 0
    assert plan.nics == 8 and plan.warnings


def test_rail_optimised_scalable_unit_has_one_leaf_per_rail():
    # NVIDIA DGX H100 SuperPOD SU: 32 nodes x 8 rails (catalog topo_rail_optimized)
    plan = plan_network(endpoints=256, gpus_per_node=8, spec=RAIL)
    assert (plan.leaf_switches, plan.spine_switches) == (8, 4)


def test_small_rail_cluster_packs_rails_onto_shared_leaves():
    # 12 nodes x 8 rails: a rail needs 12 of a leaf's 32 down ports, so 2 rails share a leaf -> 4 leaves
    plan = plan_network(endpoints=96, gpus_per_node=8, spec=RAIL)
    assert plan.leaf_switches == 4
    assert plan.spine_switches == math.ceil(96 / 64)
    assert plan.leaf_switches >= plan_network(endpoints=96, gpus_per_node=8, spec=FAT_TREE).leaf_switches


def test_three_to_one_oversubscription_uses_48_down_and_16_up_ports():
    assert leaf_down_ports(64, 3.0) == 48
    assert max_endpoints(64, 2, 3.0) == 64 * 64 * 3 // 4  # k^2 r/(r+1)
    plan = plan_network(
        endpoints=3072, gpus_per_node=8, spec=NetworkSpec(topology="fat_tree", oversubscription=3.0)
    )
    assert (plan.tiers, plan.leaf_switches, plan.spine_switches) == (2, 64, 3072 // 3 // 64)


def test_oversubscription_needs_fewer_switches_than_non_blocking():
    blocking = plan_network(endpoints=1024, gpus_per_node=8, spec=NetworkSpec(oversubscription=3.0))
    non_blocking = plan_network(endpoints=1024, gpus_per_node=8, spec=NetworkSpec())
    assert blocking.switches < non_blocking.switches


def test_power_and_capex_of_a_full_two_tier_fabric_add_up_by_hand():
    spec = NetworkSpec(
        topology="fat_tree",
        switch=SwitchSpec(name="s", ports=64, power_w=1000.0, usd=20_000.0),
        transceiver_power_w=9.0,
        transceiver_usd=500.0,
        cable_usd=100.0,
        nic_power_w=20.0,
        nic_usd=1000.0,
        nics_in_server_price=False,
    )
    plan = plan_network(endpoints=2048, gpus_per_node=8, spec=spec)
    links = 2048 + 2048  # NIC-to-leaf + leaf-to-spine
    assert plan.cables == links
    assert plan.transceivers == 2 * links
    assert plan.power_w == pytest.approx(
        96 * 1000.0 + (2048 + 2 * 2048) * 9.0
    )  # switches + switch-side optics
    assert plan.nic_power_w == pytest.approx(2048 * (20.0 + 9.0))
    assert plan.capex_usd == pytest.approx(96 * 20_000 + 2048 * 1000 + 2 * links * 500 + links * 100)
    assert fabric_power_w_per_endpoint(spec, tiers=2) * 2048 == pytest.approx(plan.power_w)


def test_nics_priced_in_the_server_cost_nothing_here():
    plan = plan_network(endpoints=128, gpus_per_node=8, spec=NetworkSpec())
    nic_line = next(line for line in plan.bom if line.item.startswith("NIC"))
    assert nic_line.quantity == 128 and nic_line.total_usd == 0.0


def test_copper_nic_links_drop_their_transceivers():
    optical = plan_network(endpoints=512, gpus_per_node=8, spec=NetworkSpec())
    copper = plan_network(endpoints=512, gpus_per_node=8, spec=NetworkSpec(nic_links_copper=True))
    assert optical.transceivers - copper.transceivers == 2 * 512


def test_too_few_requested_tiers_are_raised_with_a_warning():
    plan = plan_network(endpoints=4096, gpus_per_node=8, spec=NetworkSpec(tiers=2))
    assert plan.tiers == 3
    assert any("2 tier" in w for w in plan.warnings)


def test_endpoints_beyond_three_tiers_give_a_plan_with_a_warning():
    plan = plan_network(endpoints=70_000, gpus_per_node=8, spec=FAT_TREE)
    assert plan.tiers == 3 and plan.switches > 5 * 64 * 64 // 4
    assert any("exceed a 3-tier" in w for w in plan.warnings)


def test_as_dict_has_the_agreed_keys_in_kw_and_usd():
    out = plan_network(endpoints=512, gpus_per_node=8).as_dict()
    for key in (
        "tiers",
        "topology",
        "switches",
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "nics",
        "transceivers",
        "cables",
        "power_kw",
        "capex_usd",
        "max_endpoints",
        "bom",
    ):
        assert key in out
    assert set(out["bom"][0]) >= {"item", "quantity", "unit_usd", "total_usd", "unit_power_w"}
    assert out["power_kw"] == pytest.approx(plan_network(endpoints=512, gpus_per_node=8).power_w / 1e3)


def test_unsourced_defaults_say_so():
    plan = plan_network(endpoints=512, gpus_per_node=8)
    assert "not sourced" in plan.assumptions["network.switch_power_w"]["source"]
    assert "xcvr_osfp_400g" in plan.assumptions["network.transceiver_power_w"]["source"]


def test_it_rejects_an_unknown_topology_and_undersubscription():
    with pytest.raises(SpecError) as err:
        plan_network(endpoints=64, gpus_per_node=8, spec=NetworkSpec(topology="torus", oversubscription=0.5))
    assert {p.path for p in err.value.problems} == {
        "cluster.network.topology",
        "cluster.network.oversubscription",
    }


@given(
    n=st.integers(min_value=0, max_value=80_000),
    extra=st.integers(min_value=1, max_value=5_000),
    gpus_per_node=st.sampled_from([1, 4, 8]),
    topology=st.sampled_from(["fat_tree", "rail_optimized"]),
    r=st.sampled_from([1.0, 2.0, 3.0]),
    ports=st.sampled_from([40, 64, 144]),
)
def test_more_gpus_never_need_fewer_switches(n, extra, gpus_per_node, topology, r, ports):
    spec = NetworkSpec(topology=topology, oversubscription=r, switch=SwitchSpec(ports=ports))
    small = plan_network(endpoints=n, gpus_per_node=gpus_per_node, spec=spec)
    large = plan_network(endpoints=n + extra, gpus_per_node=gpus_per_node, spec=spec)
    assert large.switches >= small.switches
    assert large.cables >= small.cables


@given(
    n=st.integers(min_value=0, max_value=200_000),
    gpus_per_node=st.integers(min_value=1, max_value=16),
    r=st.floats(min_value=1.0, max_value=8.0),
    ports=st.integers(min_value=4, max_value=256),
    tiers=st.sampled_from([None, 1, 2, 3]),
)
def test_random_valid_fabrics_have_finite_non_negative_numbers(n, gpus_per_node, r, ports, tiers):
    spec = NetworkSpec(oversubscription=r, tiers=tiers, switch=SwitchSpec(ports=ports))
    out = plan_network(endpoints=n, gpus_per_node=gpus_per_node, spec=spec).as_dict()
    for key, value in out.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert math.isfinite(value) and value >= 0, key
    if n > gpus_per_node:
        assert out["switches"] >= 1
