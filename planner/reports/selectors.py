"""Read side of the exports: a report is fetched filtered by its owner, so another user's report is a 404."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.shortcuts import get_object_or_404

from planner.reports.models import Report


def report_get(*, user: AbstractBaseUser, pk: int, with_pdf: bool = False) -> Report:
    """One of the user's reports (without its PDF bytes unless asked), or 404."""
    queryset = Report.objects.all() if with_pdf else Report.objects.defer("pdf")
    return get_object_or_404(queryset, pk=pk, owner=user)
