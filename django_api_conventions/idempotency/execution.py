"""Running one request at most once per idempotency key.

The protocol, whichever way a view is protected (mixin, decorator, middleware):

1. read the key (absent: run normally, or 400 where it is required; malformed: 400);
2. claim it atomically in the store: a stored response is replayed, a live claim of another
   request answers 409, a different request under the same key answers 422;
3. run the view inside ``transaction.atomic()``; with the database store the resolved record is
   written in that same transaction, so the business change and the stored response commit
   together or not at all;
4. an unhandled exception or a 5xx the view does not keep marks the key failed, and a 4xx it
   does not keep (by default a 409) releases it; either way the view's transaction is rolled back, so a retry runs
   the view again on a clean slate.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import request_finished
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.translation import gettext

from .. import header_names
from ..conf import api_settings
from ..i18n import response_language
from ..problems.details import ProblemException, retry_after_header
from ..request_attributes import IDEMPOTENCY, set_state
from ..tracing import assign_trace_id
from . import signals
from .commit_markers import transaction_marker
from .fingerprint import request_fingerprint
from .keys import read_idempotency_key
from .request_state import dumps_since, marks, restore_and_strip
from .stores import Claim, ClaimOutcome, IdempotencyStore, StoredResponse, get_store
from .stores.base import NotReplicated

logger = logging.getLogger("django_api_conventions.idempotency")

DEFAULT_METHODS = frozenset({"POST", "PATCH"})
#: Stored in place of a body over IDEMPOTENCY_MAX_STORED_BODY_BYTES: its size. No response
#: header can have this name (a colon starts no HTTP field name), so none is mistaken for it.
OMITTED_BODY_HEADER = ":omitted-body-bytes"
#: The stored headers a replay of an omitted body still sends: where the result can be read.
_OMITTED_BODY_REPLAYED_HEADERS = ("Location",)
#: A request that lost its lease was rolled back while a newer attempt runs: one second on, a
#: retry usually finds that attempt's stored answer (or its 409 with its own estimate).
LEASE_EXPIRED_RETRY_AFTER = 1
_WAIT_FIRST_SLEEP = 0.05
_WAIT_LONGEST_SLEEP = 1.0


def in_flight_retry_after(lease_seconds: float, lease_remaining: float) -> int:
    """The ``Retry-After`` of a 409 ``idempotency-key-in-use``, in whole seconds, at least 1.

    The first request has run for about ``lease_seconds - lease_remaining`` (since its claim,
    or its last lease renewal). Most requests finish in milliseconds, and one that has run for
    a while is likely to run a while longer: wait half of what it has run so far (1 second
    during its first 2 seconds), and never beyond the end of its lease, when a retry may take
    the key over.
    """
    elapsed = max(0.0, lease_seconds - lease_remaining)
    estimate = max(1, math.ceil(elapsed / 2))
    return max(1, min(estimate, math.ceil(lease_remaining)))


def keep_final_answers(status: int) -> bool:
    """Default: store every answer a retry would get again, all but server errors and 409s.

    A 409 says the request met what other requests were doing (a uniqueness race lost to a
    concurrent insert, answered ``conflict``); once they are done, the same request may well
    succeed or get its definitive 422. Storing it would replay a passing state forever.
    """
    return status < 500 and status != 409


def keep_below_500(status: int) -> bool:
    """Store every answer the view gave except server errors, 409 conflicts included."""
    return status < 500


@dataclass(frozen=True)
class IdempotencyOptions:
    """How one view uses idempotency keys."""

    required: bool = False
    methods: frozenset[str] = DEFAULT_METHODS
    #: Which statuses are stored and replayed; the others release the key (4xx) or fail it (5xx).
    keep_status: Callable[[int], bool] = keep_final_answers
    #: While the first request runs, wait up to this long for its result instead of a 409.
    wait_seconds: float = 0.0
    #: Lease of this view, in seconds; ``None``: ``IDEMPOTENCY_LEASE_SECONDS``.
    lease_seconds: float | None = None


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
    #: ``time.monotonic()`` before which the lease cannot end, whatever the store's clock says:
    #: measured from just before the claim (or the last renewal) was sent.
    lease_deadline: float = field(default_factory=time.monotonic)
    #: The request, and the marks of its replayed state (:mod:`.request_state`) before the view.
    request: HttpRequest | None = field(default=None)
    state_marks: dict[str, Any] = field(default_factory=dict)
    #: The response last made into a :class:`StoredResponse`, and what it made: a store outside
    #: the transaction stores the same answer twice (committing, then resolved), built once.
    _stored_from: tuple[HttpResponseBase, StoredResponse] | None = field(default=None, repr=False)
    #: What logs and signals name this key by, :func:`key_hash` (a SHA-256, worked out once).
    hashed_key: str = field(default="")
    #: The store holds the response as committing, with the transaction's id (:meth:`hold_over_commit`).
    prepared: bool = field(default=False)

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
        """For a store outside the transaction, just before the commit: prove the lease is still
        ours and extend it over the commit, storing the response as committing where the
        database can later tell whether the commit happened. Raises :class:`LeaseExpired`."""
        alias = api_settings.IDEMPOTENCY_DATABASE
        marker = transaction_marker(alias) if self.store.prepares_commits and alias in settings.DATABASES else None
        if marker is None and not self.lease_half_used():
            # With half the lease left it cannot have passed to another request, and it
            # outlasts the commit: no round trip to the store needed.
            return
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
        """The keyword arguments of the :mod:`.signals` sent about this key."""
        return {"request": self.request, "scope": self.scope, "key_hash": self.hashed_key}

    def stored(self, response: HttpResponseBase) -> StoredResponse:
        if self._stored_from is not None and self._stored_from[0] is response:
            # The same response object, not modified in between: hold_over_commit() stored it
            # just before the commit, complete() stores it again just after (nothing runs
            # between the two but the COMMIT; the MISS headers are set after both).
            return self._stored_from[1]
        stored = _stored(response)
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
                stored.headers[OMITTED_BODY_HEADER], api_settings.IDEMPOTENCY_MAX_STORED_BODY_BYTES,
                extra={"key_hash": self.hashed_key},
            )


def key_hash(scope: str, key: str) -> str:
    """What logs and signals name a key by: never the key itself."""
    return hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()[:16]


def run_idempotently(
    http_request: HttpRequest,
    options: IdempotencyOptions,
    run_view: Callable[[], HttpResponseBase],
    *,
    scope_request: Any = None,
) -> HttpResponseBase:
    """Answer ``http_request`` by running ``run_view`` at most once per key.

    ``scope_request`` is what the scope resolver sees (DRF's request, once it authenticated
    the caller); by default ``http_request``. Raises :class:`ProblemException` for 400, 409,
    422 and 503 answers.
    """
    key = read_idempotency_key(http_request)
    if key is None:
        if options.required:
            header = api_settings.IDEMPOTENCY_HEADER
            raise ProblemException(
                "idempotency-key-missing",
                gettext("This endpoint requires an {header} header.").format(header=header),
                errors=[{"header": header, "detail": gettext("This header is required."), "code": "required"}],
            )
        with request_transaction(None):
            return run_view()
    return _run_keyed(get_store(), http_request, options, run_view, scope_request or http_request, key)


@contextmanager
def store_errors(store: IdempotencyStore, signal_context: dict[str, Any] | None = None) -> Iterator[None]:
    """A store that cannot be reached answers 503 (fail closed); the view's own errors pass.

    ``signal_context``: the keyword arguments of the ``store_unavailable`` signal (none sent without).
    """
    try:
        yield
    except store.unavailable_errors as exc:
        if signal_context is not None:
            signals.store_unavailable.send(sender=store.__class__, fail_open=False, error=exc, **signal_context)
        raise _store_unavailable(exc) from exc


def _store_unavailable(exc: BaseException) -> ProblemException:
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
        headers=retry_after_header(api_settings.IDEMPOTENCY_STORE_UNAVAILABLE_RETRY_AFTER),
    )


def _claim_or_fail_open(
    store: IdempotencyStore, claim: Callable[[], Claim], log_context: dict[str, str], signal_context: dict[str, Any]
) -> Claim | None:
    """The claim; ``None`` when the store is unreachable and ``IDEMPOTENCY_STORE_UNAVAILABLE``
    is ``"fail-open"`` (the request then runs without its key), else the 503 problem."""
    try:
        return claim()
    except store.unavailable_errors as exc:
        fail_open = api_settings.IDEMPOTENCY_STORE_UNAVAILABLE == "fail-open"
        signals.store_unavailable.send(sender=store.__class__, fail_open=fail_open, error=exc, **signal_context)
        if not fail_open:
            raise _store_unavailable(exc) from exc
        logger.warning("Idempotency store unavailable, request run without its key (fail-open): %s", exc,
                       extra=log_context)
        return None


def _run_keyed(
    store: IdempotencyStore,
    http_request: HttpRequest,
    options: IdempotencyOptions,
    run_view: Callable[[], HttpResponseBase],
    scope_request: Any,
    key: str,
) -> HttpResponseBase:
    settle_unfinished()
    call = _KeyedCall.start(store, http_request, options, scope_request, key)
    deadline = time.monotonic() + options.wait_seconds
    sleep = _WAIT_FIRST_SLEEP
    while True:
        claim = call.claim()
        if claim is None:
            with request_transaction(None):
                return run_view()
        if claim.outcome is not ClaimOutcome.IN_FLIGHT or time.monotonic() + sleep > deadline:
            break
        time.sleep(sleep)
        sleep = min(sleep * 2, _WAIT_LONGEST_SLEEP)
    return call.answer(claim, run_view)


async def run_idempotently_async(
    http_request: HttpRequest,
    options: IdempotencyOptions,
    run_view: Callable[[], HttpResponseBase],
    *,
    scope_request: Any = None,
) -> HttpResponseBase:
    """:func:`run_idempotently` for an async caller, whose event loop it never blocks.

    ``run_view`` is still a sync callable (an async view goes through ``async_to_sync``): it
    runs, with the stored response's write, inside one ``transaction.atomic()`` on Django's
    thread-sensitive thread. The async ORM (``acreate``, ``sync_to_async`` of the view) sends
    its queries back to that very thread, so they run on its connection, in its transaction:
    with the database store the business change and the stored response still commit together.
    The claim and each look at an in-flight twin are store calls of their own on that thread,
    outside the transaction (the claim commits first); between looks the wait is
    ``asyncio.sleep``.
    """
    key = read_idempotency_key(http_request)
    if key is None:
        return await sync_to_async(run_idempotently)(http_request, options, run_view, scope_request=scope_request)
    store = get_store()
    call = await sync_to_async(_KeyedCall.start)(store, http_request, options, scope_request or http_request, key)
    deadline = time.monotonic() + options.wait_seconds
    sleep = _WAIT_FIRST_SLEEP
    while True:
        claim = await sync_to_async(call.claim)()
        if claim is None:
            return await sync_to_async(_run_unkeyed)(run_view)
        if claim.outcome is not ClaimOutcome.IN_FLIGHT or time.monotonic() + sleep > deadline:
            break
        await asyncio.sleep(sleep)
        sleep = min(sleep * 2, _WAIT_LONGEST_SLEEP)
    return await sync_to_async(call.answer)(claim, run_view)


def _run_unkeyed(run_view: Callable[[], HttpResponseBase]) -> HttpResponseBase:
    with request_transaction(None):
        return run_view()


@dataclass
class _KeyedCall:
    """One keyed request between its steps: what its claim, its answer and its logs need."""

    store: IdempotencyStore
    http_request: HttpRequest
    options: IdempotencyOptions
    scope: str
    key: str
    fingerprint: str
    lease_seconds: float
    retention: int
    log_context: dict[str, str]
    signal_context: dict[str, Any]
    claimed_at: float = 0.0

    @classmethod
    def start(
        cls, store: IdempotencyStore, http_request: HttpRequest, options: IdempotencyOptions, scope_request: Any,
        key: str,
    ) -> _KeyedCall:
        scope = str(api_settings.IDEMPOTENCY_SCOPE_RESOLVER(scope_request))
        log_context = {"key_hash": key_hash(scope, key), "trace_id": assign_trace_id(http_request)}
        return cls(
            store, http_request, options, scope, key,
            fingerprint=request_fingerprint(http_request),
            lease_seconds=options.lease_seconds or api_settings.IDEMPOTENCY_LEASE_SECONDS,
            retention=api_settings.IDEMPOTENCY_RETENTION_SECONDS,
            log_context=log_context,
            signal_context={"request": http_request, "scope": scope, "key_hash": log_context["key_hash"]},
        )

    def claim(self) -> Claim | None:
        """One claim (``None``: the store is down and the request runs without its key)."""
        self.claimed_at = time.monotonic()
        return _claim_or_fail_open(
            self.store,
            lambda: self.store.claim(self.scope, self.key, self.fingerprint, self.lease_seconds, self.retention),
            self.log_context,
            self.signal_context,
        )

    def answer(self, claim: Claim, run_view: Callable[[], HttpResponseBase]) -> HttpResponseBase:
        """What the claim's outcome calls for: a problem, a replay, or the view run once."""
        store, http_request, signal_context = self.store, self.http_request, self.signal_context
        if claim.outcome is ClaimOutcome.MISMATCH:
            logger.info("Idempotency key reused with another request", extra=self.log_context)
            signals.mismatch.send(sender=store.__class__, **signal_context)
            raise ProblemException(
                "idempotency-key-reused",
                gettext("This {header} was first used with another method, path, query or body.").format(
                    header=api_settings.IDEMPOTENCY_HEADER
                ),
            )
        if claim.outcome is ClaimOutcome.IN_FLIGHT:
            logger.info("Idempotency key in flight", extra=self.log_context)
            signals.conflict.send(sender=store.__class__, **signal_context)
            raise ProblemException(
                "idempotency-key-in-use",
                gettext("A request with this {header} is still being processed.").format(
                    header=api_settings.IDEMPOTENCY_HEADER
                ),
                headers=retry_after_header(in_flight_retry_after(self.lease_seconds, claim.lease_remaining)),
            )
        if claim.outcome is ClaimOutcome.RESOLVED:
            assert claim.response is not None
            logger.info("Idempotency key replayed", extra=self.log_context)
            signals.replayed.send(sender=store.__class__, **signal_context)
            return replay(claim.response, http_request, retention_remaining=claim.retention_remaining)
        if claim.taken_over_from == "started":
            logger.warning("Idempotency key taken over after its lease passed", extra=self.log_context)
            signals.lease_taken_over.send(sender=store.__class__, **signal_context)
        else:
            signals.claimed.send(sender=store.__class__, **signal_context)

        keyed = KeyedRequest(store, self.scope, self.key, claim.owner, self.lease_seconds,
                             lease_deadline=self.claimed_at + self.lease_seconds,
                             request=http_request, state_marks=marks(http_request),
                             hashed_key=self.log_context["key_hash"])
        set_state(http_request, IDEMPOTENCY, keyed)
        response = _execute(keyed, self.options, run_view, self.retention)
        response[header_names.CACHE_LOOKUP] = "MISS"
        response[header_names.IDEMPOTENT_REPLAYED] = "false"
        if keyed.completed:
            # Stored under the key: say how long a retry will find it (the record was written, or
            # is marked resolved when the request finishes, with this retention).
            response[header_names.IDEMPOTENCY_RETENTION] = str(self.retention)
        return response


def _execute(
    keyed: KeyedRequest, options: IdempotencyOptions, run_view: Callable[[], HttpResponseBase], retention: int
) -> HttpResponseBase:
    store = keyed.store
    try:
        with request_transaction(store) as (rollback_pending, rollback):
            response = run_view()
            wanted = options.keep_status(response.status_code)
            keep = wanted and _keepable(response)
            if not wanted:
                # A status the view does not keep leaves no trace: the key is failed or
                # released, so the view's writes must not stay either.
                rollback()
            elif not keep:
                pass  # a streaming answer cannot be stored: the key is released, the writes stay
            elif store.transactional and not rollback_pending():
                # In the view's transaction: the response commits with the business change.
                if not keyed.complete(response, retention):
                    raise LeaseExpired
                keyed.completed = True
            elif not rollback_pending():
                # A store outside the transaction: before the business change commits, prove
                # the lease is still ours (or roll it back) and record what is being committed.
                keyed.hold_over_commit(response)
    except LeaseExpired:
        raise ProblemException(
            "idempotency-lease-expired",
            gettext(
                "This request outlived its lease and another request with the same key took over; "
                "its changes were rolled back."
            ),
            headers=retry_after_header(LEASE_EXPIRED_RETRY_AFTER),
        ) from None
    except RuntimeError as exc:
        if not (store.transactional and is_durable_nesting(exc)):
            _abandon(store.fail, keyed)
            raise
        # Nothing ran to its end and everything rolled back: the key is free again.
        _abandon(store.release, keyed)
        raise _durable_transaction_problem(keyed) from exc
    except BaseException:
        _abandon(store.fail, keyed)
        raise
    if keep and keyed.prepared:
        # Committed, and the store holds the answer with the transaction's id: from now on every
        # retry gets it (a retry that comes first asks the database). Marking it resolved can
        # wait until the response is sent, off the client's path, where the request is sure to
        # finish: a WSGI server always closes its response. Django's ASGI handler does not when
        # the client leaves before the answer, which would leave the key to be settled by a retry.
        keyed.warn_if_body_omitted(keyed.stored(response))
        if isinstance(keyed.request, WSGIRequest):
            _settle_when_the_request_finishes(keyed, retention)
        else:
            _settle(keyed, retention)
        keyed.completed = True
    elif keep and not keyed.completed:
        # The view's transaction rolled back (an error answer) or the store is not transactional.
        keyed.completed = keyed.complete(response, retention)
        if not keyed.completed:
            logger.error(
                "Idempotency lease lost before the response could be stored", extra={"key_hash": keyed.hashed_key}
            )
    elif not keep:
        _abandon(store.fail if response.status_code >= 500 else store.release, keyed)
    return response


#: What Django raises when ``transaction.atomic(durable=True)`` opens inside another atomic block.
_DURABLE_NESTING_MESSAGE = "A durable atomic block cannot be nested within another atomic block."


def is_durable_nesting(exc: BaseException) -> bool:
    """Whether ``exc`` is Django's refusal of a durable atomic block inside another one."""
    return isinstance(exc, RuntimeError) and str(exc) == _DURABLE_NESTING_MESSAGE


def _durable_transaction_problem(keyed: KeyedRequest) -> ProblemException:
    # The view wants its own transaction to commit for real, at the end of its durable block;
    # the store keeps the answer in the transaction around the view, so that the change and
    # its answer commit together. The two cannot both hold: the request is refused, not run
    # with a weaker guarantee than the store promises.
    logger.error(
        "A keyed request's view opened a durable atomic block inside the transaction of the database "
        "idempotency store: the request was refused (501). Drop durable=True from the view, use the "
        "Redis store, or take the view's method out of its idempotency_methods.",
        extra={"key_hash": keyed.hashed_key},
    )
    return ProblemException(
        "idempotency-not-supported",
        gettext(
            "This endpoint commits its own database transaction, which cannot run inside the transaction "
            "that keeps a keyed request's answer with its changes. Nothing was changed; send it without "
            "{header}."
        ).format(header=api_settings.IDEMPOTENCY_HEADER),
    )


def _settle(keyed: KeyedRequest, retention: int) -> None:
    """Mark the prepared, committed key resolved: when its request finishes, or right after the commit."""
    try:
        settled = keyed.store.settle(keyed.scope, keyed.key, keyed.owner, retention)
    except Exception:  # the answer stands; a retry settles the key from the database
        logger.warning("Could not mark the committed idempotency key resolved; the next request with it "
                       "asks the database", exc_info=True, extra={"key_hash": keyed.hashed_key})
        return
    if not settled:
        logger.debug("Idempotency key already settled (by a retry, asking the database) or expired",
                     extra={"key_hash": keyed.hashed_key})


#: The settles of this thread's WSGI request, run when it finishes. A WSGI server handles one
#: request at a time per thread and closes its final response, whichever object that is (a
#: middleware may have replaced the view's), and closing it sends ``request_finished``.
_unfinished = threading.local()


def _settle_when_the_request_finishes(keyed: KeyedRequest, retention: int) -> None:
    pending: list[Callable[[], None]] | None = getattr(_unfinished, "settles", None)
    if pending is None:
        pending = _unfinished.settles = []
    pending.append(functools.partial(_settle, keyed, retention))


def settle_unfinished(**_: Any) -> None:
    """Run this thread's pending settles: on ``request_finished``, and before a keyed request
    whose thread still holds some (a response never closed: a view called by a test's
    ``RequestFactory``, say)."""
    pending = getattr(_unfinished, "settles", None)
    if pending:
        _unfinished.settles = []
        for settle in pending:
            settle()


request_finished.connect(settle_unfinished, dispatch_uid="django_api_conventions.idempotency.settle_unfinished")


def _abandon(action: Callable[[str, str, str], bool], keyed: KeyedRequest) -> None:
    try:
        action(keyed.scope, keyed.key, keyed.owner)
    except Exception:  # the view's own failure matters more; the lease expires on its own
        logger.exception("Could not mark the idempotency key", extra={"key_hash": keyed.hashed_key})


def _keepable(response: HttpResponseBase) -> bool:
    if getattr(response, "streaming", False):
        return False  # a stream cannot be stored and replayed byte for byte
    render = getattr(response, "render", None)
    if render is not None and not getattr(response, "is_rendered", True):
        render()
    return True


@lru_cache(maxsize=8)
def _replayed_header_names(setting: tuple[str, ...]) -> frozenset[str]:
    """The lower-cased names of IDEMPOTENCY_REPLAYED_HEADERS that are stored: built once per value
    of the setting (the setting's tuple is the cache key, so ``override_settings`` is honoured)."""
    return frozenset(name.lower() for name in setting) - {"set-cookie"}


def _stored(response: HttpResponseBase) -> StoredResponse:
    allowed = _replayed_header_names(tuple(api_settings.IDEMPOTENCY_REPLAYED_HEADERS))
    headers = {name: value for name, value in response.items() if name.lower() in allowed}
    # Whatever the setting: the body is replayed as it is, so the language it is written in
    # goes with it, not the language a retry asks for.
    language = response_language(response)
    if language and "content-language" not in {name.lower() for name in headers}:
        headers["Content-Language"] = language
    body = bytes(response.content)
    limit = api_settings.IDEMPOTENCY_MAX_STORED_BODY_BYTES
    if limit is not None and len(body) > limit:
        # The view ran and its answer was sent; what is stored says so, without the body. A
        # retry must learn that the operation happened, not run it again.
        kept = {name: value for name, value in headers.items() if name in _OMITTED_BODY_REPLAYED_HEADERS}
        return StoredResponse(status=response.status_code, headers={**kept, OMITTED_BODY_HEADER: str(len(body))},
                              body=b"")
    return StoredResponse(status=response.status_code, headers=headers, body=body)


def replay(
    stored: StoredResponse, request: HttpRequest | None = None, *, retention_remaining: float | None = None,
) -> HttpResponse:
    """The stored response again; a problem when its body was too large to be stored.

    What the first request's view left on its request (:mod:`.request_state`) is restored on
    ``request``. ``retention_remaining``: the seconds the key is still kept, sent as
    ``Idempotency-Retention`` (whole seconds, rounded down: never a promise the store won't keep).
    """
    stored = StoredResponse(stored.status, restore_and_strip(request, stored.headers), stored.body)
    retention = {} if retention_remaining is None else {
        header_names.IDEMPOTENCY_RETENTION: str(max(0, math.floor(retention_remaining)))}
    if OMITTED_BODY_HEADER in stored.headers:
        raise _response_too_large(stored, retention)
    response = HttpResponse(stored.body, status=stored.status)
    if "Content-Type" not in stored.headers and "content-type" not in stored.headers:
        del response["Content-Type"]
    for name, value in stored.headers.items():
        response[name] = value
    response[header_names.CACHE_LOOKUP] = "HIT"
    response[header_names.IDEMPOTENT_REPLAYED] = "true"
    for name, value in retention.items():
        response[name] = value
    return response


def _response_too_large(stored: StoredResponse, retention: dict[str, str]) -> ProblemException:
    header = api_settings.IDEMPOTENCY_HEADER
    return ProblemException(
        "idempotency-response-too-large",
        gettext(
            "The request with this {header} ran once and answered {status}, but its response ({size} bytes) was "
            "too large to be kept for replay. Do not send it again under a new key: read its result instead."
        ).format(header=header, status=stored.status, size=stored.headers[OMITTED_BODY_HEADER]),
        headers={
            **{name: value for name, value in stored.headers.items() if name != OMITTED_BODY_HEADER},
            header_names.CACHE_LOOKUP: "HIT",
            header_names.IDEMPOTENT_REPLAYED: "true",
            **retention,
        },
        extensions={"original_status": stored.status},
    )


@contextmanager
def request_transaction(store: IdempotencyStore | None) -> Iterator[tuple[Callable[[], bool], Callable[[], None]]]:
    """``transaction.atomic()`` on every ``ATOMIC_REQUESTS`` database and on the store's.

    Views protected here are exempt from Django's own ``ATOMIC_REQUESTS`` wrapping (the claim
    must commit before the view's transaction starts); this restores it around the view.
    Yields two functions: whether the store's transaction is already marked for rollback (DRF's
    exception handler does that for error answers), and one that marks every one for rollback.
    """
    aliases = [alias for alias, config in settings.DATABASES.items() if config.get("ATOMIC_REQUESTS")]
    store_alias = store.database_alias if store is not None and store.transactional else None
    if store_alias and store_alias not in aliases:
        aliases.append(store_alias)
    with ExitStack() as stack:
        for alias in aliases:
            stack.enter_context(transaction.atomic(using=alias))
        def rollback_pending() -> bool:
            return bool(store_alias) and transaction.get_rollback(using=store_alias)

        def rollback() -> None:
            for alias in aliases:
                transaction.set_rollback(True, using=alias)

        yield rollback_pending, rollback


def exempt_from_atomic_requests(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``view`` so Django does not wrap it in ``ATOMIC_REQUESTS``' transaction itself."""
    view._non_atomic_requests = set(settings.DATABASES)  # type: ignore[attr-defined]
    return view
