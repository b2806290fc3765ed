"""``POST <list>/search`` and ``QUERY <list>``: objects of the list's filters, ORed, answered as a
page of the list."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext
from django.views import View
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ..http import header_names
from ..problems import ErrorItem, ProblemException
from ..problems.parameters import invalid_parameters, parameter_error
from .drf import format_override, get_filterset_class, strict_filters


class SearchMixin:
    """``POST <list>/search`` with ``{"any": [filters, ...], "limit": n, "cursor": c}``.

    Each object of ``any`` uses the list's filter names (ANDed inside the object); the objects
    are ORed. Answers the list envelope; body errors are 422 problems with JSON Pointers. The
    ``limit`` and ``cursor`` members take the names of the paginator's query parameters
    (``limit_query_param``, ``cursor_query_param``), as the list's query string does; so does
    ``sort`` (``sort_query_param``) when the paginator declares sorts.

    The list's route also takes ``QUERY`` (RFC 10008) with the same body, run by the same
    ``search`` action: safe and idempotent, so never keyed nor stored. Django's CSRF check
    spares only GET, HEAD, OPTIONS and TRACE: a browser session sends its token with a QUERY as
    with a POST. Its responses say ``Accept-Query`` and list ``QUERY`` in ``Allow``.
    """

    search_max_alternatives = 20
    #: The media types a ``QUERY`` body may have, sent in ``Accept-Query`` by the list's route.
    accept_query = "application/json"
    http_method_names: Sequence[str] = [*View.http_method_names, "query"]

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        view: Any = self
        if _serves_query(view):
            # Per request, on the list's route only: a detail and the search's own route lack it.
            view.query = view.search
            if hasattr(view, "action_map"):
                view.action_map = {**view.action_map, "query": "search"}
        drf_request: Request = super().initialize_request(request, *args, **kwargs)  # type: ignore[misc]
        if request.method == "QUERY" and _serves_query(view):
            view.action = "search"  # a generic view has no action map: the filter backends read this
        return drf_request

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        if _serves_query(self) and self.accept_query:
            response[header_names.ACCEPT_QUERY] = self.accept_query
        finalized: Response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        return finalized

    @action(detail=False, methods=["post"], url_path="search")
    def search(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        view: Any = self
        paginator = view.paginator
        cursor, limit, *sort = paginator.get_query_parameter_names()
        _refuse_query_string(request, cursor, limit, sort)
        body = request.data
        if not isinstance(body, dict):
            detail = gettext("The body must be a JSON object.")
            raise _body_problem([{"pointer": "", "detail": detail, "code": "invalid"}])
        names = ("any", limit, cursor, *sort)
        detail = gettext("Unknown member. Accepted: {names}.").format(names=", ".join(names))
        errors: list[ErrorItem] = [
            {"pointer": f"/{name}", "detail": detail, "code": "unknown"} for name in body if name not in names
        ]
        alternatives = _read_alternatives(body, self.search_max_alternatives, errors)
        paging = {
            "limit": _read_limit(body, limit, errors),
            "cursor": _read_text(body, cursor, errors),
            "sort": _read_text(body, sort[0], errors) if sort else None,
        }
        alternatives = self._clean_alternatives(alternatives, errors)
        if errors:
            raise _body_problem(errors)
        # Through the filter backends: a backend that scopes rows (per tenant, say) scopes the
        # search too; StrictFilterBackend leaves the search action alone.
        from .filtersets import any_of  # valid alternatives were read: django-filter is installed

        queryset = any_of(alternatives, view.filter_queryset(view.get_queryset()))
        filters = {"any": [alternative.signature_data() for alternative in alternatives]}
        page = _paginate(paginator, queryset, request, view, filters=filters, **paging)
        response: Response = paginator.get_paginated_response(view.get_serializer(page, many=True).data)
        return response

    def _clean_alternatives(self, alternatives: list[Any], errors: list[ErrorItem]) -> list[Any]:
        """Each alternative validated by the view's FilterSet; ``errors`` gets what is wrong."""
        view: Any = self
        queryset = view.get_queryset()
        filters = strict_filters(view, get_filterset_class(view, queryset), queryset)
        cleaned = []
        for index, alternative in enumerate(alternatives):
            pointer = f"/any/{index}"
            if not isinstance(alternative, dict) or not alternative:
                detail = gettext("Each alternative must be an object with at least one filter.")
                errors.append({"pointer": pointer, "detail": detail, "code": "invalid"})
            elif filters is None:  # a view without filters: every member is unknown
                detail = gettext("Unknown filter. Accepted: {names}.").format(names="")
                errors.extend(
                    {"pointer": f"{pointer}/{name}", "detail": detail, "code": "unknown"} for name in alternative
                )
            else:
                try:
                    cleaned.append(
                        filters.from_body(alternative, pointer=pointer, request=view.request, queryset=queryset)
                    )
                except ProblemException as problem:
                    errors.extend(problem.errors)
        return cleaned


def _serves_query(view: Any) -> bool:
    """The list's route: a viewset's ``list`` (not a detail, not ``<list>/search``), a generic list view."""
    actions = getattr(view, "action_map", None)
    return hasattr(view, "list") and (actions is None or actions.get("get") == "list")


def _refuse_query_string(request: Request, cursor: str, limit: str, sort: list[str]) -> None:
    """A 400 naming each query parameter: the search reads its body (DRF's format override aside,
    which chooses the renderer, as everywhere)."""
    misplaced = [name for name in request.query_params if name not in format_override()]
    if not misplaced:
        return
    if sort:
        detail = gettext(
            "The search takes its filters, {limit}, {cursor} and {sort} from the body, not the query string."
        ).format(limit=limit, cursor=cursor, sort=sort[0])
    else:
        detail = gettext(
            "The search takes its filters, {limit} and {cursor} from the body, not the query string."
        ).format(limit=limit, cursor=cursor)
    raise invalid_parameters([parameter_error(name, detail, "unknown") for name in misplaced])


def _read_alternatives(body: dict[str, Any], maximum: int, errors: list[ErrorItem]) -> list[Any]:
    alternatives = body.get("any")
    if isinstance(alternatives, list) and 1 <= len(alternatives) <= maximum:
        return alternatives
    detail = gettext("any must be a list of 1 to {maximum} filter objects.").format(maximum=maximum)
    errors.append({"pointer": "/any", "detail": detail, "code": "invalid"})
    return []


def _read_limit(body: dict[str, Any], name: str, errors: list[ErrorItem]) -> Any:
    limit = body.get(name)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        # A JSON integer, as the schema says: "5", 5.0 or true would each be a guess.
        detail = gettext("{name} must be a JSON integer, not {kind}.").format(name=name, kind=_json_kind(limit))
        errors.append({"pointer": f"/{name}", "detail": detail, "code": "invalid"})
    return limit


def _read_text(body: dict[str, Any], name: str, errors: list[ErrorItem]) -> Any:
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        detail = gettext("{name} must be a string.").format(name=name)
        errors.append({"pointer": f"/{name}", "detail": detail, "code": "invalid"})
    return value


def _paginate(paginator: Any, queryset: QuerySet[Any], request: Request, view: Any, **paging: Any) -> Any:
    """The page of ``queryset``; a paging member the paginator refuses is a 422 pointing at it."""
    try:
        return paginator.paginate_queryset(queryset, request, view, **paging)
    except ProblemException as problem:
        if problem.problem_type.slug != "invalid-parameters":
            raise
        # The paginator names the query parameter; here it is the body member of that name.
        raise _body_problem(
            [
                {"pointer": f"/{item['parameter']}", "detail": item["detail"], "code": item["code"]}
                for item in problem.errors
                if "parameter" in item
            ]
        ) from None


def _json_kind(value: Any) -> str:
    """How the client wrote ``value``, for a detail: ``the string "5"``, ``the number 5.0``."""
    if isinstance(value, bool):
        return gettext("the boolean {text}").format(text=str(value).lower())
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, (int, float)):
        text = str(value)  # a JSONNumber's str() is the client's own spelling
    else:
        return gettext("an array") if isinstance(value, list) else gettext("an object")
    text = text if len(text) <= 40 else text[:40] + "..."
    return (gettext("the string {text}") if isinstance(value, str) else gettext("the number {text}")).format(text=text)


def _body_problem(errors: list[ErrorItem]) -> ProblemException:
    detail = gettext("The search body breaks the rules of the filters.")
    return ProblemException("validation-error", detail, errors=errors)
