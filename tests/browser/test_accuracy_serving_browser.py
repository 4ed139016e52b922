"""The accuracy page's serving section as a browser shows it: both groups, their summary and the cases."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_serving_validation_is_readable_on_the_accuracy_page(page, live_server, screenshot):
    page.goto(f"{live_server.url}/accuracy/")
    serving = page.locator("#serving")
    assert serving.is_visible()
    assert "calibration: throughput" in page.locator("#serving-summary").inner_text().lower()
    for group in ("calibration", "holdout"):
        rows = page.locator(f"#serving-{group} tbody tr")
        assert rows.count() > 20
    assert page.locator('tr[data-serving-case="C001-output_tokens_per_s_per_gpu"]').is_visible()
    serving.scroll_into_view_if_needed()
    screenshot(page, "accuracy-serving")
