"""Soft delete: rows marked ``deleted_at`` vanish from lists and details but stay in the table."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import status
from rest_framework.generics import GenericAPIView, get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response


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


class SoftDeleteDestroyMixin:
    """``DELETE`` soft-deletes and answers 204, also when repeated; an id the client cannot see is 404.

    The row is looked up through the view's own ``get_queryset()`` and filter backends, so a
    client can never delete, nor learn of, a row outside its scope. Repeats find the deleted
    row with :meth:`get_queryset_including_deleted`.
    """

    def get_queryset_including_deleted(self) -> Any:
        """The view's queryset with deleted rows. A ``get_queryset()`` that builds its queryset
        from ``Model.objects`` at call time (the usual way to scope rows) is followed as it is; a
        class-level ``queryset`` attribute was built at import time, so its model's
        ``all_objects`` stands in for it."""
        view: Any = self
        if type(view).get_queryset is GenericAPIView.get_queryset:
            return view.queryset.model.all_objects.all()
        with including_deleted():
            return view.get_queryset()

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        view: Any = self
        lookup = view.lookup_url_kwarg or view.lookup_field
        queryset = view.filter_queryset(self.get_queryset_including_deleted())
        instance = get_object_or_404(queryset, **{view.lookup_field: view.kwargs[lookup]})
        view.check_object_permissions(request, instance)
        instance.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeletedListFilter(admin.SimpleListFilter):
    title = _("deleted")
    parameter_name = "deleted"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", gettext("Deleted")), ("all", gettext("Live and deleted"))]

    def choices(self, changelist: Any) -> Iterator[Any]:  # Django's choices, one label changed
        for choice in super().choices(changelist):
            # Django's own entry, without the parameter: live rows only. Told apart by its query
            # string, not its label, which Django translates.
            if f"{self.parameter_name}=" not in choice["query_string"]:
                choice["display"] = gettext("Live")
            yield choice

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        if self.value() == "yes":
            return queryset.filter(deleted_at__isnull=False)
        if self.value() == "all":
            return queryset
        return queryset.filter(deleted_at__isnull=True)


class SoftDeleteAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not subscriptable at run time
    """Admin pages that can show deleted rows (filter "deleted")."""

    list_filter = [DeletedListFilter]
    readonly_fields = ["deleted_at"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return self.model.all_objects.all()
