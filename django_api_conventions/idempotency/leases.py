"""One claimed key (``request.idempotency``): its lease, renewed by a long view and held over
the commit, and its answer. A store that cannot be reached answers 503 (fail closed)."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import gettext

from ..conf import api_settings
from ..problems.details import ProblemException, retry_after_header
from . import signals
from .commit_markers import transaction_marker
from .replay import OMITTED_BODY_HEADER, REPLAYED_HEADERS, stored_response
from .request_state import dumps_since
from .stores import IdempotencyStore, StoredResponse
from .stores.base import NotReplicated

__all__ = ["KeyedRequest", "LeaseExpired", "key_hash"]

logger = logging.getLogger("django_api_conventions.idempotency")


#: Seconds before a retry when the store cannot be reached: a restart or failover is usually over.
_STORE_UNAVAILABLE_RETRY_AFTER = 5


class LeaseExpired(Exception):
    """The lease passed to another request while the view ran: this attempt must roll back."""


@dataclass
class KeyedRequest:
    """One claimed key: what the view needs to renew its lease or to be told it lost it."""

    store: IdempotencyStore
    scope: str
    key: str
    owner: str
    lease_seconds: float
    completed: bool = field(default=False)
    #: ``time.monotonic()`` before which the lease cannot end: from just before the claim or renewal.
    lease_deadline: float = field(default_factory=time.monotonic)
    #: The request, and the marks of its replayed state (:mod:`.request_state`) before the view.
    request: HttpRequest | None = field(default=None)
    state_marks: dict[str, Any] = field(default_factory=dict)
    #: The response last made into a :class:`StoredResponse`, and what it made (built once).
    _stored_from: tuple[HttpResponseBase, StoredResponse] | None = field(default=None, repr=False)
    #: What logs and signals name this key by, :func:`key_hash`.
    hashed_key: str = field(default="")
    #: The store holds the response as committing, with the transaction's id (:meth:`hold_over_commit`).
    prepared: bool = field(default=False)
    #: The response headers stored with the body (the view's ``replayed_headers``).
    replayed_headers: tuple[str, ...] = field(default=REPLAYED_HEADERS)

    def __post_init__(self) -> None:
        if not self.hashed_key:
            self.hashed_key = key_hash(self.scope, self.key)

    def lease_half_used(self) -> bool:
        """Whether less than half of ``lease_seconds`` is surely left of the lease."""
        return self.lease_deadline - time.monotonic() < self.lease_seconds / 2

    def renew_lease(self, seconds: float | None = None) -> None:
        """Call from a long view to keep its key; raises :class:`LeaseExpired` if it was lost."""
        started = time.monotonic()
        with store_errors(self.store, self.signal_context()):
            renewed = self.store.renew(self.scope, self.key, self.owner, seconds or self.lease_seconds)
        if not renewed:
            raise LeaseExpired
        self.lease_deadline = started + (seconds or self.lease_seconds)

    def hold_over_commit(self, response: HttpResponseBase) -> None:
        """Just before the commit, for a store outside the transaction: prove the lease is ours and
        extend it, storing the response as committing where the database can tell later whether
        it committed. Raises :class:`LeaseExpired`."""
        alias = api_settings.IDEMPOTENCY_DATABASE
        marker = transaction_marker(alias) if self.store.prepares_commits and alias in settings.DATABASES else None
        if marker is None and not self.lease_half_used():
            return  # half the lease left: still ours, and it outlasts the commit
        started = time.monotonic()
        with store_errors(self.store, self.signal_context()):
            if marker is None:
                held = self.store.renew(self.scope, self.key, self.owner, self.lease_seconds)
            else:
                held = self.store.prepare(
                    self.scope, self.key, self.owner, self.stored(response), marker, alias, self.lease_seconds
                )
        if not held:
            raise LeaseExpired
        self.lease_deadline = started + self.lease_seconds
        self.prepared = marker is not None

    def signal_context(self) -> dict[str, Any]:
        return {"request": self.request, "scope": self.scope, "key_hash": self.hashed_key}

    def stored(self, response: HttpResponseBase) -> StoredResponse:
        if self._stored_from is not None and self._stored_from[0] is response:
            return self._stored_from[1]  # stored before the commit; nothing changed it since
        stored = stored_response(response, self.replayed_headers)
        if self.request is not None:
            stored.headers.update(dumps_since(self.request, self.state_marks))
        self._stored_from = (response, stored)
        return stored

    def complete(self, response: HttpResponseBase, retention: int) -> bool:
        stored = self.stored(response)
        self.warn_if_body_omitted(stored)
        with store_errors(self.store, self.signal_context()):
            return self.store.complete(self.scope, self.key, self.owner, stored, retention)

    def warn_if_body_omitted(self, stored: StoredResponse) -> None:
        if OMITTED_BODY_HEADER in stored.headers:
            logger.warning(
                "Idempotent response of %s bytes not stored (IDEMPOTENCY_MAX_STORED_BODY_BYTES = %s): "
                "a retry gets idempotency-response-too-large",
                stored.headers[OMITTED_BODY_HEADER],
                api_settings.IDEMPOTENCY_MAX_STORED_BODY_BYTES,
                extra={"key_hash": self.hashed_key},
            )


def key_hash(scope: str, key: str) -> str:
    """What logs and signals name a key by: never the key itself."""
    return hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()[:16]


@contextmanager
def store_errors(store: IdempotencyStore, signal_context: dict[str, Any] | None = None) -> Iterator[None]:
    """A store that cannot be reached answers 503; ``signal_context``: the ``store_unavailable``
    signal's keyword arguments (none sent without)."""
    try:
        yield
    except store.unavailable_errors as exc:
        if signal_context is not None:
            signals.store_unavailable.send(sender=store.__class__, fail_open=False, error=exc, **signal_context)
        raise store_unavailable_problem(exc) from exc


def store_unavailable_problem(exc: BaseException) -> ProblemException:
    # The trace id comes from the request's context (TraceIdFilter), like Django's own lines.
    logger.error("Idempotency store unavailable: %s", exc)
    if isinstance(exc, NotReplicated):
        detail = gettext(
            "The idempotency store could not copy this key's record to {required} replicas in time; retry later."
        ).format(required=exc.required)
    else:
        detail = gettext("Keyed requests cannot run while the idempotency store is unreachable; retry later.")
    return ProblemException(
        "idempotency-store-unavailable",
        detail,
        headers=retry_after_header(_STORE_UNAVAILABLE_RETRY_AFTER),
    )
