"""The OpenAPI pieces every operation shares: the problem, its error items, the package's headers."""

from __future__ import annotations

from typing import Any

from ...conf import api_settings
from ...http import header_names
from ...idempotency.keys import MAX_KEY_LENGTH
from .enums import extensible

#: RFC 6901: ``""`` (the whole body) or ``/``-separated tokens with ``~0`` and ``~1`` escapes.
JSON_POINTER_PATTERN = r"^(/([^~/]|~[01])*)*$"

ERROR_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "One field, parameter or header at fault; exactly one of pointer, parameter, header.",
    "required": ["detail", "code"],
    "properties": {
        "pointer": {
            "type": "string",
            "pattern": JSON_POINTER_PATTERN,
            "description": "JSON Pointer (RFC 6901) into the request body, such as `/items/0/amount`.",
        },
        "parameter": {"type": "string", "description": "Name of the query parameter."},
        "header": {"type": "string", "description": "Name of the request header."},
        "detail": {"type": "string", "description": "What is wrong, for a person."},
        "code": {"type": "string", "description": "What is wrong, for a program: `required`, `invalid`, `unknown`..."},
    },
}

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "RFC 9457 problem details. Extension members may be added by each problem type.",
    "required": ["type", "title", "status", "detail", "instance", "trace_id"],
    "properties": {
        "type": {
            "type": "string",
            "format": "uri",
            "description": "The problem type: a URL that answers with its documentation.",
        },
        "title": {"type": "string", "description": "The problem type's short summary; the same for every occurrence."},
        "status": {"type": "integer", "minimum": 400, "maximum": 599, "description": "The HTTP status code."},
        "detail": {"type": "string", "description": "This occurrence, for a person."},
        "instance": {"type": "string", "format": "uri", "description": "`urn:request:<trace_id>`."},
        "trace_id": {"type": "string", "description": "Quote it in support requests; also in the X-Request-ID header."},
        "errors": {"type": "array", "items": {"$ref": "#/components/schemas/ProblemErrorItem"}},
    },
    "additionalProperties": True,
}

COMPONENT_SCHEMAS: dict[str, dict[str, Any]] = {"Problem": PROBLEM_SCHEMA, "ProblemErrorItem": ERROR_ITEM_SCHEMA}

RETRY_AFTER_HEADER: dict[str, Any] = {
    "description": "Seconds to wait before trying again.",
    "schema": {"type": "integer", "minimum": 1},
}


def trace_id_response_header() -> dict[str, Any]:
    return {
        api_settings.TRACE_ID_HEADER: {
            "description": "The trace id of this request (also `trace_id` in problems); quote it in support requests.",
            "required": True,
            "schema": {"type": "string"},
        }
    }


def replay_headers() -> dict[str, Any]:
    return {
        header_names.IDEMPOTENT_REPLAYED: {
            "description": f"With an {header_names.IDEMPOTENCY_KEY}: `true` when this is the stored response "
            "of an earlier request with the same key, `false` on its first execution.",
            "schema": extensible({"type": "string", "enum": ["true", "false"]}),
        },
        header_names.CACHE_LOOKUP: {
            "description": "The same, for caches and proxies: `HIT` for a replay, `MISS` for a first execution.",
            "schema": extensible({"type": "string", "enum": ["HIT", "MISS"]}),
        },
        header_names.IDEMPOTENCY_RETENTION: {
            "description": f"With an {header_names.IDEMPOTENCY_KEY}, on an answer stored under it: how many "
            "more seconds the key is kept (its full retention on the first execution, the time "
            "left on a replay). Until then a retry replays this answer; after it, the key is "
            "forgotten and a retry would run the operation again.",
            "schema": {"type": "integer", "minimum": 0},
        },
    }


def idempotency_extension(*, required: bool) -> dict[str, Any]:
    """``x-idempotency`` on a keyed operation: what a client generator needs to send keys."""
    return {
        "header": header_names.IDEMPOTENCY_KEY,
        "required": required,
        "retentionSeconds": api_settings.IDEMPOTENCY_RETENTION_SECONDS,
        "replayHeaders": list(replay_headers()),
    }


# Exactly what idempotency/keys.py accepts: a bare key (visible ASCII without the comma that
# joins repeated headers, not opening with a quote), or an RFC 8941 sf-string whose content,
# unescaped, is 1 to MAX_KEY_LENGTH printable ASCII characters (\" and \\ the only escapes).
IDEMPOTENCY_KEY_PATTERN = (
    rf"^(?:[\x21\x23-\x2b\x2d-\x7e][\x21-\x2b\x2d-\x7e]{{0,{MAX_KEY_LENGTH - 1}}}"
    rf'|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\]){{1,{MAX_KEY_LENGTH}}}")$'
)
#: The longest header value: the quoted form of MAX_KEY_LENGTH escaped characters.
IDEMPOTENCY_KEY_MAX_LENGTH = 2 + 2 * MAX_KEY_LENGTH


def idempotency_key_parameter(*, required: bool) -> dict[str, Any]:
    return {
        "name": header_names.IDEMPOTENCY_KEY,
        "in": "header",
        "required": required,
        "description": (
            f"1 to {MAX_KEY_LENGTH} visible ASCII characters, unique per operation (a UUID v4, say); the "
            'RFC 8941 quoted form (`"abc"`) is accepted too. A retry with the same key, from the same '
            "client, with the same method, path and body, answers the stored response without running "
            "the operation again. Same key with another request: 422; while the first is running: 409. "
            f"A key is kept {_duration(api_settings.IDEMPOTENCY_RETENTION_SECONDS)} after its answer "
            f"({api_settings.IDEMPOTENCY_RETENTION_SECONDS} seconds; each stored answer says the time left in "
            f"`{header_names.IDEMPOTENCY_RETENTION}`); retry within that time."
            + (" Required here." if required else "")
        ),
        "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": IDEMPOTENCY_KEY_MAX_LENGTH,
            "pattern": IDEMPOTENCY_KEY_PATTERN,
        },
    }


def _duration(seconds: int) -> str:
    """``86400`` as ``24 hours``: in hours or minutes when whole, else in seconds."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} seconds"


def client_parameters() -> list[dict[str, Any]]:
    return [
        {
            "name": api_settings.TRACE_ID_HEADER,
            "in": "header",
            "required": False,
            "description": "Your id for this request, echoed in the response and in problems: 1 to 128 "
            "letters, digits, `.`, `_`, `:` or `-`, opening with a letter or digit (another value is "
            "replaced by a new id). A W3C `traceparent` is honoured too.",
            "schema": {"type": "string"},
        },
        {
            "name": header_names.CLIENT_ID,
            "in": "header",
            "required": False,
            "description": "Who is calling, when not authenticated: the scope of idempotency keys, throttling "
            "and usage reports. A label, not a credential: 1 to 128 letters, digits, `.`, `_`, `:`, "
            "`@` or `-`, opening with a letter or digit; another value counts as anonymous.",
            "schema": {"type": "string"},
        },
    ]
