"""Admin pages of soft-delete models: live rows by default, deleted ones on demand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


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
