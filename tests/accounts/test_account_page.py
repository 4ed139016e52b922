"""The account page: API token rotation and deletion, the e-mail for resets, password change and reset."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _api_status(key: str) -> int:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api.get("/api/scenarios/").status_code


def test_rotating_the_token_retires_the_old_one(alice_client, alice):
    old = Token.objects.create(user=alice).key
    assert _api_status(old) == 200
    page = alice_client.get("/accounts/")
    assert page.status_code == 200 and old in page.content.decode()
    response = alice_client.post("/accounts/token/rotate/")
    assert response.status_code == 302
    new = Token.objects.get(user=alice).key
    assert new != old and _api_status(old) == 401 and _api_status(new) == 200
    assert new in alice_client.get("/accounts/").content.decode()


def test_deleting_the_token(alice_client, alice):
    key = Token.objects.create(user=alice).key
    alice_client.post("/accounts/token/revoke/")
    assert not Token.objects.filter(user=alice).exists() and _api_status(key) == 401


def test_token_actions_need_a_post_and_a_session(client, alice):
    assert client.post("/accounts/token/rotate/").status_code == 302  # to the sign-in page
    assert not Token.objects.filter(user=alice).exists()
    client.force_login(alice)
    assert client.get("/accounts/token/rotate/").status_code == 405


def test_password_change_keeps_the_session_and_the_old_password_stops_working(alice_client, alice):
    response = alice_client.post(
        "/accounts/password/",
        {
            "old_password": "alice-password-1",
            "new_password1": "a-new-long-pass-9",
            "new_password2": "a-new-long-pass-9",
        },
    )
    assert response.status_code == 302
    assert alice_client.get("/accounts/").status_code == 200  # still signed in
    assert not Client().login(username="alice", password="alice-password-1")
    assert Client().login(username="alice", password="a-new-long-pass-9")


def test_password_reset_mails_a_link_that_sets_a_new_password(alice):
    client = Client()
    response = client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    assert response.status_code == 302 and len(mail.outbox) == 1
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200 and "Set a new password" in form_page.content.decode()
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "reset-pass-77x", "new_password2": "reset-pass-77x"},
    )
    assert done.status_code == 302
    assert Client().login(username="alice", password="reset-pass-77x")


def test_password_reset_does_not_say_whether_the_address_is_known(alice):
    known = Client().post("/accounts/password/reset/", {"email": "alice@example.com"})
    unknown = Client().post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 302 and known["Location"] == unknown["Location"]
    assert len(mail.outbox) == 1


def test_password_reset_mails_are_limited_per_client(alice):
    client = Client()
    answers = [
        client.post("/accounts/password/reset/", {"email": "alice@example.com"}).status_code for _ in range(6)
    ]
    assert answers == [302] * 5 + [429] and len(mail.outbox) == 5


def test_saving_an_email(alice_client, alice):
    assert alice_client.post("/accounts/", {"email": "not-an-address"}).status_code == 200
    alice_client.post("/accounts/", {"email": "alice@new.example"})
    alice.refresh_from_db()
    assert alice.email == "alice@new.example"
