"""Idempotent requests: each keyed request runs at most once; retries get its stored answer."""

from .decorators import idempotent
from .execution import IdempotencyOptions, KeyedRequest, LeaseExpired, run_idempotently
from .middleware import IdempotencyMiddleware
from .mixins import IdempotencyMixin
from .stores import IdempotencyStore, get_store

__all__ = [
    "IdempotencyMiddleware",
    "IdempotencyMixin",
    "IdempotencyOptions",
    "IdempotencyStore",
    "KeyedRequest",
    "LeaseExpired",
    "get_store",
    "idempotent",
    "run_idempotently",
]
