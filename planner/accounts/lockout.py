"""Sign-in throttling, the same for the sign-in page, the admin's and `POST /api/token/` (all three call
`django.contrib.auth.authenticate`, which runs planner.accounts.backends.LockoutModelBackend).

Policy (rates in settings.RATE_LIMITS, env RATE_LIMIT_LOGIN_PAIR etc.; counters in Django's cache through
planner.ratelimit, windows of 15 minutes):

* one username from one client address: 5 failed sign-ins, then that pair is refused until the window ends;
* one username from any address: 20 failures (guessing spread over many addresses);
* one client address over any usernames: 30 failures (one password tried on many accounts).

While a counter is at its limit every sign-in it covers is refused without checking the password, the right
password included, and the answer is the same whether or not the account exists (counters are kept for any
username typed, and the message never mentions the account). A successful sign-in clears the counters of
that username (not the address's). The client address is planner.accounts.client.client_address, which
trusts `X-Forwarded-For` only as far as settings.NUM_PROXIES says.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from planner import ratelimit
from planner.accounts.client import client_address

#: Counter scopes (planner.ratelimit.DEFAULT_RATES holds their rates).
PAIR, ACCOUNT, ADDRESS = "login_pair", "login_account", "login_address"
#: Attribute set on the HttpRequest when a sign-in was refused for a lockout (seconds left).
REQUEST_FLAG = "login_locked_for_s"


def _account(username: Any) -> str:
    """A short, cache-safe key for any typed username (case and surrounding spaces ignored)."""
    text = str(username or "").strip().casefold()
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _identities(request: Any, username: Any) -> dict[str, str]:
    account, address = _account(username), client_address(request)
    return {PAIR: f"{account}@{address}", ACCOUNT: account, ADDRESS: address}


def locked_for_s(request: Any, username: Any) -> int:
    """Seconds until a sign-in of `username` from this request's address is allowed again (0: allowed now)."""
    waits = [
        verdict.retry_after_s
        for scope, identity in _identities(request, username).items()
        if not (verdict := ratelimit.count(scope, identity)).allowed
    ]
    return max(waits, default=0)


def record_failure(request: Any, username: Any) -> None:
    for scope, identity in _identities(request, username).items():
        ratelimit.hit(scope, identity)


def record_success(request: Any, username: Any) -> None:
    identities = _identities(request, username)
    for scope in (PAIR, ACCOUNT):
        ratelimit.reset(scope, identities[scope])


def mark_locked(request: Any, wait_s: int) -> None:
    if request is not None:
        setattr(getattr(request, "_request", request), REQUEST_FLAG, wait_s)


def locked_wait(request: Any) -> int:
    """The lockout a sign-in of this request was refused for (0 when it was not refused for one)."""
    return int(getattr(getattr(request, "_request", request), REQUEST_FLAG, 0) or 0)


def message(wait_s: int) -> str:
    """What a refused sign-in is told: the same words whether or not the account exists."""
    minutes = max(1, math.ceil(wait_s / 60))
    return (
        "Too many failed sign-in attempts. Sign-in is paused for this username or from your network for "
        f"about {minutes} minute{'s' if minutes != 1 else ''}. If you forgot your password, reset it."
    )
