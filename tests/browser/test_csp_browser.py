"""The Content-Security-Policy of planner.middleware holds in a real browser: every page with charts, forms and
scripts renders in Debian's chromium with the policy applied and raises no CSP violation (so the policy needs
no inline-script or eval exception). The header is added in the browser (request routing), so this checks the
policy itself whether or not the middleware is in settings.MIDDLEWARE yet."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from planner.middleware import CONTENT_SECURITY_POLICY
from tests.planner.conftest import make_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIOLATIONS_JS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(
    `${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`));
"""


def _with_policy(route) -> None:
    response = route.fetch()
    headers = {**response.headers, "content-security-policy": CONTENT_SECURITY_POLICY}
    route.fulfill(response=response, headers=headers)


def _visit(page, url: str, wait_for: str | None = None) -> list[str]:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    if wait_for:
        page.wait_for_selector(wait_for)
    return page.evaluate("window.__cspViolations")


def test_pages_with_charts_and_forms_raise_no_csp_violation(page, live_server, login, alice):
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())
    scenario = make_scenario(alice, name="CSP check")
    page.add_init_script(VIOLATIONS_JS)
    console_errors: list[str] = []
    page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
    page.route(f"{live_server.url}/**", _with_policy)
    login(page, alice)
    pages = {
        "/": None,
        "/scenarios/": None,
        f"/scenarios/{scenario.pk}/": "#result-charts [data-chart] svg.main-svg",
        "/scenarios/new/": "#live-charts [data-chart] svg.main-svg",
        "/catalog/gpus/": None,
        "/catalog/gpus/compare/": None,
        "/api/docs/": None,
    }
    found = {path: _visit(page, live_server.url + path, selector) for path, selector in pages.items()}
    assert all(not v for v in found.values()), found
    assert not [e for e in console_errors if "Content Security Policy" in e], console_errors
