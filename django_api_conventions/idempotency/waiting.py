"""Waiting for a request in flight: how a keyed request waits for its twin's answer, and how
long a 409 ``idempotency-key-in-use`` tells the client to wait."""

from __future__ import annotations

import math
import time

from .stores import Claim, ClaimOutcome

__all__ = ["in_flight_retry_after"]

_WAIT_FIRST_PAUSE = 0.05
_WAIT_LONGEST_PAUSE = 1.0


class ClaimWait:
    """The wait loop's decisions (the sync and async drivers only claim and sleep): claim again
    while the twin runs, after pauses doubling from 50 ms to 1 s, until the wait would end."""

    def __init__(self, wait_seconds: float) -> None:
        # Counted from before the first claim, as the client counts it.
        self.deadline = time.monotonic() + wait_seconds
        self.pause = _WAIT_FIRST_PAUSE

    def pause_after(self, claim: Claim | None) -> float | None:
        if claim is None or claim.outcome is not ClaimOutcome.IN_FLIGHT:
            return None
        if time.monotonic() + self.pause > self.deadline:
            return None
        pause, self.pause = self.pause, min(self.pause * 2, _WAIT_LONGEST_PAUSE)
        return pause


def in_flight_retry_after(lease_seconds: float, lease_remaining: float) -> int:
    """The ``Retry-After`` of a 409 ``idempotency-key-in-use``: half of what the first request
    has run so far (at least 1 s), never beyond the end of its lease, when a retry may take over."""
    elapsed = max(0.0, lease_seconds - lease_remaining)
    estimate = max(1, math.ceil(elapsed / 2))
    return max(1, min(estimate, math.ceil(lease_remaining)))
