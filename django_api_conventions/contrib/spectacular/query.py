"""``x-query``: the ``QUERY`` method (RFC 10008) of a collection, in an OpenAPI 3.0 document.

drf-spectacular writes OpenAPI 3.0 or 3.1, whose path items have no ``query`` operation (3.2
adds one). :class:`~django_api_conventions.pagination.SearchMixin` serves ``QUERY <list>`` with
the body of ``POST <list>/search``; each such collection's ``get`` operation carries that
operation as ``x-query``, shaped as 3.2's ``query`` would be, without the idempotency key and
replay headers (QUERY is never keyed). On the ``get``, not the path item: a tool that reads
every member of a path item as an operation stays right.
"""

from __future__ import annotations

import copy
from typing import Any

from ...http import header_names

_SEARCH_SUFFIX = "/search"
#: What only a keyed request is sent.
_REPLAY_HEADERS = (header_names.IDEMPOTENT_REPLAYED, header_names.CACHE_LOOKUP, header_names.IDEMPOTENCY_RETENTION)


def describe_query_operations(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with ``x-query`` on each collection that has a search; idempotent."""
    paths = schema.get("paths") or {}
    for path, item in paths.items():
        search = item.get("post") if path.endswith(_SEARCH_SUFFIX) else None
        collection = paths.get(path.removesuffix(_SEARCH_SUFFIX))
        if search is None or not _is_search(search) or not collection or "get" not in collection:
            continue
        query = copy.deepcopy(search)
        query.pop("x-idempotency", None)
        query["parameters"] = [
            parameter
            for parameter in query.get("parameters", [])
            if not (parameter.get("in") == "header" and parameter.get("name") == header_names.IDEMPOTENCY_KEY)
        ]
        for response in query.get("responses", {}).values():
            for name in _REPLAY_HEADERS:
                response.get("headers", {}).pop(name, None)
        query["operationId"] = f"{search.get('operationId', 'search').removesuffix('_search')}_query"
        query["summary"] = str(search.get("summary", "")).replace("Search", "Query", 1)
        query["description"] = (
            f"`QUERY {path.removesuffix(_SEARCH_SUFFIX)}` (RFC 10008) with the body of `POST {path}`, "
            "answering the same pages; safe and repeatable, never keyed."
        )
        collection["get"]["x-query"] = query
    return schema


def _is_search(operation: dict[str, Any]) -> bool:
    """The body of :class:`SearchMixin`: an object whose one required member is ``any``."""
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    return body.get("required") == ["any"] and "any" in body.get("properties", {})
