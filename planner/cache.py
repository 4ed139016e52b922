"""A Redis cache that fails open: when Redis cannot be reached a read is a miss and a write is skipped, with a
warning, so a cache outage slows pages down instead of answering 500 (the results-section fragment cache, the
search-summary cache and the rate-limit counters all live in this cache).

Settings: CACHES["default"]["BACKEND"] = "planner.cache.FailOpenRedisCache" (with short socket timeouts in
OPTIONS so a dead Redis costs milliseconds, not the OS's connect timeout).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

#: What the cache may raise when Redis is down or unreachable.
CACHE_DOWN_ERRORS = (RedisError, OSError)


class FailOpenRedisCache(RedisCache):
    def _down(self, operation: str, exc: Exception) -> None:
        logger.warning("cache %s skipped: Redis unavailable (%s)", operation, exc)

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        try:
            return super().get(key, default, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("get", exc)
            return default

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        try:
            return super().get_many(keys, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("get_many", exc)
            return {}

    def has_key(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().has_key(key, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("has_key", exc)
            return False

    def set(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> None:
        try:
            super().set(key, value, timeout, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("set", exc)

    def add(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> bool:
        try:
            return super().add(key, value, timeout, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("add", exc)
            return False

    def set_many(self, data: dict[Any, Any], timeout: Any = 300, version: int | None = None) -> list[Any]:
        try:
            return super().set_many(data, timeout, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("set_many", exc)
            return list(data)

    def touch(self, key: Any, timeout: Any = 300, version: int | None = None) -> bool:
        try:
            return super().touch(key, timeout, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("touch", exc)
            return False

    def delete(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().delete(key, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("delete", exc)
            return False

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        try:
            super().delete_many(keys, version)
        except CACHE_DOWN_ERRORS as exc:
            self._down("delete_many", exc)
