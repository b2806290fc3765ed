"""Run a test once per idempotency store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches

REDIS_CACHE = "idempotency"


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.redis)])
def store_name(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    overrides: dict[str, Any] = {"IDEMPOTENCY_STORE": request.param}
    if request.param == "redis":
        settings.CACHES = {**settings.CACHES, REDIS_CACHE: {"BACKEND": "django_redis.cache.RedisCache",
                                                           "LOCATION": os.environ["REDIS_URL"]}}
        overrides["IDEMPOTENCY_CACHE"] = REDIS_CACHE
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, **overrides}
    yield str(request.param)
    if request.param == "redis":
        caches[REDIS_CACHE].clear()
