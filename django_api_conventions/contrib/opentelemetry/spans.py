"""The trace id of the current OpenTelemetry span."""

from __future__ import annotations

from opentelemetry import trace


def current_span_trace_id() -> str | None:
    """The current span's trace id as 32 lower-case hex digits; ``None`` when no valid span is current.

    Recording or not: a span started by opentelemetry-instrumentation-django's middleware, by a
    WSGI/ASGI middleware, or a non-recording span carrying a sampled-out remote parent all
    name the trace the request belongs to.
    """
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return trace.format_trace_id(context.trace_id)
