"""IT power, facility power through PUE, racks, energy, carbon and water, and the reverse question (how many GPUs
a facility power budget holds).

IT power per node is either built from parts (GPU TDP x load factor + host power) or taken as the node's rated
maximum x a measured utilisation fraction. Both defaults are calibrated on one measurement: an 8x H100 node
averaged 6.741 kW DC during an MLPerf Training v4.0 run (Llama 2 70B LoRA, Sustainable Metal Cloud,
MLCommons-verified power; smc.co/mlperfv40/results/llama2-70b-lora, shipped in the validation table as
mlperf-v4.0-llama2-70b-lora-smc-8). The DGX H100's rated maximum is 10.2 kW (catalog systems.csv
nvidia_dgx_h100) with 8 x 700 W GPUs (gpus.csv nvidia_h100_sxm5_80gb). Cross-checks: Latif et al. 2024
(arXiv:2412.08602) saw at most 8.4 kW on an 8x H100 HGX node training Llama2-13b; Newkirk et al. 2025
(arXiv:2506.14551) found compute-heavy training at 76% of the 10.2 kW rating. The measured node was immersion
cooled (no server fans), so air-cooled nodes draw somewhat more: the defaults lean low for air.

Facility power = IT power x PUE (The Green Grid's definition: total facility energy / IT equipment energy).

Provisioning is a different number from average draw: a facility provisions feeds, UPS, generators, racks and
cooling for the nameplate (maximum) power of what it hosts, with redundancy. A node's nameplate is the system
row's maximum input power (DGX H100 10.2 kW, DGX B200 14.3 kW, DGX A100 6.5 kW, NVIDIA user guides via
systems.csv), scaled per GPU slot when a plan starts from a catalog GPU that a catalog system carries, else
GPUs x TDP x NAMEPLATE_PER_TDP (a fit over those three systems). Racks are counted from nameplate kW, so a plan
started from the GPU and one started from the system template give the same racks and provisioned power.
Average draw (above) stays the basis of energy and cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from planner.engine.facility.network import NetworkSpec, fabric_power_w_per_endpoint
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.units import KW, KWH, MWH, YEAR
from planner.engine.results import PowerSection

KG_PER_TONNE = 1e3
LITRES_PER_M3 = 1e3
#: Relative slack so that a budget of exactly n nodes is not rounded down to n - 1 by floating point.
_FLOAT_SLACK = 1e-12

# --- calibration points (sources in the module docstring) ---------------------------------------------------
MLPERF_NODE_AVG_POWER_W = 6741.0  # 8x H100, MLPerf Training v4.0 Llama 2 70B LoRA, DC average per node
MLPERF_NODE_GPUS = 8
DGX_H100_MAX_POWER_W = 10_200.0  # catalog systems.csv nvidia_dgx_h100 (system_max_power_kw 10.2)
H100_TDP_W = 700.0  # catalog gpus.csv nvidia_h100_sxm5_80gb
MLPERF_SOURCE = (
    "MLPerf Training v4.0, 8x H100 node averaged 6.741 kW DC (smc.co/mlperfv40/results/llama2-70b-lora; "
    "validation row mlperf-v4.0-llama2-70b-lora-smc-8)"
)

#: Average GPU draw while training as a fraction of TDP. The split between GPUs and host is a planning
#: assumption, not sourced; with the host default below, the sum reproduces the measured 6.741 kW node.
GPU_LOAD_FACTOR_DEFAULT = 0.85
#: Host power (CPUs, DRAM, NICs and their optics, fans, drives, PSU losses) per GPU slot, derived:
#: (6741 W - 8 x 700 W x 0.85) / 8 = 247.6 W, i.e. 1.98 kW per 8-GPU node.
HOST_POWER_W_PER_GPU_DEFAULT = (
    MLPERF_NODE_AVG_POWER_W - MLPERF_NODE_GPUS * H100_TDP_W * GPU_LOAD_FACTOR_DEFAULT
) / MLPERF_NODE_GPUS
#: Average draw as a fraction of the node's rated maximum: 6.741 / 10.2 = 0.661.
NODE_MAX_POWER_UTILISATION_DEFAULT = MLPERF_NODE_AVG_POWER_W / DGX_H100_MAX_POWER_W

#: Fabric power per GPU for the reverse question: a 2-tier non-blocking fabric of the default switch, derived
#: from network.py's defaults (switch power there is a planning assumption, not sourced).
NETWORK_POWER_W_PER_GPU_DEFAULT = fabric_power_w_per_endpoint(NetworkSpec(), tiers=2)
#: Storage power per TB. The catalog has no storage rows: planning assumption, not sourced.
STORAGE_POWER_W_PER_TB_DEFAULT = 10.0

# --- nameplate and provisioning ----------------------------------------------------------------------------
#: Catalog systems with both a maximum input power and GPU TDPs (systems.csv / gpus.csv): (system max W, GPUs x
#: TDP W). DGX A100 6.5 kW with 8 x 400 W, DGX H100 10.2 kW with 8 x 700 W, DGX B200 14.3 kW with 8 x 1000 W.
NAMEPLATE_FIT_POINTS: tuple[tuple[float, float], ...] = (
    (6_500.0, 3_200.0),
    (10_200.0, 5_600.0),
    (14_300.0, 8_000.0),
)
#: Node nameplate per watt of GPU TDP: least-squares fit through the origin over NAMEPLATE_FIT_POINTS,
#: sum(xy) / sum(x^2) = 192.32 / 105.6 = 1.82 (per-system ratios 2.03, 1.82, 1.79). Used only when neither
#: the plan nor a catalog system gives the node's maximum power.
NAMEPLATE_PER_TDP = sum(w * x for w, x in NAMEPLATE_FIT_POINTS) / sum(x * x for _, x in NAMEPLATE_FIT_POINTS)
NAMEPLATE_FIT_SOURCE = (
    "fit over the catalog's DGX A100 (6.5 kW, 8 x 400 W), DGX H100 (10.2 kW, 8 x 700 W) and DGX B200 "
    "(14.3 kW, 8 x 1,000 W) maximum input power (systems.csv, NVIDIA user guides): node nameplate = "
    f"{NAMEPLATE_PER_TDP:.3f} x GPUs x TDP"
)
#: Redundancy of the power path (feeds, rack PDUs, UPS): Schneider Electric White Paper 75, "Comparing UPS
#: System Design Configurations" (N: capacity = load; N+1: one module more than the load needs; 2N: two
#: independent paths each carrying the full load).
REDUNDANCIES: tuple[str, ...] = ("N", "N+1", "2N")
REDUNDANCY_SOURCE = "Schneider Electric White Paper 75, Comparing UPS System Design Configurations"
#: Default 2N: DGX systems ship N+N power supplies for two independent feeds (systems.csv: DGX A100 3+3, DGX
#: H100 6 PSUs 4+2), so an A and a B feed each sized for the full nameplate.
REDUNDANCY_DEFAULT = "2N"
#: UPS module size for N+1 (n = ceil(load / module) modules carry the load, one more is installed). Planning
#: assumption, not sourced: type the module size of the UPS you buy.
UPS_MODULE_W = 500.0 * KW
#: Generator ratings are kVA at power factor 0.8 (ISO 8528-1 rates generating sets at 0.8 lagging).
GENERATOR_POWER_FACTOR = 0.8
GENERATOR_PF_SOURCE = "ISO 8528-1 (generating sets rated at power factor 0.8 lagging)"
#: Power capping: capping an H100 from 700 W to 600 W (14.3% less power) costs 10-15% of step throughput on
#: transformer pre-training (factryze.ai scale atlas, "Power Capping"; memory-bound inference loses 5-8%).
#: Throughput lost per unit of power cut = 0.125 / (100 / 700) = 0.875, applied linearly.
#: Cross-check, not a fit: torchtitan's Llama 3.1 8B run on 8 H100 at a 500 W limit (validation.csv
#: torchtitan-llama31-8b-h100-8, arXiv:2410.06511 section 3.1) measured 0.728 of the engine's uncapped figure;
#: this relation gives 1 - 0.875 x (200 / 700) = 0.75 at 500 W (the case is left uncapped in the accuracy set).
POWER_CAP_ELASTICITY = 0.125 / (100.0 / 700.0)
POWER_CAP_SOURCE = (
    "H100 700 -> 600 W loses 10-15% of transformer pre-training throughput (https://factryze.ai/scale-atlas/"
    "power/power-capping); 12.5% / 14.3% = 0.875 of the power cut, applied linearly"
)
#: Caps below this fraction of TDP are refused (far outside the one measured point); below
#: POWER_CAP_MEASURED_FRACTION (600/700) the effect is extrapolated and a warning says so.
POWER_CAP_MIN_FRACTION = 0.5
POWER_CAP_MEASURED_FRACTION = 600.0 / 700.0


def power_cap_throughput_fraction(limit_w: float, tdp_w: float) -> float:
    """Throughput left when a GPU is capped at `limit_w` (<= TDP): 1 - POWER_CAP_ELASTICITY x (1 - limit/TDP)."""
    return 1.0 - POWER_CAP_ELASTICITY * (1.0 - min(limit_w, tdp_w) / tdp_w)


def power_cap_section(limit_w: float, tdp_w: float, gpus: int) -> dict[str, Any]:
    """The `power.gpu_power_cap` output: the cap, its share of TDP, the throughput left
    (power_cap_throughput_fraction, with its source) and the GPU nameplate power it removes."""
    source = POWER_CAP_SOURCE
    if limit_w < POWER_CAP_MEASURED_FRACTION * tdp_w:
        source += "; extrapolated below the measured 600/700 of TDP"
    return {
        "limit_w": limit_w,
        "tdp_w": tdp_w,
        "fraction_of_tdp": limit_w / tdp_w,
        "throughput_fraction": power_cap_throughput_fraction(limit_w, tdp_w),
        "gpu_power_cut_kw": gpus * (tdp_w - min(limit_w, tdp_w)) / KW,
        "source": source,
    }


def nameplate_per_slot_w(system_max_power_w: float, system_gpus: int) -> float:
    """A catalog system's maximum input power per GPU slot (a node of g GPUs of that system: g x this)."""
    return system_max_power_w / system_gpus


def redundancy_factor(redundancy: str, load_w: float) -> float:
    """Installed capacity / load: N 1, 2N 2, N+1 (n + 1) / n with n = ceil(load / UPS_MODULE_W) modules."""
    if redundancy == "2N":
        return 2.0
    if redundancy == "N+1":
        modules = max(1, math.ceil(load_w / UPS_MODULE_W))
        return (modules + 1) / modules
    return 1.0


# --- cooling (catalog cooling.csv) ---------------------------------------------------------------------------
#: Industry average annual PUE, Uptime Institute 2024 survey (cooling.csv bench_uptime_2024); inside the
#: air-cooling range 1.3-1.8 (air_crac_crah). Used when neither the input nor the cooling preset gives a PUE.
PUE_DEFAULT = 1.56
PUE_DEFAULT_SOURCE = "Uptime Institute 2024 industry average (catalog cooling.csv bench_uptime_2024)"
#: Colocation premium for liquid-cooled space: 20-40% (catalog economics.csv colo_liquid_premium); midpoint.
LIQUID_COLO_PREMIUM = 0.30
#: Air-cooling capex, midpoint of USD 1,000-2,500 per kW (cooling.csv air_crac_crah, yobitel).
AIR_CAPEX_USD_PER_W = (1000.0 + 2500.0) / 2 / KW
#: Direct-to-chip capex, midpoint of USD 1,875-5,000 per kW (cooling.csv dlc_cold_plate, yobitel).
DLC_CAPEX_USD_PER_W = (1875.0 + 5000.0) / 2 / KW
#: Single-phase immersion: 14% below air at 40 kW/rack (Iceotope/Schneider 2 MW study, cooling.csv immersion_1p).
IMMERSION_CAPEX_USD_PER_W = AIR_CAPEX_USD_PER_W * (1.0 - 0.14)


@dataclass(frozen=True)
class CoolingSpec:
    """A cooling technology: PUE, the power one rack can hold, cooling capex per W of IT, water per IT kWh.

    `pue=None` means "not known for this technology": PUE_DEFAULT is used and echoed. Each `*_source` names the
    catalog row or says that the value is a planning assumption.
    """

    name: str = "air_crac_crah"
    #: What a person reads in messages (the catalog row's name, shortened): "air cooling (CRAC/CRAH)".
    label: str = "air cooling (CRAC/CRAH)"
    pue: float | None = None
    rack_density_w: float = 20.0 * KW
    capex_usd_per_w: float = AIR_CAPEX_USD_PER_W
    wue_l_per_kwh: float | None = None
    colocation_premium_fraction: float = 0.0
    pue_source: str = PUE_DEFAULT_SOURCE
    rack_density_source: str = "cooling.csv air_crac_crah: 15-20 kW typical (upper end)"
    capex_source: str = "cooling.csv air_crac_crah: USD 1,000-2,500 per kW (midpoint)"
    wue_source: str = ""


_RDHX_PUE_SOURCE = (
    "planning assumption, not sourced: no RDHx PUE in the catalog; the low end (1.3) of the air range "
    "(cooling.csv air_crac_crah), as the door removes heat at the rack but the chilled-water plant remains"
)
_NO_CAPEX = "planning assumption, not sourced: no capex in the catalog for this technology; air midpoint used"
_LIQUID_PREMIUM_SOURCE = "economics.csv colo_liquid_premium 20-40% (midpoint)"

COOLING_PRESETS: dict[str, CoolingSpec] = {
    "air_crac_crah": CoolingSpec(
        name="air_crac_crah",
        pue=PUE_DEFAULT,
        wue_l_per_kwh=1.8,
        wue_source="cooling.csv air_crac_crah / wue_us_avg: LBNL 2016 US average 1.8 L/kWh (not air-specific)",
    ),
    "rdhx_passive": CoolingSpec(
        name="rdhx_passive",
        label="passive rear-door heat exchanger",
        pue=1.3,
        rack_density_w=30.0 * KW,
        colocation_premium_fraction=LIQUID_COLO_PREMIUM,
        pue_source=_RDHX_PUE_SOURCE,
        rack_density_source="cooling.csv rdhx_passive: 10-30 kW typical (upper end)",
        capex_source=_NO_CAPEX,
    ),
    "rdhx_active": CoolingSpec(
        name="rdhx_active",
        label="active rear-door heat exchanger",
        pue=1.3,
        rack_density_w=60.0 * KW,
        colocation_premium_fraction=LIQUID_COLO_PREMIUM,
        pue_source=_RDHX_PUE_SOURCE,
        rack_density_source="cooling.csv rdhx_active: 40-60 kW typical (upper end)",
        capex_source=_NO_CAPEX,
    ),
    "dlc_cold_plate": CoolingSpec(
        name="dlc_cold_plate",
        label="direct liquid cooling (cold plate)",
        pue=1.2,
        rack_density_w=100.0 * KW,
        capex_usd_per_w=DLC_CAPEX_USD_PER_W,
        colocation_premium_fraction=LIQUID_COLO_PREMIUM,
        pue_source=(
            "planning assumption, not sourced: the catalog's DLC PUE is blank (NVIDIA/Vertiv study not "
            "retrieved); 1.2 lies between single-phase immersion's high end 1.10 and air's low end 1.3, and "
            "equals Germany's EnEfG limit for new data centres (cooling.csv reg_germany_enefg)"
        ),
        rack_density_source="cooling.csv dlc_cold_plate: 60-100 kW typical (upper end)",
        capex_source="cooling.csv dlc_cold_plate: USD 1,875-5,000 per kW (midpoint)",
    ),
    "immersion_1p": CoolingSpec(
        name="immersion_1p",
        label="single-phase immersion",
        pue=1.10,
        rack_density_w=40.0 * KW,
        capex_usd_per_w=IMMERSION_CAPEX_USD_PER_W,
        colocation_premium_fraction=LIQUID_COLO_PREMIUM,
        pue_source="cooling.csv immersion_1p: 1.03-1.10 (vendor/analyst claims; high end, conservative)",
        rack_density_source="cooling.csv immersion_1p: 40 kW, the highest studied case (not a limit)",
        capex_source="cooling.csv immersion_1p: 14% below air at 40 kW/rack (Iceotope/Schneider), x air midpoint",
    ),
    "immersion_2p": CoolingSpec(
        name="immersion_2p",
        label="two-phase immersion",
        pue=1.05,
        rack_density_w=40.0 * KW,
        capex_usd_per_w=IMMERSION_CAPEX_USD_PER_W,
        colocation_premium_fraction=LIQUID_COLO_PREMIUM,
        pue_source="cooling.csv immersion_2p: 1.02-1.05 (vendor/analyst claims; high end, conservative)",
        rack_density_source="planning assumption, not sourced: no 2-phase density in the catalog; 1-phase's 40 kW",
        capex_source="planning assumption, not sourced: no 2-phase capex in the catalog; 1-phase value used",
    ),
}
COOLING_ALIASES: dict[str, str] = {
    "air": "air_crac_crah",
    "rdhx": "rdhx_active",
    "dlc": "dlc_cold_plate",
    "liquid": "dlc_cold_plate",
    "immersion": "immersion_1p",
}


def cooling_preset(name: str) -> CoolingSpec:
    """The catalog-derived preset for a cooling technology name (or alias); SpecError for an unknown name."""
    key = COOLING_ALIASES.get(name, name)
    if key not in COOLING_PRESETS:
        known = ", ".join([*COOLING_PRESETS, *COOLING_ALIASES])
        raise SpecError.at("cluster.cooling.name", f"unknown cooling technology {name!r} (known: {known})")
    return COOLING_PRESETS[key]


def cooling_from(
    name: str = "air_crac_crah",
    *,
    pue: float | None = None,
    rack_density_w: float | None = None,
    capex_usd_per_w: float | None = None,
    wue_l_per_kwh: float | None = None,
) -> CoolingSpec:
    """A preset with the user's overrides applied; overridden values are echoed with source 'input'."""
    base = cooling_preset(name)
    problems: list[Problem] = []
    if pue is not None and not 1.0 <= pue <= 5.0:
        problems.append(Problem("cluster.cooling.pue", f"must be between 1 and 5 (got {pue})"))
    if rack_density_w is not None and not rack_density_w > 0:
        problems.append(Problem("cluster.cooling.rack_density_kw", "must be greater than 0"))
    if capex_usd_per_w is not None and not capex_usd_per_w >= 0:
        problems.append(Problem("cluster.cooling.capex_usd_per_kw", "must not be negative"))
    if wue_l_per_kwh is not None and not wue_l_per_kwh >= 0:
        problems.append(Problem("cluster.cooling.wue_l_per_kwh", "must not be negative"))
    if problems:
        raise SpecError(problems)
    changes: dict[str, Any] = {}
    if pue is not None:
        changes |= {"pue": pue, "pue_source": "input"}
    if rack_density_w is not None:
        changes |= {"rack_density_w": rack_density_w, "rack_density_source": "input"}
    if capex_usd_per_w is not None:
        changes |= {"capex_usd_per_w": capex_usd_per_w, "capex_source": "input"}
    if wue_l_per_kwh is not None:
        changes |= {"wue_l_per_kwh": wue_l_per_kwh, "wue_source": "input"}
    return replace(base, **changes)


@dataclass(frozen=True)
class PowerInputs:
    """What draws power. `host_power_w_per_node=None` derives it (HOST_POWER_W_PER_GPU_DEFAULT per GPU slot);
    `node_max_power_w`, when given, replaces the parts model by max x NODE_MAX_POWER_UTILISATION_DEFAULT."""

    nodes: int
    gpus_per_node: int
    gpu_tdp_w: float
    gpu_load_factor: float = GPU_LOAD_FACTOR_DEFAULT
    host_power_w_per_node: float | None = None
    node_max_power_w: float | None = None
    network_power_w: float = 0.0
    storage_power_w: float = 0.0
    pue: float | None = None
    node_max_power_utilisation: float = NODE_MAX_POWER_UTILISATION_DEFAULT
    #: Nameplate of one node for provisioning (None: node_max_power_w, else NAMEPLATE_PER_TDP x GPUs x TDP).
    node_nameplate_w: float | None = None
    nameplate_source: str = ""
    redundancy: str = REDUNDANCY_DEFAULT


@dataclass(frozen=True)
class Provisioning:
    """What the facility provisions: nameplate IT and facility power, feeds, UPS and generators with redundancy."""

    redundancy: str
    node_nameplate_w: float
    it_nameplate_w: float
    facility_nameplate_w: float  # IT nameplate x PUE
    feed_capacity_w: float  # rack feeds / PDUs: IT nameplate x redundancy factor
    ups_capacity_w: float  # UPS: IT nameplate x redundancy factor
    generator_kva: float  # facility nameplate x redundancy factor / power factor
    rack_pdus: int  # racks x feeds per rack (2 for 2N: A and B)

    def as_dict(self) -> dict[str, Any]:
        return {
            "redundancy": self.redundancy,
            "node_nameplate_kw": self.node_nameplate_w / KW,
            "it_nameplate_kw": self.it_nameplate_w / KW,
            "facility_nameplate_kw": self.facility_nameplate_w / KW,
            "feed_capacity_kw": self.feed_capacity_w / KW,
            "ups_capacity_kw": self.ups_capacity_w / KW,
            "generator_kva": self.generator_kva,
            "rack_pdus": self.rack_pdus,
            "racks_from": "nameplate (provisioned) kW per rack",
        }


@dataclass(frozen=True)
class PowerResult:
    it_power_w: float  # average draw while running
    facility_power_w: float
    pue: float
    racks: int
    rack_density_w: float
    nodes_per_rack: int
    gpu_power_w: float
    host_power_w: float
    network_power_w: float
    storage_power_w: float
    peak_it_power_w: float  # provisioned: GPUs at TDP (or node max), for racks, fit-out and colocation
    wue_l_per_kwh: float | None = None
    warnings: tuple[str, ...] = ()
    assumptions: dict[str, dict[str, Any]] = field(default_factory=dict)
    provisioning: Provisioning | None = None

    @property
    def cooling_overhead_w(self) -> float:
        return self.facility_power_w - self.it_power_w

    def as_dict(
        self, run_time_s: float | None = None, grid_kgco2_per_kwh: float | None = None
    ) -> PowerSection:
        """The `power` output section (docs/engine-contract.md). Energy is facility energy (IT x PUE x time); per year
        means running all year at this draw. CO2 fields are null without a grid intensity."""
        run_energy_j = energy_j(self.facility_power_w, run_time_s) if run_time_s is not None else None
        year_energy_j = energy_j(self.facility_power_w, YEAR)
        out: PowerSection = {
            "it_kw": self.it_power_w / KW,
            "facility_kw": self.facility_power_w / KW,
            "pue": self.pue,
            "energy_mwh": None if run_energy_j is None else run_energy_j / MWH,
            "breakdown_kw": {
                "gpus": self.gpu_power_w / KW,
                "hosts": self.host_power_w / KW,
                "network": self.network_power_w / KW,
                "storage": self.storage_power_w / KW,
                "cooling_overhead": self.cooling_overhead_w / KW,
            },
            "peak_it_kw": self.peak_it_power_w / KW,
            "racks": self.racks,
            "rack_density_kw": self.rack_density_w / KW,
            "nodes_per_rack": self.nodes_per_rack,
            "energy_mwh_per_year": year_energy_j / MWH,
            "co2_t": None,
            "co2_t_per_year": None,
            "water_m3_per_year": None,
        }
        if self.provisioning is not None:
            out["provisioning"] = self.provisioning.as_dict()  # type: ignore[typeddict-unknown-key]
        if grid_kgco2_per_kwh is not None:
            out["co2_t"] = (
                None if run_energy_j is None else carbon_kg(run_energy_j, grid_kgco2_per_kwh) / KG_PER_TONNE
            )
            out["co2_t_per_year"] = carbon_kg(year_energy_j, grid_kgco2_per_kwh) / KG_PER_TONNE
        if self.wue_l_per_kwh is not None:
            it_kwh_per_year = energy_j(self.it_power_w, YEAR) / KWH
            out["water_m3_per_year"] = it_kwh_per_year * self.wue_l_per_kwh / LITRES_PER_M3
        return out


def energy_j(power_w: float, time_s: float) -> float:
    """Energy = power x time (J = W x s)."""
    return power_w * time_s


def carbon_kg(energy_j: float, grid_kgco2_per_kwh: float) -> float:
    """Operational CO2 = energy (kWh) x grid carbon intensity (kg CO2 per kWh)."""
    return energy_j / KWH * grid_kgco2_per_kwh


def storage_power_w(storage_tb: float, w_per_tb: float = STORAGE_POWER_W_PER_TB_DEFAULT) -> float:
    """Storage power = capacity x W per TB (default a planning assumption, not sourced)."""
    return storage_tb * w_per_tb


def default_host_power_w_per_node(gpus_per_node: int) -> float:
    """Host power of a node with `gpus_per_node` GPU slots: HOST_POWER_W_PER_GPU_DEFAULT x slots (calibrated on
    the MLPerf 8x H100 node, see module docstring)."""
    return HOST_POWER_W_PER_GPU_DEFAULT * gpus_per_node


def node_it_power_w(inputs: PowerInputs) -> tuple[float, float]:
    """Average (GPU, host) power of one node while running.

    Parts: GPUs = gpus_per_node x TDP x load factor; host = given or default_host_power_w_per_node.
    Rated: node = node_max_power_w x utilisation; the GPU share is the parts figure capped at that total.
    """
    gpus_w = inputs.gpus_per_node * inputs.gpu_tdp_w * inputs.gpu_load_factor
    if inputs.node_max_power_w is not None:
        node_w = inputs.node_max_power_w * inputs.node_max_power_utilisation
        gpus_w = min(gpus_w, node_w)
        return gpus_w, node_w - gpus_w
    host_w = inputs.host_power_w_per_node
    if host_w is None:
        host_w = default_host_power_w_per_node(inputs.gpus_per_node)
    return gpus_w, host_w


def node_peak_power_w(inputs: PowerInputs) -> float:
    """Nameplate (provisioned) power of one node: the given nameplate, else its rated maximum, else
    NAMEPLATE_PER_TDP x GPUs x TDP (module docstring)."""
    if inputs.node_nameplate_w is not None:
        return inputs.node_nameplate_w
    if inputs.node_max_power_w is not None:
        return inputs.node_max_power_w
    return NAMEPLATE_PER_TDP * inputs.gpus_per_node * inputs.gpu_tdp_w


def nameplate_source(inputs: PowerInputs) -> str:
    if inputs.node_nameplate_w is not None:
        return inputs.nameplate_source or "input"
    if inputs.node_max_power_w is not None:
        return inputs.nameplate_source or "the node's rated maximum power (input or system template)"
    return NAMEPLATE_FIT_SOURCE


def provisioning(inputs: PowerInputs, *, racks: int, pue: float, it_nameplate_w: float) -> Provisioning:
    """Feeds and UPS = IT nameplate x redundancy factor; generators = IT nameplate x PUE x factor / 0.8 (kVA);
    rack PDUs = racks x (2 for 2N, else 1)."""
    factor = redundancy_factor(inputs.redundancy, it_nameplate_w)
    facility_w = it_nameplate_w * pue
    return Provisioning(
        redundancy=inputs.redundancy,
        node_nameplate_w=node_peak_power_w(inputs),
        it_nameplate_w=it_nameplate_w,
        facility_nameplate_w=facility_w,
        feed_capacity_w=it_nameplate_w * factor,
        ups_capacity_w=it_nameplate_w * factor,
        generator_kva=facility_w
        * redundancy_factor(inputs.redundancy, facility_w)
        / KW
        / GENERATOR_POWER_FACTOR,
        rack_pdus=racks * (2 if inputs.redundancy == "2N" else 1),
    )


def rack_count(
    *, nodes: int, node_peak_w: float, other_peak_w: float, rack_density_w: float
) -> tuple[int, int]:
    """(racks, nodes per rack). Whole nodes per rack = floor(density / node peak), at least 1; network and storage
    gear fills ceil(their power / density) more racks."""
    nodes_per_rack = max(1, math.floor(rack_density_w / node_peak_w)) if node_peak_w > 0 else max(nodes, 1)
    compute_racks = math.ceil(nodes / nodes_per_rack)
    support_racks = math.ceil(other_peak_w / rack_density_w) if other_peak_w > 0 else 0
    return compute_racks + support_racks, nodes_per_rack


def _check(inputs: PowerInputs, cooling: CoolingSpec) -> None:
    problems: list[Problem] = []
    if inputs.nodes < 0:
        problems.append(Problem("cluster.nodes", "must not be negative"))
    if inputs.gpus_per_node < 1:
        problems.append(Problem("cluster.gpus_per_node", "must be at least 1"))
    if not inputs.gpu_tdp_w > 0:
        problems.append(Problem("cluster.gpu.tdp_w", "must be greater than 0"))
    if not 0.0 < inputs.gpu_load_factor <= 1.0:
        problems.append(Problem("cluster.gpu_load_factor", "must be in (0, 1]"))
    if inputs.host_power_w_per_node is not None and not inputs.host_power_w_per_node >= 0:
        problems.append(Problem("cluster.host_power_kw", "must not be negative"))
    if inputs.node_max_power_w is not None and not inputs.node_max_power_w > 0:
        problems.append(Problem("cluster.node_max_power_kw", "must be greater than 0"))
    if not 0.0 < inputs.node_max_power_utilisation <= 1.0:
        problems.append(Problem("cluster.node_max_power_utilisation", "must be in (0, 1]"))
    if not inputs.network_power_w >= 0:
        problems.append(Problem("cluster.network", "network power must not be negative"))
    if not inputs.storage_power_w >= 0:
        problems.append(Problem("cluster.storage_tb", "storage power must not be negative"))
    if inputs.pue is not None and not 1.0 <= inputs.pue <= 5.0:
        problems.append(Problem("cluster.pue", f"must be between 1 and 5 (got {inputs.pue})"))
    if inputs.node_nameplate_w is not None and not inputs.node_nameplate_w > 0:
        problems.append(Problem("cluster.node_nameplate_kw", "must be greater than 0"))
    if inputs.redundancy not in REDUNDANCIES:
        problems.append(
            Problem(
                "cluster.power_redundancy",
                f"must be one of {', '.join(REDUNDANCIES)} (got {inputs.redundancy!r})",
            )
        )
    if not cooling.rack_density_w > 0:
        problems.append(Problem("cluster.cooling.rack_density_kw", "must be greater than 0"))
    if problems:
        raise SpecError(problems)


def _assumptions(
    inputs: PowerInputs, cooling: CoolingSpec, pue: float, pue_source: str
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if inputs.node_max_power_w is not None:
        out["power.node_max_power_utilisation"] = {
            "value": inputs.node_max_power_utilisation,
            "unit": "fraction of node max power",
            "source": f"6.741 / 10.2 kW: {MLPERF_SOURCE}"
            if inputs.node_max_power_utilisation == NODE_MAX_POWER_UTILISATION_DEFAULT
            else "input",
        }
    else:
        out["power.gpu_load_factor"] = {
            "value": inputs.gpu_load_factor,
            "unit": "fraction of TDP",
            "source": "planning assumption, not sourced (GPU/host split); the default pair reproduces "
            + MLPERF_SOURCE
            if inputs.gpu_load_factor == GPU_LOAD_FACTOR_DEFAULT
            else "input",
        }
        if inputs.host_power_w_per_node is None:
            out["power.host_power_w_per_gpu"] = {
                "value": HOST_POWER_W_PER_GPU_DEFAULT,
                "unit": "W per GPU slot",
                "source": f"(6741 W - 8 x 700 W x {GPU_LOAD_FACTOR_DEFAULT}) / 8; {MLPERF_SOURCE}",
            }
    out["power.node_nameplate_w"] = {
        "value": node_peak_power_w(inputs),
        "unit": "W per node (provisioned)",
        "source": nameplate_source(inputs),
    }
    out["power.redundancy"] = {
        "value": inputs.redundancy,
        "unit": "feeds, rack PDUs and UPS",
        "source": REDUNDANCY_SOURCE
        + (
            "; default 2N: DGX systems ship N+N supplies for A and B feeds"
            if inputs.redundancy == "2N"
            else ""
        ),
    }
    out["power.pue"] = {"value": pue, "unit": "", "source": pue_source}
    out["power.cooling"] = {"value": cooling.name, "unit": "", "source": "input or default (air)"}
    out["power.rack_density_w"] = {
        "value": cooling.rack_density_w,
        "unit": "W per rack",
        "source": cooling.rack_density_source,
    }
    if cooling.wue_l_per_kwh is not None:
        out["power.wue_l_per_kwh"] = {
            "value": cooling.wue_l_per_kwh,
            "unit": "L per IT kWh",
            "source": cooling.wue_source,
        }
    return out


def estimate_power(inputs: PowerInputs, cooling: CoolingSpec | None = None) -> PowerResult:
    """IT power = nodes x (GPU + host) + network + storage; facility = IT x PUE (PUE from the input, else the
    cooling technology, else PUE_DEFAULT); racks from the cooling technology's rack density."""
    cooling = cooling or COOLING_PRESETS["air_crac_crah"]
    _check(inputs, cooling)
    if inputs.pue is not None:
        pue, pue_source = inputs.pue, "input"
    elif cooling.pue is not None:
        pue, pue_source = cooling.pue, cooling.pue_source
    else:
        pue, pue_source = PUE_DEFAULT, PUE_DEFAULT_SOURCE
    gpu_w, host_w = node_it_power_w(inputs)
    it_w = inputs.nodes * (gpu_w + host_w) + inputs.network_power_w + inputs.storage_power_w
    peak_node_w = node_peak_power_w(inputs)
    other_w = inputs.network_power_w + inputs.storage_power_w
    racks, nodes_per_rack = rack_count(
        nodes=inputs.nodes,
        node_peak_w=peak_node_w,
        other_peak_w=other_w,
        rack_density_w=cooling.rack_density_w,
    )
    warnings: list[str] = []
    it_nameplate_w = inputs.nodes * peak_node_w + other_w
    provisioned = provisioning(inputs, racks=racks, pue=pue, it_nameplate_w=it_nameplate_w)
    if peak_node_w > cooling.rack_density_w:
        warnings.append(
            f"one node draws up to {peak_node_w / KW:.1f} kW, more than a rack with {cooling.label} holds "
            f"({cooling.rack_density_w / KW:.0f} kW); counted one node per rack, which this cooling cannot serve"
        )
    return PowerResult(
        it_power_w=it_w,
        facility_power_w=it_w * pue,
        pue=pue,
        racks=racks,
        rack_density_w=cooling.rack_density_w,
        nodes_per_rack=nodes_per_rack,
        gpu_power_w=inputs.nodes * gpu_w,
        host_power_w=inputs.nodes * host_w,
        network_power_w=inputs.network_power_w,
        storage_power_w=inputs.storage_power_w,
        peak_it_power_w=it_nameplate_w,
        wue_l_per_kwh=cooling.wue_l_per_kwh,
        warnings=tuple(warnings),
        assumptions=_assumptions(inputs, cooling, pue, pue_source),
        provisioning=provisioned,
    )


def max_gpus_for_power(
    facility_power_budget_w: float,
    *,
    gpus_per_node: int,
    per_node_it_power_w: float,
    pue: float,
    network_power_w_per_gpu: float = NETWORK_POWER_W_PER_GPU_DEFAULT,
) -> int:
    """Largest whole-node GPU count whose facility power fits the budget:
    nodes = floor(budget / (PUE x (node IT power + GPUs per node x fabric power per GPU))), GPUs = nodes x g."""
    if gpus_per_node < 1:
        raise SpecError.at("cluster.gpus_per_node", "must be at least 1")
    per_node_facility_w = pue * (per_node_it_power_w + gpus_per_node * network_power_w_per_gpu)
    if not per_node_facility_w > 0 or not facility_power_budget_w > 0:
        return 0
    nodes = math.floor(facility_power_budget_w / per_node_facility_w * (1.0 + _FLOAT_SLACK))
    return max(nodes, 0) * gpus_per_node


def assumptions() -> dict[str, dict[str, Any]]:
    """Every power default with its source."""
    air = COOLING_PRESETS["air_crac_crah"]
    defaults = PowerInputs(nodes=1, gpus_per_node=MLPERF_NODE_GPUS, gpu_tdp_w=H100_TDP_W)
    return {
        **_assumptions(defaults, air, PUE_DEFAULT, air.pue_source),
        "power.node_max_power_utilisation": {
            "value": NODE_MAX_POWER_UTILISATION_DEFAULT,
            "unit": "fraction of node max power",
            "source": f"6.741 / 10.2 kW: {MLPERF_SOURCE}",
        },
        "power.network_power_w_per_gpu": {
            "value": NETWORK_POWER_W_PER_GPU_DEFAULT,
            "unit": "W per GPU",
            "source": "derived from network.py defaults, 2-tier non-blocking (switch power not sourced)",
        },
        "power.storage_power_w_per_tb": {
            "value": STORAGE_POWER_W_PER_TB_DEFAULT,
            "unit": "W per TB",
            "source": "planning assumption, not sourced (no storage rows in the catalog)",
        },
    }
