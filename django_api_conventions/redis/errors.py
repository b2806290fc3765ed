"""The exceptions that mean "Redis is unavailable", whichever client raised them.

redis-py is always there (the clients are redis-py's or built on it); django-redis and
valkey-py (django-valkey's client, a fork of redis-py with its own exception classes) only
when installed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterError,
    NoPermissionError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

_unavailable: list[type[BaseException]] = [
    # ConnectionError covers Sentinel's MasterNotFoundError and a refused password too.
    RedisConnectionError,
    RedisTimeoutError,
    # Transient states of a server: full under maxmemory noeviction, a replica after a
    # failover, a restarted server loading its data.
    OutOfMemoryError,
    ReadOnlyError,
    BusyLoadingError,
    # An ACL user without the store's commands or keys: configuration, like a refused password.
    NoPermissionError,
    # A Cluster: no reachable seed node (raised when the client is built), the cluster down
    # or a slot moving. The store only sends one-key commands, so no other cluster error is
    # expected of it.
    RedisClusterException,
    ClusterError,
    TryAgainError,
    # MOVED/ASK reach the store only from a pipeline sent to one node of a Cluster (the
    # replica wait): the slot moved, a retry finds it.
    AskError,
    OSError,
]
_no_script: list[type[BaseException]] = [NoScriptError]
_response_errors: list[type[BaseException]] = [ResponseError]


class CommandsRefused(Exception):
    """The server answered, but cannot run the store's commands (its role or configuration):
    a Sentinel's or proxy's port, scripting renamed away, an ACL without the store's commands,
    a server refusing writes (MISCONF, NOREPLICAS) or busy with a script. Its cause is the
    server's error reply."""


#: Error replies whose reason lies with the server, not with the command sent. Redis keeps
#: the code of a command failing inside a script (``NOREPLICAS ... script: ...``), while a
#: mistake in the script itself starts otherwise ("user_script:1: ...", "Wrong number of
#: args calling Redis command from script", "Unknown Redis command called from script").
_REFUSED_PREFIXES = (
    "unknown command",  # the command itself is unknown here: a Sentinel, a proxy, a renamed command
    "MISCONF",
    "NOREPLICAS",
    "BUSY ",
    "DB index is out of range",
    "SELECT is not allowed in cluster mode",  # the URL's db on connecting
)

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
    _unavailable.extend(
        [
            valkey_errors.ConnectionError,
            valkey_errors.TimeoutError,
            valkey_errors.OutOfMemoryError,
            valkey_errors.ReadOnlyError,
            valkey_errors.BusyLoadingError,
            valkey_errors.ValkeyClusterException,
            valkey_errors.ClusterError,
            valkey_errors.TryAgainError,
        ]
    )
    _no_script.append(valkey_errors.NoScriptError)
    _response_errors.append(valkey_errors.ResponseError)
    _unavailable.append(valkey_errors.NoPermissionError)

_unavailable.append(CommandsRefused)

#: What the Redis store answers 503 ``idempotency-store-unavailable`` for.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = tuple(_unavailable)
#: ``EVALSHA`` of a script the server does not hold (yet): the store sends its source instead.
NO_SCRIPT_ERRORS: tuple[type[BaseException], ...] = tuple(_no_script)
_RESPONSE_ERRORS: tuple[type[BaseException], ...] = tuple(_response_errors)


@contextmanager
def refusals_as_unavailable(logger: logging.Logger) -> Iterator[None]:
    """An error reply of the server's making becomes :class:`CommandsRefused` (a 503 and a
    failing health check); any other error reply, a fault in what the store sent, passes
    unchanged (a 500). Both are logged at ERROR, with the reply."""
    try:
        yield
    except _RESPONSE_ERRORS as exc:
        if isinstance(exc, UNAVAILABLE_ERRORS):
            raise
        # The reply alone: not the command a pipeline's error names first, nor the arguments
        # Redis echoes after an unknown command (no key or token in the logs).
        reply = str(exc).split(" of pipeline caused error: ", 1)[-1].split(", with args", 1)[0]
        if not reply.startswith(_REFUSED_PREFIXES):
            logger.error("Redis rejected a command of the idempotency store, not an outage: %s", reply)
            raise
        hint = (
            "; a Sentinel's or a proxy's port? Name a Sentinel set-up as "
            "redis+sentinel://host:port[,host:port...]/service_name"
            if reply.startswith("unknown command")
            else ""
        )
        logger.error("The idempotency store's Redis cannot run its commands (%s)%s", reply, hint)
        raise CommandsRefused(reply) from exc
