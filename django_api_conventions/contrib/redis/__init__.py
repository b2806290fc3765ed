"""Redis for the Redis idempotency store: its client, from a cache alias or a URL, and the
errors that mean Redis is unavailable.

Needs redis-py (the ``redis`` extra brings it, with django-redis); django-redis and
django-valkey are used when a cache alias names them. Only this package imports them.
"""

try:
    from .clients import (
        SUPPORTED_CACHE_BACKENDS,
        build_client,
        cache_backend,
        client_for_key,
        redis_client_for_cache,
        redis_client_from_url,
    )
    from .errors import NO_SCRIPT_ERRORS, UNAVAILABLE_ERRORS, CommandsRefused, refusals_as_unavailable
except ImportError as exc:  # pragma: no cover - redis-py is not installed
    raise ImportError("The Redis idempotency store needs: pip install 'django-api-conventions[redis]'") from exc
from .connection_urls import InvalidRedisURL, RedisURL, parse_redis_url, redacted

__all__ = [
    "NO_SCRIPT_ERRORS",
    "SUPPORTED_CACHE_BACKENDS",
    "UNAVAILABLE_ERRORS",
    "CommandsRefused",
    "InvalidRedisURL",
    "RedisURL",
    "build_client",
    "cache_backend",
    "client_for_key",
    "parse_redis_url",
    "redacted",
    "redis_client_for_cache",
    "redis_client_from_url",
    "refusals_as_unavailable",
]
