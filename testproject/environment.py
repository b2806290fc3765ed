"""The example service's configuration from environment variables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

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
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": unquote(parts.path[1:]) or ":memory:",
                "OPTIONS": sqlite_options()}
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
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    return {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": url}


def flag(name: str, default: bool = False) -> bool:
    return os.environ.get(name, "1" if default else "0").strip().lower() in ("1", "true", "yes", "on")


def integer(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)
