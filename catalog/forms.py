"""Forms that normalise what users type into the catalog pages' filters, and the checks of a CSV uploaded to the
admin's import (size limit, .csv name, UTF-8 CSV text with the table's header)."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from import_export.forms import ConfirmImportForm, ImportForm

from catalog.presentation import GPU_DEFAULT_SORT
from catalog.selectors import GpuFilters, gpu_memory_type_families, gpu_vendors, parse_sort

VERIFIED_CHOICES = (("", "Any"), ("yes", "Verified only"), ("no", "Not verified"))


class GpuFilterForm(forms.Form):
    """GET filters of the GPU table. Invalid input is reported on the field and that filter is ignored."""

    vendor = forms.ChoiceField(required=False)
    memory_type = forms.ChoiceField(label="Memory type", required=False)
    min_memory_gb = forms.FloatField(
        label="Min memory (GB)",
        required=False,
        min_value=0,
        widget=forms.NumberInput(attrs={"step": "any", "placeholder": "e.g. 80", "size": 6}),
    )
    verified = forms.ChoiceField(label="Verified", required=False, choices=VERIFIED_CHOICES)
    sort = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["vendor"].choices = [("", "All vendors")] + [(name, name) for name in gpu_vendors()]
        self.fields["memory_type"].choices = [("", "Any memory")] + [
            (family, family) for family in gpu_memory_type_families()
        ]

    def to_filters(self) -> GpuFilters:
        """The valid part of the input as GpuFilters (call after is_valid())."""
        data = getattr(self, "cleaned_data", {})
        verified = {"yes": True, "no": False}.get(data.get("verified") or "")
        field, descending = parse_sort(data.get("sort") or GPU_DEFAULT_SORT)
        return GpuFilters(
            vendor=data.get("vendor") or "",
            memory_type=data.get("memory_type") or "",
            min_memory_gb=data.get("min_memory_gb"),
            verified=verified,
            sort=f"-{field}" if descending else field,
        )


# --- CSV import in the admin (django-import-export) ---------------------------------------------------------

#: Bytes in a kibibyte and a mebibyte, for the size limit's message.
KIB = 1024
MIB = 1024 * KIB
#: Default of settings.CATALOG_IMPORT_MAX_BYTES: 2 MiB, about 100 times the largest seed table (gpus.csv).
CATALOG_IMPORT_MAX_BYTES_DEFAULT = 2 * MIB
CSV_EXTENSION = ".csv"
#: The encoding uploads are read with (import_export's default `from_encoding`): UTF-8, a leading BOM allowed.
CSV_ENCODING = "utf-8-sig"
#: Characters that never occur in catalog text: C0 controls except tab, LF and CR, and DEL (NUL marks binary).
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def catalog_import_max_bytes() -> int:
    return int(getattr(settings, "CATALOG_IMPORT_MAX_BYTES", CATALOG_IMPORT_MAX_BYTES_DEFAULT))


def describe_bytes(size_bytes: int) -> str:
    """'2 MiB (2,097,152 bytes)', '4 KiB (4,096 bytes)'."""
    size, unit = (size_bytes / MIB, "MiB") if size_bytes >= MIB else (size_bytes / KIB, "KiB")
    return f"{size:.3g} {unit} ({size_bytes:,} bytes)"


def check_upload_size(name: str, size_bytes: int, limit_bytes: int, *, size_known: bool = True) -> None:
    """Refuse a file over the limit; `size_known=False` when only the first `limit_bytes` + 1 bytes were read."""
    if size_bytes > limit_bytes:
        size = describe_bytes(size_bytes) if size_known else f"larger than {describe_bytes(limit_bytes)}"
        raise ValidationError(
            f"“{name}” is {size}; a catalog import may be at most {describe_bytes(limit_bytes)} "
            "(CATALOG_IMPORT_MAX_BYTES). Split the file and import the parts."
        )


def check_upload_name(name: str) -> None:
    if not name.lower().endswith(CSV_EXTENSION):
        raise ValidationError(
            f"“{name}” is not a .csv file: the catalog imports CSV only (UTF-8 text with a header row, as the "
            "Export button writes it). Save a spreadsheet as CSV first."
        )


def parse_csv_upload(data: bytes, name: str) -> list[list[str]]:
    """The non-blank rows of an uploaded CSV, or ValidationError when it is not UTF-8 text, holds control
    characters (binary data), is not well-formed CSV, or has a row whose cell count differs from the header's."""
    try:
        text = data.decode(CSV_ENCODING)
    except UnicodeDecodeError as exc:
        raise ValidationError(
            f"“{name}” is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start:,}): save it as "
            "“CSV UTF-8”; spreadsheets (.xlsx/.xls) and other binary files are not accepted."
        ) from None
    control = _CONTROL_CHARS.search(text)
    if control is not None:
        raise ValidationError(
            f"“{name}” contains a control character (U+{ord(control.group()):04X}) at character "
            f"{control.start():,}, so it is binary data, not CSV text."
        )
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline=""), strict=True) if row]
    except csv.Error as exc:
        raise ValidationError(f"“{name}” is not well-formed CSV: {exc}.") from None
    if not rows:
        raise ValidationError(f"“{name}” has no header row.")
    width = len(rows[0])
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != width:
            raise ValidationError(
                f"“{name}” is not a table: row {number} has {len(row)} cells, the header has {width}."
            )
    return rows


def check_csv_header(header: Sequence[str], resource: Any, name: str) -> None:
    """The header names only the resource's import columns, each once, and includes its id column(s)."""
    columns = [field.column_name for field in resource.get_import_fields()]
    known = set(columns)
    id_columns = [resource.fields[field].column_name for field in resource._meta.import_id_fields]
    label = resource._meta.model._meta.verbose_name_plural
    problems: list[str] = []
    duplicates = sorted(column for column, count in Counter(header).items() if count > 1)
    if duplicates:
        problems.append(f"repeated column(s) {', '.join(duplicates)}")
    missing = [column for column in id_columns if column not in header]
    if missing:
        problems.append(f"no {', '.join(missing)} column")
    unknown = [column for column in header if column not in known]
    if unknown:
        shown = ", ".join(repr(column[:40]) for column in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        problems.append(f"unknown column(s) {shown}")
    if problems:
        raise ValidationError(
            f"“{name}” does not have the header of the {label} table: {'; '.join(problems)}. "
            f"Its columns are: {', '.join(columns)}."
        )


class CatalogImportForm(ImportForm):
    """Step 1 of the admin import: a .csv file within CATALOG_IMPORT_MAX_BYTES whose content is UTF-8 CSV text
    with the chosen resource's header. Checked before django-import-export stores or parses the file."""

    def __init__(self, formats: Any, resources: Any, **kwargs: Any) -> None:
        super().__init__(formats, resources, **kwargs)
        self.resource_classes = list(resources)
        self.csv_rows: list[list[str]] | None = None
        field = self.fields["import_file"]
        field.help_text = (
            f"A .csv file (UTF-8) of at most {describe_bytes(catalog_import_max_bytes())} with the columns of "
            "an export of this table."
        )
        field.widget.attrs["accept"] = f"{CSV_EXTENSION},text/csv"

    def clean_import_file(self) -> Any:
        upload = self.cleaned_data["import_file"]
        limit_bytes = catalog_import_max_bytes()
        check_upload_size(upload.name, upload.size, limit_bytes)
        check_upload_name(upload.name)
        upload.seek(0)
        data = upload.read(limit_bytes + 1)
        upload.seek(0)
        check_upload_size(upload.name, len(data), limit_bytes, size_known=False)  # the declared size may lie
        self.csv_rows = parse_csv_upload(data, upload.name)
        return upload

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.csv_rows is not None and "import_file" not in self.errors:
            resource = _chosen_resource(self.resource_classes, cleaned.get("resource"))
            try:
                check_csv_header(self.csv_rows[0], resource, cleaned["import_file"].name)
            except ValidationError as exc:
                self.add_error("import_file", exc)
        return cleaned


class CatalogConfirmImportForm(ConfirmImportForm):
    """Step 2 (confirm): the posted format must be one the admin offers, and the stored upload must still pass
    step 1's checks; `read_stored(name, limit_bytes)` returns at most `limit_bytes` + 1 of its bytes (OSError
    when it is gone)."""

    def __init__(
        self,
        *args: Any,
        format_count: int = 1,
        resource_classes: Sequence[Any] = (),
        read_stored: Callable[[str, int], bytes] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.format_count = format_count
        self.resource_classes = list(resource_classes)
        self.read_stored = read_stored

    def clean_format(self) -> str:
        value = self.cleaned_data["format"]
        if value not in {str(index) for index in range(self.format_count)}:
            raise ValidationError("The catalog imports CSV only.")
        return value

    def clean_resource(self) -> str:
        value = self.cleaned_data.get("resource") or "0"
        if value not in {str(index) for index in range(max(1, len(self.resource_classes)))}:
            raise ValidationError("Unknown resource.")
        return value

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        stored, name = cleaned.get("import_file_name"), cleaned.get("original_file_name") or "the file"
        if self.errors or not stored or self.read_stored is None or not self.resource_classes:
            return cleaned
        try:
            check_upload_name(name)
            limit_bytes = catalog_import_max_bytes()
            data = self.read_stored(stored, limit_bytes)
            check_upload_size(name, len(data), limit_bytes, size_known=False)
            rows = parse_csv_upload(data, name)
            check_csv_header(rows[0], _chosen_resource(self.resource_classes, cleaned.get("resource")), name)
        except OSError:
            self.add_error(None, f"The upload of “{name}” is no longer available: upload the file again.")
        except ValidationError as exc:
            self.add_error(None, exc)
        return cleaned


def _chosen_resource(resource_classes: Sequence[Any], index: str | None) -> Any:
    return resource_classes[int(index or 0)]()


class PricedRowForm(forms.ModelForm):
    """Admin form for rows with a price and a published low/high range (GPUs, systems, part prices).

    Changing the price alone is one field change: when the new price lies outside the stored range and neither
    range field was edited, the range is cleared (a quote or new price replaces the published range) and
    `range_cleared` tells the admin to say so. Editing the range too keeps the model's own checks, whose messages
    name the fields by their verbose names.
    """

    range_cleared: bool = False

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        changed = set(self.changed_data)
        price, low, high = data.get("price_usd"), data.get("price_low_usd"), data.get("price_high_usd")
        outside = price is not None and (
            (low is not None and price < low) or (high is not None and price > high)
        )
        if "price_usd" in changed and not changed & {"price_low_usd", "price_high_usd"} and outside:
            data["price_low_usd"] = None
            data["price_high_usd"] = None
            self.range_cleared = True
        return data
