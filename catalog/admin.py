"""Staff admin for the catalog: unit-labelled columns, filters, search, fieldsets by concern, CSV import/export.

Saving a row here (or importing it from CSV) marks it `locally_edited`, so `load_catalog` leaves it alone unless
run with --force. Every change leaves a LogEntry: Django's own for form edits ("Changed TDP (W)."), and one per
imported row naming the changed columns.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import get_template
from django.urls import reverse
from import_export.admin import ImportExportModelAdmin
from import_export.formats.base_formats import CSV
from import_export.results import Result, RowResult
from import_export.tmp_storages import TempFolderStorage

from catalog import presentation as p
from catalog.forms import CatalogConfirmImportForm, CatalogImportForm, PricedRowForm
from catalog.models import Cooling, Cpu, EconomicsFact, Gpu, Interconnect, Switch, System
from catalog.price_models import CloudPrice, PartPrice
from catalog.resources import (
    CloudPriceResource,
    CoolingResource,
    CpuResource,
    EconomicsFactResource,
    GpuResource,
    InterconnectResource,
    PartPriceResource,
    SwitchResource,
    SystemResource,
)
from catalog.selectors import gpu_memory_type_families, memory_type_q
from planner.middleware import content_security_policy, inline_handler_hashes

_IMPORT_LOG_FLAGS = {
    RowResult.IMPORT_TYPE_NEW: ADDITION,
    RowResult.IMPORT_TYPE_UPDATE: CHANGE,
    RowResult.IMPORT_TYPE_DELETE: DELETION,
}


def number_column(field: str, header: str) -> Callable[[Any, Any], str]:
    """A list column showing `field` with thousands separators under a header that carries the unit."""

    @admin.display(description=header, ordering=field)
    def column(_admin: Any, obj: Any) -> str:
        return p.display_number(getattr(obj, field))

    return column


class MemoryTypeFilter(admin.SimpleListFilter):
    """Memory type by family, so "HBM3e" and "HBM3E" (NVIDIA vs AMD spelling) are one choice."""

    title = "memory type"
    parameter_name = "memory_family"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(family, family) for family in gpu_memory_type_families()]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset.filter(memory_type_q(self.value())) if self.value() else queryset


@cache
def _export_page_csp(template_name: str) -> str:
    """django-import-export's export page toggles "select all" with an inline `onchange` handler, which the site's
    policy blocks; allow exactly the handlers its installed template holds, by hash."""
    markup = get_template(template_name).template.source
    return content_security_policy(handler_hashes=inline_handler_hashes(markup))


class CatalogAdmin(ImportExportModelAdmin):
    """Shared behaviour: mark admin saves and imports as local edits, log imports per row, reject bad files."""

    readonly_fields = ("locally_edited", "updated_at")
    list_per_page = 50
    # Imports: CSV only, size-limited and checked as UTF-8 CSV with the table's header (catalog/forms.py)
    # before the file is stored, and again when the import is confirmed. Exports keep every format.
    import_formats = [CSV]
    import_form_class = CatalogImportForm
    confirm_form_class = CatalogConfirmImportForm

    def export_action(self, request: HttpRequest) -> HttpResponse:
        """The export page, with its template's "select all" handler allowed by hash (`_export_page_csp`)."""
        response = super().export_action(request)
        response.headers["Content-Security-Policy"] = _export_page_csp(self.export_template_name)
        return response

    def has_import_permission(self, request: HttpRequest) -> bool:
        """An import adds and changes rows: it needs both model permissions (IMPORT_EXPORT_IMPORT_PERMISSION_CODE
        checks "change"), not only staff status."""
        return super().has_import_permission(request) and self.has_add_permission(request)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        """The id is the row's stable key: settable when adding, fixed afterwards."""
        return (*self.readonly_fields, "id") if obj is not None else tuple(self.readonly_fields)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        obj.locally_edited = True
        super().save_model(request, obj, form, change)
        if getattr(form, "range_cleared", False):
            messages.info(
                request,
                f"The new price {obj.price_usd:,.0f} USD lies outside the published range, so the price low (USD) "
                "and price high (USD) were cleared. Set the price kind (e.g. reported quote) and date if they "
                "changed too.",
            )

    def get_confirm_form_kwargs(self, request: HttpRequest, import_form: Any = None) -> dict[str, Any]:
        return {
            **super().get_confirm_form_kwargs(request, import_form),
            "format_count": len(self.get_import_formats()),
            "resource_classes": self.get_import_resource_classes(request),
            "read_stored": self._read_stored_upload,
        }

    def _read_stored_upload(self, name: str, limit_bytes: int) -> bytes:
        """At most `limit_bytes` + 1 bytes of an upload that step 1 stored (OSError when it is gone)."""
        storage = self.get_tmp_storage_class()(
            name=name, read_mode="rb", encoding=None, **self.get_tmp_storage_class_kwargs()
        )
        if isinstance(storage, TempFolderStorage):  # never read more than the limit from disk
            with open(storage.get_full_path(), "rb") as file:
                return file.read(limit_bytes + 1)
        data = storage.read()
        if data is None:
            raise FileNotFoundError(name)
        return (data.encode() if isinstance(data, str) else data)[: limit_bytes + 1]

    def process_result(self, result: Result, request: HttpRequest) -> HttpResponse:
        """The confirmed import: a file that turned bad since the preview is rolled back and reported."""
        if result.has_errors() or result.has_validation_errors():
            rows = sorted(
                {number for number, _ in result.row_errors()} | {row.number for row in result.invalid_rows}
            )
            messages.error(
                request,
                f"Import rejected, nothing was saved: rows {', '.join(map(str, rows))} have errors. "
                "Upload the file again to see them.",
            )
            info = (self.opts.app_label, self.opts.model_name)
            return HttpResponseRedirect(reverse("admin:{}_{}_changelist".format(*info)))
        return super().process_result(result, request)

    def generate_log_entries(self, result: Result, request: HttpRequest) -> None:
        """One history entry per imported row, naming the columns the import changed."""
        if self.get_skip_admin_log():
            return
        for row in result.rows:
            flag = _IMPORT_LOG_FLAGS.get(row.import_type)
            if flag is None or row.instance is None:
                continue
            changed = getattr(row.instance, "_import_changed_fields", [])
            verb = "Added" if flag == ADDITION else "Deleted" if flag == DELETION else "Changed"
            message = f"CSV import: {verb.lower()} " + (
                ", ".join(changed) if changed and flag == CHANGE else "row"
            )
            LogEntry.objects.log_actions(
                request.user.pk, [row.instance], flag, change_message=message + ".", single_object=True
            )


@admin.register(Gpu)
class GpuAdmin(CatalogAdmin):
    resource_classes = [GpuResource]
    form = PricedRowForm
    memory_col = number_column("memory_gb", "Memory (GB)")  # not "HBM": L4, L40S, A10 carry GDDR6
    bandwidth_col = number_column("mem_bandwidth_tbs", "Bandwidth (TB/s)")
    bf16_col = number_column("bf16_tflops", "BF16 dense (TFLOPS)")
    fp8_col = number_column("fp8_tflops", "FP8 dense (TFLOPS)")
    tdp_col = number_column("tdp_w", "TDP (W)")
    price_col = number_column("price_usd", "Price (USD)")
    list_display = (
        "model",
        "vendor",
        "launch_year",
        "memory_col",
        "memory_type",
        "bandwidth_col",
        "bf16_col",
        "fp8_col",
        "tdp_col",
        "price_col",
        "verified",
        "price_verified",
        "locally_edited",
    )
    list_filter = ("vendor", MemoryTypeFilter, "launch_year", "verified", "price_verified", "locally_edited")
    search_fields = ("id", "model", "vendor", "memory_type", "notes")
    list_select_related = False  # no foreign keys on GPU rows
    fieldsets = [(title, {"fields": names}) for title, names in p.GPU_FIELDSETS]


@admin.register(Cpu)
class CpuAdmin(CatalogAdmin):
    resource_classes = [CpuResource]
    cores_col = number_column("cores", "Cores")
    boost_col = number_column("boost_ghz", "Boost (GHz)")
    tdp_col = number_column("tdp_w", "TDP (W)")
    bw_col = number_column("max_mem_bw_gbs", "Memory BW (GB/s)")
    price_col = number_column("price_usd", "Price (USD)")
    list_display = (
        "model",
        "vendor",
        "launch_year",
        "cores_col",
        "boost_col",
        "tdp_col",
        "memory_type",
        "bw_col",
        "price_col",
        "verified",
        "locally_edited",
    )
    list_filter = ("vendor", "memory_type", "launch_year", "verified", "locally_edited")
    search_fields = ("id", "model", "vendor", "family", "notes")
    list_select_related = False
    fieldsets = [(title, {"fields": names}) for title, names in p.CPU_FIELDSETS]


@admin.register(Interconnect)
class InterconnectAdmin(CatalogAdmin):
    resource_classes = [InterconnectResource]
    port_col = number_column("port_rate_gbps", "Port (Gb/s)")
    bidir_col = number_column("aggregate_bw_gbs_bidir", "Aggregate both ways (GB/s)")
    latency_col = number_column("latency_us", "Latency (µs)")
    power_col = number_column("power_w", "Power (W)")
    list_display = (
        "name",
        "category",
        "generation",
        "port_col",
        "bidir_col",
        "latency_col",
        "power_col",
        "verified",
        "locally_edited",
    )
    list_filter = ("category", "verified", "locally_edited")
    search_fields = ("id", "name", "category", "typical_use", "notes")
    list_select_related = False
    fieldsets = [(title, {"fields": names}) for title, names in p.INTERCONNECT_FIELDSETS]


@admin.register(Switch)
class SwitchAdmin(CatalogAdmin):
    resource_classes = [SwitchResource]
    ports_col = number_column("ports", "Ports")
    speed_col = number_column("port_speed_gbps", "Port speed (Gb/s)")
    capacity_col = number_column("switching_capacity_tbps", "Capacity (Tb/s)")
    two_tier_col = number_column("nonblocking_2tier_max_endpoints", "2-tier endpoints")
    list_display = (
        "model",
        "vendor",
        "protocol",
        "ports_col",
        "speed_col",
        "capacity_col",
        "two_tier_col",
        "verified",
        "locally_edited",
    )
    list_filter = ("vendor", "protocol", "verified", "locally_edited")
    search_fields = ("id", "model", "vendor", "asic_family", "protocol", "notes")
    list_select_related = False
    fieldsets = [(title, {"fields": names}) for title, names in p.SWITCH_FIELDSETS]


@admin.register(System)
class SystemAdmin(CatalogAdmin):
    resource_classes = [SystemResource]
    form = PricedRowForm
    gpus_col = number_column("gpus", "GPUs")
    memory_col = number_column("gpu_memory_total_gb", "GPU memory (GB)")
    power_col = number_column("system_max_power_kw", "Max power (kW)")
    ru_col = number_column("rack_units", "Height (RU)")
    price_col = number_column("price_usd", "Price (USD)")
    list_display = (
        "name",
        "vendor",
        "gpu",
        "gpus_col",
        "memory_col",
        "power_col",
        "ru_col",
        "price_col",
        "verified",
        "locally_edited",
    )
    list_filter = ("vendor", "verified", "price_verified", "locally_edited")
    search_fields = ("id", "name", "vendor", "gpu_model_text", "notes")
    list_select_related = ("gpu",)
    autocomplete_fields = ("gpu",)
    fieldsets = [(title, {"fields": names}) for title, names in p.SYSTEM_FIELDSETS]


@admin.register(Cooling)
class CoolingAdmin(CatalogAdmin):
    resource_classes = [CoolingResource]
    pue_low_col = number_column("pue_low", "PUE low")
    pue_high_col = number_column("pue_high", "PUE high")
    density_col = number_column("rack_density_kw_typical", "Rack density (kW)")
    wue_col = number_column("wue_l_per_kwh", "WUE (L/kWh)")
    list_display = (
        "name",
        "category",
        "pue_low_col",
        "pue_high_col",
        "density_col",
        "wue_col",
        "year",
        "verified",
        "locally_edited",
    )
    list_filter = ("category", "verified", "locally_edited")
    search_fields = ("id", "name", "category", "notes")
    list_select_related = False
    fieldsets = [(title, {"fields": names}) for title, names in p.COOLING_FIELDSETS]


@admin.register(EconomicsFact)
class EconomicsFactAdmin(CatalogAdmin):
    resource_classes = [EconomicsFactResource]
    value_col = number_column("value", "Value (see unit)")
    list_display = (
        "id",
        "category",
        "region",
        "metric",
        "value_col",
        "unit",
        "period",
        "verified",
        "locally_edited",
    )
    list_filter = ("category", "unit", "verified", "locally_edited")
    search_fields = ("id", "region", "metric", "notes")
    list_select_related = False
    fieldsets = [(title, {"fields": names}) for title, names in p.ECONOMICS_FIELDSETS]


@admin.register(PartPrice)
class PartPriceAdmin(CatalogAdmin):
    resource_classes = [PartPriceResource]
    form = PricedRowForm
    price_col = number_column("price_usd", "Price (USD, per unit)")
    list_display = (
        "item",
        "part_kind",
        "unit",
        "price_col",
        "price_kind",
        "price_date",
        "verified",
        "locally_edited",
    )
    list_filter = ("part_kind", "price_kind", "verified", "locally_edited")
    search_fields = ("id", "item", "part_id", "notes", "estimate_method")
    list_select_related = False
    fieldsets = [(title, {"fields": names}) for title, names in p.PART_PRICE_FIELDSETS]


@admin.register(CloudPrice)
class CloudPriceAdmin(CatalogAdmin):
    resource_classes = [CloudPriceResource]
    price_col = number_column("usd_per_gpu_hour", "USD per GPU-hour")
    list_display = (
        "gpu",
        "provider",
        "term",
        "price_col",
        "offering",
        "price_date",
        "verified",
        "locally_edited",
    )
    list_filter = ("term", "provider", "verified", "locally_edited")
    search_fields = ("id", "provider", "offering", "gpu__model", "notes")
    list_select_related = ("gpu",)
    autocomplete_fields = ("gpu",)
    fieldsets = [(title, {"fields": names}) for title, names in p.CLOUD_PRICE_FIELDSETS]
