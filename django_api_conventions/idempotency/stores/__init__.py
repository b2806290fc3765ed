"""Idempotency stores, chosen by ``API_CONVENTIONS["IDEMPOTENCY_STORE"]``."""

from __future__ import annotations

from functools import lru_cache

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from ...conf import api_settings
from .base import Claim, ClaimOutcome, IdempotencyStore, RecordSummary, StoredResponse

_SHORT_NAMES = {
    "database": "django_api_conventions.idempotency.stores.database.DatabaseStore",
    "redis": "django_api_conventions.idempotency.stores.redis.RedisStore",
}


def load_store_class() -> type[IdempotencyStore]:
    return _store_class(api_settings.IDEMPOTENCY_STORE)


# Asked on every keyed request: a dotted path names the same class for the life of the process,
# so the import is done once per value of the setting (a changed setting is a new cache key).
@lru_cache(maxsize=8)
def _store_class(path: str) -> type[IdempotencyStore]:
    store_class = import_string(_SHORT_NAMES.get(path, path))
    if not (isinstance(store_class, type) and issubclass(store_class, IdempotencyStore)):
        raise ImproperlyConfigured(f"{path!r} is not an IdempotencyStore subclass.")
    return store_class


def get_store() -> IdempotencyStore:
    """The configured store (a light object: build one per request)."""
    return load_store_class()()


__all__ = [
    "Claim",
    "ClaimOutcome",
    "IdempotencyStore",
    "RecordSummary",
    "StoredResponse",
    "get_store",
]
