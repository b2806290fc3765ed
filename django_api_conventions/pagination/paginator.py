"""``KeysetPagination``: newest first, an opaque signed cursor, one query per page, no COUNT."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db.models import Model, QuerySet
from django.utils.encoding import force_str
from django.utils.translation import gettext
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from .. import header_names
from ..conf import api_settings
from ..problems.parameters import invalid_parameters, parameter_error
from ..request_attributes import ACTIVE_FILTERS, get_state
from .cursors import Cursor, decode_cursor, encode_cursor, filters_signature
from .drf import format_override
from .keyset import keyset_predicate, order_by_expressions, position_of

#: A limit as the query string spells it; nine digits at most, so int() never reads a long string.
_LIMIT = re.compile(r"[1-9][0-9]{0,8}")


class KeysetPagination(BasePagination):
    """Subclass it and set ``ordering``; the primary key is appended when the ordering needs a
    unique tie-breaker. The envelope:

        {"data": [...], "pagination": {"next_cursor": "...", "has_next": true, "limit": 20}}

    As with DRF's pagination classes, a subclass may rename the query parameters
    (``cursor_query_param``, ``limit_query_param``: the names of DRF's ``CursorPagination`` and
    ``LimitOffsetPagination``) and set its own ``default_limit`` and ``max_limit``; ``None``
    reads the ``PAGINATION_DEFAULT_LIMIT`` / ``PAGINATION_MAX_LIMIT`` setting at request time.
    The filter backend, the strict query parameters and the search ask the paginator for the
    names (:meth:`get_query_parameter_names`).
    """

    ordering: Sequence[str] = ("-created_at", "-pk")
    cursor_query_param: str = "cursor"
    limit_query_param: str = "limit"
    default_limit: int | None = None
    max_limit: int | None = None

    def __init__(self) -> None:
        self.limit = 0
        self.next_cursor: str | None = None
        self.request: Request | None = None

    # --- the page ---------------------------------------------------------------------------

    def paginate_queryset(
        self,
        queryset: QuerySet[Any],
        request: Request,
        view: Any = None,
        *,
        limit: Any = None,
        cursor: str | None = None,
        filters: Any = None,
    ) -> list[Any]:
        """One page of ``queryset``: ``limit + 1`` rows fetched, no COUNT.

        ``limit``, ``cursor`` and ``filters`` (what the cursor is bound to) default to the query
        string and the filters a :class:`StrictFilterBackend` validated for this request.
        """
        self.request = request
        ordering = self.get_ordering(queryset.model)
        self.limit = self.parse_limit(request.query_params.get(self.limit_query_param) if limit is None else limit)
        if cursor is None:
            cursor = request.query_params.get(self.cursor_query_param)
        if filters is None:
            filters = get_state(request, ACTIVE_FILTERS)
        if filters is None:
            filters = self.unvalidated_filters(request)
        endpoint = endpoint_of(request)
        signature = filters_signature(filters)
        nullable = nullable_fields(queryset.model, ordering)
        queryset = queryset.order_by(*order_by_expressions(ordering, nullable))
        if cursor is not None:
            position = decode_cursor(
                cursor, ordering=ordering, endpoint=endpoint, filters=signature, parameter=self.cursor_query_param,
            ).position
            queryset = queryset.filter(keyset_predicate(ordering, position, nullable))
        rows = list(queryset[: self.limit + 1])
        page, has_next = rows[: self.limit], len(rows) > self.limit
        self.next_cursor = None
        if has_next:
            self.next_cursor = encode_cursor(Cursor(position_of(page[-1], ordering), ordering, endpoint, signature))
        return page

    def get_paginated_response(self, data: Any) -> Response:
        response = Response({"data": data, "pagination": {
            "next_cursor": self.next_cursor, "has_next": self.next_cursor is not None, "limit": self.limit,
        }})
        next_link = self.get_next_link()
        if next_link:
            response[header_names.LINK] = f'<{next_link}>; rel="{header_names.REL_NEXT}"'
        return response

    def get_next_link(self) -> str | None:
        if self.next_cursor is None or self.request is None or self.request.method != "GET":
            return None
        return replace_query_param(self.request.build_absolute_uri(), self.cursor_query_param, self.next_cursor)

    def unvalidated_filters(self, request: Request) -> dict[str, list[str]]:
        """What a cursor is bound to when no :class:`StrictFilterBackend` validated the filters
        (``DjangoFilterBackend``, ``SearchFilter``, a backend of your own): every query parameter
        but the paginator's and DRF's ``format``, as sent. A cursor replayed under other filters
        is then a 400, never a page of another list; check ``W040`` names such views."""
        own = {*self.get_query_parameter_names(), *format_override()}
        return {name: request.query_params.getlist(name) for name in sorted(request.query_params) if name not in own}

    # --- rules ------------------------------------------------------------------------------

    def get_query_parameter_names(self) -> tuple[str, str]:
        """The query parameters this paginator reads: the cursor's, then the limit's."""
        return (self.cursor_query_param, self.limit_query_param)

    def get_max_limit(self) -> int:
        # Read per request, never bound at import: override_settings and a changed setting apply.
        return api_settings.PAGINATION_MAX_LIMIT if self.max_limit is None else self.max_limit

    def get_default_limit(self) -> int:
        """The page size without a limit parameter, never above :meth:`get_max_limit`."""
        default = api_settings.PAGINATION_DEFAULT_LIMIT if self.default_limit is None else self.default_limit
        return min(default, self.get_max_limit())

    def parse_limit(self, raw: Any) -> int:
        maximum = self.get_max_limit()
        name = self.limit_query_param
        if raw is None:
            return self.get_default_limit()
        text = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else force_str(raw)
        # One spelling: ASCII digits, no sign, no leading zero, no white space to trim. int()
        # would also take " 5", "05", "+5", "5_0" and other scripts' digits (str.isdigit() "²").
        if isinstance(raw, bool) or not _LIMIT.fullmatch(text) or not 1 <= int(text) <= maximum:
            detail = gettext("{name} must be an integer from 1 to {maximum}.").format(name=name, maximum=maximum)
            plain = text.strip().lstrip("+").lstrip("0")
            if not isinstance(raw, bool) and _LIMIT.fullmatch(plain) and 1 <= int(plain) <= maximum:
                detail = gettext(
                    "{name} must be an integer from 1 to {maximum} in plain digits: {plain}, not {text}."
                ).format(name=name, maximum=maximum, plain=plain, text=repr(text))
            raise invalid_parameters([parameter_error(name, detail, "invalid")])
        return int(text)

    def get_ordering(self, model: type[Model]) -> tuple[str, ...]:
        """The configured ordering, with ``pk`` appended unless it already ends on a unique field
        that is not nullable (NULLs are not unique).

        A foreign key orders by its column (``user`` becomes ``user_id``), never by the related
        model's own ordering.
        """
        if not self.ordering:
            raise ImproperlyConfigured(f"{type(self).__name__}.ordering must name at least one field.")
        resolved = []
        for name in self.ordering:
            bare = name.lstrip("-")
            field = _field(model, bare)
            if field.get_internal_type() not in CURSOR_FIELD_TYPES and not field.is_relation:
                raise ImproperlyConfigured(
                    f"{type(self).__name__} cannot order by {bare!r}, a {field.get_internal_type()}: cursors "
                    f"hold {', '.join(sorted(CURSOR_FIELD_TYPES))}."
                )
            column = field.attname if field.is_relation and bare != "pk" else bare
            resolved.append(("-" if name.startswith("-") else "") + column)
        ordering = tuple(resolved)
        last = _field(model, ordering[-1].lstrip("-"))
        if not (last.primary_key or (last.unique and not last.null)):
            direction = "-" if ordering[-1].startswith("-") else ""
            ordering = (*ordering, f"{direction}pk")
        return ordering

    # --- OpenAPI (drf-spectacular and DRF's schema generators call these) --------------------

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        maximum = self.get_max_limit()
        return [
            {"name": self.cursor_query_param, "in": "query", "required": False,
             "description": "The next_cursor of the previous page, as it was received.",
             "schema": {"type": "string", "minLength": 1}},
            {"name": self.limit_query_param, "in": "query", "required": False,
             "description": f"Page size, 1 to {maximum}.",
             "schema": {"type": "integer", "minimum": 1, "maximum": maximum, "default": self.get_default_limit()}},
        ]

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["data", "pagination"],
            "properties": {
                "data": schema,
                "pagination": {
                    "type": "object",
                    "required": ["next_cursor", "has_next", "limit"],
                    "properties": {
                        "next_cursor": {"type": "string", "nullable": True},
                        "has_next": {"type": "boolean"},
                        "limit": {"type": "integer"},
                    },
                },
            },
        }


def nullable_fields(model: type[Model], ordering: Sequence[str]) -> frozenset[str]:
    """The columns of ``ordering`` that may hold NULL (their keyset predicate is NULL-safe)."""
    return frozenset(name.lstrip("-") for name in ordering if _field(model, name.lstrip("-")).null)


def endpoint_of(request: Request) -> str:
    """What a cursor is bound to: the list's view name and its path (so one invoice's payments
    do not take a cursor of another's)."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return request.path
    return f"{match.view_name}:{request.path}"


#: Field types whose values a cursor can hold exactly.
CURSOR_FIELD_TYPES = frozenset({
    "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField",
    "PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField", "CharField", "TextField",
    "SlugField", "EmailField", "DateTimeField", "DateField", "DecimalField", "UUIDField", "BooleanField",
    "FloatField",
})


def _field(model: type[Model], path: str) -> Any:
    if path == "pk":
        return model._meta.pk
    try:
        return model._meta.get_field(path)
    except FieldDoesNotExist:
        raise ImproperlyConfigured(f"{model.__name__} has no field {path!r} to order by.") from None
