"""The transactions around a protected view, and what is done once they committed."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.http import HttpResponseBase

if TYPE_CHECKING:
    from .leases import KeyedRequest
    from .stores import IdempotencyStore

logger = logging.getLogger("django_api_conventions.idempotency")


@contextmanager
def request_transaction(store: IdempotencyStore | None) -> Iterator[tuple[Callable[[], bool], Callable[[], None]]]:
    """``transaction.atomic()`` on every ``ATOMIC_REQUESTS`` database and on the store's.

    Protected views are exempt from Django's own ``ATOMIC_REQUESTS`` wrapping (the claim must
    commit first); this restores it. Yields whether the store's transaction is marked for
    rollback (DRF does that for error answers), and a function that marks every one.
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


def run_unkeyed(run_view: Callable[[], HttpResponseBase]) -> HttpResponseBase:
    with request_transaction(None):
        return run_view()


def exempt_from_atomic_requests(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``view`` so Django does not wrap it in ``ATOMIC_REQUESTS``' transaction itself."""
    for alias in settings.DATABASES:
        view = transaction.non_atomic_requests(using=alias)(view)
    return view


def is_durable_nesting(exc: BaseException) -> bool:
    """Whether ``exc`` is Django's refusal of a durable atomic block inside another one.

    Django raises no exception class of its own for it: a plain ``RuntimeError`` from
    ``django.db.transaction``, the only one that module raises (Django 5.2 and 6.1). It is
    recognised by where it was raised, never by its text, which Django may reword;
    tests/test_idempotency_durable.py fails on a Django that raises it elsewhere.
    """
    if type(exc) is not RuntimeError:  # not a subclass: RecursionError is one
        return False
    raised_at = exc.__traceback__
    if raised_at is None:  # never raised
        return False
    while raised_at.tb_next is not None:
        raised_at = raised_at.tb_next
    return bool(raised_at.tb_frame.f_globals.get("__name__") == transaction.__name__)


def settle(keyed: KeyedRequest, retention: int) -> None:
    try:
        settled = keyed.store.settle(keyed.scope, keyed.key, keyed.owner, retention)
    except Exception:  # the answer stands; a retry settles the key from the database
        logger.warning(
            "Could not mark the committed idempotency key resolved; the next request with it asks the database",
            exc_info=True,
            extra={"key_hash": keyed.hashed_key},
        )
        return
    if not settled:
        logger.debug(
            "Idempotency key already settled (by a retry, asking the database) or expired",
            extra={"key_hash": keyed.hashed_key},
        )


#: The settles of this thread's WSGI request, run when it finishes. A WSGI server handles one
#: request at a time per thread and closes its final response, whichever object that is (a
#: middleware may have replaced the view's), and closing it sends ``request_finished``.
_unfinished = threading.local()


def settle_when_the_request_finishes(keyed: KeyedRequest, retention: int) -> None:
    pending: list[Callable[[], None]] | None = getattr(_unfinished, "settles", None)
    if pending is None:
        pending = _unfinished.settles = []
    pending.append(functools.partial(settle, keyed, retention))


def settle_unfinished(**_: Any) -> None:
    """Run this thread's pending settles: on ``request_finished``, and before a keyed request
    whose thread still holds some (a response never closed, as of a ``RequestFactory`` call)."""
    pending = getattr(_unfinished, "settles", None)
    if pending:
        _unfinished.settles = []
        for settle_one in pending:
            settle_one()
