"""Sign-up is limited per client address (only accounts actually made count)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def _signup(client: Client, name: str, password: str = "Plan-2026-clusters"):
    return client.post("/accounts/signup/", {"username": name, "password1": password, "password2": password})


def test_the_sixth_account_from_one_address_in_an_hour_is_refused():
    answers = [_signup(Client(), f"user{i}").status_code for i in range(6)]
    assert answers == [302] * 5 + [429]
    assert get_user_model().objects.count() == 5


def test_mistyped_sign_ups_do_not_use_up_the_limit():
    for _ in range(8):
        assert _signup(Client(), "typo", password="short").status_code == 200
    assert _signup(Client(), "careful").status_code == 302


def test_another_address_may_still_sign_up():
    for i in range(5):
        _signup(Client(), f"user{i}")
    assert _signup(Client(REMOTE_ADDR="192.0.2.44"), "colleague").status_code == 302
