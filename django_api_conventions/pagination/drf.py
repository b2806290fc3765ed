"""Wiring into DRF: the strict filter backend and strict query parameters.

Both apply a django-filter ``FilterSet`` (the ``filter`` extra), needed only by a view that names filters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured
from django.db.models import QuerySet
from rest_framework.filters import BaseFilterBackend
from rest_framework.request import Request
from rest_framework.settings import api_settings as drf_settings

from ..conf import api_settings
from ..http.request_attributes import ACTIVE_FILTERS, set_state
from ..problems.parameters import refuse_undeclared
from .extra_parameters import ExtraParameters, extra_parameters_of

if TYPE_CHECKING:
    from .filter_schema import UntypedFilterDescriber
    from .filtersets import StrictFilters


def get_filterset_class(view: Any, queryset: QuerySet[Any] | None = None) -> Any:
    """The view's django-filter ``FilterSet`` class: what its ``get_filterset_class()`` returns
    when it has one (to choose per action or per request), else its ``filterset_class``, else the
    one ``DjangoFilterBackend`` would build from its ``filterset_fields``; ``None``: no filters."""
    getter = getattr(view, "get_filterset_class", None)
    if callable(getter):
        return getter()
    declared = getattr(view, "filterset_class", None)
    if declared is not None:
        return declared
    fields = getattr(view, "filterset_fields", None)
    if not fields:
        return None
    filtersets = _filtersets()
    return filtersets.auto_filterset(filtersets.queryset_of(view, queryset).model, fields)


def strict_filters(view: Any, filterset_class: Any, queryset: QuerySet[Any] | None = None) -> StrictFilters | None:
    """``filterset_class`` as the strict parts apply it for ``view``; ``None`` without one."""
    if filterset_class is None:
        return None
    return _filtersets().StrictFilters(filterset_class, view=view, queryset=queryset)  # type: ignore[no-any-return]  # lazy module


def _filtersets() -> Any:
    try:
        from . import filtersets
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "django_filters":
            raise
        raise ImproperlyConfigured(
            'A view with filters needs django-filter: pip install "django-api-conventions[filter]".'
        ) from exc
    return filtersets


def _pagination_parameters(view: Any) -> list[str]:
    """The query parameters of the view's paginator: ``get_query_parameter_names()``, else every
    ``*_query_param`` attribute it has, whatever its class (DRF's ``limit``, ``cursor``, ``page``)."""
    paginator = getattr(view, "paginator", None)
    if paginator is None:
        return []
    names = getattr(paginator, "get_query_parameter_names", None)
    if callable(names):
        return list(names())
    return _named_by(paginator, "_query_param")


def _backend_parameters(view: Any) -> list[str]:
    """Each ``*_param`` attribute of the view's other filter backends (``ordering_param`` of DRF's
    ``OrderingFilter``, ``search_param`` of its ``SearchFilter``)."""
    names: list[str] = []
    for backend in getattr(view, "filter_backends", None) or ():
        if not (isinstance(backend, type) and issubclass(backend, StrictFilterBackend)):
            names.extend(_named_by(backend, "_param"))
    return names


def extra_declarations(view: Any) -> ExtraParameters:
    """The parameters the project names: the view's ``extra_query_params`` and the
    ``EXTRA_QUERY_PARAMS`` setting (:mod:`.extra_parameters`)."""
    return extra_parameters_of(view, api_settings.EXTRA_QUERY_PARAMS)


def _named_by(source: Any, suffix: str) -> list[str]:
    """The text values of ``source``'s attributes named ``*<suffix>``; ``None`` and ``""`` (DRF's
    way to switch one off) left out."""
    attributes = _attributes_ending(source if isinstance(source, type) else type(source), suffix)
    own = [name for name in vars(source) if name.endswith(suffix)] if not isinstance(source, type) else []
    values = (getattr(source, name, None) for name in dict.fromkeys([*attributes, *own]))
    return list(dict.fromkeys(value for value in values if isinstance(value, str) and value))


@lru_cache(maxsize=256)
def _attributes_ending(cls: type, suffix: str) -> tuple[str, ...]:
    return tuple(name for name in dir(cls) if name.endswith(suffix) and not name.startswith("__"))


def _declared_parameters(view: Any) -> list[str]:
    """Every query parameter a list of ``view`` accepts besides its filters."""
    return list(
        dict.fromkeys(
            [
                *_pagination_parameters(view),
                *_backend_parameters(view),
                *extra_declarations(view).names,
                *format_override(),
            ]
        )
    )


def _unlisted_parameters(view: Any, query: Mapping[str, Sequence[str]]) -> list[str]:
    """The names accepted but left out of the list an error gives: DRF's format override when
    the view speaks one format (naming it would mislead), unless the request repeats it."""
    renderers = getattr(view, "renderer_classes", None) or ()
    if len({getattr(renderer, "format", None) for renderer in renderers}) > 1:
        return []
    return [name for name in format_override() if len(query.get(name, ())) <= 1]


class StrictFilterBackend(BaseFilterBackend):
    """Applies the view's filter set (:meth:`get_filterset_class`) to list requests; any other
    query parameter than its filters and those the view declares (its paginator's, its other
    backends', the project's) is a 400.

    A drop-in for django-filter's ``DjangoFilterBackend``: it calls the same hooks,
    :meth:`get_filterset_class` and :meth:`get_filterset_kwargs`, so a subclass that passes
    extra arguments to its FilterSet stays strict. Detail requests are left alone: a filter must
    never hide one resource behind a 404.
    """

    def filter_queryset(self, request: Request, queryset: QuerySet[Any], view: Any) -> QuerySet[Any]:
        if _is_detail(view) or getattr(view, "action", None) == "search":
            return queryset
        filters = strict_filters(view, self.get_filterset_class(view, queryset), queryset)
        kwargs = self.get_filterset_kwargs(request, queryset, view) if filters is not None else {}
        query = _lists(kwargs.get("data", request.query_params))
        unlisted = _unlisted_parameters(view, query)
        query = {name: values for name, values in query.items() if name not in unlisted}
        allowed_extra = [name for name in _declared_parameters(view) if name not in unlisted]
        extras = extra_declarations(view)
        if filters is None:
            refuse_undeclared(query, allowed_extra, repeatable=extras.repeatable, declared_as=extras.declared_as)
            set_state(request, ACTIVE_FILTERS, {})
            return queryset
        bound = filters.from_query(
            query,
            allowed_extra=allowed_extra,
            extras=extras,
            request=request,
            queryset=queryset,
            filterset_kwargs=kwargs,
        )
        set_state(request, ACTIVE_FILTERS, bound.signature_data())
        return bound.filter_queryset(queryset)

    def get_filterset_class(self, view: Any, queryset: QuerySet[Any] | None = None) -> Any:
        """django-filter's hook: override it to choose the FilterSet elsewhere than on the view."""
        return get_filterset_class(view, queryset)

    def get_filterset_kwargs(self, request: Request, queryset: QuerySet[Any], view: Any) -> dict[str, Any]:
        """django-filter's hook and default: the FilterSet's keyword arguments. ``data`` is the
        query the backend validates (the FilterSet gets its validated values)."""
        return {"data": request.query_params, "queryset": queryset, "request": request}

    def get_schema_operation_parameters(
        self, view: Any, describe_untyped: UntypedFilterDescriber | None = None
    ) -> list[dict[str, Any]]:
        """The FilterSet's parameters, typed as strictly as they are checked; one the package cannot
        type is ``describe_untyped``'s (drf-spectacular's), else a string, with a warning."""
        filters = strict_filters(view, self.get_filterset_class(view))
        return filters.schema_parameters(describe_untyped) if filters is not None else []


def _lists(data: Any) -> dict[str, list[str]]:
    """A ``QueryDict``, or a plain mapping ``get_filterset_kwargs()`` returned, as name -> values."""
    getlist = getattr(data, "getlist", None)
    if callable(getlist):
        return {name: getlist(name) for name in data}
    return {name: list(value) if isinstance(value, (list, tuple)) else [value] for name, value in data.items()}


def filter_parameter_names(view: Any) -> list[str]:
    """The query parameters of the view's FilterSet (:func:`get_filterset_class`)."""
    filters = strict_filters(view, get_filterset_class(view))
    return filters.parameter_names() if filters is not None else []


def _is_detail(view: Any) -> bool:
    lookup = getattr(view, "lookup_url_kwarg", None) or getattr(view, "lookup_field", None)
    return bool(lookup) and lookup in getattr(view, "kwargs", {})


def format_override() -> list[str]:
    """DRF's ``?format=`` parameter, which every request may carry; none when ``URL_FORMAT_OVERRIDE`` is off."""
    name = drf_settings.URL_FORMAT_OVERRIDE
    return [name] if name else []


class StrictQueryParametersMixin:
    """Refuses, on every method, a query parameter the request does not declare.

    The list filters of :class:`StrictFilterBackend` only guard ``GET`` on the list; with this
    mixin a ``POST``, a ``GET`` or ``DELETE`` of one resource and the search refuse an undeclared
    parameter too (``POST /v2/users?foo=1``), with the same 400 ``invalid-parameters`` problem
    naming each one and listing what :meth:`get_query_parameters` accepts.

    The check runs at the end of ``initial()``: after DRF authenticated, permitted and throttled
    the request, before the handler, and before :class:`~.idempotency.IdempotencyMixin` claims
    a key, so the 400 is never stored as a key's answer and the key stays free.
    Put it among the mixins, before the DRF base classes:
    ``class InvoiceViewSet(IdempotencyMixin, StrictQueryParametersMixin, viewsets.ModelViewSet)``.
    """

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]  # a mixin: the view has initial()
        if not _is_allowed(self, request):
            return  # the method is not allowed: that 405 says more than any parameter could
        list_read = _is_list_read(self, request)
        if list_read and _strict_backend_checks(self):
            return  # the strict backend checks the same names, with the one FilterSet of the request
        accepted = self.get_query_parameters(request)
        query = _query_counting_repeatable_once(request, _repeatable_parameters(self) if list_read else [])
        unlisted = _unlisted_parameters(self, query)
        extras = extra_declarations(self)
        repeatable = extras.repeatable
        if list_read and repeatable:  # a filter of the same name keeps its own rule
            repeatable = repeatable.difference(filter_parameter_names(self))
        refuse_undeclared(
            {name: values for name, values in query.items() if name not in unlisted},
            [name for name in accepted if name not in unlisted],
            repeatable=repeatable,
            declared_as=extras.declared_as,
        )

    def get_query_parameters(self, request: Request) -> list[str]:
        """The parameters ``request`` may carry: on a list, its filters, its paginator's, its other
        filter backends' and the project's; elsewhere the project's; DRF's ``format`` everywhere.
        Override it for an action of your own that reads the query string."""
        if _is_list_read(self, request):
            return [*filter_parameter_names(self), *_declared_parameters(self)]
        return list(dict.fromkeys([*extra_declarations(self).names, *format_override()]))


def _is_allowed(view: Any, request: Request) -> bool:
    method = (request.method or "").lower()
    return method in view.http_method_names and hasattr(view, method)


def _query_counting_repeatable_once(request: Request, repeatable: list[str]) -> dict[str, list[str]]:
    """The query string as name -> values, a repeatable parameter's cut to one (never "sent twice")."""
    return {
        name: request.query_params.getlist(name)[: 1 if name in repeatable else None] for name in request.query_params
    }


def _strict_backend_checks(view: Any) -> bool:
    """A :class:`StrictFilterBackend` filters the list and the view accepts no other names than it does."""
    if type(view).get_query_parameters is not StrictQueryParametersMixin.get_query_parameters:
        return False
    return any(
        isinstance(backend, type) and issubclass(backend, StrictFilterBackend)
        for backend in getattr(view, "filter_backends", None) or ()
    )


def _is_list_read(view: Any, request: Request) -> bool:
    return (
        request.method in ("GET", "HEAD")
        and hasattr(view, "list")
        and not _is_detail(view)
        and getattr(view, "action", None) != "search"
    )


def _repeatable_parameters(view: Any) -> list[str]:
    """The filter parameters that may be sent more than once (a multiple choice, an ``in`` filter)."""
    filters = strict_filters(view, get_filterset_class(view))
    return filters.repeatable_parameter_names() if filters is not None else []
