"""Checks of keyset-paginated views: an index serves each ordering, cursors can hold its values, and
the filter backends refuse what they do not declare."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeGuard

from django.core import checks
from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db.models import F, OrderBy
from django.db.models.constants import LOOKUP_SEP
from rest_framework.generics import GenericAPIView
from rest_framework.settings import api_settings as drf_settings

from ..check_messages import message
from ..http.routes import iter_routes
from .drf import StrictFilterBackend, StrictQueryParametersMixin
from .paginator import KeysetPagination


@checks.register(checks.Tags.models)
def check_paginated_orderings(**kwargs: Any) -> list[checks.CheckMessage]:
    """An index serves the ordering of every keyset-paginated view, and each sort it offers."""
    found = []
    for view_class in _view_classes():
        pagination_class = getattr(view_class, "pagination_class", None)
        queryset = getattr(view_class, "queryset", None)
        if not _is_keyset(pagination_class) or queryset is None:
            continue
        model, view = queryset.model, view_class.__name__
        try:
            orderings = pagination_class().get_orderings(model)
        except ImproperlyConfigured as exc:
            found.append(message("not_keyset_paginable", view=view, error=exc))
            continue
        for sort, ordering in orderings.items():
            if _has_matching_index(model, ordering):
                continue
            values = {"view": view, "model": model.__name__, "ordering": ", ".join(ordering)}
            if sort is None:
                fields = [_column_name(model, name) for name in ordering]
                found.append(message("ordering_unindexed", **values, fields=fields))
            else:
                found.append(message("sort_unindexed", **values, sort=sort, index=_index_hint(model, ordering)))
    return found


@checks.register(checks.Tags.urls)
def check_filter_backends(**kwargs: Any) -> list[checks.CheckMessage]:
    """The list views whose own ``filter_backends`` let an undeclared query parameter through: a
    keyset-paginated one filtered by another backend than StrictFilterBackend (its cursors are
    bound to the whole query string instead), or a strict one that leaves StrictFilterBackend out
    (a view that sets ``filter_backends`` never gets ``DEFAULT_FILTER_BACKENDS``)."""
    warnings = []
    for view_class in _view_classes():
        backends = list(getattr(view_class, "filter_backends", None) or ())
        others = [backend for backend in backends if not _is_strict_backend(backend)]
        view = view_class.__name__
        if _is_keyset(getattr(view_class, "pagination_class", None)):
            if others:
                warnings.append(message("keyset_lax_filter_backend", view=view, backend=_names(others)))
            continue
        # Only a GenericAPIView filters through filter_backends; a list of its own reads no backend.
        listed = issubclass(view_class, GenericAPIView) and hasattr(view_class, "list")
        if len(others) == len(backends) and listed and _meant_strict(view_class):
            warnings.append(message("strict_view_lax_filter_backends", view=view, backend=_names(backends) or "[]"))
    return warnings


@checks.register(checks.Tags.urls)
def check_strict_filtersets(**kwargs: Any) -> list[checks.CheckMessage]:
    """No ``OrderingFilter`` in the FilterSet of a view StrictFilterBackend filters: the client
    would reorder a list whose cursors hold the values of its fixed ordering."""
    try:
        from .filtersets import ordering_filters
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "django_filters":
            raise
        return []  # without django-filter, no view has a FilterSet
    errors = []
    for view_class in _view_classes():
        backends = getattr(view_class, "filter_backends", None) or ()
        filterset: Any = getattr(view_class, "filterset_class", None)
        if not any(_is_strict_backend(backend) for backend in backends) or not hasattr(filterset, "base_filters"):
            continue
        names = ", ".join(ordering_filters(filterset))
        if names:
            values = {"view": view_class.__name__, "name": filterset.__name__, "fields": names}
            errors.append(message("ordering_filter_in_strict_filterset", **values))
    return errors


def _is_keyset(pagination_class: Any) -> TypeGuard[type[KeysetPagination]]:
    return isinstance(pagination_class, type) and issubclass(pagination_class, KeysetPagination)


def _is_strict_backend(backend: Any) -> bool:
    return isinstance(backend, type) and issubclass(backend, StrictFilterBackend)


def _meant_strict(view_class: type) -> bool:
    """The view refuses undeclared parameters elsewhere, or the project filters strictly by default."""
    if issubclass(view_class, StrictQueryParametersMixin):
        return True
    return any(_is_strict_backend(backend) for backend in drf_settings.DEFAULT_FILTER_BACKENDS)


def _names(backends: list[Any]) -> str:
    return ", ".join(getattr(backend, "__name__", repr(backend)) for backend in backends)


def _view_classes() -> Iterator[Any]:
    """The class-based views (DRF's and Django's) of every URLconf the project serves, each once."""
    seen = set()
    for route in iter_routes():
        view_class = getattr(route.callback, "cls", None) or getattr(route.callback, "view_class", None)
        if view_class is not None and view_class not in seen:
            seen.add(view_class)
            yield view_class


def _column_name(model: Any, name: str) -> str:
    """``name`` of an ordering as ``Meta.indexes`` spells it (``pk`` is ``id``, ``user_id`` is ``user``)."""
    bare = name.lstrip("-")
    field_name, *transforms = bare.split(LOOKUP_SEP)
    field = model._meta.pk if field_name == "pk" else model._meta.get_field(field_name)
    return ("-" if name.startswith("-") else "") + LOOKUP_SEP.join([field.name, *transforms])


def _index_keys(model: Any, index: Any) -> list[str]:
    """The columns of ``index`` as :func:`_column_name` spells them, up to the first expression that
    is not a field or a chain of transforms of one: what follows it cannot serve a keyset."""
    if index.fields:
        return [_column_name(model, name) for name in index.fields]
    keys = []
    for expression in index.expressions:
        descending = isinstance(expression, OrderBy) and expression.descending
        inner = expression.expression if isinstance(expression, OrderBy) else expression
        path = _transform_path(inner)
        if path is None:
            break
        try:
            keys.append(_column_name(model, ("-" if descending else "") + path))
        except FieldDoesNotExist:
            break
    return keys


def _transform_path(expression: Any) -> str | None:
    """``created_at__year`` for ``ExtractYear("created_at")``; ``None`` for what is not a field's transform."""
    if isinstance(expression, F):
        return str(expression.name)  # type: ignore[attr-defined]  # F.__init__ sets it; the stubs omit it
    lookup_name = getattr(expression, "lookup_name", None)
    sources = expression.get_source_expressions() if hasattr(expression, "get_source_expressions") else []
    if not lookup_name or len(sources) != 1:
        return None
    inner = _transform_path(sources[0])
    return None if inner is None else f"{inner}{LOOKUP_SEP}{lookup_name}"


def _has_matching_index(model: Any, ordering: tuple[str, ...]) -> bool:
    wanted = [_column_name(model, name) for name in ordering]
    flipped = [name[1:] if name.startswith("-") else f"-{name}" for name in wanted]
    bare = [name.lstrip("-") for name in wanted]
    if bare == [model._meta.pk.name]:
        return True
    if LOOKUP_SEP not in bare[0]:
        first = model._meta.get_field(bare[0])
        if (first.unique or first.db_index) and bare[1:] in ([], [model._meta.pk.name]):
            return True  # a single-column index: unique or db_index
    return any(_index_keys(model, index)[: len(wanted)] in (wanted, flipped) for index in model._meta.indexes)


def _index_hint(model: Any, ordering: tuple[str, ...]) -> str:
    """The ``models.Index(...)`` that serves ``ordering``, as Python to paste into ``Meta.indexes``."""
    names = [_column_name(model, name) for name in ordering]
    if not any(LOOKUP_SEP in name for name in names):
        return f"models.Index(fields={names!r}, name=...)"
    parts = []
    for name in names:
        field_name, *transforms = name.lstrip("-").split(LOOKUP_SEP)
        field = model._meta.get_field(field_name)
        expression: Any = field.get_col(model._meta.db_table)
        text = repr(field_name)
        for transform in transforms:
            expression = expression.output_field.get_transform(transform)(expression)
            text = f"{type(expression).__name__}({text})"
        parts.append((text if transforms else f"F({text})") + (".desc()" if name.startswith("-") else ""))
    return f"models.Index({', '.join(parts)}, name=...)"
