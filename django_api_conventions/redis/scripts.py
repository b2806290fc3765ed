"""Lua scripts run on a Redis server by their SHA-1."""

from __future__ import annotations

import hashlib
from typing import Any

from .errors import NO_SCRIPT_ERRORS


class RedisScript:
    """A Lua script run by its SHA-1 (``EVALSHA``), loaded on first use on each server."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324 -- Redis names scripts by SHA-1

    def __call__(self, keys: list[str], args: list[Any], *, client: Any) -> Any:
        try:
            return client.evalsha(self.sha, len(keys), *keys, *args)
        except NO_SCRIPT_ERRORS:
            return client.eval(self.source, len(keys), *keys, *args)
