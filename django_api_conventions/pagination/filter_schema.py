"""The OpenAPI parameters of a django-filter FilterSet, as strict as the values it takes.

Each parameter is typed by its form field, its ``enum`` from static choices, a repeatable one as
an array, comma-separated values as a string with a ``pattern``. A filter the package cannot type
is described as the OpenAPI generator would describe it, with a warning (``spectacular
--fail-on-warn`` fails on it); the rest of the document stays as strict.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.db.models import QuerySet
from django_filters.fields import BaseRangeField

from .filters import TimestampField
from .orderings import INTEGER_FIELD_TYPES
from .parameters import INTEGER, NUMBER, Parameter, field_of, is_model_choice, key_type, static_choices

logger = logging.getLogger(__name__)

_TEMPORAL = (
    (forms.DateTimeField, "date-time"),
    (forms.DateField, "date"),
    (forms.TimeField, "time"),
    (forms.UUIDField, "uuid"),
)


class _UntypedFilter(Exception):
    """The package cannot say which values a filter takes."""


def schema_parameters(
    filterset: Any,
    parameters: dict[str, Parameter],
    view: Any = None,
    describe_untyped: UntypedFilterDescriber | None = None,
) -> list[dict[str, Any]]:
    documented = []
    fallbacks: dict[str, dict[str, dict[str, Any]]] = {}
    for name, parameter in parameters.items():
        filter_ = filterset.filters[parameter.filter_name]
        try:
            schema = _parameter_schema(filterset, parameter)
        except Exception as exc:  # noqa: BLE001 -- one filter never takes the whole document down
            if parameter.filter_name not in fallbacks:
                fallbacks[parameter.filter_name] = _generator_parameters(
                    filterset, parameter.filter_name, view, exc, describe_untyped
                )
            documented.append(fallbacks[parameter.filter_name].get(name) or _untyped(name, filter_))
            continue
        entry: dict[str, Any] = {
            "name": name,
            "in": "query",
            "required": bool(filter_.extra.get("required")),
            "description": _description(filter_, parameter, name),
            "schema": schema,
        }
        if parameter.multiple:
            entry.update(style="form", explode=True)
        documented.append(entry)
    return documented


#: Describes, as an OpenAPI generator would on its own, a filter the package cannot type:
#: (filterset, filter name, view, the reason) -> the generator's parameters of that filter by name.
UntypedFilterDescriber = Callable[[Any, str, Any, str], dict[str, dict[str, Any]]]


def _generator_parameters(
    filterset: Any, filter_name: str, view: Any, exc: Exception, describe: UntypedFilterDescriber | None
) -> dict[str, dict[str, Any]]:
    reason = f"the strict filter backend cannot type this filter ({exc})"
    if describe is None:
        logger.warning("%s.%s: %s; described as a string.", type(filterset).__name__, filter_name, reason)
        return {}
    return describe(filterset, filter_name, view, reason)


def _untyped(name: str, filter_: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": bool(filter_.extra.get("required")), "schema": {"type": "string"}}


def body_properties(filterset: Any, parameters: dict[str, Parameter]) -> dict[str, Any]:
    """A search alternative's members: the query parameters' schemas, a repeatable one as a JSON array."""
    properties = {}
    for name, parameter in parameters.items():
        try:
            schema = _parameter_schema(filterset, parameter)
        except Exception:  # noqa: BLE001 -- schema_parameters() warned of it already
            schema = {"type": "string"}
        properties[name] = schema | ({"minItems": 1} if parameter.multiple else {})
    return properties


def _parameter_schema(filterset: Any, parameter: Parameter) -> dict[str, Any]:
    filter_ = filterset.filters[parameter.filter_name]
    field = field_of(filterset, parameter)
    one = _with_null_value(field, value_schema(field, filter_.model, filter_.field_name))
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
        key = key_type(field)
        if key is None:
            queryset = cast("QuerySet[Any]", field.queryset)  # key_type() has read its model
            raise _UntypedFilter(f"{queryset.model.__name__} has no field {field.to_field_name!r}")
        return {"type": "integer"} if key in INTEGER_FIELD_TYPES else {"type": "string", "minLength": 1}
    choices = list(dict.fromkeys(static_choices(field)))  # a ChoiceSet may repeat a value under two labels
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


def _with_null_value(field: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or django-filter's ``null_value`` (``null``) of a choice that has a ``null_label``."""
    if getattr(field, "null_label", None) is None:
        return schema
    null = str(field.null_value)
    if "enum" in schema:
        # django-filter's ChoiceField lists the null choice among its own choices already; an
        # enum that names it twice is no valid schema (JSON Schema: the values are unique).
        return {**schema, "enum": list(dict.fromkeys([*schema["enum"], null]))}
    return {"anyOf": [schema, {"type": "string", "enum": [null]}]}


def _csv_schema(field: forms.Field, one: dict[str, Any]) -> dict[str, Any]:
    if "enum" in one and not isinstance(field, BaseRangeField):
        return _choices_schema(one["enum"])
    item = {"integer": INTEGER.pattern, "number": NUMBER.pattern}.get(one.get("type", ""))
    item = item.replace("{1,4000}", "+") if item else None
    if isinstance(field, BaseRangeField):
        schema: dict[str, Any] = {
            "type": "string",
            "description": "Two comma-separated values: the lower and the upper bound, both included.",
        }
        if item:
            schema["pattern"] = f"^{item},{item}$"
        return schema
    schema = {"type": "string", "description": "Comma-separated values."}
    if item:
        schema["pattern"] = f"^{item}(,{item})*$"
    return schema


def _choices_schema(choices: list[str]) -> dict[str, Any]:
    """One or more of ``choices``, comma-separated, as one string."""
    choice = "|".join(re.escape(value) for value in choices)
    return {
        "type": "string",
        "pattern": f"^({choice})(,({choice}))*$",
        "description": f"One or more of {', '.join(choices)}, comma-separated.",
    }


def _description(filter_: Any, parameter: Parameter, name: str) -> str:
    help_text = filter_.extra.get("help_text")
    if help_text:
        return str(help_text)
    declared = type(filter_.parent).base_filters.get(parameter.filter_name)
    if declared is not None and declared._label is not None:  # a label given, not django-filter's guess
        return str(declared._label)
    if parameter.index is not None:
        suffix = name[len(parameter.filter_name) :].lstrip("_") or parameter.filter_name
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
