"""`make run`'s accounts: the demo planner, and a staff account for the admin in development only (with DEBUG
off the command says how to make one instead)."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import override_settings

from planner.management.commands import create_demo_user as command

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("create_demo_user", *args, stdout=out)
    return out.getvalue()


@override_settings(DEBUG=True)
def test_in_development_make_run_prints_a_staff_account_that_can_sign_in_to_the_admin(client):
    output = _run("--with-staff")
    assert f"'{command.STAFF_USERNAME}'" in output and f"'{command.STAFF_PASSWORD}'" in output
    staff = get_user_model().objects.get(username=command.STAFF_USERNAME)
    assert staff.is_staff and staff.is_superuser
    assert not get_user_model().objects.get(username=command.DEMO_USERNAME).is_staff
    assert client.login(username=command.STAFF_USERNAME, password=command.STAFF_PASSWORD)
    assert client.get("/admin/catalog/gpu/").status_code == 200
    assert "reset" in _run("--with-staff")  # run again: the same accounts, passwords reset


def test_with_debug_off_no_staff_account_is_made_and_the_way_to_make_one_is_printed():
    output = _run("--with-staff")
    assert "createsuperuser" in output
    assert not get_user_model().objects.filter(username=command.STAFF_USERNAME).exists()
