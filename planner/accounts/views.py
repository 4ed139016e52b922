"""Account views, each thin: sign-in (with the lockout message, 429 while locked out), the account page (API
token rotation, e-mail for password resets) and Django's password change and reset views on our templates."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.authtoken.models import Token

from planner import ratelimit
from planner.accounts import lockout, services
from planner.accounts.forms import LockoutAuthenticationForm


class LoginView(auth_views.LoginView):
    authentication_form = LockoutAuthenticationForm

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        wait_s = lockout.locked_wait(self.request)
        if wait_s:
            response.status_code = 429
            response["Retry-After"] = str(wait_s)
        return response


@method_decorator(ratelimit.limited("password_reset", "password-reset e-mails"), name="dispatch")
class PasswordResetView(auth_views.PasswordResetView):
    """Always answers "sent if the address is known" (Django's), at most a few e-mails per client per hour."""


class EmailForm(forms.Form):
    email = forms.EmailField(
        label="E-mail for password resets", required=False, help_text="Only used to send you a reset link."
    )


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    form = EmailForm(request.POST or None, initial={"email": request.user.email})
    if request.method == "POST" and form.is_valid():
        services.email_set(user=request.user, email=form.cleaned_data["email"])
        messages.success(request, "Saved your e-mail address.")
        return redirect("account")
    token = Token.objects.filter(user=request.user).first()
    return render(request, "registration/account.html", {"form": form, "token": token})


@login_required
@require_POST
def token_rotate(request: HttpRequest) -> HttpResponse:
    services.token_rotate(user=request.user)
    messages.success(request, "New API token made; the old one no longer works. Update your scripts.")
    return redirect("account")


@login_required
@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    services.token_revoke(user=request.user)
    messages.success(request, "API token deleted; nothing can use the API as you until you make a new one.")
    return redirect("account")
