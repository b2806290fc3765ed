"""Read-only admin pages: operators see records, nobody edits them by hand."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from .conf import api_settings
from .models import IdempotencyRecord, RuntimeSwitch


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not subscriptable at run time
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ["scope", "key", "state", "response_status", "created_at", "expires_at"]
    list_filter = ["state"]
    search_fields = ["scope", "key"]
    exclude = ["response_body", "lease_owner"]
    date_hierarchy = "created_at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[IdempotencyRecord]:
        # The store's database, whatever the routers say: a replica behind it shows operators
        # keys as they were, not as they are.
        return super().get_queryset(request).using(api_settings.IDEMPOTENCY_DATABASE)


@admin.register(RuntimeSwitch)
class RuntimeSwitchAdmin(ReadOnlyAdmin):
    list_display = ["name", "enabled", "retry_after", "updated_at"]
