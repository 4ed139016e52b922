"""Security headers Django does not set itself: Content-Security-Policy and Permissions-Policy (and
Cross-Origin-Opener-Policy where SecurityMiddleware has not already set it); `Cache-Control: private, no-store`
on everything a signed-in user (session or API token) or a share link is shown, and on every download, so
neither a shared proxy nor the browser's disk keeps a copy.

The policy allows only this site's own scripts: no inline scripts, no `eval` (Plotly draws SVG charts without
it) and no CDN. Styles allow 'unsafe-inline' because Plotly positions chart elements with inline style
attributes. Images and fonts may be data: or blob: URLs (Plotly's "download as PNG" builds one).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable, Iterable
from html import unescape

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

#: Content-Security-Policy, one directive per entry (https://www.w3.org/TR/CSP3/).
CSP_DIRECTIVES: dict[str, str] = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data: blob:",
    "font-src": "'self' data:",
    "connect-src": "'self'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
    "base-uri": "'self'",
    "object-src": "'none'",
}
CONTENT_SECURITY_POLICY = "; ".join(f"{name} {value}" for name, value in CSP_DIRECTIVES.items())
#: An inline event handler attribute (`onchange="..."`) in a template's markup.
_INLINE_HANDLER = re.compile(r"""\son[a-z]+\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def inline_handler_hashes(markup: str) -> list[str]:
    """The CSP source expression ('sha256-...') of every inline event handler in `markup`, in order."""
    sources = [unescape(a or b) for a, b in _INLINE_HANDLER.findall(markup)]
    return [f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in sources]


def content_security_policy(*, handler_hashes: Iterable[str] = ()) -> str:
    """The site's policy; a page whose third-party template has inline event handlers (the admin's CSV export)
    allows exactly those by hash ('unsafe-hashes' with their sha256, CSP3 §6.7.3.3), never inline script."""
    hashes = list(dict.fromkeys(handler_hashes))
    if not hashes:
        return CONTENT_SECURITY_POLICY
    directives = {
        **CSP_DIRECTIVES,
        "script-src": " ".join([CSP_DIRECTIVES["script-src"], "'unsafe-hashes'", *hashes]),
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


#: Browser features no page of this site uses (https://www.w3.org/TR/permissions-policy/).
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
        "interest-cohort",
    )
)
CROSS_ORIGIN_OPENER_POLICY = "same-origin"


class SecurityHeadersMiddleware:
    """Adds the headers above to every response that does not set its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        response.headers.setdefault("Cross-Origin-Opener-Policy", CROSS_ORIGIN_OPENER_POLICY)
        return response


def mark_private(response: HttpResponse) -> HttpResponse:
    """No shared or disk cache may keep this answer."""
    patch_cache_control(response, private=True, no_store=True)
    return response


class PrivateCacheMiddleware:
    """`Cache-Control: private, no-store` on private answers: a signed-in user's (the API's token users too:
    DRF records the user on the request) and any download (`Content-Disposition: attachment`). Share-link
    pages mark themselves (planner.views.share_view)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if (user is not None and user.is_authenticated) or response.get("Content-Disposition", "").startswith(
            "attachment"
        ):
            mark_private(response)
        return response
