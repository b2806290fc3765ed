"""drf-spectacular: problem responses of lists, deprecations, one schema per version.

Set ``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] =
"django_api_conventions.contrib.spectacular.ProblemAutoSchema"``; with ``LifecycleVersioning``,
``manage.py spectacular --api-version v1`` (or ``SchemaGenerator(api_version="v1")``) gives the
schema of one version. Every problem response and the idempotency headers are yet to come.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema

from ..pagination import KeysetPagination
from ..problems import PROBLEM_CONTENT_TYPE
from ..versioning.deprecation import endpoint_deprecations
from ..versioning.fields import RenamedField
from ..versioning.lifecycle import get_version_table

ERROR_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["detail", "code"],
    "properties": {
        "pointer": {"type": "string", "description": "JSON Pointer (RFC 6901) into the request body."},
        "parameter": {"type": "string", "description": "Name of the query parameter."},
        "header": {"type": "string", "description": "Name of the request header."},
        "detail": {"type": "string"},
        "code": {"type": "string"},
    },
}

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "status", "detail", "instance", "trace_id"],
    "properties": {
        "type": {"type": "string", "format": "uri", "description": "Documentation of the problem type."},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "instance": {"type": "string", "format": "uri"},
        "trace_id": {"type": "string", "description": "Quote it in support requests."},
        "errors": {"type": "array", "items": ERROR_ITEM_SCHEMA},
    },
    "additionalProperties": True,
}


def problem_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM_CONTENT_TYPE: {"schema": PROBLEM_SCHEMA}}}


DEPRECATION_HEADERS: dict[str, Any] = {
    "Deprecation": {
        "description": "RFC 9745: when this operation was deprecated, as `@<seconds since the epoch>`.",
        "schema": {"type": "string", "pattern": "^@-?[0-9]+$"},
    },
    "Sunset": {
        "description": "RFC 8594: from this HTTP-date on, the operation answers 410.",
        "schema": {"type": "string"},
    },
    "Link": {
        "description": 'The migration guide, with rel="deprecation" and rel="sunset".',
        "schema": {"type": "string"},
    },
}


class ProblemAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus the 400 problem of every keyset-paginated list, and
    the deprecation of a deprecated version or endpoint (flag and response headers)."""

    def is_deprecated(self) -> bool:
        return super().is_deprecated() or bool(self._deprecations())

    def _deprecations(self) -> list[Any]:
        found = [
            entry for entry in endpoint_deprecations(self.view) + endpoint_deprecations(type(self.view))
            if entry.applies_to(self.method)
        ]
        version = get_version_table().get(str(getattr(self.view.request, "version", None) or ""))
        if version is not None and version.is_deprecated(timezone.now()):
            found.append(version)
        return found

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if self.method == "GET" and self._is_list_view() and isinstance(self._get_paginator(), KeysetPagination):
            responses.setdefault("400", problem_response(
                "`invalid-parameters`: an unknown, repeated or invalid query parameter or `limit`; "
                "`invalid-cursor`: a cursor this list did not issue, or issued for other filters."
            ))
        if self._deprecations():
            for response in responses.values():
                response.setdefault("headers", {}).update(DEPRECATION_HEADERS)
        return responses


class RenamedFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[misc]
    """A renamed field's old name: the new field's schema, read-only and deprecated."""

    target_class = RenamedField

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Any) -> dict[str, Any]:
        field = self.target
        schema = dict(auto_schema._map_serializer_field(field.parent.fields[field.new_name], direction))
        schema["deprecated"] = True
        schema["readOnly"] = True
        schema["description"] = f"Deprecated: the old name of `{field.new_name}`, until {field.sunset:%Y-%m-%d}."
        return schema
