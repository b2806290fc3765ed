"""Checks of the idempotency store: it loads, its Redis can be reached that way, keys outlive their lease."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from ..checks.messages import message
from ..checks.settings import settings_are_valid
from ..conf import api_settings
from .stores import load_store_class


def check_idempotency_store(**kwargs: Any) -> list[checks.CheckMessage]:
    """The configured store can be loaded and has what it needs."""
    if not settings_are_valid():
        return []  # the settings themselves are wrong: that is reported on its own
    errors = []
    try:
        store = load_store_class()
    except (ImportError, ImproperlyConfigured) as exc:
        return [message("E009", value=api_settings.IDEMPOTENCY_STORE, error=exc)]
    if getattr(store, "needs_redis", False):
        errors.extend(_check_redis_client())
    if api_settings.IDEMPOTENCY_RETENTION_SECONDS < api_settings.IDEMPOTENCY_LEASE_SECONDS:
        errors.append(message("W008"))
    return errors


def _check_redis_client() -> list[checks.CheckMessage]:
    """The URL parses, or the cache alias is a Redis cache whose connection the store can use.

    Nothing connects: an unreachable Redis shows at the first keyed request (a 503).
    """
    # The store loaded, so redis-py is installed: the adapter can be imported.
    from ..contrib.redis import cache_backend, parse_redis_url, redacted

    url = api_settings.IDEMPOTENCY_REDIS_URL
    if url is not None:
        try:
            parse_redis_url(url)
        except ValueError as exc:
            return [message("E014", value=redacted(url), error=exc)]
        return []
    try:
        cache_backend(api_settings.IDEMPOTENCY_CACHE)
    except ValueError as exc:
        return [message("E011", value=api_settings.IDEMPOTENCY_CACHE, error=exc)]
    return []
