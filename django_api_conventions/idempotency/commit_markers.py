"""Asking the database, later, whether a transaction committed: for stores outside the transaction.

A store that cannot join the view's transaction (Redis) stores the response *before* the
commit, as "committing", with the id of the transaction. If the worker dies between the commit
and the store's final write, the next request with the key asks PostgreSQL what became of that
transaction (``txid_status``) instead of guessing: committed, the stored response answers;
rolled back, the key is taken over. Other databases give no marker: the store then keeps its
documented window (see docs/idempotency-stores.md, "The Redis store").
"""

from __future__ import annotations

from enum import Enum

from django.db import connections, transaction


class TransactionStatus(Enum):
    COMMITTED = "committed"
    ABORTED = "aborted"
    IN_PROGRESS = "in progress"
    UNKNOWN = "unknown"  # older than what the database remembers (its commit log was truncated)


def transaction_marker(alias: str) -> str | None:
    """The id of the transaction open on ``alias``, or ``None`` where it cannot be asked about."""
    connection = connections[alias]
    if connection.vendor != "postgresql" or not connection.in_atomic_block or transaction.get_rollback(alias):
        return None  # nothing to ask about, or nothing will commit (an error answer rolls back)
    with connection.cursor() as cursor:
        cursor.execute("SELECT txid_current()")
        return str(cursor.fetchone()[0])


def transaction_status(alias: str, marker: str) -> TransactionStatus:
    """What became of the transaction ``marker`` of ``alias``."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT txid_status(%s)", [int(marker)])
        status = cursor.fetchone()[0]
    if status is None:
        return TransactionStatus.UNKNOWN
    return TransactionStatus(status)
