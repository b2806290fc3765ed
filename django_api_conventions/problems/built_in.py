"""The package's own problem types: what each one means, how a client fixes it, what it carries.

Each text is in the Markdown of :mod:`.markdown`, translated lazily into the request's language.
"""

from __future__ import annotations

import dataclasses

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from ..http import header_names
from .types import ProblemField, ProblemType, problem_types

_ERRORS_POINTER = ProblemField(
    "errors",
    _("One item per broken rule: `pointer` (a JSON Pointer to the member of the request body), `detail` and `code`."),
    [{"pointer": "/email", "detail": _("Enter a valid email address."), "code": "invalid"}],
)
_ERRORS_PARAMETER = ProblemField(
    "errors",
    _(
        "One item per query parameter at fault: `parameter` (its name), `detail` and `code` (`unknown`, "
        "`repeated` or `invalid`)."
    ),
    [{"parameter": "colour", "detail": _("Unknown parameter. Accepted: limit, cursor."), "code": "unknown"}],
)
_ERRORS_HEADER = ProblemField(
    "errors",
    _("One item per header at fault: `header` (its name), `detail` and `code`."),
    [{"header": header_names.IDEMPOTENCY_KEY, "detail": _("This header is required."), "code": "required"}],
)
_LIMIT_BYTES = ProblemField("limit_bytes", _("The largest size the service accepts, in bytes."), 2621440)
_MIGRATION_GUIDE = ProblemField(
    "migration_guide", _("The URL of the guide to what replaces it."), "https://api.example.com/docs/migrating-to-v2"
)
_RETRY_AFTER = ProblemField(
    header_names.RETRY_AFTER, _("How many seconds to wait before sending the request again."), "2"
)
_RETIRED_HEADERS = (
    ProblemField(
        header_names.SUNSET, _("When it was retired (RFC 8594), an HTTP date."), "Thu, 01 Jan 2026 00:00:00 GMT"
    ),
    ProblemField(
        header_names.LINK,
        _('The migration guide, with `rel="deprecation"` and `rel="sunset"`.'),
        '<https://api.example.com/docs/migrating-to-v2>; rel="sunset"',
    ),
)

#: The idempotency layer's problems on a keyed request, with ``retryable``: whether the same request with
#: the same key can still succeed (after Retry-After); they carry ``Cache-Control: no-store`` too.
RETRYABLE_WITH_SAME_KEY = {
    "idempotency-key-in-use": True,
    "idempotency-lease-expired": True,
    "idempotency-store-unavailable": True,
    "idempotency-key-reused": False,
    "idempotency-response-too-large": False,
    "idempotency-not-supported": False,
}
_RETRYABLE = _(
    "`true`: the same request with the same key can still succeed (after Retry-After, when given); "
    "`false`: it cannot under this key: correct the request, or use a new key."
)
_NO_STORE = ProblemField(
    header_names.CACHE_CONTROL,
    _("`no-store`: the answer is about this moment of the key; no cache keeps it."),
    "no-store",
)
_SAME_KEY_WORKS = _(
    "`retryable` is `true`: the same request with the same key can still succeed. `Cache-Control: no-store`: "
    "no cache keeps this answer, so the retry reaches the service."
)
_SAME_KEY_FAILS = _(
    "`retryable` is `false`: the same request with this key will not succeed. `Cache-Control: no-store`: no "
    "cache keeps this answer."
)
_RETRY_LATER = _("Wait for the seconds given in the Retry-After header, then send the request again, unchanged.")

BUILT_IN: list[ProblemType] = [
    ProblemType(
        "bad-request",
        _("Bad request"),
        400,
        _("The request could not be understood. `detail` says what was wrong."),
        fix=_(
            "Correct what `detail` names and send the request again. When `errors` is present, each item names "
            "the header at fault."
        ),
        members=(
            ProblemField(
                "errors",
                _("Present when a header is at fault: one item per header, with `header`, `detail` and `code`."),
                [{"header": header_names.CLIENT_ID, "detail": _("NUL characters are not allowed."), "code": "invalid"}],
            ),
        ),
        example_detail=_("The X-Client-ID header holds a NUL character."),
    ),
    ProblemType(
        "malformed-request",
        _("Malformed request body"),
        400,
        _(
            "The body is not valid for its Content-Type: malformed, truncated or too deeply nested JSON, duplicate "
            "object keys, or text that is not UTF-8."
        ),
        fix=_(
            "Serialize the body with a JSON library rather than by hand, send it whole, encoded as UTF-8, with "
            "each key once, and send it again. `detail` says where the parser stopped."
        ),
        example_detail=_("JSON parse error - Expecting ',' delimiter: line 1 column 18 (char 17)"),
    ),
    ProblemType(
        "invalid-parameters",
        _("Invalid query parameters"),
        400,
        _("A query parameter is unknown, repeated or has an invalid value. `errors` names each parameter."),
        fix=_(
            "Send only the parameters the operation declares (the API documentation lists them), each once, with "
            "a valid value. A misspelt parameter is refused rather than ignored, so that a filter is never "
            "silently dropped."
        ),
        members=(_ERRORS_PARAMETER,),
        example_detail=_("Invalid query parameters: colour."),
    ),
    ProblemType(
        "invalid-host",
        _("Invalid Host header"),
        400,
        _("The Host header names a host this service does not serve, or a port that is not a number from 1 to 65535."),
        fix=_(
            "Send the request to the service's own host name (your HTTP client sets the Host header from the "
            "URL), with no port or a port from 1 to 65535."
        ),
        example_detail=_("The Host header names a host this service does not serve."),
    ),
    ProblemType(
        "too-many-fields",
        _("Too many fields"),
        400,
        _(
            "The query string or form body has more fields (DATA_UPLOAD_MAX_NUMBER_FIELDS) or more files "
            "(DATA_UPLOAD_MAX_NUMBER_FILES) than the service accepts."
        ),
        fix=_("Send fewer fields: put long lists of criteria in a JSON request body instead of the query string."),
        example_detail=_("The request has more than 1000 fields."),
    ),
    ProblemType(
        "unreadable-request",
        _("Unreadable request body"),
        400,
        _("The connection failed while the request body was being read."),
        fix=_("Send the request again, with the same Idempotency-Key if it changes state."),
        example_detail=_("The request body could not be read."),
    ),
    ProblemType(
        "invalid-cursor",
        _("Invalid cursor"),
        400,
        _(
            "The cursor was not issued by this service for this list, was altered, or was issued for other "
            "filters, another sort or another ordering."
        ),
        fix=_(
            "Treat cursors as opaque: pass `next_cursor` or `previous_cursor` back unchanged, with the same "
            "filters and sort as the page that gave it. Or start again from the first page, without a cursor."
        ),
        members=(
            ProblemField(
                "errors",
                _("One item naming the `parameter` that holds the cursor, with `detail` and `code`."),
                [{"parameter": "cursor", "detail": _("The cursor was issued for other filters."), "code": "invalid"}],
            ),
        ),
        example_detail=_("The cursor was issued for other filters."),
    ),
    ProblemType(
        "authentication-required",
        _("Authentication required"),
        401,
        _("The request carries no valid credentials. The WWW-Authenticate header says how to authenticate."),
        fix=_(
            "Send credentials in the Authorization header, in the scheme the WWW-Authenticate header names. If "
            "you did, they are wrong or expired: check them, do not retry unchanged."
        ),
        headers=(
            ProblemField(
                header_names.WWW_AUTHENTICATE,
                _("The authentication scheme the service expects (RFC 9110)."),
                'Basic realm="api"',
            ),
        ),
        example_detail=_("Authentication credentials were not provided."),
    ),
    ProblemType(
        "permission-denied",
        _("Permission denied"),
        403,
        _("The authenticated client may not perform this operation."),
        fix=_(
            "Sending the request again will not help: authenticate as a client that holds the permission, or "
            "ask the service's owner for it."
        ),
        example_detail=_("You do not have permission to perform this action."),
    ),
    ProblemType(
        "csrf-failed",
        _("CSRF verification failed"),
        403,
        _(
            "A browser session request arrived without a valid CSRF token. API clients that authenticate with a "
            "token are not subject to this check."
        ),
        fix=_(
            "From a browser session, send the CSRF token (the `csrftoken` cookie) in the X-CSRFToken header. "
            "From a program, authenticate with credentials rather than a session cookie."
        ),
        example_detail=_("CSRF verification failed: send the CSRF token with the request."),
    ),
    ProblemType(
        "not-found",
        _("Not found"),
        404,
        _("No resource exists at this URL, or it is not visible to this client."),
        fix=_(
            "Check the path against the API documentation: paths have no trailing slash, and `detail` suggests "
            "the right one when only the slash differs. For a resource you created, check its id."
        ),
        members=(
            ProblemField(
                "versions",
                _("Only when the path names an API version that does not exist: the versions served."),
                ["v1", "v2"],
            ),
        ),
        example_detail=_("No resource matches GET /v2/users/. Did you mean /v2/users?"),
    ),
    ProblemType(
        "method-not-allowed",
        _("Method not allowed"),
        405,
        _("The resource does not support this HTTP method. The Allow header lists those it does."),
        fix=_("Use one of the methods the Allow header lists."),
        headers=(ProblemField("Allow", _("The methods the resource supports."), "GET, POST, HEAD, OPTIONS"),),
        example_detail=_('Method "PUT" not allowed.'),
    ),
    ProblemType(
        "not-acceptable",
        _("Not acceptable"),
        406,
        _("The service cannot answer in any media type the Accept header allows."),
        fix=_("Accept application/json (or leave the Accept header out)."),
        example_detail=_("Could not satisfy the request Accept header."),
    ),
    ProblemType(
        "conflict",
        _("Conflict"),
        409,
        _(
            "The request conflicts with the current state of the resource, for example another record already holds "
            "a value that must be unique (a request racing with another one for the same new value): `errors` "
            "points at the field."
        ),
        fix=_(
            "Retry after the seconds given in the Retry-After header, when present, to get the definitive "
            "answer; otherwise read the resource's current state and change the request accordingly."
        ),
        members=(
            ProblemField(
                "errors",
                _("For a uniqueness rule: one item per field, with `pointer`, `detail` and `code` `unique`."),
                [{"pointer": "/email", "detail": _("A record with this value already exists."), "code": "unique"}],
            ),
        ),
        headers=(_RETRY_AFTER,),
        example_detail=_("The request conflicts with an existing record: another one has the same email."),
    ),
    ProblemType(
        "gone",
        _("Gone"),
        410,
        _("The resource is no longer available and will not be again."),
        fix=_("Do not retry: remove the reference to this resource from your client."),
        example_detail=_("This invoice was deleted."),
    ),
    ProblemType(
        "version-retired",
        _("API version retired"),
        410,
        _(
            "This version of the API has passed its sunset and answers no more requests. `migration_guide` links "
            "the guide to a version that is served; `version` names the retired one."
        ),
        fix=_(
            "Move to a served version: follow the guide `migration_guide` links. Requests to the retired "
            "version will never succeed again."
        ),
        members=(
            ProblemField("version", _("The retired version."), "v0"),
            _MIGRATION_GUIDE,
        ),
        headers=_RETIRED_HEADERS,
        example_detail=_(
            "API version v0 was retired on 2026-01-01; see the migration guide at "
            "https://api.example.com/docs/migrating-to-v2."
        ),
    ),
    ProblemType(
        "endpoint-retired",
        _("Endpoint retired"),
        410,
        _(
            "This endpoint (or this method of it) has passed its sunset and answers no more requests. "
            "`migration_guide` links the guide to what replaces it."
        ),
        fix=_("Use what replaces the endpoint: follow the guide `migration_guide` links."),
        members=(_MIGRATION_GUIDE,),
        headers=_RETIRED_HEADERS,
        example_detail=_("The endpoint GET /v1/reports was retired on 2026-01-01."),
    ),
    ProblemType(
        "length-required",
        _("Content-Length required"),
        411,
        _(
            "The request has a body (Transfer-Encoding) but no Content-Length header: chunked request bodies are "
            "not accepted."
        ),
        fix=_(
            "Send the body with a Content-Length header: most HTTP clients do when given the whole body rather "
            "than a stream."
        ),
        example_detail=_(
            "Send the body with a Content-Length header: this service does not accept chunked request bodies."
        ),
    ),
    ProblemType(
        "request-too-large",
        _("Request body too large"),
        413,
        _("The request body is larger than the service accepts. `limit_bytes` gives the limit."),
        fix=_("Send a body of at most `limit_bytes` bytes: split a batch into several requests."),
        members=(_LIMIT_BYTES,),
        example_detail=_("The request body exceeds the limit of 2621440 bytes."),
    ),
    ProblemType(
        "uri-too-long",
        _("Request target too long"),
        414,
        _(
            "The request line (path and query string) is longer than the service accepts; `limit_bytes` gives the "
            "limit."
        ),
        fix=_(
            "Send long criteria in the body of a request instead (a search operation), or shorten the query "
            "string to at most `limit_bytes` bytes."
        ),
        members=(ProblemField("limit_bytes", _("The longest request line the service accepts, in bytes."), 8190),),
        example_detail=_("The request line is longer than the 8190 bytes the service accepts."),
    ),
    ProblemType(
        "unsupported-media-type",
        _("Unsupported media type"),
        415,
        _("The Content-Type of the body is not one the endpoint accepts."),
        fix=_("Send the body as JSON with `Content-Type: application/json`."),
        example_detail=_('Unsupported media type "text/plain" in request.'),
    ),
    ProblemType(
        "validation-error",
        _("Validation failed"),
        422,
        _(
            "The body is well-formed but breaks the rules of the resource. `errors` lists each problem with a JSON "
            "Pointer to the offending member."
        ),
        fix=_(
            "Correct each member an `errors` item points at, as its `detail` says, and send the request again. "
            "With an Idempotency-Key, the corrected request is a new operation: use a new key."
        ),
        members=(_ERRORS_POINTER,),
        example_detail=_("The request breaks the rules of the resource."),
    ),
    ProblemType(
        "rate-limited",
        _("Too many requests"),
        429,
        _("The client sent more requests than its rate allows."),
        fix=_(
            "Wait for the seconds given in the Retry-After header before the next request, and spread your "
            "requests over time."
        ),
        headers=(_RETRY_AFTER,),
        example_detail=_("Request was throttled. Expected available in 2 seconds."),
    ),
    ProblemType(
        "request-headers-too-large",
        _("Request header fields too large"),
        431,
        _("A request header line, or all of them together, is larger than the service accepts."),
        fix=_("Send fewer or shorter headers: large cookies are the usual cause."),
        example_detail=_("A header line is longer than the 8190 bytes the service accepts."),
    ),
    ProblemType(
        "idempotency-key-missing",
        _("Idempotency-Key required"),
        400,
        _(
            "This endpoint changes state and requires an Idempotency-Key header: a unique string of 1 to 255 visible "
            "ASCII characters chosen by the client for each operation, sent again unchanged on every retry of that "
            "operation."
        ),
        fix=_(
            "Generate a key per operation (a UUID is a good one), send it in the Idempotency-Key header, and keep "
            "it to send again with every retry of that operation."
        ),
        members=(_ERRORS_HEADER,),
        example_detail=_("This endpoint requires an Idempotency-Key header."),
    ),
    ProblemType(
        "idempotency-key-invalid",
        _("Invalid Idempotency-Key"),
        400,
        _(
            "The Idempotency-Key header must appear once and hold 1 to 255 visible ASCII characters without commas, "
            "or an RFC 8941 quoted string."
        ),
        fix=_("Send the header once, with 1 to 255 visible ASCII characters and no comma (a UUID fits)."),
        members=(
            ProblemField(
                "errors",
                _("One item naming the `header`, with `detail` and `code`."),
                [
                    {
                        "header": header_names.IDEMPOTENCY_KEY,
                        "detail": _("The Idempotency-Key header is invalid: it is empty."),
                        "code": "invalid",
                    }
                ],
            ),
        ),
        example_detail=_("The Idempotency-Key header is invalid: it is empty."),
    ),
    ProblemType(
        "idempotency-key-in-use",
        _("Request with this Idempotency-Key in progress"),
        409,
        _("An earlier request with the same key is still being processed."),
        fix=_(
            "Retry after the seconds given in the Retry-After header, with the same key and the same request: "
            "you will get the result of the first one."
        ),
        headers=(_RETRY_AFTER,),
        example_detail=_("A request with this Idempotency-Key is still being processed."),
    ),
    ProblemType(
        "idempotency-lease-expired",
        _("Idempotency-Key lease expired"),
        409,
        _(
            "The request ran longer than its lease and another attempt with the same key took over; this attempt "
            "was rolled back."
        ),
        fix=_(
            "Retry with the same key after the seconds given in the Retry-After header: you will get the result "
            "of the attempt that took over."
        ),
        headers=(_RETRY_AFTER,),
        example_detail=_(
            "This request outlived its lease and another request with the same key took over; its "
            "changes were rolled back."
        ),
    ),
    ProblemType(
        "idempotency-key-reused",
        _("Idempotency-Key reused with another request"),
        422,
        _("The key was first used with another method, path, query or body."),
        fix=_(
            "Use a new key for a new operation; to retry an operation, resend exactly the same request with its "
            "key. Key order and white space of a JSON body do not matter."
        ),
        example_detail=_("This Idempotency-Key was used with another method, path, query or body."),
    ),
    ProblemType(
        "idempotency-response-too-large",
        _("Stored response too large"),
        410,
        _(
            "The first request with this Idempotency-Key ran, once, but its response was larger than the service "
            "stores (IDEMPOTENCY_MAX_STORED_BODY_BYTES), so it cannot be replayed."
        ),
        fix=_(
            "Do not send the operation again under a new key: read its result instead, at the Location header "
            "when present."
        ),
        members=(ProblemField("original_status", _("The status the first request answered."), 201),),
        headers=(
            ProblemField(
                "Location", _("The resource the first request created, when it created one."), "/v2/invoices/inv_42"
            ),
        ),
        example_detail=_(
            "The request with this Idempotency-Key ran once and answered 201, but its response "
            "was too large to be kept for replay."
        ),
    ),
    ProblemType(
        "idempotency-not-supported",
        _("Idempotency key not supported here"),
        501,
        _(
            "This endpoint commits its own database transaction (a durable one), while the service keeps the "
            "answer of a keyed request in the same transaction as its changes: the two cannot be combined, so the "
            "request was refused before anything changed."
        ),
        fix=_(
            "Send the request without the Idempotency-Key header, and tell the service's developers, quoting "
            "the `trace_id`: this is the service's set-up, not your request."
        ),
        example_detail=_(
            "This endpoint commits its own database transaction, which cannot run inside the "
            "transaction that keeps a keyed request's answer with its changes. Nothing was "
            "changed; send it without Idempotency-Key."
        ),
    ),
    ProblemType(
        "idempotency-store-unavailable",
        _("Idempotency store unavailable"),
        503,
        _("The service cannot record idempotency keys right now, so it does not run keyed requests."),
        fix=_RETRY_LATER,
        headers=(_RETRY_AFTER,),
        example_detail=_("Keyed requests cannot run while the idempotency store is unreachable; retry later."),
    ),
    ProblemType(
        "internal-error",
        _("Internal server error"),
        500,
        _("The service failed to answer. Nothing about the failure is disclosed."),
        fix=_(
            "Retry later, with the same Idempotency-Key for a request that changes state. Quote the `trace_id` "
            "when you contact support: it finds the failure in the service's logs."
        ),
        example_detail=_("The server failed to process the request."),
    ),
    ProblemType(
        "service-unavailable",
        _("Service unavailable"),
        503,
        _("The service is temporarily unavailable, for example for maintenance."),
        fix=_RETRY_LATER,
        headers=(_RETRY_AFTER,),
        example_detail=_("The service is down for maintenance."),
    ),
    ProblemType(
        "database-unavailable",
        _("Database unavailable"),
        503,
        _("The service could not reach its database."),
        fix=_RETRY_LATER,
        headers=(_RETRY_AFTER,),
        example_detail=_("The database cannot be reached; retry later."),
    ),
    ProblemType(
        "bad-gateway",
        _("Bad gateway"),
        502,
        _(
            "The proxy in front of the service could not reach it, or the service closed the connection without an "
            "answer (it is restarting, or it failed)."
        ),
        fix=_(
            "Retry after the seconds given in the Retry-After header, with the same Idempotency-Key for a "
            "request that changes state."
        ),
        headers=(_RETRY_AFTER,),
        example_detail=_(
            "The service behind the proxy could not be reached, or closed the connection without an answer."
        ),
    ),
    ProblemType(
        "gateway-timeout",
        _("Gateway timeout"),
        504,
        _("The service did not answer the proxy in front of it in time. The request may have run."),
        fix=_(
            "Retry with the same Idempotency-Key, which answers with its result if it did run; without a key, "
            "check whether it took effect before sending it again."
        ),
        example_detail=_("The service did not answer in time."),
    ),
]

_STATUS_DEFAULTS = frozenset(
    """
    bad-request authentication-required permission-denied not-found method-not-allowed not-acceptable
    conflict gone length-required request-too-large unsupported-media-type validation-error rate-limited
    internal-error service-unavailable uri-too-long request-headers-too-large bad-gateway gateway-timeout
    """.split()  # noqa: SIM905 -- a word list reads best as words
)


def _saying_next_step(problem_type: ProblemType) -> ProblemType:
    retryable = RETRYABLE_WITH_SAME_KEY.get(problem_type.slug)
    if retryable is None:
        return problem_type
    return dataclasses.replace(
        problem_type,
        fix=format_lazy("{} {}", problem_type.fix, _SAME_KEY_WORKS if retryable else _SAME_KEY_FAILS),
        members=(ProblemField("retryable", _RETRYABLE, retryable), *problem_type.members),
        headers=(_NO_STORE, *problem_type.headers),
    )


BUILT_IN = [_saying_next_step(problem_type) for problem_type in BUILT_IN]
for _type in BUILT_IN:
    problem_types.register(_type, default_for_status=_type.slug in _STATUS_DEFAULTS)
