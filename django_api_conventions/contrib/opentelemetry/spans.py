"""The trace id of the current OpenTelemetry span."""

from __future__ import annotations

from opentelemetry import trace


def current_span_trace_id() -> str | None:
    """The current span's trace id (32 hex digits), recording or not; ``None`` when none is valid."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return trace.format_trace_id(context.trace_id)
