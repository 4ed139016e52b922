"""Per-user rate limits for the expensive endpoints, answered with 429 and a whole-second Retry-After.

Rates come from settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] (env RATE_LIMIT_ESTIMATE / RATE_LIMIT_SWEEP),
read on every request rather than once at import so that a settings override applies. When the cache that
holds the counters (Redis in production) is down, the limit is skipped with a warning: a broker or cache
outage must not take the calculator down with it.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, UserRateThrottle

from planner import ratelimit

logger = logging.getLogger(__name__)


class ScopedUserThrottle(UserRateThrottle):
    """A per-user (per-IP when anonymous) limit named by `scope`."""

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError) as exc:
            logger.warning("rate limit %r skipped: throttle cache unavailable (%s)", self.scope, exc)
            return True

    def wait(self) -> float | None:
        """Seconds until a request is allowed again, rounded up so that `Retry-After` is never 0."""
        seconds = super().wait()
        return None if seconds is None else float(max(1, math.ceil(seconds)))


class EstimateThrottle(ScopedUserThrottle):
    scope = "estimate"


class SweepThrottle(ScopedUserThrottle):
    scope = "sweep"


class FairUseThrottle(BaseThrottle):
    """One of planner.ratelimit's per-user limits ("create", "evaluate", ...), shared with the pages: a user's
    creates through the page and through the API draw on one budget."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self.retry_after_s = 1

    def allow_request(self, request: Any, view: Any) -> bool:
        verdict = ratelimit.hit(self.scope, ratelimit.user_identity(request))
        self.retry_after_s = verdict.retry_after_s
        return verdict.allowed

    def wait(self) -> float:
        return float(self.retry_after_s)
