"""`POST /api/token/`: exchange a username and password for the user's API token."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.parsers import FormParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from planner.accounts import lockout
from planner.api import schemas
from planner.api.errors import api_exception_handler
from planner.api.parsers import BoundedJSONParser
from planner.api.throttles import ScopedUserThrottle

#: Password guesses allowed per client address (settings key "token" overrides it): enough for scripts that
#: fetch a token at start-up, few enough to make guessing a password over the API pointless.
TOKEN_RATE_DEFAULT = "20/min"

TOKEN_SCHEMA = {
    "type": "object",
    "properties": {"token": {"type": "string", "description": "Send as `Authorization: Token <token>`."}},
    "required": ["token"],
}
CREDENTIALS_SCHEMA = {
    "type": "object",
    "properties": {"username": {"type": "string"}, "password": {"type": "string", "format": "password"}},
    "required": ["username", "password"],
}


class TokenThrottle(ScopedUserThrottle):
    scope = "token"

    def get_rate(self) -> str | None:
        return super().get_rate() or TOKEN_RATE_DEFAULT


class TokenView(ObtainAuthToken):
    authentication_classes: list = []
    permission_classes: list = []
    throttle_classes = [TokenThrottle]
    parser_classes = [BoundedJSONParser, FormParser]
    renderer_classes = [JSONRenderer]

    def get_exception_handler(self):  # type: ignore[no-untyped-def]
        return api_exception_handler

    @extend_schema(
        operation_id="token_obtain",
        summary="Get your API token",
        description="Exchange a username and password for the account's token (the same token on every call "
        "until you replace it on your account page). Send it on every other request as "
        "`Authorization: Token <token>`. Failed sign-ins lock the username (and the client address) out for "
        "a while, with 429 and Retry-After, exactly as the sign-in page does.",
        request={"application/json": CREDENTIALS_SCHEMA},
        responses={
            200: OpenApiResponse(TOKEN_SCHEMA, description="The account's token."),
            **schemas.error_responses(400, 405, 413, 415, 429),
        },
        examples=[
            OpenApiExample("Credentials", value={"username": "alice", "password": "..."}, request_only=True),
        ],
        auth=[],
        tags=["auth"],
    )
    def post(self, request: Request, *args: object, **kwargs: object) -> Response:
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            wait_s = lockout.locked_wait(request)
            if wait_s:  # the sign-in lockout (planner.accounts.lockout), worded as on the sign-in page
                raise Throttled(wait=wait_s, detail=lockout.message(wait_s)) from None
            raise
