"""The example service's configuration from environment variables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

REPOSITORY = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE = REPOSITORY / "var" / "testproject.sqlite3"


# Several gunicorn workers write to one SQLite file: a transaction takes the write lock when it
# begins (a deferred one that upgrades later fails at once with "database is locked"), waits for
# it up to SQLITE_LOCK_TIMEOUT seconds (20), and WAL lets readers go on meanwhile.
SQLITE_OPTIONS = {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"}


def sqlite_options() -> dict[str, Any]:
    return {**SQLITE_OPTIONS, "timeout": float(os.environ.get("SQLITE_LOCK_TIMEOUT") or SQLITE_OPTIONS["timeout"])}


def database_from_url(url: str | None) -> dict[str, Any]:
    """``sqlite:///path`` or ``postgres://user:password@host:port/name`` as a DATABASES entry."""
    if not url:
        DEFAULT_SQLITE.parent.mkdir(exist_ok=True)
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DEFAULT_SQLITE), "OPTIONS": sqlite_options()}
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": unquote(parts.path[1:]) or ":memory:",
            "OPTIONS": sqlite_options(),
        }
    if parts.scheme in ("postgres", "postgresql"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")),
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
        }
    raise ValueError(f"DATABASE_URL scheme {parts.scheme!r} is not supported: use sqlite:// or postgres://.")


def cache_from_url(url: str | None) -> dict[str, Any]:
    """``REDIS_URL`` as the default CACHES entry, in the forms of the package's Redis URLs.

    ``redis://`` and ``rediss://``: django-redis. ``redis+sentinel://``: django-redis' Sentinel
    client. ``redis+cluster://``: neither django-redis nor Django's own Redis cache speaks
    Cluster, so the cache stays local to each process (the idempotency store gets the cluster
    through :func:`idempotency_redis_url`). Unset: local memory.
    """
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    target = redis_target(url)
    if target.kind == "standalone":
        return {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": url}
    if target.kind == "cluster":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    return sentinel_cache(url, target)


def sentinel_cache(url: str, target: Any) -> dict[str, Any]:
    # django-redis reads the service name where a URL has its host, lower-cased.
    if target.service_name != target.service_name.lower():
        raise ValueError(
            f"REDIS_URL {redacted_url(url)!r}: django-redis lower-cases the Sentinel service name "
            f"{target.service_name!r}; name the service in lower case"
        )
    credentials = ""
    if target.password:
        credentials = f"{quote(target.username or '', safe='')}:{quote(target.password, safe='')}@"
    options: dict[str, Any] = {
        "CLIENT_CLASS": "django_redis.client.SentinelClient",
        "CONNECTION_FACTORY": "django_redis.pool.SentinelConnectionFactory",
        "SENTINELS": list(target.hosts),
        "SENTINEL_KWARGS": {"ssl": target.tls, **target.options},
    }
    if target.tls:  # redis-py's Sentinel pool takes TLS as a flag, not from a rediss:// location
        options["CONNECTION_POOL_KWARGS"] = {"ssl": True}
    for name in ("socket_timeout", "socket_connect_timeout"):
        if name in target.options:
            options[name.upper()] = target.options[name]
    return {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": f"redis://{credentials}{target.service_name}/{target.db}",
        "OPTIONS": options,
    }


def idempotency_redis_url(url: str | None) -> str | None:
    """The URL the Redis idempotency store connects to itself: a Cluster's, which no cache serves."""
    return url if url and redis_target(url).kind == "cluster" else None


def shared_cache(url: str | None) -> bool:
    """Whether the default cache is shared by every worker (Redis), so the maintenance switch can live there."""
    return bool(url) and redis_target(url).kind != "cluster"


def redis_target(url: str) -> Any:
    """``REDIS_URL`` parsed by the package; a form it cannot use stops the start-up with the reason."""
    from django_api_conventions.redis import InvalidRedisURL, parse_redis_url

    try:
        return parse_redis_url(url)
    except InvalidRedisURL as exc:
        raise ValueError(f"REDIS_URL {redacted_url(url)!r} cannot be used: {exc}") from None


def redacted_url(url: str) -> str:
    from django_api_conventions.redis import redacted

    return redacted(url)


def flag(name: str, default: bool = False) -> bool:
    return os.environ.get(name, "1" if default else "0").strip().lower() in ("1", "true", "yes", "on")


def integer(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


def comma_separated(name: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


def with_brownouts(versions: list[dict[str, Any]], value: str | None) -> list[dict[str, Any]]:
    """``versions`` with the windows of ``BROWNOUTS`` (``v1=2026-12-08T10:00:00Z/PT15M;v1=...``)
    as their ``brownouts``; the windows themselves are checked at start-up (E020)."""
    windows: dict[str, list[str]] = {}
    for item in filter(None, (part.strip() for part in (value or "").split(";"))):
        name, equals, window = item.partition("=")
        if not equals or not window.strip():
            raise ValueError(
                f"BROWNOUTS item {item!r} is not version=start/duration, e.g. v1=2026-12-08T10:00:00Z/PT15M"
            )
        windows.setdefault(name.strip(), []).append(window.strip())
    names = [version["name"] for version in versions]
    unknown = sorted(set(windows) - set(names))
    if unknown:
        raise ValueError(
            f"BROWNOUTS names unknown version(s) {', '.join(unknown)}; the versions are {', '.join(names)}"
        )
    return [
        {**version, "brownouts": windows[version["name"]]} if version["name"] in windows else version
        for version in versions
    ]
