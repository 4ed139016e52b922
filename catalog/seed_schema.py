"""The seed files' columns, declared once: which reference column each comes from, how its cell is parsed, and
which model field it loads into. `build_seed` (reference CSV -> catalog/seed/) and `load_catalog`
(catalog/seed/ -> database) both read these declarations. No Django import, so tools can use it too.

catalog/seed/gpus.csv keeps the reference column names (tf32_tflops_dense, scaleup_bw_gbs_bidir, ...) because the
sizing engine reads GPU ids from that file without a database; the other seed files use the model field names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from catalog.parsing import Policy

ValueKind = Literal["text", "float", "int", "bool"]


@dataclass(frozen=True)
class Column:
    """One seed column. `ref` is the reference column it is built from (None: filled by another column's rule)."""

    seed: str
    field: str
    kind: ValueKind
    ref: str | None
    policy: Policy = Policy.PLAIN
    low: str | None = None  # seed column that receives the low end of a range
    high: str | None = None  # seed column that receives the high end of a range
    keep_text: str | None = None  # seed column that receives the original cell verbatim


def text(seed: str, ref: str | None = "", field: str | None = None) -> Column:
    return Column(seed=seed, field=field or seed, kind="text", ref=seed if ref == "" else ref)


def flag(seed: str, ref: str | None = "") -> Column:
    return Column(seed=seed, field=seed, kind="bool", ref=seed if ref == "" else ref)


def num(
    seed: str,
    ref: str | None = "",
    *,
    field: str | None = None,
    policy: Policy = Policy.PLAIN,
    low: str | None = None,
    high: str | None = None,
    keep_text: str | None = None,
) -> Column:
    return Column(
        seed=seed,
        field=field or seed,
        kind="float",
        ref=seed if ref == "" else ref,
        policy=policy,
        low=low,
        high=high,
        keep_text=keep_text,
    )


def whole(
    seed: str, ref: str | None = "", *, field: str | None = None, policy: Policy = Policy.PLAIN
) -> Column:
    return Column(seed=seed, field=field or seed, kind="int", ref=seed if ref == "" else ref, policy=policy)


def hand(seed: str) -> Column:
    """A text column the reference catalog does not have, filled in the seed file by hand (the price
    kinds, sources and GPU ids). `build_seed` leaves it blank, so a rebuild from the reference must be followed
    by restoring these cells (git diff shows them)."""
    return Column(seed=seed, field=seed, kind="text", ref=None)


def derived(seed: str, kind: ValueKind = "float") -> Column:
    """A column the builder fills from another column's cell (range ends, original text)."""
    return Column(seed=seed, field=seed, kind=kind, ref=None)


PROVENANCE: tuple[Column, ...] = (
    text("source"),
    flag("verified"),
    text("notes"),
    text("raw_cells", ref=None),
)


@dataclass(frozen=True)
class SeedKind:
    """One kind of catalog row: its seed file, its model and its columns (id first, provenance last)."""

    name: str  # also the file stem: catalog/seed/<name>.csv and the reference <name>.csv
    model: str  # "catalog.<Model>"
    columns: tuple[Column, ...]

    @property
    def filename(self) -> str:
        return f"{self.name}.csv"

    @property
    def all_columns(self) -> tuple[Column, ...]:
        return (text("id"), *self.columns, *PROVENANCE)

    @property
    def headers(self) -> list[str]:
        return [column.seed for column in self.all_columns]


GPUS = SeedKind(
    "gpus",
    "catalog.Gpu",
    (
        text("vendor"),
        text("model"),
        text("form_factor"),
        whole("launch_year"),
        num("memory_gb"),
        text("memory_type"),
        num("mem_bandwidth_tbs"),
        num("fp64_tflops"),
        num("fp64_tensor_tflops"),
        num("fp32_tflops"),
        num("tf32_tflops_dense", field="tf32_tflops"),
        num("bf16_tflops_dense", field="bf16_tflops"),
        num("fp16_tflops_dense", field="fp16_tflops"),
        num("fp8_tflops_dense", field="fp8_tflops"),
        num("int8_tops_dense", field="int8_tops"),
        num("fp4_tflops_dense", field="fp4_tflops"),
        num("tdp_w"),
        text("scaleup_interconnect"),
        num("scaleup_bw_gbs_bidir", field="scaleup_bw_gbs"),
        whole("pcie_gen"),
        num("price_usd", low="price_low_usd", high="price_high_usd"),
        derived("price_low_usd"),
        derived("price_high_usd"),
        text("price_basis"),
        text("price_date"),
        text("price_source"),
        flag("price_verified"),
        hand("price_kind"),
    ),
)

CPUS = SeedKind(
    "cpus",
    "catalog.Cpu",
    (
        text("vendor"),
        text("model"),
        text("family", ref="family_codename"),
        whole("launch_year"),
        whole("cores"),
        whole("threads"),
        num("base_ghz"),
        num("boost_ghz"),
        num("tdp_w"),
        whole("memory_channels"),
        text("memory_type"),
        num("max_mem_speed_mts", policy=Policy.LEADING),
        num("max_mem_bw_gbs", policy=Policy.LEADING),
        whole("pcie_lanes"),
        whole("pcie_gen", policy=Policy.LEADING),
        num("l3_cache_mb"),
        num("price_usd"),
        text("price_basis"),
        flag("price_verified"),
    ),
)

INTERCONNECTS = SeedKind(
    "interconnects",
    "catalog.Interconnect",
    (
        text("category"),
        text("name"),
        text("generation"),
        num("lane_rate_gbps", policy=Policy.LEADING),
        text("lanes_or_links"),
        num("port_rate_gbps", policy=Policy.LEADING),
        num("aggregate_bw_gbs_unidir"),
        num("aggregate_bw_gbs_bidir"),
        num("latency_us"),
        num("power_w"),
        text("typical_use"),
        text("max_endpoints_formula"),
        text("switch_count_formula"),
    ),
)

SWITCHES = SeedKind(
    "switches",
    "catalog.Switch",
    (
        text("vendor"),
        text("model"),
        text("asic_family"),
        text("protocol"),
        Column(
            seed="ports",
            field="ports",
            kind="int",
            ref="ports",
            policy=Policy.NUMBER_OR_BLANK,
            keep_text="ports_text",
        ),
        derived("ports_text", kind="text"),
        num("port_speed_gbps"),
        text("alt_port_config"),
        num("switching_capacity_tbps", policy=Policy.NUMBER_OR_BLANK),
        whole("form_factor_ru"),
        num("latency_ns"),
        num("power_w"),
        text("cooling"),
        num("price_usd"),
        whole("nonblocking_2tier_max_endpoints", policy=Policy.NUMBER_OR_BLANK),
        whole("nonblocking_3tier_max_endpoints", policy=Policy.NUMBER_OR_BLANK),
    ),
)

SYSTEMS = SeedKind(
    "systems",
    "catalog.System",
    (
        text("vendor"),
        text("name", ref="system"),
        text("gpu_model_text", ref="gpu_model"),
        hand("gpu_id"),
        whole("gpus"),
        num("gpu_memory_total_gb", policy=Policy.LEADING),
        whole("cpus"),
        text("cpu_model"),
        text("system_memory"),
        text("compute_nics"),
        text("storage_mgmt_nics"),
        text("scaleup_fabric"),
        num("system_max_power_kw"),
        whole("rack_units", policy=Policy.NUMBER_OR_BLANK),
        num("weight_kg"),
        text("cooling"),
        num("price_usd", low="price_low_usd", high="price_high_usd"),
        derived("price_low_usd"),
        derived("price_high_usd"),
        text("price_basis"),
        text("price_date"),
        flag("price_verified"),
        hand("price_source"),
        hand("price_kind"),
    ),
)

COOLING = SeedKind(
    "cooling",
    "catalog.Cooling",
    (
        text("category"),
        text("name"),
        num("pue_low", ref="pue_typical_low"),
        num("pue_high", ref="pue_typical_high"),
        num(
            "rack_density_kw_typical",
            ref="max_rack_density_kw_typical",
            low="rack_density_kw_typical_low",
            high="rack_density_kw_typical_high",
        ),
        derived("rack_density_kw_typical_low"),
        derived("rack_density_kw_typical_high"),
        num("rack_density_kw_high", ref="max_rack_density_kw_high"),
        num("capex_usd_per_kw_low"),
        num("capex_usd_per_kw_high"),
        text("relative_capex_note"),
        num("wue_l_per_kwh", policy=Policy.LEADING),
        whole("year", policy=Policy.LEADING),
    ),
)

ECONOMICS = SeedKind(
    "economics",
    "catalog.EconomicsFact",
    (
        text("category"),
        text("region"),
        text("metric"),
        num("value", policy=Policy.LEADING, low="value_low", high="value_high", keep_text="value_text"),
        derived("value_low"),
        derived("value_high"),
        derived("value_text", kind="text"),
        text("unit"),
        text("period"),
    ),
)


def _hand_num(seed: str) -> Column:
    return Column(seed=seed, field=seed, kind="float", ref=None)


#: Part and service prices (catalog/price_models.py PartPrice): written by hand from the cited pages.
PRICES = SeedKind(
    "prices",
    "catalog.PartPrice",
    (
        hand("part_kind"),
        hand("part_id"),
        hand("item"),
        hand("unit"),
        _hand_num("price_usd"),
        _hand_num("price_low_usd"),
        _hand_num("price_high_usd"),
        hand("price_kind"),
        hand("price_date"),
        hand("estimate_method"),
    ),
)

#: Cloud rental prices per catalog GPU (catalog/price_models.py CloudPrice): written by hand.
CLOUD_PRICES = SeedKind(
    "cloud_prices",
    "catalog.CloudPrice",
    (
        hand("gpu_id"),
        hand("provider"),
        hand("offering"),
        hand("term"),
        _hand_num("usd_per_gpu_hour"),
        hand("price_date"),
    ),
)

#: Load order matters: systems resolve their GPU from the GPUs loaded before them.
KINDS: tuple[SeedKind, ...] = (GPUS, CPUS, INTERCONNECTS, SWITCHES, SYSTEMS, COOLING, ECONOMICS)
#: Seed files with no reference counterpart (build_seed does not touch them); loaded after KINDS.
HAND_KINDS: tuple[SeedKind, ...] = (PRICES, CLOUD_PRICES)
LOADED_KINDS: tuple[SeedKind, ...] = KINDS + HAND_KINDS
KINDS_BY_NAME: dict[str, SeedKind] = {kind.name: kind for kind in LOADED_KINDS}
