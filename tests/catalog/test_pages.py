"""Catalog pages: signed-in users only; the GPU table sorts and filters server-side; detail shows sources."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalog.models import Gpu

from .conftest import make_gpu

pytestmark = pytest.mark.django_db

PAGES = [
    reverse("catalog:gpu_list"),
    reverse("catalog:gpu_compare"),
    reverse("catalog:gpu_detail", args=["nvidia_h100_sxm5_80gb"]),
    reverse("catalog:system_list"),
    reverse("catalog:cooling_list"),
    reverse("catalog:economics_list"),
]


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_users_are_sent_to_sign_in(client, catalog, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("url", PAGES)
def test_signed_in_users_see_every_catalog_page(alice_client, catalog, url):
    assert alice_client.get(url).status_code == 200


def listed(response) -> list[Gpu]:
    return list(response.context["gpus"])


def test_the_gpu_table_shows_units_in_headers_and_thousands_separators(alice_client, catalog):
    html = alice_client.get(reverse("catalog:gpu_list")).content.decode()
    for header in ("Memory (GB)", "Bandwidth (TB/s)", "BF16 dense (TFLOPS)", "TDP (W)", "Price (USD)"):
        assert header in html
    assert "1,979" in html  # H100 dense FP8


@pytest.mark.parametrize("field", ["tdp_w", "memory_gb", "bf16_tflops", "price_usd", "launch_year"])
def test_sorting_by_a_column_orders_rows_with_blanks_last(alice_client, catalog, field):
    for sort, reverse_order in ((f"-{field}", True), (field, False)):
        values = [
            getattr(gpu, field)
            for gpu in listed(alice_client.get(reverse("catalog:gpu_list"), {"sort": sort}))
        ]
        published = [value for value in values if value is not None]
        assert published == sorted(published, reverse=reverse_order)
        assert values[: len(published)] == published  # blanks after every published value
        assert len(values) == Gpu.objects.count()


def test_sort_links_toggle_direction_and_keep_the_filters(alice_client, catalog):
    response = alice_client.get(reverse("catalog:gpu_list"), {"vendor": "NVIDIA", "sort": "-tdp_w"})
    header = next(h for h in response.context["headers"] if h.field == "tdp_w")
    assert header.aria_sort == "descending"
    assert "sort=tdp_w" in header.url and "vendor=NVIDIA" in header.url


def test_an_unknown_sort_falls_back_to_vendor_order(alice_client, catalog):
    gpus = listed(alice_client.get(reverse("catalog:gpu_list"), {"sort": "-password"}))
    assert [gpu.vendor for gpu in gpus] == sorted(gpu.vendor for gpu in gpus)


@pytest.mark.parametrize(
    ("query", "check"),
    [
        ({"vendor": "AMD"}, lambda gpu: gpu.vendor == "AMD"),
        ({"memory_type": "HBM3E"}, lambda gpu: gpu.memory_type.upper() == "HBM3E"),
        ({"memory_type": "GDDR6"}, lambda gpu: gpu.memory_type.startswith("GDDR6")),
        ({"min_memory_gb": "141"}, lambda gpu: gpu.memory_gb is not None and gpu.memory_gb >= 141),
        ({"verified": "no"}, lambda gpu: not gpu.verified),
        ({"verified": "yes", "vendor": "NVIDIA"}, lambda gpu: gpu.verified and gpu.vendor == "NVIDIA"),
    ],
)
def test_filters_keep_only_matching_gpus(alice_client, catalog, query, check):
    ids = {gpu.id for gpu in listed(alice_client.get(reverse("catalog:gpu_list"), query))}
    expected = {gpu.id for gpu in Gpu.objects.all() if check(gpu)}
    assert ids == expected
    assert 0 < len(ids) < Gpu.objects.count()


def test_memory_type_filter_joins_vendor_spellings(alice_client, catalog):
    ids = {gpu.id for gpu in listed(alice_client.get(reverse("catalog:gpu_list"), {"memory_type": "HBM3E"}))}
    assert {"nvidia_h200_sxm_141gb", "amd_mi325x"} <= ids  # "HBM3e" (NVIDIA) and "HBM3E" (AMD)


def test_a_bad_filter_value_is_reported_on_its_field_and_ignored(alice_client, catalog):
    response = alice_client.get(reverse("catalog:gpu_list"), {"min_memory_gb": "lots", "vendor": "AMD"})
    assert response.status_code == 200
    assert "min_memory_gb" in response.context["form"].errors
    assert {gpu.vendor for gpu in listed(response)} == {"AMD"}


def test_the_gpu_list_runs_the_same_number_of_queries_for_any_number_of_rows(
    alice_client, alice, django_assert_max_num_queries
):
    make_gpu()
    with CaptureQueriesContext(connection) as one_row:
        alice_client.get(reverse("catalog:gpu_list"))
    from catalog.loader import catalog_load

    catalog_load()
    with django_assert_max_num_queries(len(one_row.captured_queries)):
        response = alice_client.get(reverse("catalog:gpu_list"))
    assert len(listed(response)) == Gpu.objects.count() > 20


def test_the_detail_page_shows_every_figure_with_units_and_links_its_sources(alice_client, catalog):
    gpu = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    html = alice_client.get(reverse("catalog:gpu_detail", args=[gpu.pk])).content.decode()
    for url in gpu.source_urls + [
        "https://awesomeagents.ai/hardware/nvidia-h100"
    ]:  # sources and price source
        assert f'href="{url}"' in html
    for label in ("Memory (GB)", "Memory bandwidth (TB/s)", "BF16 dense (TFLOPS)", "TDP (W)", "Price (USD)"):
        assert label in html
    assert "27,500" in html and "verified" in html and "price is an estimate" in html
    assert "WITH 2:4 sparsity" in html  # the notes


def test_the_detail_page_says_which_key_figures_are_not_published(alice_client, catalog):
    html = alice_client.get(reverse("catalog:gpu_detail", args=["huawei_ascend_910b"])).content.decode()
    assert "Not published:" in html and "memory bandwidth" in html


def test_an_unknown_gpu_id_is_a_404(alice_client, catalog):
    assert alice_client.get(reverse("catalog:gpu_detail", args=["nvidia_h999"])).status_code == 404


def chart_data(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="gpu-chart-data" type="application/json">') + len(
        '<script id="gpu-chart-data" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_the_compare_page_embeds_chart_data_and_serves_plotly_itself(alice_client, catalog):
    response = alice_client.get(reverse("catalog:gpu_compare"))
    html = response.content.decode()
    assert "/static/vendor/plotly.min.js" in html and "/static/js/catalog_compare.js" in html
    assert "cdn." not in html
    data = chart_data(response)
    with_both = Gpu.objects.exclude(bf16_tflops=None).exclude(mem_bandwidth_tbs=None)
    assert {point["id"] for point in data["points"]} == set(with_both.values_list("id", flat=True))
    h100 = next(row for row in data["efficiency"] if row["id"] == "nvidia_h100_sxm5_80gb")
    assert h100["tflops_per_w"] == pytest.approx(989 / 700)
    ratios = [row["tflops_per_w"] for row in data["efficiency"]]
    assert ratios == sorted(ratios, reverse=True)
    assert {"google_tpu_v5p"} <= {row["id"] for row in data["not_plotted"]}  # no BF16 peak published
    assert set(data["colours"]) >= {"NVIDIA", "AMD"}


def test_the_systems_page_links_each_system_to_its_gpu(alice_client, catalog):
    html = alice_client.get(reverse("catalog:system_list")).content.decode()
    assert reverse("catalog:gpu_detail", args=["nvidia_h100_sxm5_80gb"]) in html
    assert "3,450,000" in html  # GB200 NVL72 press estimates USD 3.0-3.9 million (midpoint)


def test_the_cooling_page_shows_ranges_and_pue(alice_client, catalog):
    html = alice_client.get(reverse("catalog:cooling_list")).content.decode()
    assert "15–20" in html and "1.58" in html


def test_the_economics_page_lists_the_grid_carbon_row(alice_client, catalog):
    html = alice_client.get(reverse("catalog:economics_list")).content.decode()
    assert "kg CO2/kWh" in html and "0.367" in html
