"""The authentication backend: Django's ModelBackend behind the sign-in lockout (planner.accounts.lockout)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from planner.accounts import lockout


class LockoutModelBackend(ModelBackend):
    """Refuses (PermissionDenied: no other backend is asked) while the username or the address is locked out,
    without checking the password; counts failures and clears the username's counters on success."""

    def authenticate(
        self, request: Any, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        wait_s = lockout.locked_for_s(request, username)
        if wait_s:
            lockout.mark_locked(request, wait_s)
            raise PermissionDenied(lockout.message(wait_s))
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            lockout.record_failure(request, username)
        else:
            lockout.record_success(request, username)
        return user
