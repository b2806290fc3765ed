"""``KeysetPagination``: opaque signed cursors both ways, one query per page, no COUNT unless asked."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Model, QuerySet
from django.utils.encoding import force_str
from django.utils.translation import gettext
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from ..conf import api_settings
from ..http import header_names
from ..http.request_attributes import ACTIVE_FILTERS, get_state
from ..problems.parameters import invalid_parameters, parameter_error
from .counts import COUNT_MODES, Total, count_rows
from .cursors import CURSOR_SALT, NEXT, PREVIOUS, Cursor, decode_cursor, encode_cursor, filters_signature
from .drf import format_override
from .keyset import filter_after, order_by_expressions, position_of, transform_annotations
from .orderings import nullable_fields, resolve_ordering

__all__ = ["KeysetPagination"]

#: A limit as the query string spells it; nine digits at most, so int() never reads a long string.
_LIMIT = re.compile(r"[1-9][0-9]{0,8}")


class KeysetPagination(BasePagination):
    """Subclass it and set ``ordering``, or declare the ``sorts`` clients may choose; the primary
    key is appended when an ordering needs a unique tie-breaker. The envelope:

        {"data": [...], "pagination": {"next_cursor": "...", "has_next": true,
                                       "previous_cursor": null, "has_previous": false, "limit": 20}}

    As with DRF's pagination classes, a subclass may rename the query parameters
    (``cursor_query_param``, ``limit_query_param``, ``sort_query_param``) and set its own
    ``default_limit`` and ``max_limit``; ``None`` reads the ``PAGINATION_DEFAULT_LIMIT`` /
    ``PAGINATION_MAX_LIMIT`` setting at request time.

    ``sorts`` maps each ``sort`` value clients may send to its fields (``{"-amount_due":
    ("-amount_due",)}``; a transform such as ``"created_at__year"`` too); ``default_sort`` (by
    default the first) applies without the parameter. ``count``: ``None`` (no total),
    ``"capped"`` or ``"estimate"`` (see :mod:`.counts`), on the first page of a walk only.
    """

    ordering: Sequence[str] = ("-created_at", "-pk")
    sorts: Mapping[str, Sequence[str]] | None = None
    default_sort: str | None = None
    cursor_query_param: str = "cursor"
    limit_query_param: str = "limit"
    sort_query_param: str = "sort"
    default_limit: int | None = None
    max_limit: int | None = None
    count: str | None = None
    count_cap: int = 10_000
    #: Salt of the cursor signatures (with ``SECRET_KEY``): a new one invalidates every cursor
    #: this paginator handed out (they then answer 400 ``invalid-cursor``).
    cursor_salt: str = CURSOR_SALT

    def __init__(self) -> None:
        self.limit = 0
        self.next_cursor: str | None = None
        self.previous_cursor: str | None = None
        self.has_previous = False
        self.total: Total | None = None
        self.request: Request | None = None

    # --- the page ---------------------------------------------------------------------------

    def paginate_queryset(  # type: ignore[override]  # keyset pagination needs a QuerySet
        self,
        queryset: QuerySet[Any],
        request: Request,
        view: Any = None,
        *,
        limit: Any = None,
        cursor: str | None = None,
        filters: Any = None,
        sort: Any = None,
    ) -> list[Any]:
        """One page of ``queryset``. ``limit``, ``cursor``, ``sort`` and ``filters`` (what the
        cursors are bound to) default to the query string and the filters a
        :class:`StrictFilterBackend` validated for this request."""
        self.request = request
        params = request.query_params
        self.limit = self.parse_limit(params.get(self.limit_query_param) if limit is None else limit)
        chosen = self.parse_sort(params.get(self.sort_query_param) if sort is None else sort)
        ordering = self.get_ordering(queryset.model, sort=chosen)
        signature = filters_signature(self._cursor_filters(request, filters))
        bound = Cursor((), ordering, _endpoint_of(request), signature, sort=chosen)
        if cursor is None:
            cursor = params.get(self.cursor_query_param)
        came_from = None if cursor is None else self._decode(cursor, bound)
        self.total = None
        if came_from is None and self.count is not None:
            self.total = count_rows(queryset, self.count, self.count_cap)
        page, more = self._fetch(queryset, ordering, came_from)
        self._set_cursors(bound, came_from, page, more)
        return page

    def _set_cursors(self, bound: Cursor, came_from: Cursor | None, page: list[Any], more: bool) -> None:
        backward = came_from is not None and came_from.backward
        # The row at a cursor existed when the cursor was issued: the side it came from has rows
        # (or had them: DRF's semantics too). The side it leads to has rows if the extra row came.
        self.has_previous = came_from is not None and (more or not backward)
        if came_from is not None:
            bound = replace(bound, position=came_from.position)
        self.next_cursor = self._issue(bound, NEXT, page[-1] if page else None) if more or backward else None
        self.previous_cursor = self._issue(bound, PREVIOUS, page[0] if page else None) if self.has_previous else None

    def _cursor_filters(self, request: Request, filters: Any) -> Any:
        """What the page's cursors are bound to: ``filters`` if given, else what the strict
        backend validated, else :meth:`unvalidated_filters`."""
        if filters is None:
            filters = get_state(request, ACTIVE_FILTERS)
        return self.unvalidated_filters(request) if filters is None else filters

    def _decode(self, token: str, bound: Cursor) -> Cursor:
        return decode_cursor(
            token,
            ordering=bound.ordering,
            endpoint=bound.endpoint,
            filters=bound.filters,
            parameter=self.cursor_query_param,
            sort=bound.sort,
            salt=self.cursor_salt,
        )

    def _fetch(
        self, queryset: QuerySet[Any], ordering: tuple[str, ...], came_from: Cursor | None
    ) -> tuple[list[Any], bool]:
        """The page's rows in the list's order, and whether the ``limit + 1``-th row came."""
        nullable = nullable_fields(queryset.model, ordering)
        backward = came_from is not None and came_from.backward
        selected = transform_annotations(ordering)
        if selected:  # a transform's value, read back into the cursor; else no clone for nothing
            queryset = queryset.annotate(**selected)
        queryset = queryset.order_by(*order_by_expressions(ordering, nullable, backward=backward))
        if came_from is not None:  # order_by() cloned the queryset: the condition goes into that clone
            queryset = filter_after(
                queryset, ordering, came_from.position, nullable, backward=backward, inclusive=came_from.inclusive
            )
        rows = list(queryset[: self.limit + 1])
        page = rows[: self.limit]
        if backward:
            page.reverse()  # fetched nearest first; served in the list's order
        return page, len(rows) > self.limit

    def _issue(self, bound: Cursor, direction: str, row: Any) -> str:
        """The cursor after (or before) ``row``; an empty page's leads on from its own position,
        the cursor that led to it, which ``bound`` holds."""
        if row is None:
            cursor = replace(bound, direction=direction, inclusive=True)
        else:
            cursor = replace(bound, position=position_of(row, bound.ordering), direction=direction)
        return encode_cursor(cursor, salt=self.cursor_salt)

    def get_paginated_response(self, data: Any) -> Response:
        pagination: dict[str, Any] = {
            "next_cursor": self.next_cursor,
            "has_next": self.next_cursor is not None,
            "previous_cursor": self.previous_cursor,
            "has_previous": self.previous_cursor is not None,
            "limit": self.limit,
        }
        if self.total is not None:
            pagination.update(self.total.as_members())
        response = Response({"data": data, "pagination": pagination})
        links = [
            f'<{url}>; rel="{rel}"'
            for url, rel in (
                (self.get_next_link(), header_names.REL_NEXT),
                (self.get_previous_link(), header_names.REL_PREV),
            )
            if url
        ]
        if links:
            response[header_names.LINK] = ", ".join(links)
        return response

    def get_next_link(self) -> str | None:
        return self._link(self.next_cursor)

    def get_previous_link(self) -> str | None:
        return self._link(self.previous_cursor)

    def _link(self, cursor: str | None) -> str | None:
        if cursor is None or self.request is None or self.request.method != "GET":
            return None
        return replace_query_param(self.request.build_absolute_uri(), self.cursor_query_param, cursor)

    def unvalidated_filters(self, request: Request) -> dict[str, list[str]]:
        """What a cursor is bound to when no :class:`StrictFilterBackend` validated the filters:
        every query parameter but the paginator's and DRF's ``format``, as sent (check ``W040``)."""
        own = {*self.get_query_parameter_names(), *format_override()}
        return {name: request.query_params.getlist(name) for name in sorted(request.query_params) if name not in own}

    # --- rules ------------------------------------------------------------------------------

    def get_query_parameter_names(self) -> tuple[str, ...]:
        """The query parameters this paginator reads: the cursor's, the limit's, and the sort's
        when it declares :attr:`sorts`."""
        names = (self.cursor_query_param, self.limit_query_param)
        return (*names, self.sort_query_param) if self.get_sorts() else names

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

    def get_sorts(self) -> Mapping[str, Sequence[str]]:
        """The sorts clients may choose, ``sort`` value to fields; empty: the fixed :attr:`ordering`."""
        return self.sorts or {}

    def get_default_sort(self) -> str | None:
        """The sort without a ``sort`` parameter: :attr:`default_sort`, else the first declared."""
        sorts = self.get_sorts()
        if not sorts:
            return None
        default = self.default_sort if self.default_sort is not None else next(iter(sorts))
        if default not in sorts:
            raise ImproperlyConfigured(
                f"{type(self).__name__}.default_sort {default!r} is not one of its sorts: {', '.join(sorts)}."
            )
        return default

    def parse_sort(self, raw: Any) -> str | None:
        """The declared sort ``raw`` names (the default when ``None``); else a 400 naming the
        parameter and listing the choices. ``None`` when the paginator declares no sorts."""
        sorts = self.get_sorts()
        if not sorts:
            return None
        if raw is None:
            return self.get_default_sort()
        if not isinstance(raw, str) or raw not in sorts:
            name = self.sort_query_param
            detail = gettext("{name} must be one of: {values}.").format(name=name, values=", ".join(sorts))
            raise invalid_parameters([parameter_error(name, detail, "invalid")])
        return raw

    def get_ordering(self, model: type[Model], sort: str | None = None) -> tuple[str, ...]:
        """The ordering of ``sort`` (one of :attr:`sorts`), else :attr:`ordering`, with ``pk``
        appended unless it ends on a unique field that is not nullable; a foreign key orders by
        its column (``user`` becomes ``user_id``)."""
        owner = type(self).__name__
        if sort is None:
            return resolve_ordering(owner, model, self.ordering)
        return resolve_ordering(f"{owner}.sorts[{sort!r}]", model, self.get_sorts()[sort])

    def get_orderings(self, model: type[Model]) -> dict[str | None, tuple[str, ...]]:
        """Every ordering this paginator may serve, by sort (``None``: the fixed :attr:`ordering`);
        ``ImproperlyConfigured`` for a sort, a default or a ``count`` it cannot serve (check E013)."""
        if self.count is not None and self.count not in COUNT_MODES:
            raise ImproperlyConfigured(
                f"{type(self).__name__}.count must be None or one of {', '.join(COUNT_MODES)}, not {self.count!r}."
            )
        if isinstance(self.count_cap, bool) or not isinstance(self.count_cap, int) or self.count_cap < 1:
            raise ImproperlyConfigured(f"{type(self).__name__}.count_cap must be a positive integer.")
        if not self.get_sorts():
            return {None: self.get_ordering(model)}
        self.get_default_sort()
        return {sort: self.get_ordering(model, sort) for sort in self.get_sorts()}

    # --- OpenAPI (drf-spectacular and DRF's schema generators call these) --------------------

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        maximum = self.get_max_limit()
        described = [
            (
                self.cursor_query_param,
                "The next_cursor or previous_cursor of the page you are on, as it was received.",
                {"type": "string", "minLength": 1},
            ),
            (
                self.limit_query_param,
                f"Page size, 1 to {maximum}.",
                {"type": "integer", "minimum": 1, "maximum": maximum, "default": self.get_default_limit()},
            ),
        ]
        if self.get_sorts():
            sort = (
                "The order of the list: a field, descending with `-`; ties are broken by the "
                "identifier in the same direction. A cursor keeps the sort it was issued for."
            )
            described.append((self.sort_query_param, sort, self.sort_schema()))
        return [
            {"name": name, "in": "query", "required": False, "description": description, "schema": schema}
            for name, description, schema in described
        ]

    def sort_schema(self) -> dict[str, Any]:
        """The OpenAPI schema of the ``sort`` value: the declared sorts, a closed enum."""
        return {"type": "string", "enum": list(self.get_sorts()), "default": self.get_default_sort()}

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        cursor = "Send it back as the cursor parameter to get the {} page; null when there is none."
        properties: dict[str, Any] = {
            "next_cursor": {"type": "string", "nullable": True, "description": cursor.format("next")},
            "has_next": {"type": "boolean", "description": "Whether next_cursor is not null."},
            "previous_cursor": {"type": "string", "nullable": True, "description": cursor.format("previous")},
            "has_previous": {"type": "boolean", "description": "Whether previous_cursor is not null."},
            "limit": {"type": "integer"},
        }
        if self.count is not None:
            properties.update(
                {
                    "total": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "The number of items of the whole list; on its first page only.",
                    },
                    "total_is_lower_bound": {
                        "type": "boolean",
                        "description": "The list holds at least total items, perhaps more.",
                    },
                    "total_is_estimate": {"type": "boolean", "description": "total is the database's estimate."},
                }
            )
        return {
            "type": "object",
            "required": ["data", "pagination"],
            "properties": {
                "data": schema,
                "pagination": {
                    "type": "object",
                    "required": ["next_cursor", "has_next", "previous_cursor", "has_previous", "limit"],
                    "properties": properties,
                },
            },
        }


def _endpoint_of(request: Request) -> str:
    """What a cursor is bound to: the list's view name and its path (one invoice's payments, not another's)."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return request.path
    if request.method == "QUERY" and match.view_name.endswith("-list"):
        # QUERY <list> is the search of SearchMixin: bound to its route, a cursor pages either method.
        search = f"{request.path}search/" if request.path.endswith("/") else f"{request.path}/search"
        return f"{match.view_name.removesuffix('-list')}-search:{search}"
    return f"{match.view_name}:{request.path}"
