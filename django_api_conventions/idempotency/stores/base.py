"""The interface every idempotency store implements, and what it answers."""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar


class ClaimOutcome(Enum):
    CLAIMED = "claimed"  # the caller owns the key and runs the view
    IN_FLIGHT = "in_flight"  # another request owns a live lease
    RESOLVED = "resolved"  # a stored response answers
    MISMATCH = "mismatch"  # the key was first used with another request


@dataclass(frozen=True)
class StoredResponse:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class Claim:
    outcome: ClaimOutcome
    owner: str = ""  # the lease owner token, when CLAIMED
    response: StoredResponse | None = None  # when RESOLVED
    lease_remaining: float = 0.0  # seconds, when IN_FLIGHT
    taken_over_from: str = ""  # the state the key was taken over from, when CLAIMED over an old record
    #: Seconds the record is still kept, when RESOLVED (the ``Idempotency-Retention`` of a
    #: replay); ``None`` from a store that cannot tell, and the replay then leaves the header out.
    retention_remaining: float | None = None


@dataclass(frozen=True)
class RecordSummary:
    """What ``idempotency_inspect`` shows: never the body, never another scope's keys."""

    state: str
    fingerprint: str
    response_status: int | None
    lease_expires_at: Any
    expires_at: Any
    extra: dict[str, Any] = field(default_factory=dict)


class NotReplicated(Exception):
    """Fewer replicas than required acknowledged a write of the store in time: the write may be
    lost in a failover, so the request must not go on. Stores list it in ``unavailable_errors``."""

    def __init__(self, required: int, acknowledged: int) -> None:
        super().__init__(f"{acknowledged} of {required} replicas acknowledged the write in time")
        self.required = required
        self.acknowledged = acknowledged


def new_owner_token() -> str:
    return secrets.token_hex(16)


class IdempotencyStore(ABC):
    """Where idempotency records live.

    Every write after the claim is conditional on the lease owner token: a worker whose lease
    was taken over can never complete, fail, release or renew the newer owner's record.
    """

    #: True when :meth:`complete` can run inside the view's database transaction, so that the
    #: stored response commits together with the business change.
    transactional: ClassVar[bool] = False
    #: Exceptions that mean "the store cannot be reached" (answered 503, never 500).
    unavailable_errors: ClassVar[tuple[type[BaseException], ...]] = ()
    #: Database alias whose transaction :meth:`complete` joins, for transactional stores.
    database_alias: str | None = None
    #: True when the store implements :meth:`prepare` (a store outside the transaction).
    prepares_commits: ClassVar[bool] = False

    @abstractmethod
    def claim(self, scope: str, key: str, fingerprint: str, lease_seconds: float, retention_seconds: int) -> Claim:
        """Atomically create the record as started, or report why the caller may not run."""

    @abstractmethod
    def complete(self, scope: str, key: str, owner: str, response: StoredResponse, retention_seconds: int) -> bool:
        """Store the response and mark the key resolved; False when ``owner`` lost the lease."""

    def prepare(
        self,
        scope: str,
        key: str,
        owner: str,
        response: StoredResponse,
        marker: str,
        alias: str,
        lease_seconds: float,
    ) -> bool:
        """Just before the commit of the transaction ``marker`` of database ``alias``: store the
        response as "committing" and extend the lease; False when ``owner`` lost the lease. A
        later claim asks the database what became of ``marker``: committed, the response answers."""
        raise NotImplementedError(f"{type(self).__name__} does not prepare commits")

    def settle(self, scope: str, key: str, owner: str, retention_seconds: int) -> bool:
        """After the commit of a prepared key: mark it resolved; False when it is no longer
        ``owner``'s committing record (a retry settled it first)."""
        raise NotImplementedError(f"{type(self).__name__} does not prepare commits")

    @abstractmethod
    def fail(self, scope: str, key: str, owner: str) -> bool:
        """Mark the key failed: the next request with it runs the view again."""

    @abstractmethod
    def release(self, scope: str, key: str, owner: str) -> bool:
        """Forget the key, as if it had never been sent."""

    @abstractmethod
    def renew(self, scope: str, key: str, owner: str, lease_seconds: float) -> bool:
        """Extend the lease of a long-running request."""

    @abstractmethod
    def inspect(self, scope: str, key: str) -> RecordSummary | None:
        """The record of one key, for operators."""

    def ping(self) -> None:
        """One cheap round trip to the store, for health checks: raises one of
        :attr:`unavailable_errors` when the store cannot be reached."""
        raise NotImplementedError(f"{type(self).__name__} cannot be pinged")

    @abstractmethod
    def purge(self, *, batch_size: int, dry_run: bool) -> int:
        """Delete expired records in batches; the number deleted (or that would be)."""
