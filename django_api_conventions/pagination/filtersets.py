"""A django-filter FilterSet as the strict parts apply it: every parameter declared and sent
once unless repeatable, each value refused before the form sees it when Django would forgive its
spelling (:func:`.value_problem`), the form's errors on the parameter they are about, the
FilterSet's own ``qs``, and the cleaned values the page's cursors are bound to.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from functools import cache, cached_property, reduce
from typing import Any, cast
from uuid import UUID

import django_filters
from django import forms
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db.models import Model, Q, QuerySet
from django.db.models.sql.datastructures import Join
from django.http import QueryDict
from django.utils.translation import gettext

from ..problems import ErrorItem, ProblemException
from ..problems.parameters import invalid_parameters, parameter_error, refuse_undeclared
from .extra_parameters import ExtraParameters
from .filter_schema import UntypedFilterDescriber, body_properties, schema_parameters
from .filters import PREDICATE_CODE
from .parameters import Parameter, field_of, parameters_of, static_choices, value_problem

#: A parameter name and the detail of what is wrong with its value.
Problem = tuple[str, str]


class StrictFilters:
    """One view's django-filter FilterSet class, as the strict parts of the package apply it."""

    def __init__(
        self,
        filterset_class: type[django_filters.FilterSet],
        *,
        view: Any = None,
        queryset: QuerySet[Any] | None = None,
    ) -> None:
        if not (isinstance(filterset_class, type) and issubclass(filterset_class, django_filters.FilterSet)):
            raise ImproperlyConfigured(
                f"{filterset_class!r} is no django-filter FilterSet: the strict filter backend applies "
                "a django_filters.FilterSet subclass (filterset_class) or a view's filterset_fields."
            )
        _refuse_ordering_filters(filterset_class)
        self.filterset_class = filterset_class
        self.view = view
        self._queryset = queryset

    @cached_property
    def unbound(self) -> Any:
        """The FilterSet without data: its filters' fields and widgets say the parameters."""
        return self.filterset_class(
            queryset=queryset_of(self.view, self._queryset), request=getattr(self.view, "request", None)
        )

    def parameters(self) -> dict[str, Parameter]:
        return parameters_of(self.unbound)

    def parameter_names(self) -> list[str]:
        return list(self.parameters())

    def repeatable_parameter_names(self) -> list[str]:
        """The parameters that may be sent more than once (a multiple choice, an ``in`` filter)."""
        return [name for name, parameter in self.parameters().items() if parameter.repeatable]

    def schema_parameters(self, describe_untyped: UntypedFilterDescriber | None = None) -> list[dict[str, Any]]:
        return schema_parameters(self.unbound, self.parameters(), self.view, describe_untyped)

    def body_properties(self) -> dict[str, Any]:
        return body_properties(self.unbound, self.parameters())

    def from_query(
        self,
        query: Mapping[str, Sequence[str]],
        *,
        allowed_extra: Iterable[str],
        extras: ExtraParameters | None = None,
        request: Any,
        queryset: QuerySet[Any],
        filterset_kwargs: Mapping[str, Any] | None = None,
    ) -> BoundFilters:
        """The request's one FilterSet, from ``filterset_kwargs``, its data the validated ``query``."""
        filterset = self._new_filterset(request, queryset, filterset_kwargs)
        parameters = parameters_of(filterset)
        # A repeatable parameter counts once for the "sent twice" rule.
        once = {
            name: list(values)[:1] if name in parameters and parameters[name].repeatable else values
            for name, values in query.items()
        }
        # A filter of the same name as a repeatable extra parameter keeps its own rule.
        repeatable = extras.repeatable.difference(parameters) if extras is not None and extras.repeatable else ()
        refuse_undeclared(
            once,
            [*parameters, *allowed_extra],
            repeatable=repeatable,
            declared_as=extras.declared_as if extras is not None else None,
        )
        values = {name: list(texts) for name, texts in query.items() if name in parameters}
        problems = self._validate(filterset, parameters, values)
        if problems:
            raise invalid_parameters([parameter_error(name, detail, "invalid") for name, detail in problems])
        return BoundFilters(filterset, {parameters[name].filter_name for name in values})

    def from_body(
        self, alternative: Mapping[str, Any], *, pointer: str, request: Any, queryset: QuerySet[Any]
    ) -> BoundFilters:
        """One object of a search's ``any``, validated; else a 422 pointing at ``<pointer>/<name>``."""
        parameters = self.parameters()
        values, errors = _body_values(alternative, parameters, pointer)
        filterset = self._new_filterset(request, queryset)
        problems = self._validate(filterset, parameters, values)
        errors.extend(
            {"pointer": f"{pointer}/{name}", "detail": detail, "code": "invalid"} for name, detail in problems
        )
        if errors:
            detail = gettext("The search body breaks the rules of the filters.")
            raise ProblemException("validation-error", detail, errors=errors)
        return BoundFilters(filterset, {parameters[name].filter_name for name in values})

    def _new_filterset(
        self, request: Any, queryset: QuerySet[Any], filterset_kwargs: Mapping[str, Any] | None = None
    ) -> Any:
        kwargs = {"queryset": queryset, "request": request, **(filterset_kwargs or {})}
        kwargs["data"] = QueryDict()  # bound (not None); FilterSet keeps {} for an empty one
        return self.filterset_class(**kwargs)

    def _validate(
        self, filterset: Any, parameters: dict[str, Parameter], values: dict[str, list[str]]
    ) -> list[Problem]:
        """The problems of ``values``; without any, they are ``filterset``'s data."""
        problems = _spelling_problems(filterset, parameters, values)
        # The form never sees a refused value (it would forgive it, or send a NUL to the database).
        refused = {name for name, _ in problems}
        kept = {name: texts for name, texts in values.items() if name not in refused}
        filterset.data = _form_data(parameters, kept)
        for filter_name, errors in filterset.form.errors.as_data().items():
            problems.extend(
                problem
                for problem in _form_problems(filterset, parameters, kept, filter_name, errors)
                if problem[0] not in refused
            )
        return problems


def _spelling_problems(filterset: Any, parameters: dict[str, Parameter], values: dict[str, list[str]]) -> list[Problem]:
    problems: list[Problem] = []
    for name, texts in values.items():
        field = field_of(filterset, parameters[name])
        reason = next(
            (reason for text in texts if (reason := value_problem(text, field, csv=parameters[name].csv))), None
        )
        if reason is not None:
            problems.append((name, _predicate(name, reason)))
    return problems


def _form_data(parameters: dict[str, Parameter], values: dict[str, list[str]]) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, texts in values.items():
        # An in filter's widget reads one comma-separated value: repeated, its values are joined.
        data.setlist(name, [",".join(texts)] if parameters[name].joins else texts)
    return data


def any_of(alternatives: Sequence[BoundFilters], queryset: QuerySet[Any]) -> QuerySet[Any]:
    """The rows of ``queryset`` that match any of ``alternatives``, in one statement: each
    filters its own way, so they are ORed as ``pk IN (<alternative>)`` subqueries, which unlike
    ``qs1 | qs2`` take any queryset a filter returns and find a row once."""
    filtered = [alternative.filter_queryset(queryset) for alternative in alternatives]
    if len(filtered) == 1 and _filters_in_place(filtered[0], queryset):
        # The list's own query: a primary-key subquery would keep SQLite from walking the
        # ordering's index (it sorts every matching row instead).
        return filtered[0]
    return queryset.filter(reduce(operator.or_, (Q(pk__in=rows.values("pk")) for rows in filtered)))


def _filters_in_place(filtered: QuerySet[Any], queryset: QuerySet[Any]) -> bool:
    """Whether ``filtered`` is ``queryset`` with conditions on its own rows only: no join added
    (a multi-valued one could repeat a row), no slicing, the same order."""
    query, base = filtered.query, queryset.query
    return not query.is_sliced and _joins(query) == _joins(base) and query.order_by == base.order_by


def _joins(query: Any) -> set[str]:
    return {alias for alias, table in query.alias_map.items() if isinstance(table, Join)}


class BoundFilters:
    """A validated FilterSet: what it filters and the values a cursor is bound to."""

    def __init__(self, filterset: Any, present: set[str]) -> None:
        self.filterset = filterset
        self.present = present

    def filter_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if queryset is self.filterset.queryset:
            return self.filterset.qs  # type: ignore[no-any-return]  # django-filter has no types
        return self.filterset.filter_queryset(queryset.all())  # type: ignore[no-any-return]  # django-filter has no types

    def signature_data(self) -> dict[str, Any]:
        cleaned = self.filterset.form.cleaned_data
        return {name: _jsonable(cleaned.get(name)) for name in sorted(self.present)}


def _jsonable(value: Any) -> Any:
    """A cleaned value in JSON: a model instance as its primary key, a range as ``[start, stop]``."""
    if value is None or isinstance(value, (bool, int, str, float)):
        return value
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (Decimal, UUID, timedelta)):
        return str(value)
    if isinstance(value, Model):
        return _jsonable(value.pk)
    if isinstance(value, slice):
        return [_jsonable(value.start), _jsonable(value.stop)]
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in sorted(value.items(), key=lambda pair: str(pair[0]))}
    if isinstance(value, (list, tuple, QuerySet)):  # a QuerySet of ModelMultipleChoiceField is evaluated already
        return [_jsonable(item) for item in value]
    return str(value)


def _body_values(
    alternative: Mapping[str, Any], parameters: dict[str, Parameter], pointer: str
) -> tuple[dict[str, list[str]], list[ErrorItem]]:
    """Each member of a search alternative as the query string spells it, and the errors."""
    errors: list[ErrorItem] = []
    values: dict[str, list[str]] = {}
    for name, value in alternative.items():
        parameter = parameters.get(name)
        if parameter is None:
            detail = gettext("Unknown filter. Accepted: {names}.").format(names=", ".join(parameters))
            errors.append({"pointer": f"{pointer}/{name}", "detail": detail, "code": "unknown"})
            continue
        texts = _body_texts(value, multiple=parameter.repeatable)
        if texts is None:
            detail = (
                gettext("{name} must be a string or an array of strings.")
                if parameter.repeatable
                else gettext("{name} must be a string.")
            ).format(name=name)
            errors.append({"pointer": f"{pointer}/{name}", "detail": detail, "code": "invalid"})
            continue
        values[name] = texts
    return values, errors


def _body_texts(value: Any, *, multiple: bool) -> list[str] | None:
    """A search body's value as the query string would spell it; ``None`` when it cannot be."""
    items = value if isinstance(value, list) and multiple and value else [value]
    # A JSONNumber's str() is the client's own spelling; a boolean is written as in JSON.
    texts = [
        str(item).lower() if isinstance(item, bool) else str(item)
        for item in items
        if isinstance(item, (str, int, float))
    ]
    return texts if len(texts) == len(items) else None


def _predicate(name: str, reason: str) -> str:
    return gettext("{name} {reason}.").format(name=name, reason=reason)


def _form_problems(
    filterset: Any,
    parameters: dict[str, Parameter],
    values: dict[str, list[str]],
    filter_name: str,
    errors: list[ValidationError],
) -> list[Problem]:
    if filter_name not in filterset.filters:  # the form's own clean(): about every parameter sent
        return [(name, _detail(name, None, error)) for name in values for error in errors]
    own = [name for name, parameter in parameters.items() if parameter.filter_name == filter_name]
    sent = [name for name in own if name in values] or own  # a required filter left out: all of its own
    field = filterset.filters[filter_name].field
    if isinstance(field, forms.MultiValueField) and len(sent) > 1:
        narrowed = _range_problems(field, [parameters[name] for name in sent], values)
        if narrowed:
            return narrowed
    return [(name, _detail(name, field, error)) for name in sent for error in errors]


def _range_problems(field: forms.MultiValueField, sent: list[Parameter], values: dict[str, list[str]]) -> list[Problem]:
    problems = []
    for parameter in sent:
        sub_field = field.fields[cast(int, parameter.index)]  # a range's parameters each have one
        try:
            sub_field.clean(values[parameter.name][0])
        except ValidationError as error:
            problems.append((parameter.name, _detail(parameter.name, sub_field, error)))
    return problems


def _detail(name: str, field: Any, error: ValidationError) -> str:
    code = getattr(error, "code", None)
    message = " ".join(str(text) for text in error.messages)
    if code == PREDICATE_CODE:
        return _predicate(name, message)
    choices = static_choices(field)
    if code == "invalid_choice" and choices:
        return _predicate(name, gettext("must be one of: {choices}").format(choices=", ".join(choices)))
    return gettext("{name}: {message}").format(name=name, message=message)


@cache
def ordering_filters(filterset_class: Any) -> tuple[str, ...]:
    """The ``OrderingFilter``s of a FilterSet, which the strict backend refuses."""
    return tuple(
        name
        for name, filter_ in filterset_class.base_filters.items()
        if isinstance(filter_, django_filters.OrderingFilter)
    )


def _refuse_ordering_filters(filterset_class: Any) -> None:
    names = ordering_filters(filterset_class)
    if names:
        raise ImproperlyConfigured(
            f"{filterset_class.__name__} has the OrderingFilter {', '.join(names)}: a keyset list has a fixed "
            "ordering (its cursors hold the values of that ordering), so StrictFilterBackend refuses it. "
            "Remove it; order the list with its pagination class."
        )


_AUTO_FILTERSETS: dict[tuple[type[Model], str], type[django_filters.FilterSet]] = {}


def auto_filterset(model: type[Model], fields: Any) -> type[django_filters.FilterSet]:
    """The FilterSet ``DjangoFilterBackend`` builds from a view's ``filterset_fields``."""
    from django_filters.rest_framework import FilterSet as RestFrameworkFilterSet

    key = (model, repr(fields))
    if key not in _AUTO_FILTERSETS:
        meta = type("Meta", (), {"model": model, "fields": fields})
        _AUTO_FILTERSETS[key] = type(f"{model.__name__}FilterSet", (RestFrameworkFilterSet,), {"Meta": meta})
    return _AUTO_FILTERSETS[key]


def queryset_of(view: Any, queryset: QuerySet[Any] | None) -> QuerySet[Any]:
    """``queryset``, else the view's class-level ``queryset``, else its ``get_queryset()``."""
    if queryset is not None:
        return queryset
    declared = getattr(view, "queryset", None)
    if isinstance(declared, QuerySet):
        return declared.all()
    return view.get_queryset()  # type: ignore[no-any-return]  # any DRF view
