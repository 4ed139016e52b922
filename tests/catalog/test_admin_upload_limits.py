"""The admin's CSV import refuses files that are too large, not named .csv, not UTF-8 CSV text or without the
table's header, in either step (upload/preview and confirm), with a message naming the file and the reason,
a 200 re-display (never a 500) and nothing saved; good files, a BOM included, still import. The API's catalog
writes take JSON only, so a file upload there is refused too."""

from __future__ import annotations

import csv
import io
import os
import tempfile
import zipfile

import pytest
from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from catalog.models import Cpu, Gpu
from tests.api.conftest import token_client
from tests.catalog.test_import_export import confirm, edit_csv, export_csv, snapshot

pytestmark = pytest.mark.django_db

H100 = "nvidia_h100_sxm5_80gb"
MIB = 1024 * 1024
#: A valid partial GPU CSV (id and one column).
GOOD_TEXT = f"id,tdp_w\n{H100},650\n".encode()


def import_url(model=Gpu) -> str:
    return reverse(f"admin:catalog_{model._meta.model_name}_import")


def post_file(client, name: str, data: bytes, *, model=Gpu, file_format: str = "0", content_type="text/csv"):
    """Step 1 of an admin import with raw bytes under a chosen file name and declared format index."""
    file = SimpleUploadedFile(name, data, content_type=content_type)
    return client.post(import_url(model), {"import_file": file, "format": file_format})


def file_errors(response) -> str:
    assert response.status_code == 200
    assert "confirm_form" not in response.context, "a rejected file must not reach the confirm step"
    return " ".join(response.context["form"].errors.get("import_file", []))


def xlsx_bytes() -> bytes:
    """A zip with an Office Open XML workbook's parts: what an .xlsx file is on disk."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        archive.writestr("xl/workbook.xml", '<?xml version="1.0"?><workbook><sheets/></workbook>')
        archive.writestr("xl/worksheets/sheet1.xml", "<worksheet><sheetData/></worksheet>")
    return out.getvalue()


def write_csv(rows: list[dict[str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def padded_to(text: str, size_bytes: int) -> bytes:
    """The export with every row's notes lengthened so the file is exactly `size_bytes` long: still valid CSV,
    each cell well under Python's csv field limit (128 KiB)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    padding = size_bytes - len(write_csv(rows))
    assert padding >= 0
    for number, row in enumerate(rows):
        row["notes"] += "x" * (padding // len(rows) + (1 if number < padding % len(rows) else 0))
    data = write_csv(rows)
    assert len(data) == size_bytes
    return data


@pytest.fixture
def unchanged(catalog):
    """Asserts after the test that no GPU row and no admin history changed."""
    before = snapshot(Gpu)
    yield
    assert snapshot(Gpu) == before
    assert not LogEntry.objects.exists()


def test_the_limit_defaults_to_two_mib_and_the_import_form_says_so(staff_client):
    assert settings.CATALOG_IMPORT_MAX_BYTES == 2 * MIB
    page = staff_client.get(import_url())
    assert page.status_code == 200
    assert "at most 2 MiB (2,097,152 bytes)" in page.content.decode()
    assert [label for _, label in page.context["form"].fields["format"].choices] == ["csv"]


def test_a_file_one_byte_over_the_limit_is_rejected_with_its_size_and_the_limit(staff_client, unchanged):
    limit = settings.CATALOG_IMPORT_MAX_BYTES
    data = padded_to(export_csv(Gpu), limit + 1)
    assert len(data) == limit + 1
    errors = file_errors(post_file(staff_client, "big.csv", data))
    assert "“big.csv”" in errors
    assert f"({limit + 1:,} bytes)" in errors and f"at most 2 MiB ({limit:,} bytes)" in errors


def test_a_file_exactly_at_the_limit_is_accepted(staff_client, catalog):
    limit = settings.CATALOG_IMPORT_MAX_BYTES
    data = padded_to(export_csv(Gpu), limit)
    response = post_file(staff_client, "limit.csv", data)
    assert response.status_code == 200 and "confirm_form" in response.context
    assert response.context["result"].totals["update"] == Gpu.objects.count()


@override_settings(CATALOG_IMPORT_MAX_BYTES=4096)
def test_the_limit_follows_the_setting(staff_client, unchanged):
    data = export_csv(Gpu).encode()
    assert len(data) > 4096
    errors = file_errors(post_file(staff_client, "gpus.csv", data))
    assert f"({len(data):,} bytes)" in errors and "at most 4 KiB (4,096 bytes)" in errors


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("gpus.xlsx", xlsx_bytes()),
        ("gpus.txt", GOOD_TEXT),
        ("gpus.csv.exe", GOOD_TEXT),
        ("gpus", GOOD_TEXT),
    ],
    ids=["xlsx", "txt", "double-extension", "no-extension"],
)
def test_a_file_not_named_csv_is_rejected(staff_client, unchanged, name, data):
    errors = file_errors(post_file(staff_client, name, data, content_type="application/octet-stream"))
    assert f"“{name}” is not a .csv file" in errors


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (xlsx_bytes(), "is not UTF-8 text (byte 0x"),
        (
            "id,tdp_w\nnvidia_h100_sxm5_80gb,650\n".encode("utf-16"),
            "is not UTF-8 text (byte 0xff at offset 0)",
        ),
        (b"id,tdp_w\x00\x00\x00\nnvidia_h100_sxm5_80gb,650\n", "contains a control character (U+0000)"),
        (bytes(range(256)), "is not UTF-8 text"),
    ],
    ids=["xlsx-renamed", "utf-16", "nul-bytes", "random-bytes"],
)
def test_binary_content_named_csv_is_rejected(staff_client, unchanged, data, reason):
    errors = file_errors(post_file(staff_client, "gpus.csv", data))
    assert "“gpus.csv”" in errors and reason in errors


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('id,tdp_w\n"nvidia_h100_sxm5_80gb"650\n', "is not well-formed CSV: ',' expected after '\"'"),
        ('id,tdp_w\nnvidia_h100_sxm5_80gb,"650\n', "is not well-formed CSV: unexpected end of data"),
        ("id,tdp_w\nnvidia_h100_sxm5_80gb,650,700\n", "row 2 has 3 cells, the header has 2"),
        ("tdp_w\n650\n", "no id column"),
        ("id,tdp_w,tdp_w\nnvidia_h100_sxm5_80gb,650,700\n", "repeated column(s) tdp_w"),
        ("id,tdp_watts\nnvidia_h100_sxm5_80gb,650\n", "unknown column(s) 'tdp_watts'"),
    ],
    ids=["junk-after-quote", "unclosed-quote", "ragged-row", "no-id", "repeated-column", "unknown-column"],
)
def test_text_that_is_not_a_table_with_the_gpu_header_is_rejected(staff_client, unchanged, text, reason):
    errors = file_errors(post_file(staff_client, "gpus.csv", text.encode()))
    assert "“gpus.csv”" in errors and reason in errors


def test_another_tables_export_is_rejected_by_its_header(staff_client, unchanged):
    errors = file_errors(post_file(staff_client, "cpus.csv", export_csv(Cpu).encode()))
    assert "“cpus.csv” does not have the header of the GPUs table" in errors
    assert "'cores'" in errors


def test_a_format_the_admin_does_not_offer_is_rejected(staff_client, unchanged):
    response = post_file(staff_client, "gpus.csv", export_csv(Gpu).encode(), file_format="1")
    assert response.status_code == 200 and "confirm_form" not in response.context
    assert "format" in response.context["form"].errors


def test_a_good_csv_with_a_byte_order_mark_still_imports(staff_client, catalog):
    text = edit_csv(export_csv(Gpu), H100, tdp_w="650")
    preview = post_file(staff_client, "gpus.csv", b"\xef\xbb\xbf" + text.encode())
    assert preview.status_code == 200 and "confirm_form" in preview.context
    assert preview.context["result"].totals["update"] == 1
    response = confirm(staff_client, Gpu, preview)
    assert response.status_code == 302
    assert Gpu.objects.get(pk=H100).tdp_w == 650


def test_a_partial_csv_with_the_id_and_one_column_still_imports(staff_client, catalog):
    preview = post_file(staff_client, "one-column.csv", GOOD_TEXT)
    assert preview.context["result"].totals["update"] == 1
    confirm(staff_client, Gpu, preview)
    assert Gpu.objects.get(pk=H100).tdp_w == 650


# --- the confirm step checks the stored file again -----------------------------------------------------------


def good_preview(client):
    preview = post_file(client, "gpus.csv", edit_csv(export_csv(Gpu), H100, tdp_w="650").encode())
    assert "confirm_form" in preview.context
    return preview


def stored_path(preview) -> str:
    return os.path.join(tempfile.gettempdir(), preview.context["confirm_form"].initial["import_file_name"])


def post_confirm(client, preview, **changes: str):
    url = reverse("admin:catalog_gpu_process_import")
    return client.post(url, {**preview.context["confirm_form"].initial, **changes})


def confirm_errors(response) -> str:
    assert response.status_code == 200
    return " ".join(str(e) for errors in response.context["confirm_form"].errors.values() for e in errors)


def test_a_confirm_with_a_format_the_admin_does_not_offer_is_rejected(staff_client, unchanged):
    preview = good_preview(staff_client)
    assert "The catalog imports CSV only." in confirm_errors(post_confirm(staff_client, preview, format="3"))
    assert "The catalog imports CSV only." in confirm_errors(post_confirm(staff_client, preview, format="x"))
    os.remove(stored_path(preview))


def test_a_stored_upload_replaced_by_binary_data_is_rejected_at_confirm(staff_client, unchanged):
    preview = good_preview(staff_client)
    path = stored_path(preview)
    with open(path, "wb") as file:
        file.write(xlsx_bytes())
    try:
        assert "“gpus.csv” is not UTF-8 text" in confirm_errors(post_confirm(staff_client, preview))
    finally:
        os.remove(path)


def test_a_stored_upload_grown_past_the_limit_is_rejected_at_confirm(staff_client, unchanged):
    preview = good_preview(staff_client)
    path = stored_path(preview)
    limit = settings.CATALOG_IMPORT_MAX_BYTES
    with open(path, "wb") as file:
        file.write(padded_to(export_csv(Gpu), limit + 1))
    try:
        errors = confirm_errors(post_confirm(staff_client, preview))
        assert f"“gpus.csv” is larger than 2 MiB ({limit:,} bytes)" in errors
    finally:
        os.remove(path)


def test_a_confirm_whose_upload_is_gone_asks_for_the_file_again(staff_client, unchanged):
    preview = good_preview(staff_client)
    os.remove(stored_path(preview))
    errors = confirm_errors(post_confirm(staff_client, preview))
    assert "The upload of “gpus.csv” is no longer available: upload the file again." in errors


# --- the API -------------------------------------------------------------------------------------------------


def test_the_catalog_api_refuses_a_file_upload(staff, unchanged):
    api = token_client(staff)
    file = SimpleUploadedFile("gpus.csv", export_csv(Gpu).encode(), content_type="text/csv")
    response = api.post("/api/catalog/gpus/", {"file": file}, format="multipart")
    assert response.status_code == 415
