"""Checks of keyset-paginated views: an index serves each ordering, cursors can hold its values, and
the filter backends refuse what they do not declare."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.urls import get_resolver

from ..checks.messages import message
from .drf import StrictFilterBackend
from .paginator import KeysetPagination


def check_paginated_orderings(**kwargs: Any) -> list[checks.CheckMessage]:
    """Every keyset-paginated view of the URLconf has an index matching its ordering."""
    warnings = []
    for view_class in _view_classes(get_resolver().url_patterns):
        pagination_class = getattr(view_class, "pagination_class", None)
        queryset = getattr(view_class, "queryset", None)
        if not (isinstance(pagination_class, type) and issubclass(pagination_class, KeysetPagination)):
            continue
        if queryset is None:
            continue
        model = queryset.model
        try:
            ordering = pagination_class().get_ordering(model)
        except ImproperlyConfigured as exc:
            warnings.append(message("E013", view=view_class.__name__, error=exc))
            continue
        if not _has_matching_index(model, ordering):
            fields = [_column_name(model, name) for name in ordering]
            warnings.append(message("W010", view=view_class.__name__, model=model.__name__,
                                    ordering=", ".join(ordering), fields=fields))
    return warnings


def check_filter_backends(**kwargs: Any) -> list[checks.CheckMessage]:
    """Every keyset-paginated view of the URLconf is filtered by StrictFilterBackend alone: any
    other backend lets an undeclared parameter through (its cursors are bound to the whole query
    string instead, :meth:`KeysetPagination.unvalidated_filters`)."""
    warnings = []
    for view_class in _view_classes(get_resolver().url_patterns):
        pagination_class = getattr(view_class, "pagination_class", None)
        if not (isinstance(pagination_class, type) and issubclass(pagination_class, KeysetPagination)):
            continue
        others = [backend for backend in getattr(view_class, "filter_backends", None) or ()
                  if not (isinstance(backend, type) and issubclass(backend, StrictFilterBackend))]
        if others:
            names = ", ".join(getattr(backend, "__name__", repr(backend)) for backend in others)
            warnings.append(message("W040", view=view_class.__name__, backend=names))
    return warnings


def view_classes(patterns: Any) -> Any:
    """The view classes (DRF's and Django's class-based views) routed in ``patterns``, each once."""
    return _view_classes(patterns)


def _view_classes(patterns: Any) -> Any:
    seen = set()
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            yield from _view_classes(pattern.url_patterns)
            continue
        view_class = getattr(pattern.callback, "cls", None) or getattr(pattern.callback, "view_class", None)
        if view_class is not None and view_class not in seen:
            seen.add(view_class)
            yield view_class


def _column_name(model: Any, name: str) -> str:
    bare = name.lstrip("-")
    field = model._meta.pk if bare == "pk" else model._meta.get_field(bare)
    return ("-" if name.startswith("-") else "") + field.name


def _has_matching_index(model: Any, ordering: tuple[str, ...]) -> bool:
    wanted = [_column_name(model, name) for name in ordering]
    flipped = [name[1:] if name.startswith("-") else f"-{name}" for name in wanted]
    bare = [name.lstrip("-") for name in wanted]
    if bare == [model._meta.pk.name]:
        return True
    first = model._meta.get_field(bare[0])
    if (first.unique or first.db_index) and bare[1:] in ([], [model._meta.pk.name]):
        return True  # a single-column index: unique or db_index
    return any(list(index.fields)[:len(wanted)] in (wanted, flipped) for index in model._meta.indexes)
