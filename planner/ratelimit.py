"""Fair-use limits: fixed-window counters in Django's cache, one home for every limit the pages and the API share.

A limit is a rate such as "120/min" for a scope ("preview", "create", "evaluate", "report", "resume", "signup",
and the sign-in counters of planner.accounts.lockout). Each (scope, identity) pair counts hits in windows of
the rate's length that start on a multiple of it (key `ratelimit:<scope>:<identity>:<window number>`), so one
check is an `add` and an `incr` and the counters expire by themselves. A request past the limit is told how
many whole seconds remain in the window (`Retry-After`).

Rates come from settings.RATE_LIMITS (env RATE_LIMIT_<SCOPE>, see .env.example) over DEFAULT_RATES, read on
every check so a settings override applies. When the cache is down the check is skipped with a warning: a
cache outage slows nothing down and locks nobody out (the same policy as the API's throttles).
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from planner.cache import CACHE_DOWN_ERRORS

logger = logging.getLogger(__name__)

#: Per user unless named otherwise. A preview is one engine evaluation (≤ ~100 ms, planner.forms' size bounds)
#: fired 250 ms after typing stops; create/evaluate run the engine and store a result; a report may queue a PDF
#: render; a resume re-queues a sweep's chunks; signups and password-reset e-mails count per client address.
DEFAULT_RATES: dict[str, str] = {
    "preview": "120/min",
    "create": "30/min",
    "evaluate": "30/min",
    "report": "20/min",
    "resume": "6/min",
    "signup": "5/hour",
    "password_reset": "5/hour",
    # Sign-in lockout (planner.accounts.lockout): failures of one username from one address, of one username
    # from anywhere, and from one address over any usernames.
    "login_pair": "5/15min",
    "login_account": "20/15min",
    "login_address": "30/15min",
}
UNITS_S = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
}
KEY_PREFIX = "ratelimit"


@dataclass(frozen=True)
class Rate:
    count: int
    window_s: int


@dataclass(frozen=True)
class Verdict:
    """One check: allowed or not, the hits counted in this window, and whole seconds until the next window."""

    allowed: bool
    hits: int
    retry_after_s: int


def parse_rate(text: str) -> Rate:
    """ "120/min" -> Rate(120, 60); "5/10min" -> Rate(5, 600). ValueError names the bad rate."""
    try:
        count_text, period = text.strip().split("/", 1)
        digits = "".join(ch for ch in period if ch.isdigit())
        unit = period[len(digits) :].strip().lower() or "s"
        window_s = int(digits or 1) * UNITS_S[unit]
        count = int(count_text)
    except (ValueError, KeyError) as exc:
        raise ValueError(f"rate {text!r} is not '<count>/<period>' such as '120/min'") from exc
    if count < 1 or window_s < 1:
        raise ValueError(f"rate {text!r} must allow at least one request per period")
    return Rate(count, window_s)


def rate_for(scope: str) -> Rate:
    configured = getattr(settings, "RATE_LIMITS", {}) or {}
    return parse_rate(configured.get(scope) or DEFAULT_RATES[scope])


def _key(scope: str, identity: str, window: int) -> str:
    return f"{KEY_PREFIX}:{scope}:{identity}:{window}"


def hit(scope: str, identity: str, rate: Rate | None = None) -> Verdict:
    """Count one request of `identity` under `scope` and say whether it is within the rate."""
    rate = rate or rate_for(scope)
    now = time.time()
    window = int(now // rate.window_s)
    retry_after_s = max(1, math.ceil((window + 1) * rate.window_s - now))
    key = _key(scope, identity, window)
    try:
        cache.add(key, 0, rate.window_s + 1)
        hits = int(cache.incr(key))
    except ValueError:  # the counter expired between add and incr (or the cache skipped the add): start again
        cache.set(key, 1, rate.window_s + 1)
        hits = 1
    except CACHE_DOWN_ERRORS as exc:
        logger.warning("rate limit %r skipped: cache unavailable (%s)", scope, exc)
        return Verdict(True, 0, retry_after_s)
    return Verdict(hits <= rate.count, hits, retry_after_s)


def count(scope: str, identity: str, rate: Rate | None = None) -> Verdict:
    """The hits counted so far in the current window, without counting one more."""
    rate = rate or rate_for(scope)
    now = time.time()
    window = int(now // rate.window_s)
    retry_after_s = max(1, math.ceil((window + 1) * rate.window_s - now))
    try:
        hits = int(cache.get(_key(scope, identity, window)) or 0)
    except CACHE_DOWN_ERRORS:  # the fail-open cache answers a miss; a plain one may raise
        hits = 0
    return Verdict(hits < rate.count, hits, retry_after_s)


def reset(scope: str, identity: str, rate: Rate | None = None) -> None:
    rate = rate or rate_for(scope)
    with contextlib.suppress(CACHE_DOWN_ERRORS):
        cache.delete(_key(scope, identity, int(time.time() // rate.window_s)))


def user_identity(request: object) -> str:
    """Who a per-user limit counts: the signed-in user's id, else the client address."""
    from planner.accounts.client import client_address

    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"addr:{client_address(request)}"


def too_many_message(what: str, retry_after_s: int) -> str:
    wait = f"{retry_after_s} s" if retry_after_s < 120 else f"{math.ceil(retry_after_s / 60)} min"
    return f"Too many {what} in a short time (fair-use limit); try again in {wait}."


def refused(request: Any, message: str, retry_after_s: int, *, as_json: bool = False) -> HttpResponse:
    """The 429 answer of a page (or of the live preview, as JSON) with a whole-second Retry-After."""
    if as_json:
        response: HttpResponse = JsonResponse(
            {
                "ok": False,
                "rate_limited": True,
                "errors": {"__all__": [message]},
                "retry_after_s": retry_after_s,
            },
            status=429,
        )
    else:
        response = render(request, "too_many_requests.html", {"message": message}, status=429)
    response["Retry-After"] = str(retry_after_s)
    return response


def limited(scope: str, what: str, *, as_json: bool = False, methods: tuple[str, ...] = ("POST",)) -> Any:
    """View decorator: count each `methods` request of the user under `scope`; past the rate, answer 429 with
    "Too many <what> …" instead of calling the view."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method in methods:
                verdict = hit(scope, user_identity(request))
                if not verdict.allowed:
                    message = too_many_message(what, verdict.retry_after_s)
                    return refused(request, message, verdict.retry_after_s, as_json=as_json)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
