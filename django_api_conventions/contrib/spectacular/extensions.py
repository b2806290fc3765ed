"""drf-spectacular extensions for the package's serializer fields; importing registers them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema

from ...versioning.fields import RenamedField


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
