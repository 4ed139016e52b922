"""CSV export/import through the admin: round trips change nothing; a bad file is rejected whole, rows named."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib import admin
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from import_export.formats.base_formats import CSV

from catalog.models import Gpu, System
from catalog.resources import RESOURCES, GpuResource, SystemResource

pytestmark = pytest.mark.django_db


def export_csv(model) -> str:
    return RESOURCES[model]().export(model.objects.all()).csv


def edit_csv(text: str, row_id: str, **cells: str) -> str:
    """Change cells of the row with `row_id` in an exported CSV."""
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        if row["id"] == row_id:
            row.update(cells)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def csv_format_index(model) -> str:
    formats = admin.site._registry[model].get_import_formats()
    return str(next(index for index, fmt in enumerate(formats) if fmt is CSV))


def upload(client, model, text: str):
    """Step 1 of an admin import: upload and preview (a dry run)."""
    url = reverse(f"admin:catalog_{model._meta.model_name}_import")
    file = SimpleUploadedFile("catalog.csv", text.encode(), content_type="text/csv")
    return client.post(url, {"import_file": file, "format": csv_format_index(model)})


def confirm(client, model, preview):
    """Step 2: confirm the previewed import."""
    url = reverse(f"admin:catalog_{model._meta.model_name}_process_import")
    return client.post(url, preview.context["confirm_form"].initial)


def snapshot(model) -> list[tuple]:
    return list(model.objects.order_by("pk").values_list())


def test_the_admin_offers_csv_export_for_every_catalog_model(staff_client, catalog):
    for model in RESOURCES:
        response = staff_client.get(reverse(f"admin:catalog_{model._meta.model_name}_export"))
        assert response.status_code == 200


@pytest.mark.parametrize("model", list(RESOURCES), ids=lambda model: model.__name__)
def test_exporting_and_reimporting_a_table_changes_nothing(staff_client, catalog, model):
    before = snapshot(model)
    preview = upload(staff_client, model, export_csv(model))
    assert preview.status_code == 200
    result = preview.context["result"]
    assert not result.has_errors() and not result.has_validation_errors()
    assert result.totals["skip"] == model.objects.count()
    response = confirm(staff_client, model, preview)
    assert response.status_code == 302
    assert snapshot(model) == before
    assert not model.objects.filter(locally_edited=True).exists()
    assert not LogEntry.objects.exists()


def test_an_imported_change_is_saved_marked_and_logged_with_the_changed_column(staff_client, staff, catalog):
    text = edit_csv(export_csv(Gpu), "nvidia_h100_sxm5_80gb", tdp_w="650")
    preview = upload(staff_client, Gpu, text)
    assert preview.context["result"].totals["update"] == 1
    confirm(staff_client, Gpu, preview)
    h100 = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    assert (h100.tdp_w, h100.locally_edited) == (650, True)
    entry = LogEntry.objects.get(object_id="nvidia_h100_sxm5_80gb", action_flag=CHANGE)
    assert entry.user == staff
    assert entry.get_change_message() == "CSV import: changed tdp_w."


def test_a_bad_file_is_rejected_whole_and_names_the_bad_rows(staff_client, catalog):
    before = snapshot(Gpu)
    text = export_csv(Gpu)
    text = edit_csv(
        text, "nvidia_a100_sxm4_40gb", memory_gb="640"
    )  # a valid change that must not be saved either
    text = edit_csv(text, "nvidia_h100_sxm5_80gb", memory_gb="-80")
    text = edit_csv(text, "amd_mi300x", tdp_w="seven hundred fifty")
    preview = upload(staff_client, Gpu, text)
    assert preview.status_code == 200
    assert "confirm_form" not in preview.context
    invalid = {row.number: row for row in preview.context["result"].invalid_rows}
    ids = [row["id"] for row in csv.DictReader(io.StringIO(text))]
    h100_line, mi300x_line = ids.index("nvidia_h100_sxm5_80gb") + 1, ids.index("amd_mi300x") + 1
    assert set(invalid) == {h100_line, mi300x_line}
    assert "greater than zero" in str(invalid[h100_line].field_specific_errors["memory_gb"])
    assert "tdp_w" in invalid[mi300x_line].field_specific_errors
    html = preview.content.decode()
    assert "greater than zero" in html and "could not convert" in html
    assert snapshot(Gpu) == before


def test_a_bad_row_rolls_back_good_rows_imported_before_it():
    """The resource itself (not only the admin preview) saves nothing when any row is invalid."""
    from catalog.loader import catalog_load

    catalog_load()
    text = edit_csv(export_csv(Gpu), "nvidia_a100_sxm4_40gb", memory_gb="640")
    text = edit_csv(text, "nvidia_h100_sxm5_80gb", memory_gb="-80")
    dataset = CSV().create_dataset(text)
    result = GpuResource().import_data(dataset, dry_run=False)
    assert result.has_validation_errors()
    assert Gpu.objects.get(pk="nvidia_a100_sxm4_40gb").memory_gb == 40


def test_an_unknown_gpu_id_on_a_system_is_a_named_field_error(staff_client, catalog):
    text = edit_csv(SystemResource().export(System.objects.all()).csv, "nvidia_dgx_h100", gpu="nvidia_h999")
    preview = upload(staff_client, System, text)
    [row] = preview.context["result"].invalid_rows
    assert "No catalog GPU with id 'nvidia_h999'" in str(row.field_specific_errors["gpu"])
