"""The client's address, read the same way by every limit (sign-in lockout, sign-up, the API's throttles).

Behind N trusted reverse proxies (settings.NUM_PROXIES, env NUM_PROXIES, default 0) the client is the address
the outermost trusted proxy saw: the N-th entry from the right of `X-Forwarded-For` (each proxy appends the
address it received the request from). Entries further left were written by the client and are ignored, so
a new made-up `X-Forwarded-For` per request no longer resets a limit. With NUM_PROXIES=0 the header is
ignored and the address is the connection's (REMOTE_ADDR). This is the rule of Django REST framework's
NUM_PROXIES, which settings.py sets to the same value so the API's throttles agree.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

UNKNOWN = "unknown"


def client_address(request: Any) -> str:
    """The client address of a Django or DRF request (or "unknown" for none, e.g. `Client.login`)."""
    request = getattr(request, "_request", request)  # a DRF Request wraps the HttpRequest
    meta = getattr(request, "META", None)
    if not meta:
        return UNKNOWN
    remote = str(meta.get("REMOTE_ADDR") or UNKNOWN)
    proxies = int(getattr(settings, "NUM_PROXIES", 0) or 0)
    forwarded = meta.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in str(forwarded).split(",") if hop.strip()]
    return hops[-min(proxies, len(hops))] if hops else remote
