"""Running one request at most once per idempotency key.

The protocol, whichever way a view is protected (mixin, decorator, middleware):

1. read the key (absent: run normally, or 400 where it is required; malformed: 400);
2. claim it atomically in the store: a stored response is replayed, a live claim of another
   request answers 409, a different request under the same key answers 422;
3. run the view inside ``transaction.atomic()``; with the database store the resolved record is
   written in that same transaction, so the business change and the stored response commit
   together or not at all;
4. an unhandled exception or a 5xx the view does not keep marks the key failed, and a 4xx it
   does not keep (by default a 409) releases it; either way the view's transaction is rolled
   back, so a retry runs the view again on a clean slate.

The layer's own problems carry ``Cache-Control: no-store`` and ``retryable`` (their types do:
``RETRYABLE_WITH_SAME_KEY``); the view's answers, stored or not, are sent as the view made them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import gettext

from ..clients.client_ids import get_client_id
from ..conf import api_settings
from ..http import header_names
from ..http.request_attributes import IDEMPOTENCY, set_state
from ..problems.details import ProblemException, retry_after_header
from ..tracing.trace_ids import assign_trace_id
from . import signals
from .fingerprint import request_fingerprint
from .keys import read_idempotency_key
from .leases import KeyedRequest, LeaseExpired, key_hash, store_unavailable_problem
from .replay import REPLAYED_HEADERS, keepable, replay
from .request_state import marks
from .stores import Claim, ClaimOutcome, IdempotencyStore, get_store
from .transactions import (
    is_durable_nesting,
    request_transaction,
    run_unkeyed,
    settle,
    settle_unfinished,
    settle_when_the_request_finishes,
)
from .waiting import ClaimWait, in_flight_retry_after

logger = logging.getLogger("django_api_conventions.idempotency")

DEFAULT_METHODS = frozenset({"POST", "PATCH"})
#: A request that lost its lease was rolled back while a newer attempt runs: one second on, a
#: retry usually finds that attempt's stored answer (or its 409 with its own estimate).
_LEASE_EXPIRED_RETRY_AFTER = 1


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
    #: Response headers stored and replayed with the body (never ``Set-Cookie``).
    replayed_headers: tuple[str, ...] = REPLAYED_HEADERS
    #: Whose key it is: the scope a key is looked up in, from the request the view sees.
    scope_of: Callable[[Any], str] = get_client_id


def run_idempotently(
    http_request: HttpRequest,
    options: IdempotencyOptions,
    run_view: Callable[[], HttpResponseBase],
    *,
    scope_request: Any = None,
    before_view: Callable[[], object] | None = None,
) -> HttpResponseBase:
    """Answer ``http_request`` by running ``run_view`` at most once per key.

    ``scope_request`` is what ``options.scope_of`` sees (DRF's request, once it authenticated
    the caller); by default ``http_request``. ``before_view`` is called once the key is this
    request's, before the view's transaction opens: what it raises answers the request and
    frees the key, with nothing stored (a replay never calls it). Raises
    :class:`ProblemException` for 400, 409, 422 and 503 answers.
    """
    key = _read_key(http_request, options)
    if key is None:
        return run_unkeyed(run_view)
    store = get_store()
    settle_unfinished()
    call = _KeyedCall.start(store, http_request, options, scope_request or http_request, key)
    wait = ClaimWait(options.wait_seconds)
    while (pause := wait.pause_after(claim := call.claim())) is not None:
        time.sleep(pause)
    return run_unkeyed(run_view) if claim is None else call.answer(claim, run_view, before_view)


async def run_idempotently_async(
    http_request: HttpRequest,
    options: IdempotencyOptions,
    run_view: Callable[[], HttpResponseBase],
    *,
    scope_request: Any = None,
    before_view: Callable[[], object] | None = None,
) -> HttpResponseBase:
    """:func:`run_idempotently` for an async caller, whose event loop it never blocks.

    ``run_view`` is still sync (an async view goes through ``async_to_sync``): it runs with the
    stored response's write in one ``transaction.atomic()`` on Django's thread-sensitive thread,
    where the async ORM sends its queries too. The first claim and the answer share one trip to
    that thread; each later look at an in-flight twin is a trip of its own, with
    ``asyncio.sleep`` between.
    """
    key = _read_key(http_request, options)
    if key is None:
        return await sync_to_async(run_unkeyed)(run_view)
    store = get_store()
    wait = ClaimWait(options.wait_seconds)

    def attempt(call: _KeyedCall | None) -> tuple[_KeyedCall, float | None, HttpResponseBase | None]:
        call = call or _KeyedCall.start(store, http_request, options, scope_request or http_request, key)
        claim = call.claim()
        pause = wait.pause_after(claim)
        if pause is not None:
            return call, pause, None
        return call, None, run_unkeyed(run_view) if claim is None else call.answer(claim, run_view, before_view)

    call, pause, response = await sync_to_async(attempt)(None)
    while pause is not None:
        await asyncio.sleep(pause)
        call, pause, response = await sync_to_async(attempt)(call)
    assert response is not None  # no pause: answered
    return response


def _read_key(http_request: HttpRequest, options: IdempotencyOptions) -> str | None:
    """The request's key; ``None`` when it has none and the view does not require one."""
    key = read_idempotency_key(http_request)
    if key is None and options.required:
        header = header_names.IDEMPOTENCY_KEY
        raise ProblemException(
            "idempotency-key-missing",
            gettext("This endpoint requires an {header} header.").format(header=header),
            errors=[{"header": header, "detail": gettext("This header is required."), "code": "required"}],
        )
    return key


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
        cls,
        store: IdempotencyStore,
        http_request: HttpRequest,
        options: IdempotencyOptions,
        scope_request: Any,
        key: str,
    ) -> _KeyedCall:
        scope = str(options.scope_of(scope_request))
        log_context = {"key_hash": key_hash(scope, key), "trace_id": assign_trace_id(http_request)}
        return cls(
            store,
            http_request,
            options,
            scope,
            key,
            fingerprint=request_fingerprint(http_request),
            lease_seconds=options.lease_seconds or api_settings.IDEMPOTENCY_LEASE_SECONDS,
            retention=api_settings.IDEMPOTENCY_RETENTION_SECONDS,
            log_context=log_context,
            signal_context={"request": http_request, "scope": scope, "key_hash": log_context["key_hash"]},
        )

    def claim(self) -> Claim | None:
        """One claim; ``None`` when the store is down and ``IDEMPOTENCY_STORE_UNAVAILABLE`` is
        ``"fail-open"``: the request then runs without its key."""
        store = self.store
        self.claimed_at = time.monotonic()
        try:
            return store.claim(self.scope, self.key, self.fingerprint, self.lease_seconds, self.retention)
        except store.unavailable_errors as exc:
            fail_open = api_settings.IDEMPOTENCY_STORE_UNAVAILABLE == "fail-open"
            signals.store_unavailable.send(
                sender=store.__class__, fail_open=fail_open, error=exc, **self.signal_context
            )
            if not fail_open:
                raise store_unavailable_problem(exc) from exc
            logger.warning(
                "Idempotency store unavailable, request run without its key (fail-open): %s",
                exc,
                extra=self.log_context,
            )
            return None

    def answer(
        self, claim: Claim, run_view: Callable[[], HttpResponseBase], before_view: Callable[[], object] | None = None
    ) -> HttpResponseBase:
        """What the claim's outcome calls for: a problem, a replay, or the view run once."""
        if claim.outcome is ClaimOutcome.MISMATCH:
            raise self._key_reused()
        if claim.outcome is ClaimOutcome.IN_FLIGHT:
            raise self._key_in_use(claim)
        if claim.outcome is ClaimOutcome.RESOLVED:
            assert claim.response is not None
            logger.info("Idempotency key replayed", extra=self.log_context)
            signals.replayed.send(sender=self.store.__class__, **self.signal_context)
            return replay(claim.response, self.http_request, retention_remaining=claim.retention_remaining)
        return self._run(claim, run_view, before_view)

    def _key_reused(self) -> ProblemException:
        logger.info("Idempotency key reused with another request", extra=self.log_context)
        signals.mismatch.send(sender=self.store.__class__, **self.signal_context)
        return ProblemException(
            "idempotency-key-reused",
            gettext("This {header} was first used with another method, path, query or body.").format(
                header=header_names.IDEMPOTENCY_KEY
            ),
        )

    def _key_in_use(self, claim: Claim) -> ProblemException:
        logger.info("Idempotency key in flight", extra=self.log_context)
        signals.conflict.send(sender=self.store.__class__, **self.signal_context)
        return ProblemException(
            "idempotency-key-in-use",
            gettext("A request with this {header} is still being processed.").format(
                header=header_names.IDEMPOTENCY_KEY
            ),
            headers=retry_after_header(in_flight_retry_after(self.lease_seconds, claim.lease_remaining)),
        )

    def _run(
        self, claim: Claim, run_view: Callable[[], HttpResponseBase], before_view: Callable[[], object] | None
    ) -> HttpResponseBase:
        """The key is this request's: run the view once, and store its answer."""
        http_request = self.http_request
        keyed = KeyedRequest(
            self.store,
            self.scope,
            self.key,
            claim.owner,
            self.lease_seconds,
            lease_deadline=self.claimed_at + self.lease_seconds,
            request=http_request,
            state_marks=marks(http_request),
            hashed_key=self.log_context["key_hash"],
            replayed_headers=self.options.replayed_headers,
        )
        if before_view is not None:
            try:
                before_view()
            except BaseException:
                _abandon(self.store.release, keyed)
                raise
        if claim.taken_over_from == "started":
            logger.warning("Idempotency key taken over after its lease passed", extra=self.log_context)
            signals.lease_taken_over.send(sender=self.store.__class__, **self.signal_context)
        else:
            signals.claimed.send(sender=self.store.__class__, **self.signal_context)
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
    """Step 3 and 4 of the protocol: the view in its transaction, then the key's end."""
    store = keyed.store
    try:
        response, keep = _run_in_transaction(keyed, options, run_view, retention)
    except LeaseExpired:
        raise _lease_expired_problem() from None
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
    if keep:
        _complete_after_commit(keyed, response, retention)
    else:
        _abandon(store.fail if response.status_code >= 500 else store.release, keyed)
    return response


def _run_in_transaction(
    keyed: KeyedRequest, options: IdempotencyOptions, run_view: Callable[[], HttpResponseBase], retention: int
) -> tuple[HttpResponseBase, bool]:
    with request_transaction(keyed.store) as (rollback_pending, rollback):
        response = run_view()
        wanted = options.keep_status(response.status_code)
        keep = wanted and keepable(response)
        if not wanted:
            rollback()  # the key is failed or released: the view's writes must not stay either
        elif keep and not rollback_pending():
            _complete_before_commit(keyed, response, retention)
        # A streaming answer cannot be kept: its key is released after, and its writes stay.
    return response, keep


def _complete_before_commit(keyed: KeyedRequest, response: HttpResponseBase, retention: int) -> None:
    if keyed.store.transactional:
        # In the view's transaction: the response commits with the business change.
        if not keyed.complete(response, retention):
            raise LeaseExpired
        keyed.completed = True
    else:
        # A store outside the transaction: before the business change commits, prove
        # the lease is still ours (or roll it back) and record what is being committed.
        keyed.hold_over_commit(response)


def _complete_after_commit(keyed: KeyedRequest, response: HttpResponseBase, retention: int) -> None:
    if keyed.prepared:
        # Committed, and the store holds the answer with the transaction's id (a retry that comes
        # first asks the database). Under WSGI, which always closes its response, marking it
        # resolved waits until the response is sent; Django's ASGI handler may never close it.
        keyed.warn_if_body_omitted(keyed.stored(response))
        if isinstance(keyed.request, WSGIRequest):
            settle_when_the_request_finishes(keyed, retention)
        else:
            settle(keyed, retention)
        keyed.completed = True
    elif not keyed.completed:
        # The view's transaction rolled back (an error answer) or the store is not transactional.
        keyed.completed = keyed.complete(response, retention)
        if not keyed.completed:
            logger.error(
                "Idempotency lease lost before the response could be stored", extra={"key_hash": keyed.hashed_key}
            )


def _abandon(action: Callable[[str, str, str], bool], keyed: KeyedRequest) -> None:
    try:
        action(keyed.scope, keyed.key, keyed.owner)
    except Exception:  # the view's own failure matters more; the lease expires on its own
        logger.exception("Could not mark the idempotency key", extra={"key_hash": keyed.hashed_key})


def _lease_expired_problem() -> ProblemException:
    return ProblemException(
        "idempotency-lease-expired",
        gettext(
            "This request outlived its lease and another request with the same key took over; "
            "its changes were rolled back."
        ),
        headers=retry_after_header(_LEASE_EXPIRED_RETRY_AFTER),
    )


def _durable_transaction_problem(keyed: KeyedRequest) -> ProblemException:
    # The view's durable block commits on its own; the store's answer must commit with the
    # change. Both cannot hold: refused, not run with a weaker guarantee than the store promises.
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
        ).format(header=header_names.IDEMPOTENCY_KEY),
    )
