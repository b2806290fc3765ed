"""Redis for the Redis idempotency store: its client, from a cache alias or a URL, and the
errors that mean Redis is unavailable.

Needs redis-py (the ``redis`` extra brings it, with django-redis); django-redis and
django-valkey are used when a cache alias names them. Only this package imports them.
"""

try:
    # Beside the documented clients, the names the Redis store, its checks and the throttle import.
    from .clients import build_client as build_client
    from .clients import cache_backend as cache_backend
    from .clients import redis_client_for_cache, redis_client_from_url
    from .errors import UNAVAILABLE_ERRORS as UNAVAILABLE_ERRORS
    from .errors import CommandsRefused as CommandsRefused
    from .errors import refusals_as_unavailable as refusals_as_unavailable
    from .scripts import RedisScript as RedisScript
except ImportError as exc:  # pragma: no cover - redis-py is not installed
    raise ImportError("The Redis idempotency store needs: pip install 'django-api-conventions[redis]'") from exc
from .connection_urls import InvalidRedisURL, RedisURL, parse_redis_url, redacted

__all__ = [
    "InvalidRedisURL",
    "RedisURL",
    "parse_redis_url",
    "redacted",
    "redis_client_for_cache",
    "redis_client_from_url",
]
