"""Field validators for catalog rows. Each message names the rule and the value so an admin or an import
error says exactly what is wrong with which field."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

#: Launch and publication years we accept: before 1990 there were no GPUs to plan with; after 2100 is a typo.
YEAR_MIN = 1990
YEAR_MAX = 2100

#: PUE is facility energy over IT energy (The Green Grid, 2007), so it can never be below 1.
PUE_MIN = 1.0

#: Separator between URLs in a `source` cell (reference catalog README, "Conventions").
SOURCE_SEPARATOR = ";"

CATALOG_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_]*$")

_url_validator = URLValidator(schemes=["http", "https"])


def validate_positive(value: float | None) -> None:
    """Capacities, bandwidths, powers, port counts: zero or negative means a typo, not a real part."""
    if value is not None and value <= 0:
        raise ValidationError(
            "Must be greater than zero (got %(value)s); leave it blank if it is not published.",
            code="not_positive",
            params={"value": value},
        )


def validate_non_negative(value: float | None) -> None:
    """Quantities that may be zero (water use of a closed loop) but never negative."""
    if value is not None and value < 0:
        raise ValidationError("Cannot be negative (got %(value)s).", code="negative", params={"value": value})


def validate_pue(value: float | None) -> None:
    if value is not None and value < PUE_MIN:
        raise ValidationError(
            "PUE is facility energy / IT energy and cannot be below 1.0 (got %(value)s).",
            code="pue_below_one",
            params={"value": value},
        )


def validate_year(value: int | None) -> None:
    if value is not None and not YEAR_MIN <= value <= YEAR_MAX:
        raise ValidationError(
            "Year must be between %(low)s and %(high)s (got %(value)s).",
            code="year_out_of_range",
            params={"value": value, "low": YEAR_MIN, "high": YEAR_MAX},
        )


def validate_catalog_id(value: str) -> None:
    if not CATALOG_ID_RE.match(value or ""):
        raise ValidationError(
            "Use lower-case letters, digits and underscores only, e.g. nvidia_h100_sxm5_80gb (got %(value)r).",
            code="bad_catalog_id",
            params={"value": value},
        )


def split_sources(text: str) -> list[str]:
    """`"https://a; https://b"` -> `["https://a", "https://b"]` (empty parts dropped)."""
    return [part.strip() for part in (text or "").split(SOURCE_SEPARATOR) if part.strip()]


def validate_source_urls(value: str) -> None:
    urls = split_sources(value)
    if not urls:
        raise ValidationError("At least one source URL is required.", code="no_source")
    bad = []
    for url in urls:
        try:
            _url_validator(url)
        except ValidationError:
            bad.append(url)
    if bad:
        raise ValidationError(
            "Not a valid http(s) URL: %(urls)s. Separate several URLs with '; '.",
            code="bad_source_url",
            params={"urls": ", ".join(bad)},
        )
