"""Redis for the Redis idempotency store: its connection and the errors that mean Redis is unavailable.

Needs the ``redis`` extra (django-redis and redis-py); only this module imports them.
"""

try:
    from django_redis import get_redis_connection
    from django_redis.exceptions import ConnectionInterrupted
    from redis.exceptions import BusyLoadingError, NoScriptError, OutOfMemoryError, ReadOnlyError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
except ImportError as exc:  # pragma: no cover - the redis extra is not installed
    raise ImportError("The Redis idempotency store needs: pip install 'django-api-conventions[redis]'") from exc

__all__ = [
    "BusyLoadingError",
    "ConnectionInterrupted",
    "NoScriptError",
    "OutOfMemoryError",
    "ReadOnlyError",
    "RedisConnectionError",
    "RedisTimeoutError",
    "get_redis_connection",
]
