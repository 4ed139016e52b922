"""Everyday use in Debian's chromium at a phone's 375 px and a laptop's 1366 px (issue 18): the signed-out home
page explains the product, the planning form keeps its live figures in view, the sweep table scrolls inside its
own box, the navigation folds, and the admin's CSV export page runs without a console error. No page scrolls
sideways. Screenshots go to the `screenshot` folder (SCREENSHOT_DIR)."""

from __future__ import annotations

import io

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import override_settings

from planner import showcase
from planner.middleware import CONTENT_SECURITY_POLICY
from tests.browser.test_csp_browser import VIOLATIONS_JS
from tests.reports.conftest import sweep_spec

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (375, 1366)


@pytest.fixture
def sized(browser):
    """A page of a given viewport width (900 px tall, 800 on a phone), closed after the test."""
    contexts = []

    def open_page(width: int):
        context = browser.new_context(viewport={"width": width, "height": 800 if width < 800 else 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        return page

    yield open_page
    for context in contexts:
        context.close()


def _catalog() -> None:
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())


def _no_sideways_scroll(page) -> None:
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"


def _in_view(page, selector: str) -> bool:
    return page.evaluate(
        """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
                      return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""",
        selector,
    )


def _wait_for_preview(page, count: int) -> None:
    """Until the live panel has shown `count` previews (polled from here: the policy forbids eval in the page)."""
    for _ in range(100):
        if int(page.get_attribute("#scenario-form", "data-preview-count") or 0) >= count:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the live preview did not update")


def _with_policy(route) -> None:
    response = route.fetch()
    route.fulfill(
        response=response, headers={**response.headers, "content-security-policy": CONTENT_SECURITY_POLICY}
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_signed_out_home_page_explains_the_product(sized, live_server, screenshot, width):
    _catalog()
    cache.clear()
    assert (
        showcase.worked_example() is not None
    )  # computed here (the layout search), not within goto's timeout
    page = sized(width)
    page.add_init_script(VIOLATIONS_JS)
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.route(f"{live_server.url}/**", _with_policy)
    page.goto(live_server.url + "/")
    page.wait_for_load_state("networkidle")
    assert page.locator("h1").inner_text() == "Plan a GPU cluster before you buy it"
    example = page.locator('[data-testid="worked-example"]')
    assert "Llama 3.1 70B on 256 H100s" in example.locator("h2").inner_text()
    assert example.locator('[data-kpi="days"] .kpi-value').inner_text().endswith("days")
    assert "likely between" in example.locator('[data-testid="example-range"]').inner_text()
    assert example.locator('[data-testid="example-chart"] svg').count() == 2
    assert page.locator('[data-testid="accuracy-summary"] a[href="/accuracy/"]').is_visible()
    assert page.locator("#signin form input[name=password]").is_visible()
    assert page.locator('#signin a[href="/accounts/signup/"]').is_visible()
    _no_sideways_scroll(page)
    assert page.evaluate("window.__cspViolations") == [] and errors == []
    screenshot(page, f"home-signed-out-{width}")

    # The navigation folds behind a button on a phone and stays open on a laptop.
    signup_link = page.locator(".topbar .signup-link")
    if width < 900:
        assert page.locator("#nav-toggle").is_visible() and not signup_link.is_visible()
        page.click("#nav-toggle")
        assert signup_link.is_visible()
        assert page.get_attribute("#nav-toggle", "aria-expanded") == "true"
        screenshot(page, f"home-menu-open-{width}")
    else:
        assert not page.locator("#nav-toggle").is_visible() and signup_link.is_visible()

    # Signing in from the home page lands on the user's own home.
    page.fill("#signin #id_username", "demo-user")
    page.fill("#signin #id_password", "wrong")
    page.click("#signin button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert "/accounts/login/" in page.url  # a wrong password goes to the sign-in page with its message


@pytest.mark.parametrize("width", WIDTHS)
def test_the_planning_form_keeps_its_live_figures_in_view(
    sized, live_server, login, screenshot, alice, width
):
    _catalog()
    page = sized(width)
    login(page, alice)
    page.goto(f"{live_server.url}/scenarios/new/")
    page.wait_for_selector("#live-headline .kpi")
    # Far down the form, where the user types: the figures are still on screen.
    page.locator("#id_tokens_b").scroll_into_view_if_needed()
    page.fill("#id_tokens_b", "2000")
    _wait_for_preview(page, 2)
    days = page.inner_text('#live-headline [data-kpi="days"] .kpi-value')
    if width < 1100:
        assert page.locator("#live-bar").is_visible() and _in_view(page, "#live-bar")
        assert page.evaluate("document.querySelector('#live-bar').getBoundingClientRect().top") <= 1
        assert days in page.inner_text("#live-bar")
        assert not _in_view(page, "#live-headline")  # the panel itself is far below
    else:
        assert not page.locator("#live-bar").is_visible()
        assert _in_view(page, '#live-headline [data-kpi="days"]')  # the panel beside the form stays in view
    _no_sideways_scroll(page)
    screenshot(page, f"form-live-figures-{width}")

    # With an error on the form every figure is greyed out, not only the charts.
    page.fill("#id_nodes", "0")
    page.wait_for_selector(".live-inner.stale")
    page.wait_for_timeout(500)  # the fade's transition
    opacity = page.evaluate("getComputedStyle(document.querySelector('#live-headline')).opacity")
    assert float(opacity) < 0.5
    assert page.locator("#live-stale-note").is_visible() or width < 1100
    if width < 1100:
        assert "stale" in page.get_attribute("#live-bar", "class")
        assert "fix the highlighted fields" in page.inner_text("#live-bar")
        # A field scrolled to lands below the sticky bar, not under it (scroll-padding-top).
        page.locator("#id_nodes").scroll_into_view_if_needed()
        field_top = page.evaluate("document.querySelector('#id_nodes').getBoundingClientRect().top")
        bar_bottom = page.evaluate("document.querySelector('#live-bar').getBoundingClientRect().bottom")
        assert field_top >= bar_bottom, (field_top, bar_bottom)
    screenshot(page, f"form-with-errors-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_sweep_table_scrolls_in_its_own_box(sized, live_server, login, screenshot, alice, width):
    from planner.sweeps import services as sweep_services

    _catalog()
    with override_settings(SWEEP_CHUNK_CONFIGS=2000):
        run = sweep_services.sweep_create(owner=alice, scenario=None, spec=sweep_spec(), name="Table width")
    for index in range(run.chunks_total):
        sweep_services.sweep_chunk_run(run_id=run.pk, index=index)
    page = sized(width)
    login(page, alice)
    page.goto(f"{live_server.url}/sweeps/{run.pk}/")
    page.wait_for_selector("#rows-min_time tbody tr")
    _no_sideways_scroll(page)
    box = page.evaluate(
        """() => { const wrap = document.querySelector('#rows-min_time').closest('.table-wrap');
                   return [wrap.scrollWidth, wrap.clientWidth, wrap.getBoundingClientRect().right]; }"""
    )
    scroll_width, client_width, right = box
    assert scroll_width > client_width  # the table is wider than the screen, and scrolls in its box
    assert right <= width
    page.evaluate("document.querySelector('#rows-min_time').closest('.table-wrap').scrollLeft = 10000")
    _no_sideways_scroll(page)
    screenshot(page, f"sweep-table-{width}")


def test_the_admin_export_page_runs_without_console_errors(page, live_server, login, screenshot, staff):
    _catalog()
    page.add_init_script(VIOLATIONS_JS)
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    login(page, staff)
    page.goto(f"{live_server.url}/admin/catalog/gpu/export/")
    page.wait_for_load_state("networkidle")
    boxes = page.locator('.selectable-field-export-row input[type="checkbox"]')
    assert boxes.count() > 10
    assert all(boxes.nth(i).is_checked() for i in range(boxes.count()))
    page.click("input.select-toggle")  # "Select all": its inline handler is allowed by hash
    assert not any(boxes.nth(i).is_checked() for i in range(boxes.count()))
    page.click("input.select-toggle")
    assert all(boxes.nth(i).is_checked() for i in range(boxes.count()))
    assert errors == [] and page.evaluate("window.__cspViolations") == []
    screenshot(page, "admin-export")


def test_favicon_is_served(page, live_server):
    response = page.request.get(f"{live_server.url}/favicon.ico")
    assert response.ok and response.headers["content-type"] in {"image/x-icon", "image/vnd.microsoft.icon"}
