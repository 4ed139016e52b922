"""The accuracy page shows the serving validation: both groups, every case, the leave-one-out errors and ranges."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from planner.engine.accuracy.serving import serving_accuracy
from planner.reports.formatting import sig

pytestmark = pytest.mark.django_db


def test_every_serving_case_and_its_group_is_on_the_page():
    html = Client().get(reverse("engine_accuracy")).content.decode()
    acc = serving_accuracy()
    for row in acc.rows:
        assert f'data-serving-case="{row.case.id}-{row.case.metric}"' in html
    assert 'id="serving-calibration"' in html and 'id="serving-holdout"' in html
    assert "never fitted" in html and "Calibration: throughput" in html
    low, high = acc.bands["throughput"]
    # three significant digits as the page writes them (trailing zeros kept: 0.670, not 0.67)
    assert f"{sig(low, 3)}–{sig(high, 3)}×" in html
