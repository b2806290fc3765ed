"""drf-spectacular extensions for the package's serializer fields and the strict filter backend;
importing registers them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.drainage import warn
from drf_spectacular.extensions import OpenApiFilterExtension, OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema

from ...versioning.fields import OpenEnumField, RenamedField


class RenamedFieldExtension(OpenApiSerializerFieldExtension):
    """A renamed field's old name: the new field's schema, read-only and deprecated."""

    target_class = RenamedField

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Any) -> dict[str, Any]:
        field = self.target
        schema = dict(auto_schema._map_serializer_field(field.parent.fields[field.new_name], direction))
        schema["deprecated"] = True
        schema["readOnly"] = True
        schema["description"] = f"Deprecated: the old name of `{field.new_name}`, until {field.sunset:%Y-%m-%d}."
        return schema


class OpenEnumFieldExtension(OpenApiSerializerFieldExtension):
    """An open enum: requests take the field's choices; responses list every value known today (the
    field's and its model field's), made extensible by ``ProblemAutoSchema``."""

    target_class = OpenEnumField

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Any) -> dict[str, Any]:
        field = self.target
        writable = [str(choice) for choice in field.choices]
        if direction == "request":
            return {"type": "string", "enum": writable}
        known = list(dict.fromkeys([*writable, *_model_choices(field)]))
        return {
            "type": "string",
            "enum": known,
            "description": f"Known values: {', '.join(known)}. Accept any other value: new ones may be added.",
        }


def _model_choices(field: Any) -> list[str]:
    model = getattr(getattr(field.parent, "Meta", None), "model", None)
    try:
        model_field = model._meta.get_field(field.source) if model is not None else None
    except LookupError:
        return []
    return [str(value) for value, _label in (getattr(model_field, "choices", None) or [])]


class StrictFilterBackendExtension(OpenApiFilterExtension):
    """A filter the backend cannot type is described as drf-spectacular describes it, after a
    warning (``spectacular --fail-on-warn`` fails on it)."""

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
            getattr(view, "schema", None), filterset.queryset.model, type(filterset), filter_name, filter_
        )
    except Exception as exc:  # noqa: BLE001 -- drf-spectacular could not either: the filter is a string
        warn(f"{where}: drf-spectacular cannot describe it either ({exc}).")
        return {}
    return {parameter["name"]: parameter for parameter in found}
