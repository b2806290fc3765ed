"""Check of the django-filter FilterSets that StrictFilterBackend applies: no OrderingFilter."""

from __future__ import annotations

from typing import Any

import django_filters
from django.core import checks

from ...checks.messages import message
from ...pagination.checks import view_classes
from ...pagination.drf import StrictFilterBackend
from .adapter import ordering_filters


def check_strict_filtersets(**kwargs: Any) -> list[checks.CheckMessage]:
    """An ``OrderingFilter`` in the FilterSet of a view StrictFilterBackend filters is an error:
    the client would reorder a list whose cursors hold the values of its fixed ordering."""
    errors = []
    for view_class in view_classes():
        backends = getattr(view_class, "filter_backends", None) or ()
        if not any(isinstance(backend, type) and issubclass(backend, StrictFilterBackend) for backend in backends):
            continue
        filterset_class = getattr(view_class, "filterset_class", None)
        if not (isinstance(filterset_class, type) and issubclass(filterset_class, django_filters.FilterSet)):
            continue
        names = ordering_filters(filterset_class)
        if names:
            errors.append(message("E040", view=view_class.__name__, name=filterset_class.__name__,
                                  fields=", ".join(names)))
    return errors
