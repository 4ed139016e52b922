"""Sign-in lockout on the three ways in (sign-in page, admin, API token): the right password is refused once
a username is locked, a made-up X-Forwarded-For does not reset a limit, and the message is the same whether
or not the account exists."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from planner.accounts import lockout

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
TOKEN = "/api/token/"
PAIR_LIMIT = 5  # planner.ratelimit.DEFAULT_RATES["login_pair"]


def _page_login(client: Client, username: str, password: str, url: str = LOGIN, **extra: str):
    return client.post(url, {"username": username, "password": password}, **extra)


def _signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_right_password_is_refused_after_five_wrong_ones(alice):
    client = Client()
    for _ in range(PAIR_LIMIT):
        response = _page_login(client, "alice", "wrong")
        assert response.status_code == 200 and "correct username and password" in response.content.decode()
    locked = _page_login(client, "alice", "alice-password-1")
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    assert "Too many failed sign-in attempts" in locked.content.decode()
    assert not _signed_in(client)


def test_the_lockout_reads_the_same_for_an_account_that_does_not_exist(alice):
    answers = {}
    for username in ("alice", "nobody-here"):
        client = Client()
        for _ in range(PAIR_LIMIT):
            _page_login(client, username, "wrong")
        response = _page_login(client, username, "alice-password-1")
        answers[username] = (response.status_code, lockout.message(int(response["Retry-After"])))
        assert lockout.message(int(response["Retry-After"])) in response.content.decode()
        assert username not in lockout.message(int(response["Retry-After"]))
    assert answers["alice"] == answers["nobody-here"]


def test_a_success_before_the_limit_clears_the_username_counter(alice):
    client = Client()
    for _ in range(PAIR_LIMIT - 1):
        _page_login(client, "alice", "wrong")
    assert _page_login(client, "alice", "alice-password-1").status_code == 302
    other = Client()
    for _ in range(PAIR_LIMIT - 1):
        _page_login(other, "alice", "wrong")
    assert _page_login(other, "alice", "alice-password-1").status_code == 302


def test_the_admin_sign_in_shares_the_lockout(staff):
    client = Client()
    for _ in range(PAIR_LIMIT):
        _page_login(client, "staff", "wrong", ADMIN_LOGIN)
    response = _page_login(client, "staff", "staff-password-1", ADMIN_LOGIN)
    assert "Too many failed sign-in attempts" in response.content.decode()
    assert not _signed_in(client)
    # ... and the site's sign-in page is locked for that username too.
    assert _page_login(client, "staff", "staff-password-1").status_code == 429


def test_a_new_forwarded_for_per_request_does_not_reset_the_token_limit(alice):
    api = APIClient()
    for i in range(PAIR_LIMIT):
        response = api.post(
            TOKEN,
            {"username": "alice", "password": "wrong"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{i}",
        )
        assert response.status_code == 400
    response = api.post(
        TOKEN,
        {"username": "alice", "password": "alice-password-1"},
        format="json",
        HTTP_X_FORWARDED_FOR="198.51.100.7",
    )
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert "Too many failed sign-in attempts" in response.json()["detail"]


def test_the_token_endpoints_per_address_throttle_ignores_a_made_up_forwarded_for(alice):
    """Before: DRF read the client from X-Forwarded-For (no NUM_PROXIES), so a new header per request reset
    the 20/min limit. Now the header is ignored without a trusted proxy (21 usernames: no username lockout)."""
    api = APIClient()
    answers = [
        api.post(
            TOKEN,
            {"username": f"u{i}", "password": "x"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{i}",
        ).status_code
        for i in range(21)
    ]
    assert answers == [400] * 20 + [429]


@override_settings(NUM_PROXIES=1)
def test_behind_one_trusted_proxy_the_client_is_the_address_the_proxy_appended(alice):
    """The proxy appends the address it saw: the client's own (spoofable) entries to its left are ignored."""
    for i in range(PAIR_LIMIT):
        _page_login(
            Client(),
            "alice",
            "wrong",
            HTTP_X_FORWARDED_FOR=f"10.9.9.{i}, 192.0.2.10",
            REMOTE_ADDR="127.0.0.1",
        )
    from_attacker = _page_login(
        Client(),
        "alice",
        "alice-password-1",
        HTTP_X_FORWARDED_FOR="10.1.1.1, 192.0.2.10",
        REMOTE_ADDR="127.0.0.1",
    )
    assert from_attacker.status_code == 429
    # Alice herself, from another address behind the same proxy, still signs in (the pair is locked, not the
    # username: that takes 20 failures).
    from_alice = _page_login(
        Client(), "alice", "alice-password-1", HTTP_X_FORWARDED_FOR="192.0.2.99", REMOTE_ADDR="127.0.0.1"
    )
    assert from_alice.status_code == 302


def test_many_addresses_guessing_one_username_lock_it_everywhere(alice):
    for i in range(20):
        _page_login(Client(), "alice", "wrong", REMOTE_ADDR=f"198.51.100.{i}")
    response = _page_login(Client(), "alice", "alice-password-1", REMOTE_ADDR="192.0.2.1")
    assert response.status_code == 429


def test_one_address_spraying_many_usernames_is_locked(alice):
    client = Client()
    for i in range(30):
        _page_login(client, f"user{i}", "Summer2026!")
    assert _page_login(client, "alice", "alice-password-1").status_code == 429
    assert _page_login(Client(REMOTE_ADDR="192.0.2.50"), "alice", "alice-password-1").status_code == 302
