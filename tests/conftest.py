"""Shared fixtures: personas (alice owns plans, bob is another user, staff edits the catalog) and service gates."""

from __future__ import annotations

import os

import pytest

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"


def require_service(name: str, reason: str) -> None:
    """Skip when a service is not configured locally; fail instead under REQUIRE_SERVICES=1 (CI)."""
    if REQUIRE_SERVICES:
        pytest.fail(f"{name} is required (REQUIRE_SERVICES=1) but {reason}")
    pytest.skip(f"{name} not available: {reason}")


@pytest.fixture(autouse=True)
def _fresh_catalog_copy():
    """Each test has its own database state: start without the per-process catalog copy (catalog/rows.py)."""
    from catalog import rows

    rows.clear()
    yield
    rows.clear()


@pytest.fixture(autouse=True)
def _fresh_limits():
    """Fair-use and sign-in counters (planner.ratelimit) live in the cache and are keyed by user id, which a
    rolled-back test hands to the next test's user: every test starts without them."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.com", "alice-password-1")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", "bob@example.com", "bob-password-1")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(
        "staff", "staff@example.com", "staff-password-1", is_staff=True, is_superuser=True
    )


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client
