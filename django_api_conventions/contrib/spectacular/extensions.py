"""drf-spectacular extensions for the package's serializer fields; importing registers them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
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
    """An open enum: requests take the field's choices; responses may carry values added later.

    Responses list the values known today, the field's and its model field's choices;
    ``ProblemAutoSchema`` makes that enum extensible (:mod:`.enums`), as every response enum.
    """

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
