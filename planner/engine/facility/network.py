"""Scale-out network: switch, NIC, transceiver and cable counts, their power and cost, for N GPU endpoints.

Topology formulas (catalog interconnects.csv rows topo_fat_tree_2tier, topo_fat_tree_3tier, topo_fat_tree_oversub,
topo_rail_optimized), with k the switch radix in ports and N the endpoints (one NIC per GPU):

* one switch holds N <= k endpoints;
* 2-tier leaf-spine, non-blocking: N_max = k^2/2, leaves = ceil(2N/k), spines = ceil(N/k);
* 3-tier k-ary fat tree (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008): N_max = k^3/4, edge = aggregation = 2N/k,
  core = N/k;
* oversubscription r:1 at the leaf: d = k*r/(r+1) ports down and u = k/(r+1) up per leaf (derived port
  arithmetic in the catalog, no external source), so N_max = k*d (2 tiers) and k*(k/2)*d (3 tiers);
* rail-optimised: the same tiers, with NIC i of every node on rail i; a rail's nodes fill whole leaves, and
  rails share a leaf only when a rail has fewer nodes than a leaf has down ports (NVIDIA DGX SuperPOD scalable
  unit: 32 nodes x 8 rails, one leaf per rail).

Cabling assumption: optics everywhere. Every link (NIC-to-leaf and switch-to-switch) has one transceiver at each
end, counted per 400G port at the catalog's 9 W (xcvr_osfp_400g). On the switch side NVIDIA uses twin-port
2x400G OSFPs at 17 W (xcvr_osfp_800g_twin), 8.5 W per port, so per-port counting at 9 W is within 6%.
`nic_links_copper=True` models DAC copper for the NIC-to-leaf links instead (no transceivers on them).
Uplinks are cabled only as needed to keep r:1 for the endpoints present (ceil(N*u/d) of them).

Prices come from the catalog's part prices (catalog/seed/prices.csv; tests/engine/test_network_prices.py keeps
these defaults equal to those rows): the transceiver and cable are street prices, the switch and NIC are
estimates by ratio to the nearest priced part, and every echo says which. Switch and NIC power are still not
sourced (the catalog left them blank) and say so wherever echoed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.units import GIGA, KW
from planner.engine.results import BomEntry, NetworkSection

Topology = Literal["rail_optimized", "fat_tree"]
TOPOLOGIES: tuple[str, ...] = ("rail_optimized", "fat_tree")
_PATH = "cluster.network"

NOT_SOURCED = "planning assumption, not sourced (catalog README 'Main gaps': no switch/NIC power)"
PRICES_CSV = "catalog prices.csv"

#: NVIDIA QM9700 (Quantum-2 NDR): 64 ports of 400 Gb/s (catalog switches.csv row nvidia_qm9700).
QM9700_PORTS = 64
QM9700_PORT_BANDWIDTH_BITS_PER_S = 400 * GIGA
QM9700_SOURCE = (
    "catalog switches.csv nvidia_qm9700 (https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces)"
)
#: Switch power excluding optics; the catalog left QM9700 power blank. Planning assumption, not sourced.
SWITCH_POWER_W_DEFAULT = 1000.0
#: Switch price: ESTIMATE (prices.csv price_nvidia_qm9700), a 64-port 800G switch's USD 150,000-250,000 street
#: range (luxoptx.com 2026) x 400/800 by port speed. Resellers quote less: replace with a quote.
SWITCH_USD_DEFAULT = 100_000.0
SWITCH_USD_SOURCE = (
    f"ESTIMATE ({PRICES_CSV} price_nvidia_qm9700): ratio to the nearest priced part, a 64-port 800G switch at "
    "USD 150,000-250,000 street x 400/800 (https://luxoptx.com/blogs/news/"
    "800g-optical-module-cost-analysis-tco-optimization-for-ai-data-centers); replace with a quote"
)
#: ConnectX-7 power; catalog nic_cx7 row says "Power and price not found". Planning assumption, not sourced.
NIC_POWER_W_DEFAULT = 25.0
#: ConnectX-7 price: ESTIMATE (prices.csv price_nic_cx7), one 400G switch port = switch estimate / 64 ports.
NIC_USD_DEFAULT = 1_560.0
NIC_USD_SOURCE = (
    f"ESTIMATE ({PRICES_CSV} price_nic_cx7): ratio to the nearest priced part, one 400G switch port "
    "(QM9700 estimate USD 100,000 / 64)"
)
#: 400G OSFP transceiver, 9 W max/typical (catalog interconnects.csv row xcvr_osfp_400g, NVIDIA MMS4X00-NS400).
TRANSCEIVER_POWER_W_DEFAULT = 9.0
TRANSCEIVER_POWER_SOURCE = "catalog interconnects.csv xcvr_osfp_400g (https://docs.nvidia.com/networking/display/mms4x00ns400/overview)"
#: 400G transceiver: street USD 600-800 (prices.csv price_xcvr_osfp_400g, luxoptx.com 2026), midpoint.
TRANSCEIVER_USD_DEFAULT = 700.0
TRANSCEIVER_USD_SOURCE = (
    f"street price ({PRICES_CSV} price_xcvr_osfp_400g): 400G modules USD 600-800, midpoint, 2026 "
    "(https://luxoptx.com/blogs/news/800g-optical-module-cost-analysis-tco-optimization-for-ai-data-centers)"
)
#: Fibre cable per link: MPO trunk street USD 50-150 (prices.csv price_cable_mpo_trunk), midpoint.
CABLE_USD_DEFAULT = 100.0
CABLE_USD_SOURCE = (
    f"street price ({PRICES_CSV} price_cable_mpo_trunk): MPO-16 trunk USD 50-150, midpoint, 2026 "
    "(https://luxoptx.com/blogs/news/800g-optical-module-cost-analysis-tco-optimization-for-ai-data-centers)"
)
#: End-to-end small-message latency across the fabric including software. The catalog only gives adapter
#: latency for IB EDR 0.5 us / HDR 0.6 us (ib_edr, ib_hdr rows) and none for NDR. Planning assumption.
LATENCY_S_DEFAULT = 5e-6
#: Achieved fraction of line rate for large collectives. Planning assumption; for scale, stas00 measured
#: all-reduce bus bandwidth at 78-82% of NVLink peak (catalog nvlink3/nvlink4 rows), a scale-up figure.
EFFICIENCY_DEFAULT = 0.8
#: Largest tier count modelled (3-tier k-ary fat tree).
MAX_TIERS = 3


@dataclass(frozen=True)
class SwitchSpec:
    """A scale-out switch: radix, per-port line rate, power without optics, price."""

    name: str = "NVIDIA QM9700 (Quantum-2 NDR, 64x400G)"
    ports: int = QM9700_PORTS
    port_bandwidth_bits_per_s: float = QM9700_PORT_BANDWIDTH_BITS_PER_S
    power_w: float = SWITCH_POWER_W_DEFAULT
    usd: float = SWITCH_USD_DEFAULT


@dataclass(frozen=True)
class NetworkSpec:
    """Scale-out fabric choices. `tiers=None` picks the smallest tier count that holds the endpoints."""

    topology: Topology = "rail_optimized"
    tiers: int | None = None
    oversubscription: float = 1.0
    switch: SwitchSpec = field(default_factory=SwitchSpec)
    nic_power_w: float = NIC_POWER_W_DEFAULT
    nic_usd: float = NIC_USD_DEFAULT
    transceiver_power_w: float = TRANSCEIVER_POWER_W_DEFAULT
    transceiver_usd: float = TRANSCEIVER_USD_DEFAULT
    cable_usd: float = CABLE_USD_DEFAULT
    latency_s: float = LATENCY_S_DEFAULT
    efficiency: float = EFFICIENCY_DEFAULT
    #: DGX/HGX servers ship with their compute NICs (systems.csv nvidia_dgx_h100: 8x ConnectX-7), so by default
    #: NICs are counted but not priced again here; set False for servers bought without NICs.
    nics_in_server_price: bool = True
    nic_links_copper: bool = False


@dataclass(frozen=True)
class BomLine:
    item: str
    quantity: int
    unit_usd: float
    unit_power_w: float
    note: str = ""

    @property
    def total_usd(self) -> float:
        return self.quantity * self.unit_usd

    def as_dict(self) -> BomEntry:
        return {
            "item": self.item,
            "quantity": self.quantity,
            "unit_usd": self.unit_usd,
            "total_usd": self.total_usd,
            "unit_power_w": self.unit_power_w,
            "note": self.note,
        }


@dataclass(frozen=True)
class NetworkPlan:
    """Counts, power and cost of one fabric.

    `power_w` is the fabric power outside the servers (switches and switch-side optics): the node power figures
    (measured node draw, node_max_power, host_power) already include the NICs and the optics plugged into them,
    so only `power_w` is added to IT power. `nic_power_w` is the NIC-side share, shown for completeness.
    """

    topology: str
    tiers: int
    endpoints: int
    oversubscription: float
    switch_name: str
    leaf_switches: int
    spine_switches: int
    core_switches: int
    nics: int
    transceivers: int
    node_side_transceivers: int
    cables: int
    power_w: float
    nic_power_w: float
    capex_usd: float
    max_endpoints: int
    bom: tuple[BomLine, ...]
    warnings: tuple[str, ...] = ()
    assumptions: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def switches(self) -> int:
        return self.leaf_switches + self.spine_switches + self.core_switches

    @property
    def total_power_w(self) -> float:
        return self.power_w + self.nic_power_w

    def as_dict(self) -> NetworkSection:
        """The `network` output section (docs/engine-contract.md)."""
        return {
            "tiers": self.tiers,
            "topology": self.topology,
            "endpoints": self.endpoints,
            "oversubscription": self.oversubscription,
            "switch": self.switch_name,
            "switches": self.switches,
            "leaf_switches": self.leaf_switches,
            "spine_switches": self.spine_switches,
            "core_switches": self.core_switches,
            "nics": self.nics,
            "transceivers": self.transceivers,
            "cables": self.cables,
            "power_kw": self.power_w / KW,
            "nic_power_kw": self.nic_power_w / KW,
            "capex_usd": self.capex_usd,
            "max_endpoints": self.max_endpoints,
            "bom": [line.as_dict() for line in self.bom],
            "warnings": list(self.warnings),
        }


def leaf_down_ports(ports: int, oversubscription: float) -> int:
    """Leaf ports facing endpoints at r:1 oversubscription: d = floor(k*r/(r+1)) (catalog topo_fat_tree_oversub,
    derived port arithmetic). r = 1 gives k/2."""
    down = math.floor(ports * oversubscription / (oversubscription + 1.0))
    return min(down, ports - 1)  # at least one uplink, however large r is


def max_endpoints(ports: int, tiers: int, oversubscription: float = 1.0) -> int:
    """Largest endpoint count a fabric of `tiers` tiers of k-port switches holds.

    1 tier: k. 2 tiers: k*d (= k^2/2 non-blocking; catalog topo_fat_tree_2tier). 3 tiers: k*(k/2)*d
    (= k^3/4 non-blocking; Al-Fares et al. 2008, catalog topo_fat_tree_3tier): k pods of k/2 edge switches,
    oversubscribed only at the edge.
    """
    if tiers <= 1:
        return ports
    down = leaf_down_ports(ports, oversubscription)
    if tiers == 2:
        return ports * down  # at most k leaves, each reached by every spine
    return ports * (ports // 2) * down  # k pods x k/2 edge switches x d endpoints


def leaf_count(*, endpoints: int, gpus_per_node: int, down_ports: int, topology: str) -> int:
    """Leaf (edge) switches for N endpoints with d down ports each.

    Fat tree: ceil(N/d) (catalog topo_fat_tree_oversub). Rail-optimised (catalog topo_rail_optimized): R rails of
    `nodes` endpoints each; a rail fills ceil(nodes/d) leaves, and when a rail needs less than one leaf,
    floor(d/nodes) rails share one leaf, giving ceil(R / floor(d/nodes)) leaves.
    """
    if endpoints <= 0:
        return 0
    if topology != "rail_optimized" or gpus_per_node <= 1:
        return math.ceil(endpoints / down_ports)
    rails = gpus_per_node
    nodes = math.ceil(endpoints / rails)
    if nodes <= down_ports:
        rails_per_leaf = down_ports // nodes
        return math.ceil(rails / rails_per_leaf)
    return rails * math.ceil(nodes / down_ports)


def uplink_count(endpoints: int, ports: int, oversubscription: float) -> int:
    """Leaf uplinks needed to keep r:1 for N endpoints: ceil(N*u/d) with u = k - d."""
    down = leaf_down_ports(ports, oversubscription)
    return math.ceil(endpoints * (ports - down) / down)


def _fits(tiers: int, leaves: int, endpoints: int, ports: int) -> bool:
    """Whether `leaves` leaf switches can be wired in `tiers` tiers: one switch for N <= k; in 2 tiers every
    spine reaches every leaf (leaves <= k); in 3 tiers k pods of k/2 edge switches (leaves <= k^2/2)."""
    if tiers == 1:
        return endpoints <= ports
    if tiers == 2:
        return leaves <= ports
    return leaves <= ports * (ports // 2)


def _check(spec: NetworkSpec, endpoints: int, gpus_per_node: int) -> None:
    problems: list[Problem] = []
    if spec.topology not in TOPOLOGIES:
        problems.append(Problem(f"{_PATH}.topology", f"must be one of {', '.join(TOPOLOGIES)}"))
    if spec.tiers is not None and spec.tiers not in (1, 2, 3):
        problems.append(Problem(f"{_PATH}.tiers", f"must be 1, 2, 3 or null (got {spec.tiers})"))
    if not spec.oversubscription >= 1.0 or not math.isfinite(spec.oversubscription):
        problems.append(Problem(f"{_PATH}.oversubscription", "must be at least 1 (r:1 at the leaf)"))
    if spec.switch.ports < 4:
        problems.append(Problem(f"{_PATH}.switch.ports", f"must be at least 4 (got {spec.switch.ports})"))
    for name in ("nic_power_w", "nic_usd", "transceiver_power_w", "transceiver_usd", "cable_usd"):
        if not getattr(spec, name) >= 0:
            problems.append(Problem(f"{_PATH}.{name}", "must not be negative"))
    for name in ("power_w", "usd"):
        if not getattr(spec.switch, name) >= 0:
            problems.append(Problem(f"{_PATH}.switch.{name}", "must not be negative"))
    if endpoints < 0:
        problems.append(Problem("cluster.nodes", "must not be negative"))
    if gpus_per_node < 1:
        problems.append(Problem("cluster.gpus_per_node", "must be at least 1"))
    if problems:
        raise SpecError(problems)


def _choose_tiers(spec: NetworkSpec, endpoints: int, gpus_per_node: int, down: int) -> tuple[int, list[str]]:
    """Smallest tier count whose wiring holds the endpoints (or the requested one, when it does)."""
    k = spec.switch.ports
    leaves = leaf_count(
        endpoints=endpoints, gpus_per_node=gpus_per_node, down_ports=down, topology=spec.topology
    )
    warnings: list[str] = []
    needed = next((t for t in (1, 2, 3) if _fits(t, leaves, endpoints, k)), None)
    if needed is None:
        warnings.append(
            f"{endpoints} endpoints exceed a 3-tier fabric of {k}-port switches "
            f"(at most {max_endpoints(k, MAX_TIERS, spec.oversubscription)}); counts extrapolate the 3-tier "
            "formulas, and a real design needs larger switches or another topology"
        )
        return MAX_TIERS, warnings
    if spec.tiers is None:
        return needed, warnings
    if spec.tiers < needed:
        warnings.append(
            f"{spec.tiers} tier(s) of {k}-port switches hold at most "
            f"{max_endpoints(k, spec.tiers, spec.oversubscription)} endpoints; planned {needed} tiers for "
            f"{endpoints}"
        )
        return needed, warnings
    return spec.tiers, warnings


def _layer_counts(tiers: int, leaves: int, uplinks: int, ports: int) -> tuple[int, int, int]:
    """(leaf, spine, core) switch counts. 2 tiers: spines = ceil(U/k) (= N/k non-blocking). 3 tiers (Al-Fares):
    aggregation switches have k/2 down and k/2 up, so aggregation = ceil(U/(k/2)) (= 2N/k) and core =
    ceil(U/k) (= N/k), non-blocking above the edge."""
    if tiers == 1:
        return leaves, 0, 0
    if tiers == 2:
        return leaves, math.ceil(uplinks / ports), 0
    return leaves, math.ceil(uplinks / (ports // 2)), math.ceil(uplinks / ports)


def plan_network(*, endpoints: int, gpus_per_node: int, spec: NetworkSpec | None = None) -> NetworkPlan:
    """Bill of materials, power and cost of the scale-out fabric for `endpoints` GPUs (one NIC each).

    A single node (endpoints <= gpus_per_node) needs no scale-out switch: its GPUs talk over the scale-up link.
    """
    spec = spec or NetworkSpec()
    _check(spec, endpoints, gpus_per_node)
    k = spec.switch.ports
    r = spec.oversubscription
    down = leaf_down_ports(k, r)
    warnings: list[str] = []
    if endpoints <= gpus_per_node:
        tiers, leaves, spines, cores, uplinks = 0, 0, 0, 0, 0
        if endpoints > 0:
            warnings.append("a single node needs no scale-out switch; NICs counted, no fabric planned")
    else:
        tiers, warnings = _choose_tiers(spec, endpoints, gpus_per_node, down)
        if tiers == 1:
            leaves, uplinks = 1, 0
        else:
            leaves = leaf_count(
                endpoints=endpoints, gpus_per_node=gpus_per_node, down_ports=down, topology=spec.topology
            )
            uplinks = uplink_count(endpoints, k, r)
        leaves, spines, cores = _layer_counts(tiers, leaves, uplinks, k)
    if spec.switch.port_bandwidth_bits_per_s != QM9700_PORT_BANDWIDTH_BITS_PER_S and (
        spec.transceiver_power_w == TRANSCEIVER_POWER_W_DEFAULT
    ):
        warnings.append(
            "transceiver power default (9 W) is the catalog's 400G OSFP figure; ports differ from 400G"
        )
    switch_links = uplinks * max(tiers - 1, 0)  # leaf-spine, plus aggregation-core in 3 tiers
    nic_links = endpoints
    node_xcvrs = 0 if spec.nic_links_copper or tiers == 0 else nic_links
    switch_xcvrs = (0 if spec.nic_links_copper or tiers == 0 else nic_links) + 2 * switch_links
    cables = (nic_links if tiers > 0 else 0) + switch_links
    switches = leaves + spines + cores
    nic_unit_usd = 0.0 if spec.nics_in_server_price else spec.nic_usd
    bom = (
        BomLine(spec.switch.name, switches, spec.switch.usd, spec.switch.power_w, "power without optics"),
        BomLine(
            "NIC (one per GPU)",
            endpoints,
            nic_unit_usd,
            spec.nic_power_w,
            "priced in the server" if spec.nics_in_server_price else "",
        ),
        BomLine(
            "transceiver (per 400G port)",
            node_xcvrs + switch_xcvrs,
            spec.transceiver_usd,
            spec.transceiver_power_w,
            "one at each end of every optical link",
        ),
        BomLine("cable (one per link)", cables, spec.cable_usd, 0.0, "passive"),
    )
    fabric_power_w = switches * spec.switch.power_w + switch_xcvrs * spec.transceiver_power_w
    nic_power_w = endpoints * spec.nic_power_w + node_xcvrs * spec.transceiver_power_w
    return NetworkPlan(
        topology=spec.topology,
        tiers=tiers,
        endpoints=endpoints,
        oversubscription=r,
        switch_name=spec.switch.name,
        leaf_switches=leaves,
        spine_switches=spines,
        core_switches=cores,
        nics=endpoints,
        transceivers=node_xcvrs + switch_xcvrs,
        node_side_transceivers=node_xcvrs,
        cables=cables,
        power_w=fabric_power_w,
        nic_power_w=nic_power_w,
        capex_usd=sum(line.total_usd for line in bom),
        max_endpoints=max_endpoints(k, max(tiers, 1), r),
        bom=bom,
        warnings=tuple(warnings),
        assumptions=spec_assumptions(spec),
    )


def fabric_power_w_per_endpoint(spec: NetworkSpec | None = None, tiers: int = 2) -> float:
    """Fabric power outside the servers per GPU endpoint of a large `tiers`-tier fabric (no rounding).

    Switches per endpoint: leaves 1/d; plus spines u/(d*k) in 2 tiers, or aggregation 2u/(d*k) and core
    u/(d*k) in 3 tiers (module formulas divided by N). Switch-side transceivers per endpoint: 1 on the NIC link
    (unless copper) plus 2 per switch-to-switch link, u/d of them per tier above the leaf.
    """
    spec = spec or NetworkSpec()
    k = spec.switch.ports
    down = leaf_down_ports(k, spec.oversubscription)
    up_per_endpoint = (k - down) / down
    switches = 1.0 / down
    if tiers == 2:
        switches += up_per_endpoint / k
    elif tiers >= 3:
        switches += up_per_endpoint / (k / 2) + up_per_endpoint / k
    switch_links = up_per_endpoint * max(tiers - 1, 0)
    xcvrs = (0.0 if spec.nic_links_copper else 1.0) + 2.0 * switch_links
    return switches * spec.switch.power_w + xcvrs * spec.transceiver_power_w


def _item(value: Any, default: Any, unit: str, source: str) -> dict[str, Any]:
    return {"value": value, "unit": unit, "source": source if value == default else "input"}


def spec_assumptions(spec: NetworkSpec | None = None) -> dict[str, dict[str, Any]]:
    """The network defaults with their sources; values the user changed are marked 'input'."""
    s = spec or NetworkSpec()
    d = NetworkSpec()
    return {
        "network.topology": _item(
            s.topology,
            d.topology,
            "",
            "NVIDIA DGX SuperPOD rail-optimised design (catalog topo_rail_optimized)",
        ),
        "network.switch": _item(s.switch.name, d.switch.name, "", QM9700_SOURCE),
        "network.switch_ports": _item(s.switch.ports, d.switch.ports, "ports", QM9700_SOURCE),
        "network.switch_power_w": _item(s.switch.power_w, d.switch.power_w, "W", NOT_SOURCED),
        "network.switch_usd": _item(s.switch.usd, d.switch.usd, "USD", SWITCH_USD_SOURCE),
        "network.oversubscription": _item(
            s.oversubscription, d.oversubscription, "r:1", "non-blocking default"
        ),
        "network.nic_power_w": _item(s.nic_power_w, d.nic_power_w, "W", NOT_SOURCED),
        "network.nic_usd": _item(s.nic_usd, d.nic_usd, "USD", NIC_USD_SOURCE),
        "network.transceiver_power_w": _item(
            s.transceiver_power_w, d.transceiver_power_w, "W", TRANSCEIVER_POWER_SOURCE
        ),
        "network.transceiver_usd": _item(s.transceiver_usd, d.transceiver_usd, "USD", TRANSCEIVER_USD_SOURCE),
        "network.cable_usd": _item(s.cable_usd, d.cable_usd, "USD", CABLE_USD_SOURCE),
        "network.cabling": _item(
            "dac_nic_links" if s.nic_links_copper else "optics_everywhere",
            "optics_everywhere",
            "",
            "planning assumption: a transceiver at both ends of every link",
        ),
        "network.latency_s": _item(
            s.latency_s, d.latency_s, "s", "planning assumption, not sourced (catalog gives no NDR latency)"
        ),
        "network.efficiency": _item(
            s.efficiency, d.efficiency, "fraction", "planning assumption, not sourced (scale-out collectives)"
        ),
    }


def assumptions() -> dict[str, dict[str, Any]]:
    """Every network default with its source."""
    return spec_assumptions(NetworkSpec())
