"""Sign-in forms that tell a locked-out user so (planner.accounts.lockout) instead of "wrong password"."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from planner.accounts import lockout


class LockoutMessageMixin:
    request: Any

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()  # type: ignore[misc]
        except ValidationError:
            wait_s = lockout.locked_wait(self.request)
            if wait_s:
                raise ValidationError(lockout.message(wait_s), code="locked_out") from None
            raise


class LockoutAuthenticationForm(LockoutMessageMixin, AuthenticationForm):
    pass


class AdminLockoutAuthenticationForm(LockoutMessageMixin, AdminAuthenticationForm):
    pass
