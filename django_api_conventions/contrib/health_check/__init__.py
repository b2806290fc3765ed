"""A django-health-check (4.x, the ``health`` extra) check of the idempotency store."""

from .backends import IdempotencyStoreCheck

__all__ = ["IdempotencyStoreCheck"]
