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
    # A full server, a replica after a failover, a restarted server loading its data; an ACL
    # user without the store's commands or keys.
    OutOfMemoryError,
    ReadOnlyError,
    BusyLoadingError,
    NoPermissionError,
    # A Cluster without a reachable seed node, down, or moving a slot (ASK: to the replica
    # wait's pipeline, sent to one node); the store sends only one-key commands.
    RedisClusterException,
    ClusterError,
    TryAgainError,
    AskError,
    OSError,
]
_no_script: list[type[BaseException]] = [NoScriptError]
_response_errors: list[type[BaseException]] = [ResponseError]


class CommandsRefused(Exception):
    """The server answered the store's commands with an error reply: its role or configuration
    (a Sentinel's or proxy's port, scripting renamed away, writes refused) keeps it from serving
    the store. Its cause is the server's error reply."""


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
    _unavailable += [
        getattr(valkey_errors, name)
        for name in (
            "ConnectionError",
            "TimeoutError",
            "OutOfMemoryError",
            "ReadOnlyError",
            "BusyLoadingError",
            "NoPermissionError",
            "ValkeyClusterException",
            "ClusterError",
            "TryAgainError",
        )
    ]
    _no_script.append(valkey_errors.NoScriptError)
    _response_errors.append(valkey_errors.ResponseError)

_unavailable.append(CommandsRefused)

#: What the Redis store answers 503 ``idempotency-store-unavailable`` for.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = tuple(_unavailable)
#: ``EVALSHA`` of a script the server does not hold (yet): the store sends its source instead.
NO_SCRIPT_ERRORS: tuple[type[BaseException], ...] = tuple(_no_script)
_RESPONSE_ERRORS: tuple[type[BaseException], ...] = tuple(_response_errors)


@contextmanager
def refusals_as_unavailable(logger: logging.Logger) -> Iterator[None]:
    """An error reply to the store's commands becomes :class:`CommandsRefused` (a 503 and a
    failing health check), logged at ERROR with the reply.

    The store's scripts and arguments are fixed and tested, so an error reply is the server's
    refusal. redis-py raises most replies as a plain ``ResponseError``, with only the text to
    tell them apart, which Redis may reword: the reply is never parsed.
    """
    try:
        yield
    except _RESPONSE_ERRORS as exc:
        if isinstance(exc, UNAVAILABLE_ERRORS):
            raise
        logger.error(
            "The idempotency store's Redis cannot run its commands (%s: %s); is it a primary? "
            "Name a Sentinel set-up as redis+sentinel://host:port[,host:port...]/service_name",
            type(exc).__name__,
            exc,
        )
        raise CommandsRefused(f"{type(exc).__name__} from the server") from exc
