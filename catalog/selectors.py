"""Read side of the catalog: filtered, sorted lists and chart data. The catalog is shared reference data (no
owner), so there are no ownership checks here; pages still require a signed-in user."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q, QuerySet

from catalog.models import Cooling, EconomicsFact, Gpu, System
from catalog.presentation import GPU_DEFAULT_SORT, GPU_SORT_FIELDS

_PAREN_SUFFIX_RE = re.compile(r"\s*\(.*\)\s*$")


def memory_type_family(memory_type: str) -> str:
    """ "HBM3e" and "HBM3E" are one family; "GDDR6 (ECC)" belongs to "GDDR6"."""
    return _PAREN_SUFFIX_RE.sub("", memory_type or "").strip().upper()


def memory_type_q(family: str) -> Q:
    return Q(memory_type__iexact=family) | Q(memory_type__istartswith=f"{family} (")


def gpu_vendors() -> list[str]:
    return list(Gpu.objects.order_by("vendor").values_list("vendor", flat=True).distinct())


def gpu_memory_type_families() -> list[str]:
    types = Gpu.objects.exclude(memory_type="").values_list("memory_type", flat=True).distinct()
    return sorted({memory_type_family(memory_type) for memory_type in types})


@dataclass(frozen=True)
class GpuFilters:
    """Normalised GPU list filters (see catalog.forms.GpuFilterForm). `sort` is a field, "-" for descending."""

    vendor: str = ""
    memory_type: str = ""
    min_memory_gb: float | None = None
    verified: bool | None = None
    sort: str = GPU_DEFAULT_SORT

    @property
    def is_filtered(self) -> bool:
        return bool(
            self.vendor or self.memory_type or self.min_memory_gb is not None or self.verified is not None
        )


def parse_sort(sort: str) -> tuple[str, bool]:
    """ "-tdp_w" -> ("tdp_w", True). Unknown fields fall back to the default sort."""
    descending = sort.startswith("-")
    name = sort.lstrip("-")
    if name not in GPU_SORT_FIELDS:
        return GPU_DEFAULT_SORT, False
    return name, descending


def gpu_list(*, filters: GpuFilters) -> QuerySet[Gpu]:
    """GPUs matching `filters`, sorted server-side; blanks (not published) always sort last."""
    queryset = Gpu.objects.all()
    if filters.vendor:
        queryset = queryset.filter(vendor=filters.vendor)
    if filters.memory_type:
        queryset = queryset.filter(memory_type_q(filters.memory_type))
    if filters.min_memory_gb is not None:
        queryset = queryset.filter(memory_gb__gte=filters.min_memory_gb)
    if filters.verified is not None:
        queryset = queryset.filter(verified=filters.verified)
    field, descending = parse_sort(filters.sort)
    order = F(field).desc(nulls_last=True) if descending else F(field).asc(nulls_last=True)
    return queryset.order_by(order, "vendor", "model")


def gpu_get(*, gpu_id: str) -> Gpu | None:
    return Gpu.objects.filter(pk=gpu_id).first()


def _number(value: float | None) -> float | None:
    return None if value is None else float(value)


def gpu_compare_data() -> dict[str, Any]:
    """Chart data for the compare page, JSON-ready.

    `points`: GPUs with a dense BF16 peak and a memory bandwidth (chart a).
    `efficiency`: dense BF16 TFLOPS per watt of TDP, best first (chart b).
    `not_plotted`: the GPUs left out of each chart and why (no published value).
    """
    gpus = list(Gpu.objects.order_by("vendor", "model"))
    points: list[dict[str, Any]] = []
    efficiency: list[dict[str, Any]] = []
    not_plotted: list[dict[str, str]] = []
    for gpu in gpus:
        base = {"id": gpu.id, "model": gpu.model, "vendor": gpu.vendor, "verified": gpu.verified}
        missing = [
            label
            for label, value in (("dense BF16", gpu.bf16_tflops), ("memory bandwidth", gpu.mem_bandwidth_tbs))
            if value is None
        ]
        if not missing:
            points.append(
                base
                | {
                    "bf16_tflops": _number(gpu.bf16_tflops),
                    "mem_bandwidth_tbs": _number(gpu.mem_bandwidth_tbs),
                    "memory_gb": _number(gpu.memory_gb),
                    "tdp_w": _number(gpu.tdp_w),
                }
            )
        if gpu.bf16_tflops is not None and gpu.tdp_w:
            efficiency.append(
                base
                | {
                    "tflops_per_w": gpu.bf16_tflops / gpu.tdp_w,
                    "bf16_tflops": _number(gpu.bf16_tflops),
                    "tdp_w": _number(gpu.tdp_w),
                    "memory_gb": _number(gpu.memory_gb),
                    "mem_bandwidth_tbs": _number(gpu.mem_bandwidth_tbs),
                }
            )
        elif gpu.tdp_w is None:
            missing.append("TDP")
        if missing:
            not_plotted.append(
                {"id": gpu.id, "model": gpu.model, "missing": ", ".join(dict.fromkeys(missing))}
            )
    efficiency.sort(key=lambda row: row["tflops_per_w"], reverse=True)
    return {"points": points, "efficiency": efficiency, "not_plotted": not_plotted}


def system_list() -> QuerySet[System]:
    return System.objects.select_related("gpu").order_by("vendor", "name")


def cooling_list() -> QuerySet[Cooling]:
    return Cooling.objects.order_by("category", "name")


def economics_list() -> QuerySet[EconomicsFact]:
    return EconomicsFact.objects.order_by("category", "region", "id")
