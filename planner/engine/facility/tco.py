"""Total cost of ownership: capex, yearly opex, NPV, $/GPU-hour, the cost of a run owned vs rented, break-even.

Conventions (stated once, used everywhere below):
* all capex is paid at month 0; opex accrues evenly, month by month; no residual value at end of life;
* `tco_usd` is the plain (undiscounted) sum capex + opex x years; with discount_rate > 0, `npv_usd` discounts
  each year's opex to the start (paid at the end of year y: / (1 + r)^y);
* utilised GPU-hours = GPUs x years x 8766 h x utilisation; $/GPU-hour = TCO / utilised GPU-hours, so idle hours
  are paid for by the hours that are used;
* energy opex = facility power x (utilisation + (1 - utilisation) x idle_power_fraction) x hours x price: idle
  hours draw `idle_power_fraction` of the running draw, PUE unchanged;
* colocation $/kW-month is charged on provisioned (peak) IT kW, x (1 + liquid premium) for liquid cooling;
  energy is billed on top, as is usual for wholesale colocation. Without colocation the facility is owned and
  its fit-out (capex per kW of peak IT) is capex.
* renting = the same utilised GPU-hours at the cloud $/GPU-hour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from planner.engine.facility.power import COOLING_PRESETS, CoolingSpec
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.units import HOUR, HOURS_PER_YEAR, KW, KWH, MONTHS_PER_YEAR, MWH, YEAR
from planner.engine.results import CostYear, OwnVsRent, TcoSection

_PATH = "economics"
NOT_SOURCED = "planning assumption, not sourced"

#: US industrial average retail price 2023, EIA via Statista (catalog economics.csv elec_us_industrial_2023).
ELECTRICITY_USD_PER_KWH_DEFAULT = 0.0806
ELECTRICITY_SOURCE = "catalog economics.csv elec_us_industrial_2023 (EIA, US industrial average 2023)"
#: Useful life: 5 years (Amazon from 2025 for AI servers, dep_amazon_2025; Meta, dep_meta).
YEARS_DEFAULT = 5.0
YEARS_SOURCE = "catalog economics.csv dep_amazon_2025 / dep_meta: 5-year server life"
#: Share of the year the GPUs do useful work. Planning assumption, not sourced.
UTILIZATION_DEFAULT = 0.8
#: CBRE North America primary markets, 250-500 kW wholesale, 2024-H2 (economics.csv colo_na_2024h2); not a
#: default (colocation is off unless asked for), offered to callers that want a sourced rate.
COLOCATION_USD_PER_KW_MONTH_NA_2024H2 = 184.06
COLOCATION_SOURCE = "catalog economics.csv colo_na_2024h2 (CBRE, NA 2024-H2 average asking rate)"
#: Hardware maintenance/support per year as a share of hardware capex. Planning assumption, not sourced.
MAINTENANCE_FRACTION_PER_YEAR_DEFAULT = 0.05
#: Storage capex per usable TB: an all-flash parallel file system, ESTIMATE (catalog prices.csv
#: price_storage_pfs_flash): 2 x raw enterprise NVMe at USD 80-150 per TB (manishklach.github.io, 2026).
STORAGE_USD_PER_TB_DEFAULT = 230.0
STORAGE_SOURCE = (
    "ESTIMATE (catalog prices.csv price_storage_pfs_flash): ratio to the nearest priced part, 2 x raw enterprise "
    "NVMe USD 80-150 per TB (https://manishklach.github.io/writings/storage-geometry-100k-gpu-cluster-nand-demand"
    ".html) for servers and data protection"
)
#: NVIDIA AI Enterprise: USD 4,500 per GPU per year, list (NVIDIA Q3 FY2024 earnings call; prices.csv price_nvaie).
#: Charged for NVIDIA GPUs only unless given.
SOFTWARE_USD_PER_GPU_YEAR_NVIDIA = 4_500.0
SOFTWARE_SOURCE = (
    "list price (catalog prices.csv price_nvaie): NVIDIA AI Enterprise USD 4,500 per GPU-year, NVIDIA Q3 FY2024 "
    "earnings call (https://insidermonkey.com/blog/nvidia-corporation-nasdaqnvda-q3-2024-earnings-call-transcript"
    "-1227317/5); 0 for other vendors' GPUs"
)
#: Installation, rack-and-stack, cabling and acceptance: 2% of hardware capex, ESTIMATE (prices.csv
#: price_installation: planning ratio, no public figure found).
INSTALLATION_FRACTION_DEFAULT = 0.02
INSTALLATION_SOURCE = (
    "ESTIMATE (catalog prices.csv price_installation): planning ratio, no public figure found"
)
#: Spares: one spare node per 32 nodes, the NVIDIA DGX SuperPOD scalable unit (interconnects.csv
#: topo_rail_optimized: SU = 32 nodes); ESTIMATE of the spares policy, at least one spare node.
NODES_PER_SPARE_DEFAULT = 32.0
SPARES_SOURCE = (
    "ESTIMATE: one spare node per 32-node scalable unit (NVIDIA DGX SuperPOD SU, catalog topo_rail_optimized), "
    "at least one; set economics.nodes_per_spare to 0 for none"
)
#: Front-end / storage network per node: one 400G switch port (QM9700 estimate / 64 = USD 1,560), two 400G
#: transceivers (USD 700 street each) and one MPO trunk (USD 100 street): ESTIMATE from catalog part prices.
FRONTEND_USD_PER_NODE_DEFAULT = 1_560.0 + 2 * 700.0 + 100.0
FRONTEND_SOURCE = (
    "ESTIMATE from catalog part prices: one 400G switch port (price_nvidia_qm9700 / 64 = USD 1,560, estimate) + "
    "2 x 400G transceiver (price_xcvr_osfp_400g, USD 700 street) + 1 MPO trunk (price_cable_mpo_trunk, USD 100)"
)
#: Management (out-of-band) network per node: one port at the cheapest catalog switch's per-port price
#: (QM8700 estimate / 40 = USD 781), an LC patch cable (USD 35) and a 48-port patch panel share (USD 1,000 / 48).
MANAGEMENT_USD_PER_NODE_DEFAULT = 31_250.0 / 40 + 35.0 + 1_000.0 / 48
MANAGEMENT_SOURCE = (
    "ESTIMATE from catalog part prices: one port at the cheapest catalog switch's per-port price "
    "(price_nvidia_qm8700 / 40 = USD 781, an upper bound for a 1/10GbE port) + LC patch cable (USD 35 street) + "
    "a 48-port patch panel share (USD 1,000 / 48)"
)
#: Operations staff: 3.8 FTE per MW of IT nameplate (prices.csv price_staff_per_mw: 8-15 staff for 1-5 MW,
#: broadstaffglobal.com) at USD 95,360 per FTE-year (US BLS median pay of network and computer systems
#: administrators, 2023; prices.csv price_staff_fte).
STAFF_FTE_PER_MW_DEFAULT = 3.8
STAFF_USD_PER_FTE_YEAR_DEFAULT = 95_360.0
STAFF_SOURCE = (
    "ESTIMATE: 3.8 FTE per MW of IT nameplate (8-15 staff for 1-5 MW facilities, https://broadstaffglobal.com/"
    "?p=227122) x USD 95,360 per FTE-year (US BLS median pay, network and computer systems administrators, 2023, "
    "https://www.bls.gov/ooh/computer-and-information-technology/network-and-computer-systems-administrators.htm)"
)
#: Draw of idle hours as a share of the running draw. Planning assumption, not sourced.
IDLE_POWER_FRACTION_DEFAULT = 0.3
FACILITY_SCOPE_WARNING = (
    "facility capex counts cooling capex only (catalog cooling.csv); electrical distribution, UPS, generators "
    "and the building are not in the catalog: set economics.facility_capex_usd_per_kw to include them"
)


@dataclass(frozen=True)
class EconomicsSpec:
    electricity_usd_per_kwh: float
    years: float
    utilization: float
    gpu_server_usd: float  # one node / server including its GPUs
    cloud_usd_per_gpu_hour: float
    discount_rate: float = 0.0
    colocation_usd_per_kw_month: float | None = None  # None = own facility
    facility_capex_usd_per_kw: float | None = None  # None = the cooling technology's capex per kW
    maintenance_fraction_per_year: float = MAINTENANCE_FRACTION_PER_YEAR_DEFAULT
    staff_usd_per_year: float | None = None  # None: STAFF_FTE_PER_MW x IT nameplate MW x salary
    storage_usd_per_tb: float = STORAGE_USD_PER_TB_DEFAULT
    grid_kgco2_per_kwh: float | None = None
    idle_power_fraction: float = IDLE_POWER_FRACTION_DEFAULT
    software_usd_per_gpu_year: float | None = None  # None: NVIDIA AI Enterprise for NVIDIA GPUs, else 0
    installation_fraction: float = INSTALLATION_FRACTION_DEFAULT
    nodes_per_spare: float = NODES_PER_SPARE_DEFAULT
    frontend_network_usd_per_node: float = FRONTEND_USD_PER_NODE_DEFAULT
    management_network_usd_per_node: float = MANAGEMENT_USD_PER_NODE_DEFAULT
    staff_fte_per_mw: float = STAFF_FTE_PER_MW_DEFAULT
    staff_usd_per_fte_year: float = STAFF_USD_PER_FTE_YEAR_DEFAULT
    energy_escalation_per_year: float = 0.0  # electricity price change per year (0.03 = +3%/year)
    price_escalation_per_year: float = 0.0  # other opex (staff, software, maintenance, colocation) per year
    residual_value_fraction: float = 0.0  # share of hardware capex recovered by resale at the end of life


@dataclass(frozen=True)
class TcoInputs:
    nodes: int
    gpus: int
    network_capex_usd: float
    storage_tb: float
    it_power_w: float  # average running draw
    facility_power_w: float  # average running draw x PUE
    run_time_s: float | None = None
    peak_it_power_w: float | None = None  # provisioned IT power; None = it_power_w
    gpu_vendor: str = ""


@dataclass(frozen=True)
class TcoResult:
    capex_servers_usd: float
    capex_network_usd: float
    capex_storage_usd: float
    capex_facility_usd: float
    opex_energy_usd_per_year: float
    opex_colocation_usd_per_year: float
    opex_maintenance_usd_per_year: float
    opex_staff_usd_per_year: float
    years: float
    gpus: int
    utilization: float
    discount_rate: float
    cloud_usd_per_gpu_hour: float
    billed_energy_j_per_year: float
    run_time_s: float | None
    warnings: tuple[str, ...] = ()
    assumptions: dict[str, dict[str, Any]] = field(default_factory=dict)
    capex_frontend_network_usd: float = 0.0
    capex_management_network_usd: float = 0.0
    capex_spares_usd: float = 0.0
    spare_nodes: int = 0
    capex_installation_usd: float = 0.0
    opex_software_usd_per_year: float = 0.0
    staff_fte: float = 0.0
    energy_escalation_per_year: float = 0.0
    price_escalation_per_year: float = 0.0
    residual_value_usd: float = 0.0

    @property
    def capex_usd(self) -> float:
        return (
            self.capex_servers_usd
            + self.capex_network_usd
            + self.capex_storage_usd
            + self.capex_facility_usd
            + self.capex_frontend_network_usd
            + self.capex_management_network_usd
            + self.capex_spares_usd
            + self.capex_installation_usd
        )

    @property
    def opex_usd_per_year(self) -> float:
        return (
            self.opex_energy_usd_per_year
            + self.opex_colocation_usd_per_year
            + self.opex_maintenance_usd_per_year
            + self.opex_staff_usd_per_year
            + self.opex_software_usd_per_year
        )

    @property
    def escalates(self) -> bool:
        return bool(
            self.energy_escalation_per_year or self.price_escalation_per_year or self.residual_value_usd
        )

    def opex_in_year(self, year: int) -> float:
        """Opex of year `year` (1-based), full year: energy x (1 + e)^(year-1) + the rest x (1 + p)^(year-1)."""
        other = self.opex_usd_per_year - self.opex_energy_usd_per_year
        return self.opex_energy_usd_per_year * (1.0 + self.energy_escalation_per_year) ** (
            year - 1
        ) + other * (1.0 + self.price_escalation_per_year) ** (year - 1)

    @property
    def tco_usd(self) -> float:
        """capex + opex over the life (escalated year by year) - residual value at the end of life."""
        if not self.escalates:
            return total_cost_usd(self.capex_usd, self.opex_usd_per_year, self.years)
        opex = sum(row["opex_usd"] for row in self.yearly())
        return self.capex_usd + opex - self.residual_value_usd

    @property
    def utilised_gpu_hours(self) -> float:
        return utilised_gpu_hours(self.gpus, self.years, self.utilization)

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.tco_usd / self.utilised_gpu_hours

    @property
    def npv_usd(self) -> float:
        if not self.escalates:
            return npv_usd(self.capex_usd, self.opex_usd_per_year, self.years, self.discount_rate)
        rows = self.yearly()
        total = self.capex_usd + sum(
            row["opex_usd"] / (1.0 + self.discount_rate) ** row["year"] for row in rows
        )
        return total - self.residual_value_usd / (1.0 + self.discount_rate) ** len(rows)

    @property
    def run_gpu_hours(self) -> float | None:
        return None if self.run_time_s is None else self.gpus * self.run_time_s / HOUR

    @property
    def rent_usd_per_month(self) -> float:
        return self.gpus * HOURS_PER_YEAR / MONTHS_PER_YEAR * self.utilization * self.cloud_usd_per_gpu_hour

    def monthly_own_vs_rent(self) -> OwnVsRent:
        """Cumulative cost by month, 0 .. life: own = capex + opex x m/12 (escalated by year, residual value
        credited in the last month); rent = utilised GPU-hours x price."""
        months = list(range(life_months(self.years) + 1))
        if self.escalates:
            own, total = [self.capex_usd], self.capex_usd
            for month in months[1:]:
                total += self.opex_in_year((month - 1) // MONTHS_PER_YEAR + 1) / MONTHS_PER_YEAR
                own.append(total - (self.residual_value_usd if month == months[-1] else 0.0))
        else:
            capex_usd, opex_usd_per_year = self.capex_usd, self.opex_usd_per_year  # sums, once
            own = [capex_usd + opex_usd_per_year * m / MONTHS_PER_YEAR for m in months]
        rent_usd_per_month = self.rent_usd_per_month
        rent = [rent_usd_per_month * m for m in months]
        return {"month": months, "own_cumulative_usd": own, "rent_cumulative_usd": rent}

    @property
    def breakeven_month(self) -> int | None:
        if self.escalates:
            curves = self.monthly_own_vs_rent()
            pairs = zip(
                curves["month"], curves["own_cumulative_usd"], curves["rent_cumulative_usd"], strict=True
            )
            return next((m for m, own, rent in pairs if m >= 1 and own <= rent), None)
        return breakeven_month(
            capex_usd=self.capex_usd,
            opex_usd_per_month=self.opex_usd_per_year / MONTHS_PER_YEAR,
            rent_usd_per_month=self.rent_usd_per_month,
            months=life_months(self.years),
        )

    def yearly(self) -> list[CostYear]:
        """One row per (started) year of life; capex in year 1, opex escalated and prorated in a final partial
        year; straight-line depreciation of capex less the residual value, the book value at each year's end,
        and the residual value credited in the last year."""
        rows: list[CostYear] = []
        cumulative = 0.0
        count = _year_count(self.years)
        depreciable = self.capex_usd - self.residual_value_usd
        book = self.capex_usd
        for year in range(1, count + 1):
            share = min(1.0, self.years - (year - 1))
            capex = self.capex_usd if year == 1 else 0.0
            opex = self.opex_in_year(year) * share if self.escalates else self.opex_usd_per_year * share
            residual = self.residual_value_usd if year == count else 0.0
            cumulative += capex + opex - residual
            depreciation = depreciable * share / self.years
            book -= depreciation
            rows.append(
                {
                    "year": year,
                    "capex_usd": capex,
                    "opex_usd": opex,
                    "cumulative_usd": cumulative,
                    "depreciation_usd": depreciation,
                    "book_value_usd": max(book, 0.0),
                    "residual_usd": residual,
                }
            )
        return rows

    def as_dict(self) -> TcoSection:
        """The `cost` output section without its ranges (facility/sections.py adds them; docs/engine-contract.md)."""
        run_hours = self.run_gpu_hours
        out: TcoSection = {
            "capex_usd": self.capex_usd,
            "opex_usd_per_year": self.opex_usd_per_year,
            "tco_usd": self.tco_usd,
            "usd_per_gpu_hour": self.usd_per_gpu_hour,
            "run_gpu_hours": run_hours,
            "run_cost_usd": None if run_hours is None else run_hours * self.usd_per_gpu_hour,
            "cloud_run_cost_usd": None if run_hours is None else run_hours * self.cloud_usd_per_gpu_hour,
            "capex_breakdown_usd": {
                "servers": self.capex_servers_usd,
                "network": self.capex_network_usd,
                "storage": self.capex_storage_usd,
                "facility": self.capex_facility_usd,
                "frontend_network": self.capex_frontend_network_usd,
                "management_network": self.capex_management_network_usd,
                "spares": self.capex_spares_usd,
                "installation": self.capex_installation_usd,
            },
            "opex_breakdown_usd_per_year": {
                "energy": self.opex_energy_usd_per_year,
                "colocation": self.opex_colocation_usd_per_year,
                "maintenance": self.opex_maintenance_usd_per_year,
                "staff": self.opex_staff_usd_per_year,
                "software": self.opex_software_usd_per_year,
            },
            "spare_nodes": self.spare_nodes,
            "staff_fte": self.staff_fte,
            "residual_value_usd": self.residual_value_usd,
            "billed_energy_mwh_per_year": self.billed_energy_j_per_year / MWH,
            "utilised_gpu_hours": self.utilised_gpu_hours,
            "rent_usd_over_life": self.rent_usd_per_month * life_months(self.years),
            "yearly": self.yearly(),
            "breakeven_month": self.breakeven_month,
            "monthly_own_vs_rent": self.monthly_own_vs_rent(),
            "warnings": list(self.warnings),
        }
        if self.discount_rate > 0:
            out["npv_usd"] = self.npv_usd
            out["usd_per_gpu_hour_discounted"] = self.npv_usd / discounted_gpu_hours(
                self.gpus, self.years, self.utilization, self.discount_rate
            )
        return out


def _year_count(years: float) -> int:
    """Years of life started (a final partial year counts); tolerant of float noise such as 3.0000000001."""
    return math.ceil(round(years, 9))


def life_months(years: float) -> int:
    return round(years * MONTHS_PER_YEAR)


def total_cost_usd(capex_usd: float, opex_usd_per_year: float, years: float) -> float:
    """Undiscounted TCO = capex + opex per year x years."""
    return capex_usd + opex_usd_per_year * years


def npv_usd(capex_usd: float, opex_usd_per_year: float, years: float, discount_rate: float) -> float:
    """Present value of owning: capex at t = 0 plus each year's opex discounted from the end of that year,
    sum_y opex_y / (1 + r)^y (standard discounted cash flow); a final partial year is prorated."""
    total = capex_usd
    for year in range(1, _year_count(years) + 1):
        share = min(1.0, years - (year - 1))
        total += opex_usd_per_year * share / (1.0 + discount_rate) ** year
    return total


def utilised_gpu_hours(gpus: int, years: float, utilization: float) -> float:
    """GPU-hours of useful work over the life: GPUs x years x hours per year x utilisation."""
    return gpus * years * HOURS_PER_YEAR * utilization


def discounted_gpu_hours(gpus: int, years: float, utilization: float, discount_rate: float) -> float:
    """Utilised GPU-hours discounted like opex (end of each year), for a levelised $/GPU-hour = NPV / this."""
    per_year = gpus * HOURS_PER_YEAR * utilization
    return sum(
        per_year * min(1.0, years - (year - 1)) / (1.0 + discount_rate) ** year
        for year in range(1, _year_count(years) + 1)
    )


def energy_duty_fraction(utilization: float, idle_power_fraction: float) -> float:
    """Average draw as a share of the running draw: busy hours at 1, idle hours at idle_power_fraction."""
    return utilization + (1.0 - utilization) * idle_power_fraction


def energy_opex_usd_per_year(
    facility_power_w: float, utilization: float, idle_power_fraction: float, usd_per_kwh: float
) -> tuple[float, float]:
    """(USD per year, J per year) of facility energy: power x duty fraction x one year x price per kWh."""
    energy = facility_power_w * energy_duty_fraction(utilization, idle_power_fraction) * YEAR
    return energy / KWH * usd_per_kwh, energy


def breakeven_month(
    *, capex_usd: float, opex_usd_per_month: float, rent_usd_per_month: float, months: int
) -> int | None:
    """First month m >= 1 with capex + opex x m <= rent x m, i.e. m >= capex / (rent - opex); None if renting
    stays cheaper through the whole life."""
    margin = rent_usd_per_month - opex_usd_per_month
    if margin <= 0:
        return None
    month = max(1, math.ceil(capex_usd / margin))
    if month > months + 1:
        return None
    while month > 1 and capex_usd + opex_usd_per_month * (month - 1) <= rent_usd_per_month * (month - 1):
        month -= 1  # guard against rounding in the division
    while capex_usd + opex_usd_per_month * month > rent_usd_per_month * month:
        month += 1
    return month if month <= months else None


def _check(inputs: TcoInputs, econ: EconomicsSpec) -> None:
    problems: list[Problem] = []
    nonneg = (
        "electricity_usd_per_kwh",
        "gpu_server_usd",
        "cloud_usd_per_gpu_hour",
        "discount_rate",
        "maintenance_fraction_per_year",
        "storage_usd_per_tb",
        "installation_fraction",
        "nodes_per_spare",
        "frontend_network_usd_per_node",
        "management_network_usd_per_node",
        "staff_fte_per_mw",
        "staff_usd_per_fte_year",
    )
    for name in nonneg:
        if not getattr(econ, name) >= 0:
            problems.append(Problem(f"{_PATH}.{name}", "must not be negative"))
    for name in (
        "colocation_usd_per_kw_month",
        "facility_capex_usd_per_kw",
        "grid_kgco2_per_kwh",
        "staff_usd_per_year",
        "software_usd_per_gpu_year",
    ):
        value = getattr(econ, name)
        if value is not None and not value >= 0:
            problems.append(Problem(f"{_PATH}.{name}", "must not be negative"))
    if not 0 < econ.years <= 50:
        problems.append(Problem(f"{_PATH}.years", f"must be more than 0 and at most 50 (got {econ.years})"))
    if not 0 < econ.utilization <= 1:
        problems.append(Problem(f"{_PATH}.utilization", f"must be in (0, 1] (got {econ.utilization})"))
    if not 0 <= econ.idle_power_fraction <= 1:
        problems.append(Problem(f"{_PATH}.idle_power_fraction", "must be between 0 and 1"))
    if inputs.gpus < 1:
        problems.append(Problem("cluster.nodes", "need at least one GPU to cost"))
    if not inputs.storage_tb >= 0:
        problems.append(Problem("cluster.storage_tb", "must not be negative"))
    if problems:
        raise SpecError(problems)


def _item(value: Any, default: Any, unit: str, source: str) -> dict[str, Any]:
    return {"value": value, "unit": unit, "source": source if value == default else "input"}


def _assumptions(
    econ: EconomicsSpec, cooling: CoolingSpec, facility_source: str
) -> dict[str, dict[str, Any]]:
    return {
        "tco.maintenance_fraction_per_year": _item(
            econ.maintenance_fraction_per_year,
            MAINTENANCE_FRACTION_PER_YEAR_DEFAULT,
            "fraction of hardware capex",
            NOT_SOURCED,
        ),
        "tco.storage_usd_per_tb": _item(
            econ.storage_usd_per_tb, STORAGE_USD_PER_TB_DEFAULT, "USD per TB", STORAGE_SOURCE
        ),
        "tco.installation_fraction": _item(
            econ.installation_fraction,
            INSTALLATION_FRACTION_DEFAULT,
            "fraction of hardware capex",
            INSTALLATION_SOURCE,
        ),
        "tco.nodes_per_spare": _item(econ.nodes_per_spare, NODES_PER_SPARE_DEFAULT, "nodes", SPARES_SOURCE),
        "tco.frontend_network_usd_per_node": _item(
            econ.frontend_network_usd_per_node, FRONTEND_USD_PER_NODE_DEFAULT, "USD per node", FRONTEND_SOURCE
        ),
        "tco.management_network_usd_per_node": _item(
            econ.management_network_usd_per_node,
            MANAGEMENT_USD_PER_NODE_DEFAULT,
            "USD per node",
            MANAGEMENT_SOURCE,
        ),
        "tco.staff_fte_per_mw": _item(
            econ.staff_fte_per_mw, STAFF_FTE_PER_MW_DEFAULT, "FTE per MW", STAFF_SOURCE
        ),
        "tco.staff_usd_per_fte_year": _item(
            econ.staff_usd_per_fte_year, STAFF_USD_PER_FTE_YEAR_DEFAULT, "USD per FTE-year", STAFF_SOURCE
        ),
        "tco.idle_power_fraction": _item(
            econ.idle_power_fraction, IDLE_POWER_FRACTION_DEFAULT, "fraction of running draw", NOT_SOURCED
        ),
        "tco.facility_capex_usd_per_kw": {
            "value": (
                econ.facility_capex_usd_per_kw
                if econ.facility_capex_usd_per_kw is not None
                else (0.0 if econ.colocation_usd_per_kw_month is not None else cooling.capex_usd_per_w * KW)
            ),
            "unit": "USD per kW of peak IT",
            "source": facility_source,
        },
        "tco.colocation_premium_fraction": {
            "value": cooling.colocation_premium_fraction
            if econ.colocation_usd_per_kw_month is not None
            else 0.0,
            "unit": "fraction",
            "source": "economics.csv colo_liquid_premium 20-40% (midpoint) for liquid cooling; 0 for air",
        },
        "tco.discounting": {
            "value": econ.discount_rate,
            "unit": "per year",
            "source": "input" if econ.discount_rate else "default 0: plain sum, no NPV",
        },
    }


def estimate_tco(inputs: TcoInputs, econ: EconomicsSpec, cooling: CoolingSpec | None = None) -> TcoResult:
    """Capex (servers, network, storage, facility fit-out) and yearly opex (energy, colocation, maintenance,
    staff) under the module's conventions."""
    cooling = cooling or COOLING_PRESETS["air_crac_crah"]
    _check(inputs, econ)
    peak_it_w = inputs.peak_it_power_w if inputs.peak_it_power_w is not None else inputs.it_power_w
    warnings: list[str] = []
    servers = inputs.nodes * econ.gpu_server_usd
    storage = inputs.storage_tb * econ.storage_usd_per_tb
    if econ.facility_capex_usd_per_kw is not None:
        facility, facility_source = econ.facility_capex_usd_per_kw * peak_it_w / KW, "input"
    elif econ.colocation_usd_per_kw_month is not None:
        facility, facility_source = 0.0, "colocation: fit-out is the provider's, paid in the monthly rate"
    else:
        facility, facility_source = cooling.capex_usd_per_w * peak_it_w, cooling.capex_source
        warnings.append(FACILITY_SCOPE_WARNING)
    energy_usd, energy_j = energy_opex_usd_per_year(
        inputs.facility_power_w, econ.utilization, econ.idle_power_fraction, econ.electricity_usd_per_kwh
    )
    colocation = 0.0
    if econ.colocation_usd_per_kw_month is not None:
        colocation = (
            econ.colocation_usd_per_kw_month
            * peak_it_w
            / KW
            * MONTHS_PER_YEAR
            * (1.0 + cooling.colocation_premium_fraction)
        )
    hardware = servers + inputs.network_capex_usd + storage
    extras = _extras(inputs, econ, peak_it_w, hardware)
    result = TcoResult(
        capex_servers_usd=servers,
        capex_network_usd=inputs.network_capex_usd,
        capex_storage_usd=storage,
        capex_facility_usd=facility,
        opex_energy_usd_per_year=energy_usd,
        opex_colocation_usd_per_year=colocation,
        opex_maintenance_usd_per_year=econ.maintenance_fraction_per_year * hardware,
        opex_staff_usd_per_year=extras["staff_usd"],
        years=econ.years,
        gpus=inputs.gpus,
        utilization=econ.utilization,
        discount_rate=econ.discount_rate,
        cloud_usd_per_gpu_hour=econ.cloud_usd_per_gpu_hour,
        billed_energy_j_per_year=energy_j,
        run_time_s=inputs.run_time_s,
        warnings=tuple(warnings),
        assumptions={**_assumptions(econ, cooling, facility_source), **extras["assumptions"]},
        capex_frontend_network_usd=extras["frontend"],
        capex_management_network_usd=extras["management"],
        capex_spares_usd=extras["spares"],
        spare_nodes=extras["spare_nodes"],
        capex_installation_usd=extras["installation"],
        opex_software_usd_per_year=extras["software"],
        staff_fte=extras["staff_fte"],
        energy_escalation_per_year=econ.energy_escalation_per_year,
        price_escalation_per_year=econ.price_escalation_per_year,
        residual_value_usd=econ.residual_value_fraction * hardware,
    )
    return result


def spare_node_count(nodes: int, nodes_per_spare: float) -> int:
    """Spare nodes: ceil(nodes / nodes_per_spare), at least one; none when nodes_per_spare is 0."""
    if nodes_per_spare <= 0 or nodes < 1:
        return 0
    return max(1, math.ceil(nodes / nodes_per_spare))


def _extras(inputs: TcoInputs, econ: EconomicsSpec, peak_it_w: float, hardware_usd: float) -> dict[str, Any]:
    """The bill-of-materials lines beyond servers, scale-out fabric, storage and facility: front-end and
    management networks and spares (capex), installation (a share of all hardware capex), software per
    GPU-year and staff per MW of IT nameplate (opex). Every default is sourced or marked ESTIMATE."""
    spare_nodes = spare_node_count(inputs.nodes, econ.nodes_per_spare)
    spares = spare_nodes * econ.gpu_server_usd
    frontend = inputs.nodes * econ.frontend_network_usd_per_node
    management = inputs.nodes * econ.management_network_usd_per_node
    installation = econ.installation_fraction * (hardware_usd + spares + frontend + management)
    nvidia = inputs.gpu_vendor.strip().lower().startswith("nvidia")
    if econ.software_usd_per_gpu_year is not None:
        software_per_gpu, software_source = econ.software_usd_per_gpu_year, "input"
    else:
        software_per_gpu = SOFTWARE_USD_PER_GPU_YEAR_NVIDIA if nvidia else 0.0
        software_source = SOFTWARE_SOURCE
    staff_fte = econ.staff_fte_per_mw * peak_it_w / (1000 * KW)
    if econ.staff_usd_per_year is not None:
        staff_usd, staff_source = econ.staff_usd_per_year, "input"
    else:
        staff_usd, staff_source = staff_fte * econ.staff_usd_per_fte_year, STAFF_SOURCE
    return {
        "spare_nodes": spare_nodes,
        "spares": spares,
        "frontend": frontend,
        "management": management,
        "installation": installation,
        "software": software_per_gpu * inputs.gpus,
        "staff_usd": staff_usd,
        "staff_fte": staff_fte,
        "assumptions": {
            "tco.software_usd_per_gpu_year": {
                "value": software_per_gpu,
                "unit": "USD per GPU-year",
                "source": software_source,
            },
            "tco.staff_usd_per_year": {"value": staff_usd, "unit": "USD per year", "source": staff_source},
        },
    }


def assumptions() -> dict[str, dict[str, Any]]:
    """Every economics default with its source (the five contract fields have defaults the core may use)."""
    return {
        "tco.electricity_usd_per_kwh": {
            "value": ELECTRICITY_USD_PER_KWH_DEFAULT,
            "unit": "USD per kWh",
            "source": ELECTRICITY_SOURCE,
        },
        "tco.years": {"value": YEARS_DEFAULT, "unit": "years", "source": YEARS_SOURCE},
        "tco.utilization": {"value": UTILIZATION_DEFAULT, "unit": "fraction", "source": NOT_SOURCED},
        "tco.colocation_usd_per_kw_month_reference": {
            "value": COLOCATION_USD_PER_KW_MONTH_NA_2024H2,
            "unit": "USD per kW-month",
            "source": COLOCATION_SOURCE,
        },
        **_assumptions(
            EconomicsSpec(
                electricity_usd_per_kwh=ELECTRICITY_USD_PER_KWH_DEFAULT,
                years=YEARS_DEFAULT,
                utilization=UTILIZATION_DEFAULT,
                gpu_server_usd=0.0,
                cloud_usd_per_gpu_hour=0.0,
            ),
            COOLING_PRESETS["air_crac_crah"],
            COOLING_PRESETS["air_crac_crah"].capex_source,
        ),
    }
