"""The Redis client of the Redis idempotency store: from a Django cache alias, or from a URL.

django-redis (not its ``ShardClient``) and django-valkey lend their connection; with Django's
own ``RedisCache``, whose client is private, the store opens a pool to its first server. A URL
builds a redis-py ``Redis``, a Sentinel set-up's primary or a ``RedisCluster``, once per process.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import redis
from django.conf import settings
from django.utils.module_loading import import_string
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry
from redis.sentinel import Sentinel

from .connection_urls import RedisURL, parse_redis_url

DJANGO_REDIS = "django_redis.cache.RedisCache"
DJANGO_CACHE = "django.core.cache.backends.redis.RedisCache"
_DJANGO_VALKEY = "django_valkey.cache.ValkeyCache"
_DJANGO_VALKEY_CLUSTER = "django_valkey.cluster_cache.cache.ClusterValkeyCache"
#: The cache backends whose connection the store can use.
SUPPORTED_CACHE_BACKENDS = (DJANGO_REDIS, DJANGO_CACHE, _DJANGO_VALKEY, _DJANGO_VALKEY_CLUSTER)
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


# Asked on every request, and the classes two dotted paths name do not change (a refusal is not kept).
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
        return _django_cache_client(alias)
    from django_valkey import get_valkey_connection

    return get_valkey_connection(alias, write=True)


_clients: dict[tuple[str, ...], Any] = {}
_lock = threading.Lock()


def _kept(key: tuple[str, ...], build: Callable[[], Any]) -> Any:
    """The client under ``key``, built on first use and kept for the process."""
    client = _clients.get(key)
    if client is None:
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = build()
    return client


def _django_cache_client(alias: str) -> Any:
    """A client of Django's ``RedisCache``'s first server, where it writes, built with its
    ``OPTIONS`` as Django builds its own (private) pool."""
    config = settings.CACHES[alias]
    location = config.get("LOCATION", "")
    server = re.split("[;,]", location)[0] if isinstance(location, str) else location[0]
    options = {
        name: value
        for name, value in config.get("OPTIONS", {}).items()
        if name not in ("serializer", "pool_class", "parser_class")
    }
    return _kept(
        ("cache", alias, server, repr(sorted(options.items()))), lambda: redis.Redis.from_url(server, **options)
    )


def redis_client_from_url(url: str) -> Any:
    """The client of ``url``, built on first use and kept for the process (an unreachable Cluster
    raises ``RedisClusterException`` here: its client asks its seed nodes when it is built)."""
    return _kept(("url", url), lambda: build_client(parse_redis_url(url)))


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
