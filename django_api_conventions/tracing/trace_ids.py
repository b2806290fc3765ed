"""Trace ids: one per request, honoured from the caller when valid, in every log record.

First found wins: the project's own request id (``REQUEST_ID_ATTRIBUTE``), the current
OpenTelemetry span's trace id, the caller's request id header or ``traceparent`` (with
``TRUST_INCOMING_TRACE_ID``), a new id. A response header the project set is never replaced.
"""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from ..conf import api_settings
from ..http import header_names
from ..http.hook_middleware import HookMiddleware
from ..http.request_attributes import TRACE_ID, get_state, http_request_of, set_state

logger = logging.getLogger("django_api_conventions.tracing.trace_ids")

#: The trace id of the request being served by this thread or task.
current_trace_id: ContextVar[str | None] = ContextVar("api_conventions_trace_id", default=None)
# Kept only with REQUEST_ID_ATTRIBUTE set: a log line reads the project's id from it.
_traced_request: ContextVar[HttpRequest | None] = ContextVar("api_conventions_traced_request", default=None)

# An opaque token, safe to echo in a header and to write to a log line.
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}")
# W3C Trace Context, version 00: version-traceid-parentid-flags, lower-case hex.
_TRACEPARENT = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}")


def incoming_trace_id(request: HttpRequest) -> str | None:
    """The caller's valid trace id (request id header first, then ``traceparent``), if any."""
    header = request.headers.get(api_settings.TRACE_ID_HEADER, "").strip()
    if _REQUEST_ID.fullmatch(header):
        return header
    match = _TRACEPARENT.fullmatch(request.headers.get(header_names.TRACEPARENT, "").strip())
    if match and int(match.group(1), 16) and int(match.group(2), 16):  # all zeros: invalid
        return match.group(1)
    return None


_span_trace_id_lookup: Callable[[], str | None] | None = None


def span_trace_id() -> str | None:
    """The current OpenTelemetry span's trace id, if opentelemetry-api is installed and one is valid."""
    return _span_trace_id_lookup() if _span_trace_id_lookup is not None else None


def read_span_trace_ids(lookup: Callable[[], str | None] | None) -> None:
    """Called once by the app's ``ready()``, which knows whether opentelemetry-api is installed
    (``None``: there are no spans), so that this module never imports the integration."""
    global _span_trace_id_lookup
    _span_trace_id_lookup = lookup


# What a project's set-up gets wrong is said once per process, not per request.
_warned: set[str] = set()


def _warn_once(key: str, text: str, *args: object) -> None:
    if key not in _warned:
        _warned.add(key)
        logger.warning(text, *args)


def project_request_id(request: HttpRequest) -> str | None:
    """The attribute ``REQUEST_ID_ATTRIBUTE`` names (NetBox's ``request.id``) as a string, if set
    and a safe token (else a warning, once)."""
    attribute = api_settings.REQUEST_ID_ATTRIBUTE
    if not attribute:
        return None
    value = getattr(request, attribute, None)  # DRF's Request looks in the HttpRequest it wraps
    if value is None:
        return None
    text = str(value).strip()
    if _REQUEST_ID.fullmatch(text):
        return text
    _warn_once(
        "unsafe-project-id",
        "request.%s = %s is not a safe request id (1 to 128 letters, digits, '.', '_', ':' or '-'): "
        "the package's own trace id is used instead.",
        attribute,
        ascii(text[:140]),
    )
    return None


def assign_trace_id(request: HttpRequest) -> str:
    """Give ``request`` its trace id once, and make it the current one for logging; with
    ``REQUEST_ID_ATTRIBUTE``, the project's own id replaces it as soon as it is set."""
    trace_id: str | None = get_state(request, TRACE_ID)
    own_id = project_request_id(request)
    if own_id is not None:
        if own_id != trace_id:
            trace_id = own_id
            set_state(request, TRACE_ID, trace_id)
    elif trace_id is None:
        # An active span already honoured the caller's traceparent (OpenTelemetry's propagator):
        # its id wins over a request id header, so that traces, logs and problems share one id.
        trace_id = span_trace_id()
        if trace_id is None and api_settings.TRUST_INCOMING_TRACE_ID:
            trace_id = incoming_trace_id(http_request_of(request))
        trace_id = trace_id or uuid.uuid4().hex  # also a valid W3C trace-id
        set_state(request, TRACE_ID, trace_id)
    current_trace_id.set(trace_id)
    if api_settings.REQUEST_ID_ATTRIBUTE:
        _traced_request.set(http_request_of(request))
    return trace_id


def log_trace_id() -> str:
    """The trace id a log line carries: the current request's; outside a request, the current
    OpenTelemetry span's (a task, a command); else ``"-"``. For structlog processors and the like."""
    trace_id = current_trace_id.get()
    request = _traced_request.get()
    if request is not None:
        with contextlib.suppress(Exception):  # a log filter must never raise
            trace_id = project_request_id(request) or trace_id
    if trace_id is None and settings.configured:  # a log filter must never raise: no settings, no span
        trace_id = span_trace_id()
    return trace_id or "-"


def forget_trace_id(**kwargs: object) -> None:
    """Connected to ``request_finished``: between requests, no stale trace id."""
    current_trace_id.set(None)
    _traced_request.set(None)


class TraceIdFilter(logging.Filter):
    """Adds ``record.trace_id`` (:func:`log_trace_id`) for log formats: in ``LOGGING``,
    ``"filters": {"trace_id": {"()": "django_api_conventions.tracing.TraceIdFilter"}}``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "trace_id"):
            record.trace_id = log_trace_id()
        return True


class TraceIdMiddleware(HookMiddleware):
    """Gives every request its trace id and echoes it in the response header, unless the project
    set that header itself."""

    def process_request(self, request: HttpRequest) -> None:
        assign_trace_id(request)

    def process_view(self, request: HttpRequest, view: object, args: object, kwargs: object) -> None:
        # The project's middleware has run by now: the view sees its id as request.trace_id.
        if api_settings.REQUEST_ID_ATTRIBUTE:
            assign_trace_id(request)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        trace_id = assign_trace_id(request)
        header = api_settings.TRACE_ID_HEADER
        if header not in response:
            response[header] = trace_id
        elif response[header] != trace_id:
            _warn_once(
                "header-mismatch",
                "The response's %s header was set by the project to another id than the request's trace id: "
                "problems and log lines carry another id than the one the client sees. Name the request "
                "attribute that holds the project's id in API_CONVENTIONS['REQUEST_ID_ATTRIBUTE'] "
                "(docs/tracing-and-clients.md).",
                header,
            )
        return response
