"""OpenTelemetry: the current span's trace id as the request's, and the idempotency outcomes
in spans and a counter. Used by itself when opentelemetry-api is installed (the ``opentelemetry``
extra); see docs/observability.md.
"""

__all__: list[str] = []
