"""drf-spectacular: the problem responses of keyset-paginated lists in the schema.

Set ``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] =
"django_api_conventions.contrib.spectacular.ProblemAutoSchema"``. The full integration (every
problem response, idempotency headers, deprecations, one schema per version) is yet to come.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

from ..pagination import KeysetPagination
from ..problems import PROBLEM_CONTENT_TYPE

ERROR_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["detail", "code"],
    "properties": {
        "pointer": {"type": "string", "description": "JSON Pointer (RFC 6901) into the request body."},
        "parameter": {"type": "string", "description": "Name of the query parameter."},
        "header": {"type": "string", "description": "Name of the request header."},
        "detail": {"type": "string"},
        "code": {"type": "string"},
    },
}

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "status", "detail", "instance", "trace_id"],
    "properties": {
        "type": {"type": "string", "format": "uri", "description": "Documentation of the problem type."},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "instance": {"type": "string", "format": "uri"},
        "trace_id": {"type": "string", "description": "Quote it in support requests."},
        "errors": {"type": "array", "items": ERROR_ITEM_SCHEMA},
    },
    "additionalProperties": True,
}


def problem_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM_CONTENT_TYPE: {"schema": PROBLEM_SCHEMA}}}


class ProblemAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus the 400 problem of every keyset-paginated list."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if self.method == "GET" and self._is_list_view() and isinstance(self._get_paginator(), KeysetPagination):
            responses.setdefault("400", problem_response(
                "`invalid-parameters`: an unknown, repeated or invalid query parameter or `limit`; "
                "`invalid-cursor`: a cursor this list did not issue, or issued for other filters."
            ))
        return responses
