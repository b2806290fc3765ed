"""The query parameters of a django-filter FilterSet, and the spellings the strict backend refuses.

A filter reads its own name, unless its widget says otherwise: a ``SuffixedMultiWidget`` (a
range's ``_after``/``_before``, ``_min``/``_max``) one parameter per suffix; a widget that reads
a list takes it repeated; a CSV widget comma-separated values (an ``in`` filter also repeated).
Django's form fields forgive white space, other scripts' digits, ``5.0`` as 5 or ``maybe`` as
"no filter"; the strict backend refuses each of those with a 400 before the form sees them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard, cast
from weakref import WeakKeyDictionary

from django import forms
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext
from django_filters.filters import BaseInFilter
from django_filters.widgets import BaseCSVWidget, QueryArrayWidget, SuffixedMultiWidget

from .filters import TimestampField, parse_timestamp
from .orderings import INTEGER_FIELD_TYPES

INTEGER = re.compile(r"[+-]?[0-9]{1,4000}")
NUMBER = re.compile(r"[+-]?[0-9]{1,4000}(?:\.[0-9]{1,4000})?")
#: The spellings of a boolean whose meaning is plain: taken when the filter's widget reads them
#: so; what a widget reads otherwise (``NullBooleanSelect``'s ``2``/``3``) is refused.
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}


@dataclass(frozen=True)
class Parameter:
    """One query parameter of a FilterSet."""

    name: str
    #: The filter that reads it (the FilterSet's attribute or generated name).
    filter_name: str
    #: Its position among the parameters of a multi-value field (a range's ``_after`` is 0).
    index: int | None
    #: It may be sent more than once: its widget reads a list (``MultipleChoiceFilter``).
    multiple: bool
    #: It takes comma-separated values (``BaseInFilter``, ``BaseRangeFilter``).
    csv: bool
    #: Its repeated values are joined by commas before the form reads them (``BaseInFilter``).
    joins: bool = False

    @property
    def repeatable(self) -> bool:
        """It may be sent more than once: the form reads every value, or their comma-joined list."""
        return self.multiple or self.joins


#: Per FilterSet class: the names of its filters and their parameters (an instance may change them).
_PARAMETERS: WeakKeyDictionary[type, tuple[tuple[str, ...], dict[str, Parameter]]] = WeakKeyDictionary()


def parameters_of(filterset: Any) -> dict[str, Parameter]:
    """The parameters of a FilterSet instance, by name (shared between requests: not to be changed)."""
    names = tuple(filterset.filters)
    known = _PARAMETERS.get(type(filterset))
    if known is not None and known[0] == names:
        return known[1]
    found = _read_parameters(filterset)
    _PARAMETERS[type(filterset)] = (names, found)
    return found


def _read_parameters(filterset: Any) -> dict[str, Parameter]:
    found: dict[str, Parameter] = {}
    for filter_name, filter_ in filterset.filters.items():
        widget = filter_.field.widget
        if isinstance(widget, SuffixedMultiWidget):
            names = [widget.suffixed(filter_name, suffix) for suffix in widget.suffixes]
        elif isinstance(widget, forms.MultiWidget):
            names = [filter_name + suffix for suffix in widget.widgets_names]  # type: ignore[attr-defined]  # set by MultiWidget.__init__; the stubs omit it
        else:
            csv = isinstance(widget, BaseCSVWidget)
            found[filter_name] = Parameter(
                filter_name,
                filter_name,
                None,
                _reads_list(widget),
                csv,
                joins=csv and isinstance(filter_, BaseInFilter),
            )
            continue
        for index, name in enumerate(names):
            found[name] = Parameter(name, filter_name, index, False, False)
    return found


def _reads_list(widget: forms.Widget) -> bool:
    """The widget reads every value of its parameter (``QueryDict.getlist``), not the last one."""
    return bool(getattr(widget, "allow_multiple_selected", False)) or isinstance(widget, QueryArrayWidget)


def field_of(filterset: Any, parameter: Parameter) -> forms.Field:
    """The form field that cleans one value of ``parameter`` (a sub-field for a range)."""
    field = filterset.filters[parameter.filter_name].field
    if parameter.index is not None:
        return field.fields[parameter.index]  # type: ignore[no-any-return]  # django-filter has no types
    return field  # type: ignore[no-any-return]  # django-filter has no types


def value_problem(raw: str, field: forms.Field, *, csv: bool) -> str | None:
    """Why the strict backend refuses ``raw`` (a predicate after the parameter's name), or ``None``."""
    if "\x00" in raw:  # PostgreSQL text cannot hold NUL: refuse it before the database does
        return gettext("must not contain a NUL character")
    if isinstance(field, TimestampField) and not csv:
        return _timestamp_problem(raw)
    if raw == "":  # django-filter would skip the filter: a list the client did not ask for
        return gettext("must not be empty")
    items = raw.split(",") if csv else [raw]
    if csv and "" in items:
        return gettext("must be comma-separated values, none of them empty")
    for item in items:
        reason = _item_problem(item, field)
        if reason is not None:
            return reason
    return None


def _timestamp_problem(raw: str) -> str | None:
    try:
        parse_timestamp(raw)
    except ValidationError as error:
        return " ".join(error.messages)
    return None


def _item_problem(item: str, field: forms.Field) -> str | None:
    if _is_null_value(item, field):
        return None  # django-filter's "no value" of a choice: the field takes it as it is
    if isinstance(field, forms.CharField) and not field.strip:
        return None  # text taken as it is written
    if item != item.strip():
        return gettext("must not start or end with white space")
    if isinstance(field, forms.BooleanField):  # NullBooleanField too
        return _boolean_problem(item, field.widget)
    if isinstance(field, (forms.DecimalField, forms.FloatField)):
        return None if NUMBER.fullmatch(item) else gettext("must be a number in ASCII digits")
    if isinstance(field, forms.IntegerField) or (is_model_choice(field) and key_type(field) in INTEGER_FIELD_TYPES):
        return None if INTEGER.fullmatch(item) else gettext("must be an integer in ASCII digits")
    typed = (
        forms.DateField,
        forms.DateTimeField,
        forms.TimeField,
        forms.DurationField,
        forms.UUIDField,
        TimestampField,
    )
    if isinstance(field, typed) and not item.isascii():
        return gettext("must be written in ASCII characters")
    return None


def _boolean_problem(item: str, widget: forms.Widget) -> str | None:
    """``None`` when the widget reads ``item`` as the boolean it plainly means (django-filter would
    skip a filter whose widget reads no boolean)."""
    meaning = _BOOLEANS.get(item.lower())
    if meaning is not None and _reads_as(widget, item) is meaning:
        return None
    taken = [spelling for spelling, meaning in _BOOLEANS.items() if _reads_as(widget, spelling) is meaning]
    if not taken:  # a widget of the project's own, with spellings of its own
        return gettext("is no boolean this filter reads")
    return gettext("must be one of: {choices}").format(choices=", ".join(taken))


def _reads_as(widget: forms.Widget, item: str) -> Any:
    return widget.value_from_datadict({"value": item}, MultiValueDict(), "value")


def is_model_choice(field: forms.Field) -> TypeGuard[forms.ModelChoiceField[Any]]:
    return isinstance(field, (forms.ModelChoiceField, forms.ModelMultipleChoiceField))


def _is_null_value(item: str, field: Any) -> bool:
    """``item`` is the ``null_value`` of a choice field that offers it (one with a ``null_label``)."""
    return getattr(field, "null_label", None) is not None and item == getattr(field, "null_value", None)


def key_type(field: Any) -> str | None:
    """The internal type of the model field a ModelChoiceField looks its values up by; ``None``
    when ``to_field_name`` is no field of the model (the form alone validates its values)."""
    meta = field.queryset.model._meta
    try:
        key = meta.get_field(field.to_field_name) if field.to_field_name else meta.pk
    except FieldDoesNotExist:
        return None
    return key.get_internal_type()  # type: ignore[no-any-return]  # field is Any


def static_choices(field: Any) -> list[str]:
    """The choices of a ChoiceField that lists them (not a model's rows), the empty one left out."""
    if not isinstance(field, forms.ChoiceField) or is_model_choice(field):
        return []
    # ChoiceField normalizes its choices to (value, label) pairs (groups are only in widgets).
    choices = cast("Iterable[tuple[Any, Any]]", field.choices)
    return [str(value) for value, _label in choices if value not in ("", None)]
