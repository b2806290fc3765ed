"""Trace ids: one per request, honoured from the caller when valid, in every log record.

Where the id comes from, first found wins: the current OpenTelemetry span's trace id (with
opentelemetry-api installed and ``OPENTELEMETRY_TRACE_ID`` on), the caller's request id
header, the caller's ``traceparent`` (both with ``TRUST_INCOMING_TRACE_ID``), a new id.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from . import header_names
from .conf import api_settings
from .hook_middleware import HookMiddleware
from .http_request import http_request_of
from .request_attributes import TRACE_ID, get_state, set_state

#: The trace id of the request being served by this thread or task.
current_trace_id: ContextVar[str | None] = ContextVar("api_conventions_trace_id", default=None)

# A request id is an opaque token: letters, digits and a few separators, never spaces or
# control characters, so that it is safe to echo in a header and to write to a log line.
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}")
# W3C Trace Context, version 00: version-traceid-parentid-flags, lower-case hex.
_TRACEPARENT = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}")
_ALL_ZERO_TRACE = "0" * 32
_ALL_ZERO_PARENT = "0" * 16


def new_trace_id() -> str:
    """A fresh id, 32 lower-case hex digits: also valid as a W3C trace-id."""
    return uuid.uuid4().hex


def incoming_trace_id(request: HttpRequest) -> str | None:
    """The caller's valid trace id (request id header first, then ``traceparent``), if any."""
    header = request.headers.get(api_settings.TRACE_ID_HEADER, "").strip()
    if _REQUEST_ID.fullmatch(header):
        return header
    match = _TRACEPARENT.fullmatch(request.headers.get(header_names.TRACEPARENT, "").strip())
    if match and match.group(1) != _ALL_ZERO_TRACE and match.group(2) != _ALL_ZERO_PARENT:
        return match.group(1)
    return None


#: Where the current span's trace id is read, set once by the app's ``ready()``
#: (:func:`resolve_span_trace_id_lookup`): ``None`` without opentelemetry-api.
_span_trace_id_lookup: Callable[[], str | None] | None = None


def span_trace_id() -> str | None:
    """The current OpenTelemetry span's trace id (32 lower-case hex digits), if any.

    ``None`` when opentelemetry-api is not installed, when no valid span is current, or when
    ``OPENTELEMETRY_TRACE_ID`` is off.
    """
    lookup = _span_trace_id_lookup
    if lookup is None or not api_settings.OPENTELEMETRY_TRACE_ID:
        return None
    return lookup()


def resolve_span_trace_id_lookup() -> None:
    """Find out once, at start-up, whether opentelemetry-api is there to read spans from.

    Called by the app's ``ready()``, never on a request: two request threads importing an
    optional module at once can see it half imported, and a request must not fail on that.
    """
    global _span_trace_id_lookup
    try:
        from .contrib.opentelemetry.spans import current_span_trace_id
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "opentelemetry":
            raise
        _span_trace_id_lookup = None
    else:
        _span_trace_id_lookup = current_span_trace_id


def assign_trace_id(request: HttpRequest) -> str:
    """Give ``request`` its trace id once, and make it the current one for logging."""
    trace_id: str | None = get_state(request, TRACE_ID)
    if trace_id is None:
        # An active span already honoured the caller's traceparent (OpenTelemetry's propagator):
        # its id wins over a request id header, so that traces, logs and problems share one id.
        trace_id = span_trace_id()
        if trace_id is None and api_settings.TRUST_INCOMING_TRACE_ID:
            trace_id = incoming_trace_id(http_request_of(request))
        trace_id = trace_id or new_trace_id()
        set_state(request, TRACE_ID, trace_id)
    current_trace_id.set(trace_id)
    return trace_id


def log_trace_id() -> str:
    """The trace id a log line carries: the current request's; outside a request, the current
    OpenTelemetry span's (a task, a command); else ``"-"``. For structlog processors and the like."""
    trace_id = current_trace_id.get()
    if trace_id is None and settings.configured:  # a log filter must never raise: no settings, no span
        trace_id = span_trace_id()
    return trace_id or "-"


def forget_trace_id(**kwargs: object) -> None:
    """Between requests, log records carry no stale trace id (connected to request_finished)."""
    current_trace_id.set(None)


class TraceIdFilter(logging.Filter):
    """Adds ``record.trace_id`` (:func:`log_trace_id`) for use in log formats.

    Add it to the handlers in ``LOGGING``:

        "filters": {"trace_id": {"()": "django_api_conventions.tracing.TraceIdFilter"}},
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "trace_id"):
            record.trace_id = log_trace_id()
        return True


class TraceIdMiddleware(HookMiddleware):
    """Gives every request its trace id and echoes it in the response header."""

    def process_request(self, request: HttpRequest) -> None:
        assign_trace_id(request)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        response[api_settings.TRACE_ID_HEADER] = assign_trace_id(request)
        return response
