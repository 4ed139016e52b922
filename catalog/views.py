"""Catalog pages for signed-in users: thin views (access check -> form -> one selector call -> render)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from catalog import selectors
from catalog.forms import GpuFilterForm
from catalog.presentation import (
    GPU_FIELDSETS,
    GPU_TABLE_COLUMNS,
    detail_sections,
    sort_headers,
    vendor_colour,
)


@login_required
def gpu_list(request: HttpRequest) -> HttpResponse:
    form = GpuFilterForm(request.GET or None)
    if form.is_bound:
        form.is_valid()
    filters = form.to_filters()
    gpus = list(selectors.gpu_list(filters=filters))
    context = {
        "form": form,
        "gpus": gpus,
        "headers": sort_headers(GPU_TABLE_COLUMNS, current_sort=filters.sort, query=request.GET),
        "filtered": filters.is_filtered,
    }
    return render(request, "catalog/gpu_list.html", context)


@login_required
def gpu_detail(request: HttpRequest, gpu_id: str) -> HttpResponse:
    gpu = selectors.gpu_get(gpu_id=gpu_id)
    if gpu is None:
        raise Http404(f"No GPU with id {gpu_id!r} in the catalog.")
    context = {
        "gpu": gpu,
        "sections": detail_sections(gpu, GPU_FIELDSETS),
        "missing": gpu.missing_key_specs(),
    }
    return render(request, "catalog/gpu_detail.html", context)


@login_required
def gpu_compare(request: HttpRequest) -> HttpResponse:
    data = selectors.gpu_compare_data()
    vendors = sorted({row["vendor"] for row in data["points"] + data["efficiency"]})
    data["colours"] = {vendor: vendor_colour(vendor) for vendor in vendors}
    return render(request, "catalog/gpu_compare.html", {"chart_data": data})


@login_required
def system_list(request: HttpRequest) -> HttpResponse:
    return render(request, "catalog/system_list.html", {"systems": selectors.system_list()})


@login_required
def cooling_list(request: HttpRequest) -> HttpResponse:
    return render(request, "catalog/cooling_list.html", {"rows": selectors.cooling_list()})


@login_required
def economics_list(request: HttpRequest) -> HttpResponse:
    return render(request, "catalog/economics_list.html", {"rows": selectors.economics_list()})
