"""Write side of accounts: API token rotation (sign-up is planner.services.user_signup)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token


def token_rotate(*, user: AbstractBaseUser) -> Token:
    """Replace the user's API token with a new random one; the old one stops working at once."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def token_revoke(*, user: AbstractBaseUser) -> None:
    """Delete the user's API token (`POST /api/token/` makes a new one)."""
    Token.objects.filter(user=user).delete()


def email_set(*, user: AbstractBaseUser, email: str) -> None:
    """The address password-reset links go to ("" for none)."""
    get_user_model().objects.filter(pk=user.pk).update(email=email)
    user.email = email
