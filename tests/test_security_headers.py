"""Security headers: planner.middleware.SecurityHeadersMiddleware in isolation (CSP, Permissions-Policy,
COOP), Django's own headers as configured, and `manage.py check --deploy` clean for production settings."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from planner.middleware import CONTENT_SECURITY_POLICY, CSP_DIRECTIVES, SecurityHeadersMiddleware

pytestmark = pytest.mark.django_db

WITH_HEADERS = [*settings.MIDDLEWARE, "planner.middleware.SecurityHeadersMiddleware"]
ROOT = Path(__file__).resolve().parent.parent


def directives(policy: str) -> dict[str, set[str]]:
    parsed = (part.split() for part in policy.split(";") if part.strip())
    return {name: set(values) for name, *values in parsed}


def test_the_policy_allows_only_this_sites_scripts():
    policy = directives(CONTENT_SECURITY_POLICY)
    assert policy["script-src"] == {"'self'"}
    assert policy["default-src"] == {"'self'"}
    assert policy["object-src"] == {"'none'"} and policy["frame-ancestors"] == {"'none'"}
    assert policy["base-uri"] == {"'self'"} and policy["form-action"] == {"'self'"}
    assert not any("unsafe-eval" in values or "*" in values for values in policy.values())
    assert not any(v.startswith(("http:", "https:")) for values in policy.values() for v in values)


@override_settings(MIDDLEWARE=WITH_HEADERS)
@pytest.mark.parametrize("path", ["/accounts/login/", "/api/schema/", "/no-such-page/"])
def test_every_response_carries_the_security_headers(client, path):
    response = client.get(path)
    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "camera=()" in response["Permissions-Policy"]
    assert "geolocation=()" in response["Permissions-Policy"]
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


@override_settings(MIDDLEWARE=WITH_HEADERS)
def test_api_answers_carry_them_too(alice_client):
    response = alice_client.get("/api/catalog/gpus/")
    assert response.status_code == 200
    assert directives(response["Content-Security-Policy"]) == directives(CONTENT_SECURITY_POLICY)


def test_a_response_that_sets_its_own_policy_keeps_it():
    own = "default-src 'none'"

    def view(request):
        response = HttpResponse("ok")
        response["Content-Security-Policy"] = own
        return response

    response = SecurityHeadersMiddleware(view)(RequestFactory().get("/"))
    assert response["Content-Security-Policy"] == own
    assert response["Permissions-Policy"]


def test_every_directive_is_in_the_header():
    for name, value in CSP_DIRECTIVES.items():
        assert f"{name} {value}" in CONTENT_SECURITY_POLICY


def test_django_sets_its_own_security_headers(client):
    response = client.get("/accounts/login/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


def test_the_login_form_carries_a_csrf_token(client):
    assert 'name="csrfmiddlewaretoken"' in client.get("/accounts/login/").content.decode()


def test_deploy_checks_pass_for_production_settings():
    """DEBUG off with a real key, HSTS, secure cookies and SSL redirect on: `check --deploy` has nothing to say."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "planner.settings",
        "PLANNER_SKIP_DOTENV": "1",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(60),
    }
    test_only = ("DJANGO_ALLOW_ASYNC_UNSAFE",)  # set by the browser fixtures for Playwright's event loop
    for name in (
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        *test_only,
    ):
        env.pop(name, None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
