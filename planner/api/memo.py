"""A small per-process memo for catalog rows the API reads on every call (planner/api/services.py explains why:
the query costs more than the engine). Each value is kept `ttl_s` seconds; a save or delete of the row's model in
this process clears it at once, other processes read the row again within the TTL."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class TtlMemo(Generic[V]):
    def __init__(self, ttl_s: float) -> None:
        self.ttl_s = ttl_s
        self._values: dict[Hashable, tuple[float, V]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The remembered value of `key` while fresh, else `compute()` (remembered, None included)."""
        now = time.monotonic()
        with self._lock:
            hit = self._values.get(key)
        if hit is not None and now - hit[0] < self.ttl_s:
            return hit[1]
        value = compute()
        with self._lock:
            self._values[key] = (now, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
