"""The idempotency outcomes on the current span and in a counter, from the idempotency signals.

Each outcome of a keyed request sets the attributes ``idempotency.outcome`` and
``idempotency.key_hash`` on the current span (when it is recording), adds the event
``idempotency.<outcome>``, and adds 1 to the counter ``api_conventions.idempotency.outcomes``
with the attribute ``idempotency.outcome``. The key itself is never recorded.

OpenTelemetry's semantic conventions name no idempotency attributes: these live in their own
``idempotency.`` namespace; ``error.type`` (a semantic-convention attribute) names the
exception of a ``store_unavailable`` event. The counter has only the outcome as attribute
(low cardinality); the key hash is on the span alone.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal
from opentelemetry import metrics, trace

from ...idempotency import signals

#: The instrumentation scope of the meter.
SCOPE = "django_api_conventions"
#: Span and metric attribute: one of :data:`OUTCOMES`' values.
OUTCOME = "idempotency.outcome"
#: Span and event attribute: the 16 hex digits that name a key in logs and signals.
KEY_HASH = "idempotency.key_hash"
#: Event attribute of ``store_unavailable``: whether the request ran without its key.
FAIL_OPEN = "idempotency.fail_open"
#: Event attribute of ``store_unavailable`` (semantic conventions): the exception's class.
ERROR_TYPE = "error.type"
#: The counter's name.
COUNTER = "api_conventions.idempotency.outcomes"

#: Signal -> outcome.
OUTCOMES: dict[Signal, str] = {
    signals.claimed: "miss",
    signals.replayed: "hit",
    signals.conflict: "conflict",
    signals.mismatch: "mismatch",
    signals.lease_taken_over: "takeover",
    signals.store_unavailable: "store_unavailable",
}

# Through the API's global meter provider: a proxy until the SDK's provider is set, then the
# SDK's counter, so the order of start-up does not matter.
_outcomes = metrics.get_meter(SCOPE).create_counter(
    COUNTER,
    unit="{outcome}",
    description="Outcomes of keyed requests (Idempotency-Key), by outcome.",
)


def record_outcome(outcome: str, key_hash: str, **attributes: Any) -> None:
    """Record ``outcome`` on the current span and in the counter."""
    span = trace.get_current_span()
    if span.is_recording():
        span.set_attribute(OUTCOME, outcome)
        span.set_attribute(KEY_HASH, key_hash)
        span.add_event(f"idempotency.{outcome}", {KEY_HASH: key_hash, **attributes})
    _outcomes.add(1, {OUTCOME: outcome})


def _receiver(outcome: str) -> Any:
    def receive(
        sender: type, key_hash: str, fail_open: bool | None = None, error: BaseException | None = None, **kwargs: Any
    ) -> None:
        attributes: dict[str, Any] = {}
        if fail_open is not None:
            attributes[FAIL_OPEN] = fail_open
        if error is not None:
            attributes[ERROR_TYPE] = f"{type(error).__module__}.{type(error).__qualname__}"
        record_outcome(outcome, key_hash, **attributes)

    return receive


#: Kept here: the signals hold their receivers weakly.
_RECEIVERS = {signal: _receiver(outcome) for signal, outcome in OUTCOMES.items()}


def connect() -> None:
    """Connect the receivers (the app config does, when opentelemetry-api is installed); idempotent."""
    for signal, receive in _RECEIVERS.items():
        signal.connect(receive, dispatch_uid=f"api_conventions_opentelemetry_{OUTCOMES[signal]}")
