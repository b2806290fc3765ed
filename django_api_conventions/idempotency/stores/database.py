"""The database store: the resolved record commits in the same transaction as the view."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, NamedTuple

from django.db import IntegrityError, InterfaceError, OperationalError, connections, transaction
from django.db.models import QuerySet
from django.utils import timezone

from ...conf import api_settings
from ...models import IdempotencyRecord
from ..encryption import StoredAnswerUnreadable, content_shown, seal, unseal
from ._django_compat import server_binding_cursor
from .base import Claim, ClaimOutcome, IdempotencyStore, RecordSummary, StoredResponse, new_owner_token

__all__ = ["DatabaseStore"]

State = IdempotencyRecord.State


class DatabaseStore(IdempotencyStore):
    """Records in :class:`~django_api_conventions.models.IdempotencyRecord`, on one database.

    The claim is an INSERT that the unique constraint on (scope, key) makes atomic. On
    PostgreSQL it commits without waiting for its WAL flush (``synchronous_commit = off`` for
    that transaction alone): the later commit of the business change flushes it too, and a
    claim lost in a server crash only lets a retry run, which is safe because the business
    change was lost with it.
    """

    transactional: ClassVar[bool] = True
    unavailable_errors: ClassVar[tuple[type[BaseException], ...]] = (
        OperationalError,
        InterfaceError,
        StoredAnswerUnreadable,
    )

    def __init__(self, alias: str | None = None) -> None:
        self.database_alias: str = alias or api_settings.IDEMPOTENCY_DATABASE

    def ping(self) -> None:
        with connections[self.database_alias].cursor() as cursor:
            cursor.execute("SELECT 1")

    @property
    def records(self) -> QuerySet[IdempotencyRecord]:
        # Always this alias: a read replica must never answer "no such key".
        return IdempotencyRecord.objects.using(self.database_alias)

    def claim(self, scope: str, key: str, fingerprint: str, lease_seconds: float, retention_seconds: int) -> Claim:
        owner = new_owner_token()
        connection = connections[self.database_alias]
        # Outside any transaction, PostgreSQL claims a new key in one statement, instead of BEGIN,
        # SET, INSERT, COMMIT; a key already held costs one read more.
        insert_first = connection.vendor == "postgresql" and connection.get_autocommit()
        read_first = connection.vendor == "sqlite"
        for _attempt in range(5):  # the record may vanish between our INSERT and our SELECT
            now = timezone.now()
            lease = _lease(owner, now, lease_seconds, retention_seconds)
            if insert_first:
                claimed_now, held = self._insert_or_read(scope, key, fingerprint, lease, now)
            else:
                claimed_now, record, now = self._create_or_read(scope, key, fingerprint, lease, now, read_first)
                held = None if record is None else _HeldRecord.of(record, now)
            if claimed_now:
                return Claim(ClaimOutcome.CLAIMED, owner=owner)
            claim = None if held is None else self._claim_held(scope, key, held, fingerprint, lease, now)
            if claim is not None:
                return claim
        return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=1.0)

    def _create_or_read(
        self, scope: str, key: str, fingerprint: str, lease: dict[str, Any], now: datetime, read_first: bool
    ) -> tuple[bool, IdempotencyRecord | None, datetime]:
        """INSERT the claim in a transaction of its own, or else read the record that holds the
        key: whether it inserted, the record (``None``: gone again), the time it is judged at.

        SQLite (``read_first``) reads first: the request holding a key in flight holds the one
        write lock while its view runs, and an INSERT would wait for it, then answer "database
        is locked" (503) where the contract says 409.
        """
        record = self.records.filter(scope=scope, key=key).first() if read_first else None
        if record is not None:
            return False, record, now
        try:
            # Inside the caller's transaction (or with autocommit off) the claim keeps its
            # durability: relaxing it there would relax the commit of the caller's work too.
            with transaction.atomic(using=self.database_alias):
                self.records.create(scope=scope, key=key, fingerprint=fingerprint, **lease)
            return True, None, now
        except IntegrityError:
            pass
        except OperationalError:
            if not read_first:
                raise
            # The key may have been claimed between our read and our INSERT, by the request
            # that now holds the lock: then it is in flight, not unavailable.
            now = timezone.now()
            record = self.records.filter(scope=scope, key=key).first()
            if record is None or not _held(record, fingerprint, now):
                raise
            return False, record, now
        return False, self.records.filter(scope=scope, key=key).first(), now

    def _claim_held(
        self, scope: str, key: str, held: _HeldRecord, fingerprint: str, lease: dict[str, Any], now: datetime
    ) -> Claim | None:
        """What the record that holds the key answers; ``None`` when it changed under us."""
        if not held.expired:
            answer = _answer_of_live_record(held, fingerprint)
            if answer is not None and answer.response is not None:
                return replace(answer, response=unseal(scope, key, answer.response))
            if answer is not None:
                return answer
        # A failed key, a dead worker's key, or a record past its retention: take it over,
        # provided nobody else did since we read it.
        taken = self.records.filter(scope=scope, key=key, state=held.state, lease_owner=held.lease_owner).update(
            fingerprint=fingerprint,
            response_status=None,
            response_headers={},
            response_body=None,
            updated_at=now,
            **lease,
        )
        if taken:
            return Claim(ClaimOutcome.CLAIMED, owner=lease["lease_owner"], taken_over_from=held.state)
        return None

    def _insert_or_read(
        self, scope: str, key: str, fingerprint: str, lease: dict[str, Any], now: datetime
    ) -> tuple[bool, _HeldRecord | None]:
        """PostgreSQL, in autocommit: INSERT the claim, or else read the record that holds the key
        (judged at ``now``), in one statement and round trip; ``set_config(..., true)`` relaxes
        the durability of its implicit transaction alone. ``(False, None)`` when its snapshot
        cannot see that record (committed while the INSERT waited, or gone again): try again.
        """
        connection = connections[self.database_alias]
        owned = [lease["lease_owner"], lease["lease_expires_at"], lease["expires_at"]]
        params = [scope, key, lease["state"], fingerprint, *owned, now, now, now, scope, key]
        with _hot_path_cursor(connection) as cursor:
            cursor.execute(_claim_sql(connection), params)
            claimed, *values = cursor.fetchone()
        if claimed:
            return True, None  # a fresh key, the common case
        if values[0] is None:
            return False, None
        return False, _HeldRecord(*values)

    def complete(self, scope: str, key: str, owner: str, response: StoredResponse, retention_seconds: int) -> bool:
        now = timezone.now()
        response = seal(scope, key, response)
        return self._update_owned(
            scope,
            key,
            owner,
            {
                "state": State.RESOLVED,
                "response_status": response.status,
                "response_headers": response.headers,
                "response_body": response.body,
                "lease_expires_at": now,
                "expires_at": now + timedelta(seconds=retention_seconds),
                "updated_at": now,
            },
        )

    def fail(self, scope: str, key: str, owner: str) -> bool:
        now = timezone.now()
        values = {"state": State.FAILED, "lease_expires_at": now, "updated_at": now}
        return self._update_owned(scope, key, owner, values)

    def _update_owned(self, scope: str, key: str, owner: str, values: dict[str, Any]) -> bool:
        """``self._owned(...).update(**values)`` in SQL written once: the ORM's query compiler
        cost more CPU than the UPDATE itself, on every keyed request."""
        connection = connections[self.database_alias]
        params = [_db_value(name, value, connection) for name, value in values.items()]
        params += [scope, key, owner, State.STARTED]
        with _hot_path_cursor(connection) as cursor:
            cursor.execute(_update_owned_sql(connection, tuple(values)), params)
            return bool(cursor.rowcount > 0)

    def release(self, scope: str, key: str, owner: str) -> bool:
        deleted, _ = self._owned(scope, key, owner).delete()
        return bool(deleted)

    def renew(self, scope: str, key: str, owner: str, lease_seconds: float) -> bool:
        now = timezone.now()
        until = now + timedelta(seconds=lease_seconds)
        owned = self._owned(scope, key, owner)
        renewed = bool(owned.update(lease_expires_at=until, updated_at=now))
        owned.filter(expires_at__lt=until).update(expires_at=until)  # the record outlives its lease
        return renewed

    def _owned(self, scope: str, key: str, owner: str) -> QuerySet[IdempotencyRecord]:
        return self.records.filter(scope=scope, key=key, lease_owner=owner, state=State.STARTED)

    def inspect(self, scope: str, key: str) -> RecordSummary | None:
        record = self.records.filter(scope=scope, key=key).first()
        if record is None:
            return None
        return RecordSummary(
            state=record.state,
            fingerprint=record.fingerprint,
            response_status=record.response_status,
            lease_expires_at=record.lease_expires_at,
            expires_at=record.expires_at,
            extra={
                "response content": content_shown(record.response_headers if record.response_status else None),
                "created_at": record.created_at,
                "updated_at": record.updated_at,
            },
        )

    def purge(self, *, batch_size: int, dry_run: bool) -> int:
        """Delete expired records, oldest first, ``batch_size`` a statement, each batch in its own
        transaction. Each batch starts where the one before ended, not at the start of the
        ``expires_at`` index, whose dead entries stay until VACUUM (docs/performance.md); the
        DELETE checks expiry again, for a record taken over since the batch was chosen.
        """
        now = timezone.now()
        expired = self.records.filter(expires_at__lt=now, lease_expires_at__lt=now)
        if dry_run:
            return expired.count()
        if connections[self.database_alias].vendor == "postgresql":
            return self._purge_in_one_statement_per_batch(now, batch_size)
        total = 0
        oldest: datetime | None = None
        while True:
            batch = list(
                (expired if oldest is None else expired.filter(expires_at__gte=oldest))
                .order_by("expires_at")
                .values_list("pk", "expires_at")[:batch_size]
            )
            if not batch:
                return total
            deleted, _ = expired.filter(pk__in=[pk for pk, _ in batch]).delete()
            total += deleted
            oldest = batch[-1][1]

    def _purge_in_one_statement_per_batch(self, now: datetime, batch_size: int) -> int:
        """PostgreSQL: choose, delete and answer (how many, up to which expiry) in one statement,
        one round trip and no list of keys sent back and forth."""
        connection = connections[self.database_alias]
        quote = connection.ops.quote_name
        fields = IdempotencyRecord._meta
        expires_at, lease_expires_at = quote("expires_at"), quote("lease_expires_at")
        table, pk = quote(fields.db_table), quote(fields.pk.column)  # type: ignore[arg-type]  # a concrete column
        still_expired = f"{expires_at} < %s AND {lease_expires_at} < %s"
        sql = (
            f"WITH gone AS (DELETE FROM {table} WHERE {pk} IN ("  # noqa: S608 -- quoted identifiers, parameters
            f"SELECT {pk} FROM {table} WHERE {expires_at} >= %s AND {still_expired} ORDER BY {expires_at} LIMIT %s"
            f") AND {still_expired} RETURNING {expires_at}) SELECT count(*), max({expires_at}) FROM gone"
        )
        cutoff = fields.get_field("expires_at").get_db_prep_value(now, connection)
        oldest = fields.get_field("expires_at").get_db_prep_value(datetime.min.replace(tzinfo=UTC), connection)
        total = 0
        while True:
            with connection.cursor() as cursor:
                cursor.execute(sql, [oldest, cutoff, cutoff, batch_size, cutoff, cutoff])
                deleted, last = cursor.fetchone()
            if not deleted:
                return total
            total += deleted
            oldest = last


def _hot_path_cursor(connection: Any) -> Any:
    """A cursor for the claim and the stored answer. Where the connection allows prepared
    statements (``OPTIONS["prepare_threshold"]``), it binds on the server so that psycopg
    prepares them: PostgreSQL then plans them once per connection (benchmarks/NOTES.md).
    """
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    if getattr(connection.connection, "prepare_threshold", None) is None:
        return connection.cursor()
    return server_binding_cursor(connection)


class _HeldRecord(NamedTuple):
    """What a claim needs of the record that holds its key, judged at one instant: on PostgreSQL
    as the claim statement answers it (times compared in SQL), elsewhere built by :meth:`of`."""

    state: str
    fingerprint: str
    response_status: int | None
    #: A dict; on PostgreSQL the JSON text (Django loads ``jsonb`` as text).
    response_headers: Any
    response_body: bytes | memoryview | None
    lease_owner: str
    #: Past both its retention and its lease: anyone may take the key over.
    expired: bool
    lease_remaining: float
    retention_remaining: float

    @classmethod
    def of(cls, record: IdempotencyRecord, now: datetime) -> _HeldRecord:
        return cls(
            record.state,
            record.fingerprint,
            record.response_status,
            record.response_headers,
            record.response_body,
            record.lease_owner,
            record.expires_at <= now and record.lease_expires_at <= now,
            (record.lease_expires_at - now).total_seconds(),
            (record.expires_at - now).total_seconds(),
        )


#: The columns of :class:`_HeldRecord` the claim statement reads as they are, in its order: the
#: last three are judged in SQL.
_HELD_FIELDS = _HeldRecord._fields[:-3]

#: What the claim statement inserts.
_CLAIM_COLUMNS = (
    "scope",
    "key",
    "state",
    "fingerprint",
    "response_headers",
    "lease_owner",
    "lease_expires_at",
    "expires_at",
    "created_at",
    "updated_at",
)

# The hot path's statements, built once per vendor (and columns): they depend only on the model
# and the vendor's quoting, and building them cost a measurable share of a keyed request's CPU.
_statements: dict[tuple[str, ...], str] = {}


def _claim_sql(connection: Any) -> str:
    """The claim on PostgreSQL: whether it inserted, then the :class:`_HeldRecord` that held the
    key (``NULL`` when it inserted: a data-modifying ``WITH`` is not seen by the rest)."""
    cache_key = ("claim", connection.vendor)
    sql = _statements.get(cache_key)
    if sql is None:
        quote = connection.ops.quote_name
        inserted = ", ".join(quote(name) for name in _CLAIM_COLUMNS)
        table = quote(IdempotencyRecord._meta.db_table)
        get_field = IdempotencyRecord._meta.get_field

        def column(name: str) -> str:
            return f"held.{quote(get_field(name).column)}"  # type: ignore[union-attr]  # a concrete field

        held = ", ".join(column(name) for name in _HELD_FIELDS)
        lease_ends, retention_ends = column("lease_expires_at"), column("expires_at")
        # Identifiers come from the model, quoted; every value is a parameter.
        sql = _statements[cache_key] = (
            f"WITH claimed AS (INSERT INTO {table} ({inserted}) "  # noqa: S608
            "SELECT %s, %s, %s, %s, '{}'::jsonb, %s, %s, %s, %s, %s "
            "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed "
            f"ON CONFLICT ({quote('scope')}, {quote('key')}) DO NOTHING RETURNING 1) "
            f"SELECT EXISTS (SELECT 1 FROM claimed), {held}, "
            f"{retention_ends} <= clock.judged_at AND {lease_ends} <= clock.judged_at, "
            f"EXTRACT(EPOCH FROM {lease_ends} - clock.judged_at)::float8, "
            f"EXTRACT(EPOCH FROM {retention_ends} - clock.judged_at)::float8 "
            "FROM (SELECT %s::timestamptz AS judged_at) AS clock "
            f"LEFT JOIN {table} AS held ON held.{quote('scope')} = %s AND held.{quote('key')} = %s"
        )
    return sql


def _update_owned_sql(connection: Any, names: tuple[str, ...]) -> str:
    """``UPDATE`` of the fields ``names`` of the record ``(scope, key)`` still started by its owner."""
    cache_key = ("update_owned", connection.vendor, *names)
    sql = _statements.get(cache_key)
    if sql is None:
        quote = connection.ops.quote_name
        fields = IdempotencyRecord._meta
        assignments = ", ".join(
            f"{quote(fields.get_field(name).column)} = %s"  # type: ignore[union-attr]  # a concrete field
            for name in names
        )
        sql = _statements[cache_key] = (
            f"UPDATE {quote(fields.db_table)} SET {assignments} "  # noqa: S608 -- quoted identifiers, parameters
            f"WHERE {quote('scope')} = %s AND {quote('key')} = %s AND {quote('lease_owner')} = %s "
            f"AND {quote('state')} = %s"
        )
    return sql


def _db_value(name: str, value: Any, connection: Any) -> Any:
    """``value`` of the record's field ``name`` as the database takes it: strings, numbers and
    times without the fields' checks, which cost more than the ``UPDATE`` (JSON, bytes: the field)."""
    kind = type(value)
    if kind is str or kind is int:
        return value
    if kind is datetime:
        return connection.ops.adapt_datetimefield_value(value)
    return IdempotencyRecord._meta.get_field(name).get_db_prep_save(value, connection)  # type: ignore[union-attr]


def _lease(owner: str, now: datetime, lease_seconds: float, retention_seconds: int) -> dict[str, Any]:
    return {
        "state": State.STARTED,
        "lease_owner": owner,
        "lease_expires_at": now + timedelta(seconds=lease_seconds),
        "expires_at": now + timedelta(seconds=max(retention_seconds, lease_seconds)),
    }


def _answer_of_live_record(held: _HeldRecord, fingerprint: str) -> Claim | None:
    """A record within its retention: another request (422), a stored answer, or a live lease
    (409); ``None`` for a failed key or a dead worker's, which may be taken over."""
    if held.fingerprint != fingerprint:
        return Claim(ClaimOutcome.MISMATCH)
    if held.state == State.RESOLVED:
        return Claim(
            ClaimOutcome.RESOLVED, response=_stored_response(held), retention_remaining=held.retention_remaining
        )
    if held.state == State.STARTED and held.lease_remaining > 0:
        return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=held.lease_remaining)
    return None


def _held(record: IdempotencyRecord, fingerprint: str, now: datetime) -> bool:
    """Whether ``record`` answers a claim without a write: replayed, refused or in flight."""
    held = _HeldRecord.of(record, now)
    return not held.expired and _answer_of_live_record(held, fingerprint) is not None


def _stored_response(held: _HeldRecord) -> StoredResponse:
    headers = held.response_headers
    return StoredResponse(
        status=int(held.response_status or 200),
        headers=dict(json.loads(headers) if isinstance(headers, str) else headers or {}),
        body=bytes(held.response_body or b""),
    )
