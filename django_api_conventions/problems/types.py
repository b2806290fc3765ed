"""The registry of problem types: what each error ``type`` URL names and documents."""

from __future__ import annotations

import re
from dataclasses import dataclass
from http import HTTPStatus

from django.core.exceptions import ImproperlyConfigured
from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class ProblemType:
    """One kind of error: ``type`` is ``<PROBLEM_BASE_URL>/<slug>``.

    ``description`` is the documentation served at that URL: what happened and what the
    client can do about it, in the Markdown subset of :mod:`~.markdown`. ``title`` and
    ``description`` may be lazy translations (``gettext_lazy``): they are rendered in the
    language active when a problem is answered.
    """

    slug: str
    title: str | Promise
    status: int
    description: str | Promise

    def __post_init__(self) -> None:
        if not _SLUG.fullmatch(self.slug):
            raise ImproperlyConfigured(
                f"Problem type slug {self.slug!r} must be lower-case words joined by '-'."
            )
        if not 400 <= self.status <= 599:
            raise ImproperlyConfigured(
                f"Problem type {self.slug!r} has status {self.status}; it must be 400..599."
            )


class ProblemTypeRegistry:
    """Problem types by slug; registering the same slug twice with other content fails."""

    def __init__(self) -> None:
        self._types: dict[str, ProblemType] = {}
        self._default_for_status: dict[int, str] = {}

    def register(self, problem_type: ProblemType, *, default_for_status: bool = False) -> ProblemType:
        existing = self._types.get(problem_type.slug)
        if existing is not None and existing != problem_type:
            raise ImproperlyConfigured(
                f"Problem type {problem_type.slug!r} is already registered with other content."
            )
        self._types[problem_type.slug] = problem_type
        if default_for_status:
            self._default_for_status[problem_type.status] = problem_type.slug
        return problem_type

    def get(self, slug: str) -> ProblemType | None:
        return self._types.get(slug) or self._generic(slug)

    def __getitem__(self, slug: str) -> ProblemType:
        problem_type = self.get(slug)
        if problem_type is None:
            raise KeyError(f"No problem type {slug!r} is registered.")
        return problem_type

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(sorted(self._types.values(), key=lambda t: (t.status, t.slug)))

    def for_status(self, status: int) -> ProblemType:
        """The registered default type of an HTTP status, else a generic ``http-<status>`` one."""
        if not 400 <= status <= 599:  # an exception with a non-error status is still a failure
            status = 500
        slug = self._default_for_status.get(status, f"http-{status}")
        return self[slug]

    @staticmethod
    def _generic(slug: str) -> ProblemType | None:
        # Any error status has a documented type, so ``type`` always resolves.
        match = re.fullmatch(r"http-([45]\d\d)", slug)
        if match is None:
            return None
        status = int(match.group(1))
        # HTTP's own reason phrases (RFC 9110) stay as they are: no catalogue translates them.
        phrase: str | Promise
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = _("Client error") if status < 500 else _("Server error")
        return ProblemType(
            slug,
            phrase,
            status,
            format_lazy(_("The server answered HTTP {status} ({phrase}); no more specific type applies."),
                        status=status, phrase=phrase),
        )


problem_types = ProblemTypeRegistry()


def register_problem_type(
    slug: str, title: str | Promise, status: int, description: str | Promise, *, default_for_status: bool = False
) -> ProblemType:
    """Register a problem type of your own; call it from your ``AppConfig.ready()``.

    Pass ``title`` and ``description`` through ``gettext_lazy`` to have them translated."""
    return problem_types.register(
        ProblemType(slug, title, status, description), default_for_status=default_for_status
    )


_BUILT_IN = [
    ("bad-request", _("Bad request"), 400,
     _("The request could not be understood. `detail` says what was wrong.")),
    ("malformed-request", _("Malformed request body"), 400,
     _("The body is not valid for its Content-Type: malformed, truncated or too deeply nested "
       "JSON, duplicate object keys, or text that is not UTF-8. Fix the body and send it again.")),
    ("invalid-parameters", _("Invalid query parameters"), 400,
     _("A query parameter is unknown, repeated or has an invalid value. `errors` names each "
       "parameter.")),
    ("invalid-host", _("Invalid Host header"), 400,
     _("The Host header names a host this service does not serve, or a port that is not a number "
       "from 1 to 65535.")),
    ("too-many-fields", _("Too many fields"), 400,
     _("The query string or form body has more fields (DATA_UPLOAD_MAX_NUMBER_FIELDS) or more "
       "files (DATA_UPLOAD_MAX_NUMBER_FILES) than the service accepts.")),
    ("unreadable-request", _("Unreadable request body"), 400,
     _("The connection failed while the request body was being read. Send the request again.")),
    ("invalid-cursor", _("Invalid cursor"), 400,
     _("The cursor was not issued by this service for this list, was altered, or was issued for "
       "other filters, another sort or another ordering. Start again from the first page (no cursor), "
       "or reuse a next_cursor or previous_cursor with the same filters and sort as the page it came "
       "from.")),
    ("authentication-required", _("Authentication required"), 401,
     _("The request carries no valid credentials. The WWW-Authenticate header says how to "
       "authenticate.")),
    ("permission-denied", _("Permission denied"), 403,
     _("The authenticated client may not perform this operation.")),
    ("csrf-failed", _("CSRF verification failed"), 403,
     _("A browser session request arrived without a valid CSRF token. API clients that "
       "authenticate with a token are not subject to this check.")),
    ("not-found", _("Not found"), 404,
     _("No resource exists at this URL, or it is not visible to this client.")),
    ("method-not-allowed", _("Method not allowed"), 405,
     _("The resource does not support this HTTP method. The Allow header lists those it does.")),
    ("not-acceptable", _("Not acceptable"), 406,
     _("The service cannot answer in any media type the Accept header allows. Accept "
       "application/json.")),
    ("conflict", _("Conflict"), 409,
     _("The request conflicts with the current state of the resource, for example another record "
       "already holds a value that must be unique (a request racing with another one for the same "
       "new value): `errors` points at the field. Retry after the seconds given in the Retry-After "
       "header, when present, to get the definitive answer.")),
    ("gone", _("Gone"), 410,
     _("The resource is no longer available and will not be again.")),
    ("version-retired", _("API version retired"), 410,
     _("This version of the API has passed its sunset and answers no more requests. "
       "`migration_guide` links the guide to a version that is served; `version` names the retired one.")),
    ("endpoint-retired", _("Endpoint retired"), 410,
     _("This endpoint (or this method of it) has passed its sunset and answers no more requests. "
       "`migration_guide` links the guide to what replaces it.")),
    ("length-required", _("Content-Length required"), 411,
     _("The request has a body (Transfer-Encoding) but no Content-Length header. Send the body "
       "with a Content-Length: chunked request bodies are not accepted.")),
    ("request-too-large", _("Request body too large"), 413,
     _("The request body is larger than the service accepts. `limit_bytes` gives the limit.")),
    ("uri-too-long", _("Request target too long"), 414,
     _("The request line (path and query string) is longer than the service accepts; `limit_bytes` "
       "gives the limit. Send long criteria in the body of a request instead.")),
    ("unsupported-media-type", _("Unsupported media type"), 415,
     _("The Content-Type of the body is not one the endpoint accepts. Send application/json.")),
    ("validation-error", _("Validation failed"), 422,
     _("The body is well-formed but breaks the rules of the resource. `errors` lists each "
       "problem with a JSON Pointer to the offending member.")),
    ("rate-limited", _("Too many requests"), 429,
     _("The client sent more requests than its rate allows. Wait for the seconds given in the "
       "Retry-After header.")),
    ("request-headers-too-large", _("Request header fields too large"), 431,
     _("A request header line, or all of them together, is larger than the service accepts. Send "
       "fewer or shorter headers: large cookies are the usual cause.")),
    ("idempotency-key-missing", _("Idempotency-Key required"), 400,
     _("This endpoint changes state and requires an Idempotency-Key header: a unique string of 1 to "
       "255 visible ASCII characters chosen by the client for each operation, sent again unchanged "
       "on every retry of that operation.")),
    ("idempotency-key-invalid", _("Invalid Idempotency-Key"), 400,
     _("The Idempotency-Key header must appear once and hold 1 to 255 visible ASCII characters "
       "without commas, or an RFC 8941 quoted string.")),
    ("idempotency-key-in-use", _("Request with this Idempotency-Key in progress"), 409,
     _("An earlier request with the same key is still being processed. Retry after the seconds "
       "given in the Retry-After header: you will get its result.")),
    ("idempotency-lease-expired", _("Idempotency-Key lease expired"), 409,
     _("The request ran longer than its lease and another attempt with the same key took over; "
       "this attempt was rolled back. Retry with the same key to get the result.")),
    ("idempotency-key-reused", _("Idempotency-Key reused with another request"), 422,
     _("The key was first used with another method, path, query or body. Use a new key for a new "
       "operation; resend exactly the same request to retry.")),
    ("idempotency-response-too-large", _("Stored response too large"), 410,
     _("The first request with this Idempotency-Key ran, once, but its response was larger than "
       "the service stores (IDEMPOTENCY_MAX_STORED_BODY_BYTES), so it cannot be replayed. "
       "`original_status` gives its status; the Location header, when present, the resource it "
       "created. Do not send the operation again under a new key: read its result instead.")),
    ("idempotency-store-unavailable", _("Idempotency store unavailable"), 503,
     _("The service cannot record idempotency keys right now, so it does not run keyed requests. "
       "Retry after the seconds given in the Retry-After header.")),
    ("internal-error", _("Internal server error"), 500,
     _("The service failed to answer. Nothing about the failure is disclosed; quote the "
       "`trace_id` when you contact support.")),
    ("service-unavailable", _("Service unavailable"), 503,
     _("The service is temporarily unavailable, for example for maintenance. Retry after the "
       "seconds given in the Retry-After header.")),
    ("database-unavailable", _("Database unavailable"), 503,
     _("The service could not reach its database. Retry after the seconds given in the "
       "Retry-After header.")),
    ("bad-gateway", _("Bad gateway"), 502,
     _("The proxy in front of the service could not reach it, or the service closed the connection "
       "without an answer (it is restarting, or it failed). Retry after the seconds given in the "
       "Retry-After header.")),
    ("gateway-timeout", _("Gateway timeout"), 504,
     _("The service did not answer the proxy in front of it in time. The request may have run: retry "
       "it with the same Idempotency-Key, which answers with its result if it did.")),
]

_STATUS_DEFAULTS = {
    "bad-request", "authentication-required", "permission-denied", "not-found",
    "method-not-allowed", "not-acceptable", "conflict", "gone", "length-required", "request-too-large",
    "unsupported-media-type", "validation-error", "rate-limited", "internal-error",
    "service-unavailable", "uri-too-long", "request-headers-too-large", "bad-gateway", "gateway-timeout",
}

for _slug, _title, _status, _description in _BUILT_IN:
    register_problem_type(
        _slug, _title, _status, _description, default_for_status=_slug in _STATUS_DEFAULTS
    )
