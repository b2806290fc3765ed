"""Idempotent requests: each keyed request runs at most once; retries get its stored answer."""

from .decorators import idempotency_exempt, idempotent
from .leases import KeyedRequest, LeaseExpired
from .middleware import IdempotencyMiddleware
from .mixins import IdempotencyMixin
from .protocol import IdempotencyOptions, run_idempotently
from .stores import IdempotencyStore, get_store

__all__ = [
    "IdempotencyMiddleware",
    "IdempotencyMixin",
    "IdempotencyOptions",
    "IdempotencyStore",
    "KeyedRequest",
    "LeaseExpired",
    "get_store",
    "idempotency_exempt",
    "idempotent",
    "run_idempotently",
]
