"""The strict filter backend's parameters in drf-spectacular's document; importing registers it.

A filter the backend cannot type is described as drf-spectacular describes it, after a warning
(``spectacular --fail-on-warn`` fails on it).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.drainage import warn
from drf_spectacular.extensions import OpenApiFilterExtension
from drf_spectacular.openapi import AutoSchema


class StrictFilterBackendExtension(OpenApiFilterExtension):
    target_class = "django_api_conventions.pagination.drf.StrictFilterBackend"
    match_subclasses = True

    def get_schema_operation_parameters(
        self, auto_schema: AutoSchema, *args: Any, **kwargs: Any
    ) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = self.target.get_schema_operation_parameters(
            auto_schema.view, describe_untyped=_describe_untyped_filter
        )
        return parameters


def _describe_untyped_filter(filterset: Any, filter_name: str, view: Any, reason: str) -> dict[str, dict[str, Any]]:
    from drf_spectacular.contrib.django_filters import DjangoFilterExtension  # a FilterSet: django-filter is there

    where = f"{type(filterset).__name__}.{filter_name}"
    warn(f"{where}: {reason}; described as drf-spectacular describes it.")
    filter_ = type(filterset).base_filters.get(filter_name) or filterset.filters[filter_name]
    try:
        found = DjangoFilterExtension(None).resolve_filter_field(
            getattr(view, "schema", None),
            filterset.queryset.model,
            type(filterset),
            filter_name,
            filter_,
        )
    except Exception as exc:  # noqa: BLE001 -- drf-spectacular could not either: the filter is a string
        warn(f"{where}: drf-spectacular cannot describe it either ({exc}).")
        return {}
    return {parameter["name"]: parameter for parameter in found}
