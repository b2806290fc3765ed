"""The Redis client of the Redis idempotency store: from a Django cache alias, or from a URL.

A cache alias lends its connection pool, whichever of these backends it uses (subclasses too):

- django-redis, ``django_redis.cache.RedisCache``, with its default, Sentinel or Herd client
  (``get_redis_connection(alias)``); not its ``ShardClient``, which has no one connection;
- Django's own ``django.core.cache.backends.redis.RedisCache`` (its first server, where it
  writes);
- django-valkey, ``django_valkey.cache.ValkeyCache`` or ``...cluster_cache.cache.ClusterValkeyCache``
  (``get_valkey_connection(alias)``).

A URL (:mod:`.urls`) builds a client of redis-py's own, one per URL and process: ``Redis``,
the primary of a Sentinel set-up (``Sentinel.master_for()``), or ``RedisCluster``, which neither
django-redis nor Django's cache offers.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import redis
from django.conf import settings
from django.core.cache import caches
from django.utils.module_loading import import_string
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry
from redis.sentinel import Sentinel

from .connection_urls import RedisURL, parse_redis_url

DJANGO_REDIS = "django_redis.cache.RedisCache"
DJANGO_CACHE = "django.core.cache.backends.redis.RedisCache"
DJANGO_VALKEY = "django_valkey.cache.ValkeyCache"
DJANGO_VALKEY_CLUSTER = "django_valkey.cluster_cache.cache.ClusterValkeyCache"
#: The cache backends whose connection the store can use.
SUPPORTED_CACHE_BACKENDS = (DJANGO_REDIS, DJANGO_CACHE, DJANGO_VALKEY, DJANGO_VALKEY_CLUSTER)
_SHARD_CLIENT = "django_redis.client.sharded.ShardClient"


def _class_paths(cls: type) -> set[str]:
    return {f"{klass.__module__}.{klass.__qualname__}" for klass in cls.__mro__}


def cache_backend(alias: str) -> str:
    """Which of :data:`SUPPORTED_CACHE_BACKENDS` the cache ``alias`` is (or extends).

    :class:`ValueError` says why it is none of them. Reads the settings only: nothing connects.
    """
    config = settings.CACHES.get(alias)
    if config is None:
        raise ValueError(f"{alias!r} is not an alias of CACHES")
    client_class = config.get("OPTIONS", {}).get("CLIENT_CLASS", "django_redis.client.DefaultClient")
    return _backend_of(config.get("BACKEND", ""), client_class)


# The Redis store asks on every request: the answer depends only on the two dotted paths (and on
# the classes they name, which do not change while a process runs), so it is kept per pair.
# A refusal is a ValueError, which lru_cache does not keep: it is raised again each time.
@lru_cache(maxsize=16)
def _backend_of(backend: str, client_class: str) -> str:
    try:
        paths = _class_paths(import_string(backend))
    except ImportError as exc:
        raise ValueError(f"its BACKEND {backend!r} cannot be imported ({exc})") from None
    found = [name for name in SUPPORTED_CACHE_BACKENDS if name in paths]
    if not found:
        raise ValueError(f"its BACKEND {backend!r} is not a Redis cache the store can use")
    if found[0] == DJANGO_REDIS:
        try:
            sharded = _SHARD_CLIENT in _class_paths(import_string(client_class))
        except ImportError as exc:
            raise ValueError(f"its CLIENT_CLASS {client_class!r} cannot be imported ({exc})") from None
        if sharded:
            raise ValueError("django-redis' ShardClient spreads keys over several servers: it has no one connection")
    return found[0]


def redis_client_for_cache(alias: str) -> Any:
    """The raw client of the cache ``alias``, connected to the server that takes writes."""
    backend = cache_backend(alias)
    if backend == DJANGO_REDIS:
        from django_redis import get_redis_connection

        return get_redis_connection(alias, write=True)
    if backend == DJANGO_CACHE:
        # Django keeps its client private; get_client(write=True) is the one its own writes use.
        return caches[alias]._cache.get_client(None, write=True)  # type: ignore[attr-defined]  # RedisCache's
    from django_valkey import get_valkey_connection

    return get_valkey_connection(alias, write=True)


_url_clients: dict[str, Any] = {}
_lock = threading.Lock()


def redis_client_from_url(url: str) -> Any:
    """The client of ``url`` (see :mod:`.urls`), built on first use and kept for the process.

    A Cluster client asks its seed nodes for the cluster's layout when it is built, so an
    unreachable cluster raises here (``RedisClusterException``), at the first request.
    """
    client = _url_clients.get(url)
    if client is None:
        with _lock:
            client = _url_clients.get(url)
            if client is None:
                client = _url_clients[url] = build_client(parse_redis_url(url))
    return client


def client_for_key(client: Any, key: str) -> Any:
    """The client of the one server that holds ``key``: ``client`` itself, or for a Cluster the
    client of the key's primary, where a pipeline's commands all go to that one server."""
    if isinstance(client, RedisCluster):
        return client.get_redis_connection(client.get_node_from_key(key))
    return client


def build_client(target: RedisURL) -> Any:
    """A new redis-py client for ``target``."""
    common: dict[str, Any] = {
        "username": target.username,
        "password": target.password,
        "ssl": target.tls,
        **target.options,
    }
    if target.kind == "cluster":
        # Its own retries follow the cluster's moving slots and failovers: kept.
        return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in target.hosts], **common)
    # No retry inside the client: a script sent again after a timeout may run twice (a claim
    # would then find itself in flight). A failed call is a 503 that the client retries, with
    # its key; and an unreachable server answers at once instead of after seconds of back-off.
    once: dict[str, Any] = {"retry": Retry(NoBackoff(), 0)}
    if target.kind == "standalone":
        ((host, port),) = target.hosts
        return redis.Redis(host=host, port=port, db=target.db, **common, **once)
    # The sentinels get the transport options, not the servers' credentials.
    sentinels = Sentinel(
        list(target.hosts),
        sentinel_kwargs={"ssl": target.tls, **target.options, **once},
        db=target.db,
        **common,
        **once,
    )
    assert target.service_name is not None  # a Sentinel URL names it: parse_redis_url refuses one without
    return sentinels.master_for(target.service_name)
