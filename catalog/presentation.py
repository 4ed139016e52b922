"""How catalog rows are shown, declared once: number formatting, fieldsets by concern (admin and detail pages)
and the GPU table's columns (header with unit, sort key)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.db import models
from django.http import QueryDict
from django.utils.text import capfirst

from catalog.validators import split_sources

#: Fieldsets by concern. The admin and the public detail pages both iterate these.
PROVENANCE_FIELDS = ("source", "verified", "notes", "raw_cells", "locally_edited", "updated_at")

GPU_FIELDSETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Identity", ("id", "vendor", "model", "form_factor", "launch_year")),
    ("Memory", ("memory_gb", "memory_type", "mem_bandwidth_tbs")),
    (
        "Compute (dense peaks, no sparsity)",
        (
            "fp64_tflops",
            "fp64_tensor_tflops",
            "fp32_tflops",
            "tf32_tflops",
            "bf16_tflops",
            "fp16_tflops",
            "fp8_tflops",
            "int8_tops",
            "fp4_tflops",
        ),
    ),
    ("Power & interconnect", ("tdp_w", "scaleup_interconnect", "scaleup_bw_gbs", "pcie_gen")),
    (
        "Price",
        (
            "price_usd",
            "price_low_usd",
            "price_high_usd",
            "price_basis",
            "price_date",
            "price_source",
            "price_verified",
            "price_kind",
        ),
    ),
    ("Provenance", PROVENANCE_FIELDS),
)

CPU_FIELDSETS = (
    ("Identity", ("id", "vendor", "model", "family", "launch_year")),
    ("Compute", ("cores", "threads", "base_ghz", "boost_ghz", "l3_cache_mb")),
    ("Memory", ("memory_channels", "memory_type", "max_mem_speed_mts", "max_mem_bw_gbs")),
    ("Power & interconnect", ("tdp_w", "pcie_lanes", "pcie_gen")),
    ("Price", ("price_usd", "price_basis", "price_verified")),  # sourced CPU prices: part prices (PartPrice)
    ("Provenance", PROVENANCE_FIELDS),
)

INTERCONNECT_FIELDSETS = (
    ("Identity", ("id", "category", "name", "generation", "typical_use")),
    (
        "Bandwidth & latency",
        (
            "lane_rate_gbps",
            "lanes_or_links",
            "port_rate_gbps",
            "aggregate_bw_gbs_unidir",
            "aggregate_bw_gbs_bidir",
            "latency_us",
        ),
    ),
    ("Power", ("power_w",)),
    ("Topology formulas", ("max_endpoints_formula", "switch_count_formula")),
    ("Provenance", PROVENANCE_FIELDS),
)

SWITCH_FIELDSETS = (
    ("Identity", ("id", "vendor", "model", "asic_family", "protocol", "form_factor_ru")),
    (
        "Ports & capacity",
        (
            "ports",
            "ports_text",
            "port_speed_gbps",
            "alt_port_config",
            "switching_capacity_tbps",
            "latency_ns",
            "nonblocking_2tier_max_endpoints",
            "nonblocking_3tier_max_endpoints",
        ),
    ),
    ("Power & cooling", ("power_w", "cooling")),
    ("Price", ("price_usd",)),  # the sourced switch prices live in the part prices table (PartPrice)
    ("Provenance", PROVENANCE_FIELDS),
)

SYSTEM_FIELDSETS = (
    ("Identity", ("id", "vendor", "name")),
    ("GPUs & memory", ("gpu", "gpu_model_text", "gpus", "gpu_memory_total_gb", "system_memory")),
    ("Compute hosts", ("cpus", "cpu_model")),
    (
        "Power & interconnect",
        (
            "system_max_power_kw",
            "rack_units",
            "weight_kg",
            "cooling",
            "scaleup_fabric",
            "compute_nics",
            "storage_mgmt_nics",
        ),
    ),
    (
        "Price",
        (
            "price_usd",
            "price_low_usd",
            "price_high_usd",
            "price_kind",
            "price_basis",
            "price_date",
            "price_source",
            "price_verified",
        ),
    ),
    ("Provenance", PROVENANCE_FIELDS),
)

PART_PRICE_FIELDSETS = (
    ("Identity", ("id", "part_kind", "part_id", "item", "unit")),
    (
        "Price",
        ("price_usd", "price_low_usd", "price_high_usd", "price_kind", "price_date", "estimate_method"),
    ),
    ("Provenance", PROVENANCE_FIELDS),
)

CLOUD_PRICE_FIELDSETS = (
    ("Identity", ("id", "gpu", "provider", "offering", "term")),
    ("Price", ("usd_per_gpu_hour", "price_date")),
    ("Provenance", PROVENANCE_FIELDS),
)

COOLING_FIELDSETS = (
    ("Identity", ("id", "category", "name", "year")),
    ("Efficiency", ("pue_low", "pue_high", "wue_l_per_kwh")),
    (
        "Rack density",
        (
            "rack_density_kw_typical",
            "rack_density_kw_typical_low",
            "rack_density_kw_typical_high",
            "rack_density_kw_high",
        ),
    ),
    ("Price", ("capex_usd_per_kw_low", "capex_usd_per_kw_high", "relative_capex_note")),
    ("Provenance", PROVENANCE_FIELDS),
)

ECONOMICS_FIELDSETS = (
    ("Identity", ("id", "category", "region", "metric", "period")),
    ("Value", ("value", "value_low", "value_high", "value_text", "unit")),
    ("Provenance", PROVENANCE_FIELDS),
)


def display_number(value: float | int | None, decimals: int | None = None) -> str:
    """Thousands separators, no float noise, stored precision kept: 1979.0 -> "1,979", 362.05 -> "362.05".

    With `decimals`, round to that many places (for derived values such as TFLOPS per watt).
    Blank (not published) shows as an em dash.
    """
    if value is None or value == "":
        return "—"
    number = float(value)
    if decimals is not None:
        return f"{number:,.{decimals}f}"
    rounded = round(number, 6)
    sign = "-" if rounded < 0 else ""
    magnitude = abs(rounded)
    if magnitude.is_integer():
        return f"{sign}{int(magnitude):,}"
    text = repr(magnitude)
    if "e" in text:
        return f"{sign}{magnitude:,.6f}".rstrip("0")
    whole, _, fraction = text.partition(".")
    return f"{sign}{int(whole):,}.{fraction}"


@dataclass(frozen=True)
class TableColumn:
    """One column of a catalog table: the header carries the unit, `field` is the sort key."""

    field: str
    header: str
    numeric: bool = True


GPU_TABLE_COLUMNS: tuple[TableColumn, ...] = (
    TableColumn("model", "Model", numeric=False),
    TableColumn("vendor", "Vendor", numeric=False),
    TableColumn("launch_year", "Year"),
    TableColumn("memory_gb", "Memory (GB)"),
    TableColumn("memory_type", "Memory type", numeric=False),
    TableColumn("mem_bandwidth_tbs", "Bandwidth (TB/s)"),
    TableColumn("bf16_tflops", "BF16 dense (TFLOPS)"),
    TableColumn("fp8_tflops", "FP8 dense (TFLOPS)"),
    TableColumn("tdp_w", "TDP (W)"),
    TableColumn("scaleup_bw_gbs", "Scale-up (GB/s)"),
    TableColumn("price_usd", "Price (USD)"),
    TableColumn("verified", "Verified", numeric=False),
)

GPU_SORT_FIELDS: frozenset[str] = frozenset(column.field for column in GPU_TABLE_COLUMNS)
GPU_DEFAULT_SORT = "vendor"


@dataclass(frozen=True)
class SortHeader:
    """A clickable table header: `url` sorts by this column (toggling direction when already active)."""

    field: str
    label: str
    url: str
    numeric: bool
    aria_sort: str  # "ascending", "descending" or "none"


def sort_headers(
    columns: tuple[TableColumn, ...], *, current_sort: str, query: QueryDict
) -> list[SortHeader]:
    """Header links that keep the current filters. Numbers sort largest first on the first click."""
    active = current_sort.lstrip("-")
    descending = current_sort.startswith("-")
    headers = []
    for column in columns:
        if column.field == active:
            next_sort = column.field if descending else f"-{column.field}"
            aria = "descending" if descending else "ascending"
        else:
            next_sort = f"-{column.field}" if column.numeric else column.field
            aria = "none"
        params = query.copy()
        params["sort"] = next_sort
        headers.append(
            SortHeader(column.field, column.header, f"?{params.urlencode()}", column.numeric, aria)
        )
    return headers


@dataclass(frozen=True)
class DetailItem:
    """One field on a detail page: its label (with unit), how to show it, and the raw value."""

    name: str
    label: str
    help_text: str
    kind: str  # "number", "bool", "urls", "link", "multiline" or "text"
    value: Any
    display: str
    urls: tuple[str, ...] = ()


_URL_FIELDS = {"source", "price_source"}
_MULTILINE_FIELDS = {"notes", "raw_cells"}


def _detail_item(instance: models.Model, name: str) -> DetailItem:
    field = instance._meta.get_field(name)
    label = capfirst(str(field.verbose_name))
    value = getattr(instance, name)
    common = {"name": name, "label": label, "help_text": str(field.help_text), "value": value}
    if name in _URL_FIELDS:
        urls = tuple(split_sources(value or ""))
        return DetailItem(kind="urls", display=value or "—", urls=urls, **common)
    if isinstance(field, models.BooleanField):
        return DetailItem(kind="bool", display="yes" if value else "no", **common)
    if isinstance(field, models.ForeignKey):
        return DetailItem(kind="link", display=str(value) if value else "—", **common)
    if isinstance(field, models.FloatField | models.IntegerField):
        # Years are labels, not quantities: no thousands separator ("2025", not "2,025").
        display = str(value) if name.endswith("year") and value is not None else display_number(value)
        return DetailItem(kind="number", display=display, **common)
    if isinstance(field, models.DateTimeField):
        return DetailItem(
            kind="text", display=value.strftime("%Y-%m-%d %H:%M UTC") if value else "—", **common
        )
    kind = "multiline" if name in _MULTILINE_FIELDS else "text"
    return DetailItem(kind=kind, display=str(value) if value not in (None, "") else "—", **common)


def short_url(url: str, max_chars: int = 60) -> str:
    """Readable link text: host and path, middle elided when long ("github.com/stas00/…/accelerator/README.md")."""
    parts = urlsplit(url)
    host = parts.netloc.removeprefix("www.")
    segments = [segment for segment in parts.path.split("/") if segment]
    full = "/".join([host, *segments])
    if len(full) <= max_chars or len(segments) < 3:
        return full
    shortened = "/".join([host, segments[0], "…", *segments[-2:]])
    return shortened if len(shortened) <= max_chars else "/".join([host, "…", segments[-1]])


def detail_sections(
    instance: models.Model, fieldsets: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[tuple[str, list[DetailItem]]]:
    """Every field of `instance`, grouped by concern, ready for a template."""
    return [(title, [_detail_item(instance, name) for name in names]) for title, names in fieldsets]


#: Chart colours by vendor (the vendor's brand hue, adjusted so no two are alike); others get a neutral grey.
VENDOR_COLOURS: dict[str, str] = {
    "nvidia": "#5e9700",
    "amd": "#d62828",
    "intel": "#0068b5",
    "google": "#f29900",
    "huawei": "#8e44ad",
}
OTHER_VENDOR_COLOUR = "#6b7280"


def vendor_colour(vendor: str) -> str:
    """ "Intel (Habana)" -> Intel's colour: matched on the vendor's first word."""
    first_word = (vendor.split() or [""])[0].lower()
    return VENDOR_COLOURS.get(first_word, OTHER_VENDOR_COLOUR)
