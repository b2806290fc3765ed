"""The variants of the Redis store the tests run on: one per kind of client it supports."""

from __future__ import annotations

from typing import Any

#: The cache alias the cache variants add to CACHES.
REDIS_CACHE = "idempotency"
#: Variant -> the CACHES entry it uses (LOCATION added: REDIS_URL), or None for a client of the
#: store's own, from IDEMPOTENCY_REDIS_URL.
REDIS_STORE_VARIANTS: dict[str, dict[str, Any] | None] = {
    "redis": {"BACKEND": "django_redis.cache.RedisCache"},
    "redis-django-cache": {"BACKEND": "django.core.cache.backends.redis.RedisCache"},
    "redis-url": None,
}
