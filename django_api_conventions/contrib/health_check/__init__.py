"""A django-health-check (4.x) check of the idempotency store: ``IdempotencyStoreCheck``.

Needs django-health-check 4.0 or later (the ``health`` extra); only this package imports it.
See docs/observability.md.
"""

from .backends import IdempotencyStoreCheck

__all__ = ["IdempotencyStoreCheck"]
