"""Security headers Django does not set itself: Content-Security-Policy and Permissions-Policy (and
Cross-Origin-Opener-Policy where SecurityMiddleware has not already set it).

The policy allows only this site's own scripts: no inline scripts, no `eval` (Plotly draws SVG charts without
it) and no CDN. Styles allow 'unsafe-inline' because Plotly positions chart elements with inline style
attributes. Images and fonts may be data: or blob: URLs (Plotly's "download as PNG" builds one).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

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
