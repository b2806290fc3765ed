"""Filter sets of other libraries behind the strict backend: one interface, registered adapters.

``StrictFilterBackend``, ``StrictQueryParametersMixin``, ``SearchMixin`` and the OpenAPI schema
work on the package's own :class:`~.filters.FilterSet` directly. A filter set of another library
(django-filter's, adapted in ``contrib/django_filters``) reaches them through a
:class:`FilterSetAdapter`, which gives it the same guarantees: undeclared and repeated
parameters refused, every bad value an ``errors`` item, cursors bound to the cleaned values.
This module imports no optional package: contrib registers its adapters at start-up
(:func:`register_filterset_adapter`), and the pagination part asks :func:`filterset_adapter`.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import reduce
from typing import Any, Protocol

from django.db.models import Q, QuerySet


class BoundFilters(Protocol):
    """The filters of one request (or one search alternative), validated."""

    def filter_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        """``queryset`` restricted by the filters."""

    def signature_data(self) -> Any:
        """The cleaned values, JSON-able and stable (sorted keys): what cursors are bound to,
        and ``request.active_filters``."""


class FilterSetAdapter(ABC):
    """Another library's filter set, as the package's strict parts use it."""

    @abstractmethod
    def parameter_names(self) -> list[str]:
        """The query parameters the filter set reads, in its declaration order."""

    def repeatable_parameter_names(self) -> list[str]:
        """The parameters that may be sent more than once (a multiple choice); none by default."""
        return []

    @abstractmethod
    def from_query(
        self, query: Mapping[str, Sequence[str]], *, allowed_extra: Iterable[str], request: Any,
        queryset: QuerySet[Any],
    ) -> BoundFilters:
        """Validate a query string (``QueryDict.lists()`` as a mapping): a parameter neither
        declared nor in ``allowed_extra``, a single-valued one sent twice, or a bad value is a
        400 ``invalid-parameters`` problem naming each one."""

    @abstractmethod
    def from_body(self, alternative: Mapping[str, Any], *, pointer: str, request: Any,
                  queryset: QuerySet[Any]) -> BoundFilters:
        """Validate one object of a search's ``any`` (at JSON Pointer ``pointer``): a 422
        ``validation-error`` problem whose errors point at ``<pointer>/<name>``."""

    @abstractmethod
    def schema_parameters(self) -> list[dict[str, Any]]:
        """The OpenAPI query parameters of the filter set."""

    @abstractmethod
    def body_properties(self) -> dict[str, Any]:
        """The OpenAPI schema of each member of a search alternative."""

    def any_of(self, alternatives: Sequence[BoundFilters], queryset: QuerySet[Any]) -> QuerySet[Any]:
        """The rows of ``queryset`` that match ANY of ``alternatives``, in one SQL statement.

        Each alternative filters ``queryset`` its own way (a ``method=`` filter, an ``exclude``,
        a join that needs ``distinct()``), so they are ORed as primary-key subqueries:
        ``WHERE pk IN (<alternative 1>) OR pk IN (<alternative 2>)``. Unlike ``qs1 | qs2``, which
        Django refuses for querysets that differ in ``distinct()`` or slicing, this takes any
        queryset a filter returns, and a row matched through a multi-valued join appears once.
        """
        condition = reduce(operator.or_, (Q(pk__in=alternative.filter_queryset(queryset).values("pk"))
                                          for alternative in alternatives))
        return queryset.filter(condition)


#: A factory takes the view, the filter set class ``get_filterset_class()`` chose and a queryset
#: of the view's model (or ``None``), and returns an adapter when it knows that filter set.
AdapterFactory = Callable[[Any, Any, "QuerySet[Any] | None"], "FilterSetAdapter | None"]

_FACTORIES: list[AdapterFactory] = []


def register_filterset_adapter(factory: AdapterFactory) -> None:
    """Make the strict parts accept the filter sets ``factory`` adapts (once per factory)."""
    if factory not in _FACTORIES:
        _FACTORIES.append(factory)


def filterset_adapter(view: Any, filterset_class: Any, queryset: QuerySet[Any] | None = None
                      ) -> FilterSetAdapter | None:
    """The adapter of ``filterset_class`` for ``view``; ``None`` for the package's own filter sets."""
    for factory in _FACTORIES:
        adapter = factory(view, filterset_class, queryset)
        if adapter is not None:
            return adapter
    return None
