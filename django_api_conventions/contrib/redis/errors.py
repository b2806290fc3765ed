"""The exceptions that mean "Redis is unavailable", whichever client raised them.

redis-py is always there (the clients are redis-py's or built on it); django-redis and
valkey-py (django-valkey's client, a fork of redis-py with its own exception classes) only
when installed.
"""

from __future__ import annotations

from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

_unavailable: list[type[BaseException]] = [
    # ConnectionError covers Sentinel's MasterNotFoundError and a refused password too.
    RedisConnectionError, RedisTimeoutError,
    # Transient states of a server: full under maxmemory noeviction, a replica after a
    # failover, a restarted server loading its data.
    OutOfMemoryError, ReadOnlyError, BusyLoadingError,
    # A Cluster: no reachable seed node (raised when the client is built), the cluster down
    # or a slot moving. The store only sends one-key commands, so no other cluster error is
    # expected of it.
    RedisClusterException, ClusterError, TryAgainError,
    # MOVED/ASK reach the store only from a pipeline sent to one node of a Cluster (the
    # replica wait): the slot moved, a retry finds it.
    AskError,
    OSError,
]
_no_script: list[type[BaseException]] = [NoScriptError]

try:
    from django_redis.exceptions import ConnectionInterrupted
except ImportError:  # pragma: no cover - django-redis is optional
    pass
else:
    _unavailable.append(ConnectionInterrupted)

try:
    from valkey import exceptions as valkey_errors
except ImportError:  # valkey-py comes with django-valkey only
    pass
else:  # pragma: no cover - exercised where django-valkey is installed
    _unavailable.extend([
        valkey_errors.ConnectionError, valkey_errors.TimeoutError, valkey_errors.OutOfMemoryError,
        valkey_errors.ReadOnlyError, valkey_errors.BusyLoadingError, valkey_errors.ValkeyClusterException,
        valkey_errors.ClusterError, valkey_errors.TryAgainError,
    ])
    _no_script.append(valkey_errors.NoScriptError)

#: What the Redis store answers 503 ``idempotency-store-unavailable`` for.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = tuple(_unavailable)
#: ``EVALSHA`` of a script the server does not hold (yet): the store sends its source instead.
NO_SCRIPT_ERRORS: tuple[type[BaseException], ...] = tuple(_no_script)
