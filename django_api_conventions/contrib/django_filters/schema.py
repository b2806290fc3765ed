"""The OpenAPI parameters of a django-filter FilterSet, as strict as the values it takes.

Plain OpenAPI dicts (``StrictFilterBackend.get_schema_operation_parameters()`` returns them, as
for the package's own filters; drf-spectacular reads them): each parameter typed by its form
field (``integer``, ``number``, ``boolean``, ``date``, ``date-time`` ...; a ``ModelChoiceFilter``
by the type of the key it looks up), its ``enum`` from static choices, a repeatable parameter
as an array (``style: form``, ``explode: true``), comma-separated values as the package's
``lookup="in"`` filters spell them (a string with a ``pattern``), and one parameter per
sub-parameter of a range (``created_after``, ``created_before``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import FieldDoesNotExist
from django_filters.fields import BaseRangeField

from ...pagination.drf import filter_value_schema
from ...pagination.filters import Filter
from .filters import TimestampField
from .parameters import (
    INTEGER,
    INTEGER_FIELD_TYPES,
    NUMBER,
    Parameter,
    field_of,
    is_model_choice,
    key_type,
    static_choices,
)

_TEMPORAL = ((forms.DateTimeField, "date-time"), (forms.DateField, "date"), (forms.TimeField, "time"),
             (forms.UUIDField, "uuid"))


def schema_parameters(filterset: Any, parameters: dict[str, Parameter]) -> list[dict[str, Any]]:
    documented = []
    for name, parameter in parameters.items():
        filter_ = filterset.filters[parameter.filter_name]
        entry: dict[str, Any] = {
            "name": name, "in": "query", "required": bool(filter_.extra.get("required")),
            "description": _description(filter_, parameter, name), "schema": parameter_schema(filterset, parameter),
        }
        if parameter.multiple:
            entry.update(style="form", explode=True)
        documented.append(entry)
    return documented


def body_properties(filterset: Any, parameters: dict[str, Parameter]) -> dict[str, Any]:
    """A search alternative's members: the query parameters' schemas, a repeatable one as a JSON array."""
    return {name: parameter_schema(filterset, parameter) | ({"minItems": 1} if parameter.multiple else {})
            for name, parameter in parameters.items()}


def parameter_schema(filterset: Any, parameter: Parameter) -> dict[str, Any]:
    filter_ = filterset.filters[parameter.filter_name]
    field = field_of(filterset, parameter)
    one = value_schema(field, filter_.model, filter_.field_name)
    if parameter.multiple:
        return {"type": "array", "items": one}
    if parameter.csv:
        return _csv_schema(field, one)
    return one


def value_schema(field: forms.Field, model: Any, field_name: str | None) -> dict[str, Any]:
    """The schema of one value the form field takes."""
    if isinstance(field, TimestampField):
        return {"type": "string", "format": "date-time"}
    if isinstance(field, forms.BooleanField):
        return {"type": "boolean"}
    if is_model_choice(field):
        return {"type": "integer"} if key_type(field) in INTEGER_FIELD_TYPES else {"type": "string", "minLength": 1}
    choices = static_choices(field)
    if choices:
        return {"type": "string", "enum": choices}
    if isinstance(field, (forms.DecimalField, forms.FloatField)):
        # NumberFilter's DecimalField on an integer column: the column says integer.
        integer = _model_field_type(model, field_name) in INTEGER_FIELD_TYPES
        return {"type": "integer"} if integer else {"type": "number"}
    if isinstance(field, forms.IntegerField):
        return {"type": "integer"}
    for field_class, format_ in _TEMPORAL:
        if isinstance(field, field_class):
            return {"type": "string", "format": format_}
    return {"type": "string", "minLength": 1}


def _csv_schema(field: forms.Field, one: dict[str, Any]) -> dict[str, Any]:
    if "enum" in one and not isinstance(field, BaseRangeField):
        return filter_value_schema(Filter("", lookup="in", choices=one["enum"]))
    item = {"integer": INTEGER.pattern, "number": NUMBER.pattern}.get(one.get("type", ""))
    item = item.replace("{1,4000}", "+") if item else None
    if isinstance(field, BaseRangeField):
        schema: dict[str, Any] = {"type": "string", "description": "Two comma-separated values: the lower and the "
                                                                   "upper bound, both included."}
        if item:
            schema["pattern"] = f"^{item},{item}$"
        return schema
    schema = {"type": "string", "description": "Comma-separated values."}
    if item:
        schema["pattern"] = f"^{item}(,{item})*$"
    return schema


def _description(filter_: Any, parameter: Parameter, name: str) -> str:
    help_text = filter_.extra.get("help_text")
    if help_text:
        return str(help_text)
    declared = type(filter_.parent).base_filters.get(parameter.filter_name)
    if declared is not None and declared._label is not None:  # a label given, not django-filter's guess
        return str(declared._label)
    if parameter.index is not None:
        suffix = name[len(parameter.filter_name):].lstrip("_") or parameter.filter_name
        return f"{filter_.field_name} ({suffix})"
    lookup = filter_.lookup_expr
    return f"{filter_.field_name} ({'not ' if filter_.exclude else ''}{lookup})"


def _model_field_type(model: Any, path: str | None) -> str | None:
    if model is None or not path:
        return None
    field = None
    for part in path.split("__"):
        try:
            field = model._meta.get_field(part)
        except (FieldDoesNotExist, AttributeError):
            return None
        model = field.related_model
    return field.get_internal_type() if field is not None else None

