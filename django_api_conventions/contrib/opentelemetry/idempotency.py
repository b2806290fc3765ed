"""The idempotency outcomes on the current span and in a counter, from the idempotency signals.

Each outcome sets ``idempotency.outcome`` and ``idempotency.key_hash`` on the current span, adds
the event ``idempotency.<outcome>`` and counts 1 in ``api_conventions.idempotency.outcomes``
(by outcome only: low cardinality). The key itself is never recorded.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal
from opentelemetry import metrics, trace

from ...idempotency import signals

OUTCOME = "idempotency.outcome"
KEY_HASH = "idempotency.key_hash"
#: Of ``store_unavailable``: whether the request ran without its key, and the exception's class.
FAIL_OPEN = "idempotency.fail_open"
ERROR_TYPE = "error.type"
COUNTER = "api_conventions.idempotency.outcomes"

OUTCOMES: dict[Signal, str] = {
    signals.claimed: "miss",
    signals.replayed: "hit",
    signals.conflict: "conflict",
    signals.mismatch: "mismatch",
    signals.lease_taken_over: "takeover",
    signals.store_unavailable: "store_unavailable",
}

# Through the API's global meter provider: a proxy until the SDK's provider is set.
_outcomes = metrics.get_meter("django_api_conventions").create_counter(
    COUNTER, unit="{outcome}", description="Outcomes of keyed requests (Idempotency-Key), by outcome."
)


def _receiver(outcome: str) -> Any:
    def receive(
        sender: type, key_hash: str, fail_open: bool | None = None, error: BaseException | None = None, **kwargs: Any
    ) -> None:
        attributes: dict[str, Any] = {}
        if fail_open is not None:
            attributes[FAIL_OPEN] = fail_open
        if error is not None:
            attributes[ERROR_TYPE] = f"{type(error).__module__}.{type(error).__qualname__}"
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attribute(OUTCOME, outcome)
            span.set_attribute(KEY_HASH, key_hash)
            span.add_event(f"idempotency.{outcome}", {KEY_HASH: key_hash, **attributes})
        _outcomes.add(1, {OUTCOME: outcome})

    return receive


#: Kept here: the signals hold their receivers weakly.
_RECEIVERS = {signal: _receiver(outcome) for signal, outcome in OUTCOMES.items()}


def connect() -> None:
    """Connect the receivers (the app config does, when opentelemetry-api is installed); idempotent."""
    for signal, receive in _RECEIVERS.items():
        signal.connect(receive, dispatch_uid=f"api_conventions_opentelemetry_{OUTCOMES[signal]}")
