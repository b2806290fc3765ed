"""OpenTelemetry: the current span's trace id as the request's, and the idempotency outcomes
as span attributes, span events and a counter.

Needs opentelemetry-api (the ``opentelemetry`` extra); only this package imports it. The
package uses it by itself when it is installed (``tracing.span_trace_id``, the app config):
nothing to add to ``INSTALLED_APPS``. See docs/observability.md.
"""

__all__: list[str] = []
