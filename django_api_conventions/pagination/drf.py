"""Wiring into DRF: the strict filter backend, strict query parameters and the ``POST .../search`` mixin."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext
from rest_framework.decorators import action
from rest_framework.filters import BaseFilterBackend
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings as drf_settings

from ..conf import api_settings
from ..problems import ErrorItem, ProblemException
from ..problems.parameters import invalid_parameters, parameter_error, refuse_undeclared
from ..request_attributes import ACTIVE_FILTERS, set_state
from .adapters import FilterSetAdapter, filterset_adapter
from .filters import Filter, FilterSet, parse_integer, parse_text, parse_timestamp


def get_filterset_class(view: Any) -> type[FilterSet]:
    """The view's :class:`FilterSet`: what its ``get_filterset_class()`` returns when it has one
    (to choose per action or per request, as with django-filter), else its ``filterset_class``,
    else no filters at all."""
    getter = getattr(view, "get_filterset_class", None)
    if callable(getter):
        return getter()  # type: ignore[no-any-return]
    return getattr(view, "filterset_class", FilterSet)  # type: ignore[no-any-return]


def pagination_parameters(view: Any) -> list[str]:
    """The query parameters the view's paginator reads: ``KeysetPagination.get_query_parameter_names()``,
    else every ``*_query_param`` attribute it has, whatever its class (DRF's ``limit`` and
    ``offset``, ``cursor``, ``page``; a project's own ``start``); none without a paginator."""
    paginator = getattr(view, "paginator", None)
    if paginator is None:
        return []
    names = getattr(paginator, "get_query_parameter_names", None)
    if callable(names):
        return list(names())
    return _named_by(paginator, "_query_param")


def backend_parameters(view: Any) -> list[str]:
    """The query parameters the view's other filter backends read: each ``*_param`` attribute of
    a backend in its ``filter_backends`` (``ordering_param`` of DRF's ``OrderingFilter``,
    ``search_param`` of its ``SearchFilter``)."""
    names: list[str] = []
    for backend in getattr(view, "filter_backends", None) or ():
        if not (isinstance(backend, type) and issubclass(backend, StrictFilterBackend)):
            names.extend(_named_by(backend, "_param"))
    return names


def extra_parameters(view: Any) -> list[str]:
    """The parameters the project names: the view's ``extra_query_params`` and the
    ``EXTRA_QUERY_PARAMS`` setting (``brief``, ``fields``, ``omit`` read by its serializers)."""
    return [*(getattr(view, "extra_query_params", None) or ()), *api_settings.EXTRA_QUERY_PARAMS]


def _named_by(source: Any, suffix: str) -> list[str]:
    """The text values of ``source``'s attributes whose name ends with ``suffix``; ``None`` and
    ``""`` (DRF's way to switch one off, ``page_size_query_param = None``) left out."""
    attributes = _attributes_ending(source if isinstance(source, type) else type(source), suffix)
    own = [name for name in vars(source) if name.endswith(suffix)] if not isinstance(source, type) else []
    values = (getattr(source, name, None) for name in dict.fromkeys([*attributes, *own]))
    return list(dict.fromkeys(value for value in values if isinstance(value, str) and value))


@lru_cache(maxsize=256)
def _attributes_ending(cls: type, suffix: str) -> tuple[str, ...]:
    return tuple(name for name in dir(cls) if name.endswith(suffix) and not name.startswith("__"))


def declared_parameters(view: Any) -> list[str]:
    """Every query parameter a list of ``view`` accepts besides its filters: its paginator's, its
    other filter backends', the project's (:func:`extra_parameters`) and DRF's format override."""
    return list(dict.fromkeys([*pagination_parameters(view), *backend_parameters(view), *extra_parameters(view),
                               *format_override()]))


def speaks_several_formats(view: Any) -> bool:
    """The view has renderers of more than one format, so ``?format=`` chooses among them."""
    renderers = getattr(view, "renderer_classes", None) or ()
    return len({getattr(renderer, "format", None) for renderer in renderers}) > 1


def unlisted_parameters(view: Any, query: Mapping[str, Sequence[str]]) -> list[str]:
    """The names accepted but left out of the list an error gives: DRF's format override when
    the view speaks one format (``?format=json`` works, yet naming it would mislead), unless the
    request repeats it (then the error is about it)."""
    if speaks_several_formats(view):
        return []
    return [name for name in format_override() if len(query.get(name, ())) <= 1]


class StrictFilterBackend(BaseFilterBackend):
    """Applies the view's filter set (:meth:`get_filterset_class`) to list requests; any other
    query parameter than its filters and those the view declares (:func:`declared_parameters`)
    is a 400.

    A drop-in for django-filter's ``DjangoFilterBackend``: it calls the same hooks,
    :meth:`get_filterset_class` and :meth:`get_filterset_kwargs`, so a subclass that passes
    extra arguments to its FilterSet stays strict. Detail requests are left alone: a filter must
    never hide one resource behind a 404.
    """

    def filter_queryset(self, request: Request, queryset: QuerySet[Any], view: Any) -> QuerySet[Any]:
        if _is_detail(view) or getattr(view, "action", None) == "search":
            return queryset
        filterset_class = self.get_filterset_class(view, queryset)
        adapter = filterset_adapter(view, filterset_class, queryset)
        kwargs = self.get_filterset_kwargs(request, queryset, view) if adapter is not None else {}
        query = _lists(kwargs.get("data", request.query_params))
        unlisted = unlisted_parameters(view, query)
        query = {name: values for name, values in query.items() if name not in unlisted}
        allowed_extra = [name for name in declared_parameters(view) if name not in unlisted]
        if adapter is not None:  # another library's filter set (django-filter's)
            bound = adapter.from_query(query, allowed_extra=allowed_extra, request=request, queryset=queryset,
                                       filterset_kwargs=kwargs)
            set_state(request, ACTIVE_FILTERS, bound.signature_data())
            return bound.filter_queryset(queryset)
        filterset = filterset_class.from_query(query, allowed_extra=allowed_extra)
        set_state(request, ACTIVE_FILTERS, filterset.signature_data())
        return queryset.filter(filterset.q())

    def get_filterset_class(self, view: Any, queryset: QuerySet[Any] | None = None) -> type[FilterSet]:
        """django-filter's hook, with its signature: override it in a backend of your own to
        choose the filter set elsewhere than on the view (:func:`get_filterset_class`)."""
        return get_filterset_class(view)

    def get_filterset_kwargs(self, request: Request, queryset: QuerySet[Any], view: Any) -> dict[str, Any]:
        """django-filter's hook, with its signature and default: the keyword arguments of the
        view's django-filter FilterSet. Override it to pass arguments of your own; ``data`` is
        the query the backend validates (the FilterSet gets its validated values)."""
        return {"data": request.query_params, "queryset": queryset, "request": request}

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        filterset_class = self.get_filterset_class(view)
        adapter = filterset_adapter(view, filterset_class)
        if adapter is not None:
            return adapter.schema_parameters()
        return [
            {"name": name, "in": "query", "required": False, "schema": filter_value_schema(declared),
             "description": declared.description or f"{declared.field} ({declared.lookup})"}
            for name, declared in filterset_class.filters.items()
        ]


def _lists(data: Any) -> dict[str, list[str]]:
    """A query (a ``QueryDict``, or a plain mapping a ``get_filterset_kwargs()`` returned) as name -> values."""
    getlist = getattr(data, "getlist", None)
    if callable(getlist):
        return {name: getlist(name) for name in data}
    return {name: list(value) if isinstance(value, (list, tuple)) else [value] for name, value in data.items()}


# What each built-in parser accepts, as OpenAPI.
_PARSER_SCHEMAS: dict[Any, dict[str, Any]] = {
    parse_text: {"type": "string", "minLength": 1},
    parse_integer: {"type": "string", "pattern": r"^[+-]?[0-9]+$"},
    parse_timestamp: {"type": "string", "format": "date-time"},
}


def filter_value_schema(declared: Filter) -> dict[str, Any]:
    """The OpenAPI schema of a filter's value: typed by its parser, or its choices, comma-separated for ``in``."""
    if declared.schema is not None:
        return dict(declared.schema)
    if declared.choices is not None:
        if declared.lookup != "in":
            return {"type": "string", "enum": list(declared.choices)}
        choice = "|".join(re.escape(value) for value in declared.choices)
        return {"type": "string", "pattern": f"^({choice})(,({choice}))*$",
                "description": f"One or more of {', '.join(declared.choices)}, comma-separated."}
    schema = dict(_PARSER_SCHEMAS.get(declared.parse, {"type": "string"}))
    if declared.lookup == "in":
        schema = {"type": "string", "description": "Comma-separated values."}
    return schema


def filter_parameter_names(view: Any) -> list[str]:
    """The query parameters of the view's filter set (:func:`get_filterset_class`), whatever its library."""
    filterset_class = get_filterset_class(view)
    adapter = filterset_adapter(view, filterset_class)
    return adapter.parameter_names() if adapter is not None else list(filterset_class.filters)


def _is_detail(view: Any) -> bool:
    lookup = getattr(view, "lookup_url_kwarg", None) or getattr(view, "lookup_field", None)
    return bool(lookup) and lookup in getattr(view, "kwargs", {})


def format_override() -> list[str]:
    """DRF's ``?format=`` parameter, which every request may carry (``FallbackContentNegotiation``
    refuses a format the view does not speak); none when ``URL_FORMAT_OVERRIDE`` is off."""
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
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        method = (request.method or "").lower()
        if method not in self.http_method_names or not hasattr(self, method):  # type: ignore[attr-defined]
            return  # the method is not allowed: that 405 says more than any parameter could
        list_read = _is_list_read(self, request)
        if list_read and _strict_backend_checks(self):
            return  # the strict backend checks the same names, with the one FilterSet of the request
        accepted = self.get_query_parameters(request)
        repeatable = set(_repeatable_parameters(self)) if list_read else set()
        query = {name: request.query_params.getlist(name)[:1 if name in repeatable else None]
                 for name in request.query_params}
        unlisted = unlisted_parameters(self, query)
        refuse_undeclared({name: values for name, values in query.items() if name not in unlisted},
                          [name for name in accepted if name not in unlisted])

    def get_query_parameters(self, request: Request) -> list[str]:
        """The parameters ``request`` may carry: on a list, its filters (:func:`get_filterset_class`)
        and those the view declares (:func:`declared_parameters`: its paginator's, its other filter
        backends', the project's); elsewhere the project's (:func:`extra_parameters`); DRF's
        ``format`` everywhere. Override it for an action of your own that reads the query string."""
        if _is_list_read(self, request):
            return [*filter_parameter_names(self), *declared_parameters(self)]
        return list(dict.fromkeys([*extra_parameters(self), *format_override()]))


def _strict_backend_checks(view: Any) -> bool:
    """A :class:`StrictFilterBackend` filters the list and the view accepts no other names than it does."""
    if type(view).get_query_parameters is not StrictQueryParametersMixin.get_query_parameters:
        return False
    return any(isinstance(backend, type) and issubclass(backend, StrictFilterBackend)
               for backend in getattr(view, "filter_backends", None) or ())


def _is_list_read(view: Any, request: Request) -> bool:
    return request.method in ("GET", "HEAD") and hasattr(view, "list") and not _is_detail(view) \
        and getattr(view, "action", None) != "search"


def _repeatable_parameters(view: Any) -> list[str]:
    """The filter parameters that may be sent more than once (a django-filter multiple choice)."""
    adapter = filterset_adapter(view, get_filterset_class(view))
    return adapter.repeatable_parameter_names() if adapter is not None else []


class SearchMixin:
    """``POST <list>/search`` with ``{"any": [filters, ...], "limit": n, "cursor": c}``.

    Each object of ``any`` uses the list's filter names (ANDed inside the object); the objects
    are ORed. Answers the list envelope; body errors are 422 problems with JSON Pointers. The
    ``limit`` and ``cursor`` members take the names of the paginator's query parameters
    (``limit_query_param``, ``cursor_query_param``), as the list's query string does; so does
    ``sort`` (``sort_query_param``) when the paginator declares sorts.
    """

    search_max_alternatives = 20

    @action(detail=False, methods=["post"], url_path="search")
    def search(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        view: Any = self
        # DRF's format override is not a search parameter: it chooses the renderer, as everywhere.
        paginator = view.paginator
        cursor_name, limit_name, *sort_name = paginator.get_query_parameter_names()
        misplaced = [name for name in request.query_params if name not in format_override()]
        if misplaced:
            if sort_name:
                detail = gettext(
                    "The search takes its filters, {limit}, {cursor} and {sort} from the body, not the query string."
                ).format(limit=limit_name, cursor=cursor_name, sort=sort_name[0])
            else:
                detail = gettext("The search takes its filters, {limit} and {cursor} from the body, not the "
                                 "query string.").format(limit=limit_name, cursor=cursor_name)
            raise invalid_parameters([parameter_error(name, detail, "unknown") for name in misplaced])
        filterset_class = get_filterset_class(view)
        adapter = filterset_adapter(view, filterset_class, view.get_queryset())
        alternatives, limit, cursor, sort = self._read_search_body(
            request.data, filterset_class, cursor_name=cursor_name, limit_name=limit_name,
            sort_name=sort_name[0] if sort_name else None, adapter=adapter,
        )
        # Through the filter backends: a backend that scopes rows (per tenant, say) scopes the
        # search too; StrictFilterBackend leaves the search action alone.
        queryset = view.filter_queryset(view.get_queryset())
        if adapter is not None:
            queryset = adapter.any_of(alternatives, queryset)
        else:
            condition = Q()
            for alternative in alternatives:
                condition |= alternative.q()
            queryset = queryset.filter(condition)
        try:
            page = paginator.paginate_queryset(
                queryset, request, view, limit=limit, cursor=cursor, sort=sort,
                filters={"any": [alternative.signature_data() for alternative in alternatives]},
            )
        except ProblemException as problem:
            if problem.problem_type.slug != "invalid-parameters":
                raise
            # The paginator names the query parameter; here it is the body member of that name.
            raise _body_problem([
                {"pointer": f"/{item['parameter']}", "detail": item["detail"], "code": item["code"]}
                for item in problem.errors if "parameter" in item
            ]) from None
        return paginator.get_paginated_response(view.get_serializer(page, many=True).data)

    def _read_search_body(
        self, body: Any, filterset_class: type[FilterSet], *, cursor_name: str, limit_name: str,
        sort_name: str | None = None,
        adapter: FilterSetAdapter | None = None,
    ) -> tuple[list[Any], Any, Any, Any]:
        if not isinstance(body, dict):
            detail = gettext("The body must be a JSON object.")
            raise _body_problem([{"pointer": "", "detail": detail, "code": "invalid"}])
        members = ("any", limit_name, cursor_name, *([sort_name] if sort_name else []))
        errors: list[ErrorItem] = [
            {"pointer": f"/{name}", "detail": gettext("Unknown member. Accepted: {names}.").format(
                names=", ".join(members)),
             "code": "unknown"}
            for name in body if name not in members
        ]
        alternatives = body.get("any")
        if not isinstance(alternatives, list) or not 1 <= len(alternatives) <= self.search_max_alternatives:
            detail = gettext("any must be a list of 1 to {maximum} filter objects.").format(
                maximum=self.search_max_alternatives
            )
            errors.append({"pointer": "/any", "detail": detail, "code": "invalid"})
            alternatives = []
        limit = body.get(limit_name)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            # A JSON integer, as the schema says: "5", 5.0 or true would each be a guess.
            detail = gettext("{name} must be a JSON integer, not {kind}.").format(
                name=limit_name, kind=_json_kind(limit)
            )
            errors.append({"pointer": f"/{limit_name}", "detail": detail, "code": "invalid"})
        cursor = body.get(cursor_name)
        if cursor is not None and not isinstance(cursor, str):
            errors.append({"pointer": f"/{cursor_name}",
                           "detail": gettext("{name} must be a string.").format(name=cursor_name), "code": "invalid"})
        sort = body.get(sort_name) if sort_name else None
        if sort is not None and not isinstance(sort, str):
            errors.append({"pointer": f"/{sort_name}",
                           "detail": gettext("{name} must be a string.").format(name=sort_name), "code": "invalid"})
        cleaned: list[Any] = []
        view: Any = self
        model_rows = view.get_queryset() if adapter is not None else None
        for index, alternative in enumerate(alternatives):
            pointer = f"/any/{index}"
            if not isinstance(alternative, dict) or not alternative:
                errors.append({"pointer": pointer, "detail": gettext("Each alternative must be an object with at least "
                               "one filter."), "code": "invalid"})
                continue
            if adapter is not None:
                try:
                    cleaned.append(adapter.from_body(alternative, pointer=pointer, request=view.request,
                                                     queryset=model_rows))
                except ProblemException as problem:
                    errors.extend(problem.errors)
                continue
            raw = {}
            for name, value in alternative.items():
                if name not in filterset_class.filters:
                    accepted = ", ".join(filterset_class.filters)
                    errors.append({"pointer": f"{pointer}/{name}",
                                   "detail": gettext("Unknown filter. Accepted: {names}.").format(names=accepted),
                                   "code": "unknown"})
                elif isinstance(value, (dict, list)) or value is None:
                    errors.append({"pointer": f"{pointer}/{name}",
                                   "detail": gettext("{name} must be a string.").format(name=name), "code": "invalid"})
                else:
                    raw[name] = str(value).lower() if isinstance(value, bool) else str(value)
            try:
                cleaned.append(filterset_class(filterset_class.clean(raw, pointer=pointer)))
            except ProblemException as problem:
                errors.extend(problem.errors)
        if errors:
            raise _body_problem(errors)
        return cleaned, limit, cursor, sort


def _json_kind(value: Any) -> str:
    """How the client wrote ``value``, for a detail: ``the string "5"``, ``the number 5.0``."""
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return gettext("the string {text}").format(text=text if len(text) <= 40 else text[:40] + "...")
    if isinstance(value, bool):
        return gettext("the boolean {text}").format(text=str(value).lower())
    if isinstance(value, (int, float)):
        text = str(value)  # a JSONNumber's str() is the client's own spelling
        return gettext("the number {text}").format(text=text if len(text) <= 40 else text[:40] + "...")
    return gettext("an array") if isinstance(value, list) else gettext("an object")


def _body_problem(errors: list[ErrorItem]) -> ProblemException:
    detail = gettext("The search body breaks the rules of the filters.")
    return ProblemException("validation-error", detail, errors=errors)
