"""Soft delete: rows marked ``deleted_at`` vanish from lists and details but stay in the table."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import models
from django.utils import timezone


class SoftDeleteQuerySet(models.QuerySet[Any]):
    def delete(self) -> tuple[int, dict[str, int]]:
        """Mark every row deleted (one UPDATE); rows already deleted keep their first date."""
        count = self.filter(deleted_at__isnull=True).update(deleted_at=timezone.now())
        return count, {self.model._meta.label: count}

    def hard_delete(self) -> tuple[int, dict[str, int]]:
        return super().delete()

    def live(self) -> SoftDeleteQuerySet:
        return self.filter(deleted_at__isnull=True)

    def deleted(self) -> SoftDeleteQuerySet:
        return self.filter(deleted_at__isnull=False)


_including_deleted: ContextVar[bool] = ContextVar("api_conventions_including_deleted", default=False)


@contextmanager
def including_deleted() -> Iterator[None]:
    """Inside this block, ``objects`` of soft-delete models also yields deleted rows."""
    token = _including_deleted.set(True)
    try:
        yield
    finally:
        _including_deleted.reset(token)


class LiveManager(models.Manager.from_queryset(SoftDeleteQuerySet)):  # type: ignore[misc]  # a class built at run time
    """The default manager: deleted rows never appear (except inside :func:`including_deleted`)."""

    def get_queryset(self) -> SoftDeleteQuerySet:
        queryset: SoftDeleteQuerySet = super().get_queryset()
        return queryset if _including_deleted.get() else queryset.filter(deleted_at__isnull=True)


class SoftDeleteModel(models.Model):
    """Abstract model: ``objects`` sees live rows, ``all_objects`` every row."""

    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = LiveManager()
    all_objects = models.Manager.from_queryset(SoftDeleteQuerySet)()

    class Meta:
        abstract = True
        base_manager_name = "all_objects"

    def delete(self, using: Any = None, keep_parents: bool = False) -> tuple[int, dict[str, int]]:
        if self.deleted_at is not None:
            return 0, {self._meta.label: 0}
        self.deleted_at = timezone.now()
        self.save(update_fields=["deleted_at"], using=using)
        return 1, {self._meta.label: 1}

    def hard_delete(self, using: Any = None) -> tuple[int, dict[str, int]]:
        return super().delete(using=using)
