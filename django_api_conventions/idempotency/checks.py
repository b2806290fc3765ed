"""Checks of the idempotency store: it loads, its cache is Redis, keys outlive their lease."""

from __future__ import annotations

from typing import Any

from django.conf import settings
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
    if getattr(store, "needs_redis_cache", False):
        alias = api_settings.IDEMPOTENCY_CACHE
        if settings.CACHES.get(alias, {}).get("BACKEND") != "django_redis.cache.RedisCache":
            errors.append(message("E011", value=alias))
    if api_settings.IDEMPOTENCY_RETENTION_SECONDS < api_settings.IDEMPOTENCY_LEASE_SECONDS:
        errors.append(message("W008"))
    return errors
