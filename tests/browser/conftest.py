"""Playwright fixtures driving Debian's chromium (Playwright's own browser download does not work here).

Use: `def test_x(page, live_server, login): login(page, user); page.goto(live_server.url + "/...")`.
Screenshots go to $SCREENSHOT_DIR (default: a temporary folder) via the `screenshot` fixture.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in the test thread; Django's ORM refuses to run in a thread with a
# running loop unless told it is safe (the test thread only sets up data; the live server thread serves pages).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _chromium_path() -> str:
    for candidate in (os.environ.get("CHROMIUM_PATH"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    pytest.fail(
        "Debian's chromium is needed for the browser tests: `apt-get install chromium` (make test does it)"
    )


@pytest.fixture(scope="session")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser) -> Iterator:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    # 45 s: on a shared 2-core machine under load a page's first render has taken over 15 s; a real
    # failure (an element that never appears) still fails, only later.
    page.set_default_timeout(45_000)
    yield page
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    path = Path(os.environ.get("SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="planner-screens-"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def screenshot(screenshot_dir: Path) -> Callable:
    def take(page, name: str) -> Path:
        target = screenshot_dir / f"{name}.png"
        page.screenshot(path=str(target), full_page=True)
        return target

    return take


@pytest.fixture
def login(live_server) -> Callable:
    """Sign a user in through the real login form (the password is `<username>-password-1`)."""

    def do_login(page, user, password: str | None = None) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", user.get_username())
        page.fill("#id_password", password or f"{user.get_username()}-password-1")
        page.click("button[type=submit]")
        page.wait_for_load_state("networkidle")

    return do_login


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
