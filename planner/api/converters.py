"""A path converter for database ids: `<id:pk>` matches 1 to 18 digits.

Django's `<int:pk>` matches any number of digits. A primary-key lookup with a number past the 64-bit range
finds nothing, but a foreign-key filter (`scenario_id=99999999999999999999`) reaches the database, where
SQLite raises OverflowError and PostgreSQL a DataError: a 500 for a typo (schemathesis found it). With at
most 18 digits (< 2^63) such a URL does not match at all: 404.
"""

from __future__ import annotations

from django.urls import register_converter

#: 18 digits stay below 2^63 - 1 = 9223372036854775807, the largest id a BigAutoField can hold.
MAX_ID_DIGITS = 18


class IdConverter:
    regex = f"[0-9]{{1,{MAX_ID_DIGITS}}}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
