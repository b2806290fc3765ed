"""Asking PostgreSQL later (``txid_status``) whether a transaction committed, for a store
outside the transaction (Redis) whose worker died between the commit and its final write.
Other databases give no marker (docs/idempotency-stores.md, "The Redis store").
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
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT txid_status(%s)", [int(marker)])
        status = cursor.fetchone()[0]
    if status is None:
        return TransactionStatus.UNKNOWN
    return TransactionStatus(status)
