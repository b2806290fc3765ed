"""Soft delete: rows marked ``deleted_at`` vanish from lists and details but stay in the table."""

from .admin import DeletedListFilter, SoftDeleteAdmin
from .models import LiveManager, SoftDeleteModel, SoftDeleteQuerySet, including_deleted
from .views import SoftDeleteDestroyMixin

__all__ = [
    "DeletedListFilter",
    "LiveManager",
    "SoftDeleteAdmin",
    "SoftDeleteDestroyMixin",
    "SoftDeleteModel",
    "SoftDeleteQuerySet",
    "including_deleted",
]
