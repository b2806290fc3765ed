"""The database store: the resolved record commits in the same transaction as the view."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from django.db import IntegrityError, InterfaceError, OperationalError, connections, transaction
from django.db.models import QuerySet
from django.utils import timezone

from ...conf import api_settings
from ...models import IdempotencyRecord
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
    unavailable_errors: ClassVar[tuple[type[BaseException], ...]] = (OperationalError, InterfaceError)

    def __init__(self, alias: str | None = None) -> None:
        self.database_alias: str = alias or api_settings.IDEMPOTENCY_DATABASE

    def ping(self) -> None:
        """``SELECT 1`` on the store's alias (opening its connection when needed)."""
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
                claimed_now, record = self._insert_or_read(scope, key, fingerprint, lease, now)
            else:
                claimed_now, record, now = self._create_or_read(scope, key, fingerprint, lease, now, read_first)
            if claimed_now:
                return Claim(ClaimOutcome.CLAIMED, owner=owner)
            claim = None if record is None else self._claim_held(record, fingerprint, lease, now)
            if claim is not None:
                return claim
        return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=1.0)

    def _create_or_read(
        self, scope: str, key: str, fingerprint: str, lease: dict[str, Any], now: datetime, read_first: bool
    ) -> tuple[bool, IdempotencyRecord | None, datetime]:
        """INSERT the claim in a transaction of its own, or else read the record that holds the
        key: whether it inserted, the record (``None``: gone again, try again), and the time
        the record is judged at.

        SQLite has one writer at a time, and the request that holds a key in flight holds the
        write lock for as long as its view runs: an INSERT would wait for it, and past the lock
        timeout answer "database is locked" (a 503) where the contract says 409. Readers are
        not blocked (WAL), so there (``read_first``) the record is read first: only a key that
        is new, failed or expired needs the write lock.
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
        self, record: IdempotencyRecord, fingerprint: str, lease: dict[str, Any], now: datetime
    ) -> Claim | None:
        """What the record that holds the key answers; ``None`` when it changed under us."""
        expired = record.expires_at <= now and record.lease_expires_at <= now
        if not expired:
            answer = _answer_of_live_record(record, fingerprint, now)
            if answer is not None:
                return answer
        # A failed key, a dead worker's key, or a record past its retention: take it over,
        # provided nobody else did since we read it.
        taken = self.records.filter(pk=record.pk, state=record.state, lease_owner=record.lease_owner).update(
            fingerprint=fingerprint,
            response_status=None,
            response_headers={},
            response_body=None,
            updated_at=now,
            **lease,
        )
        if taken:
            return Claim(ClaimOutcome.CLAIMED, owner=lease["lease_owner"], taken_over_from=record.state)
        return None

    def _insert_or_read(
        self, scope: str, key: str, fingerprint: str, lease: dict[str, Any], now: datetime
    ) -> tuple[bool, IdempotencyRecord | None]:
        """PostgreSQL, in autocommit: INSERT the claim, or else read the record that holds the key,
        in one statement, so one round trip whether the key is new or a retry's.

        The INSERT is one statement, so one implicit transaction: ``set_config(..., true)``
        relaxes the durability of that transaction alone (as ``SET LOCAL`` would). Answers
        whether it inserted the record, and else the record that holds the key; ``(False,
        None)`` when the statement's snapshot cannot see that record (it committed while the
        INSERT waited for it, or it is gone again): try again, with a new snapshot.
        """
        connection = connections[self.database_alias]
        params = [
            scope,
            key,
            lease["state"],
            fingerprint,
            lease["lease_owner"],
            lease["lease_expires_at"],
            lease["expires_at"],
            now,
            now,
        ]
        with _hot_path_cursor(connection) as cursor:
            cursor.execute(_claim_sql(connection), [*params, scope, key])
            claimed, *values = cursor.fetchone()
        if claimed:
            return True, None  # a fresh key, the common case: no model is built
        if values[0] is None:
            return False, None
        record = IdempotencyRecord.from_db(self.database_alias, list(_HELD_FIELDS), values)
        if isinstance(record.response_headers, str):  # jsonb arrives as text through Django's loader
            record.response_headers = json.loads(record.response_headers)
        return False, record

    def complete(self, scope: str, key: str, owner: str, response: StoredResponse, retention_seconds: int) -> bool:
        now = timezone.now()
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
        get_field = IdempotencyRecord._meta.get_field
        params = [
            get_field(name).get_db_prep_save(value, connection)  # type: ignore[union-attr]  # a concrete field
            for name, value in values.items()
        ]
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
            extra={"created_at": record.created_at, "updated_at": record.updated_at},
        )

    def purge(self, *, batch_size: int, dry_run: bool) -> int:
        """Delete expired records, oldest first, ``batch_size`` a statement, each batch in its own
        transaction (locks held for one batch only, never across the whole purge).

        Each batch starts where the one before ended (``expires_at >=`` the last one deleted),
        rather than at the start of the ``expires_at`` index: the entries of the rows just
        deleted stay in the index until VACUUM, and walking over them again at every batch made
        a purge of millions of records slower batch after batch (docs/performance.md). The DELETE
        checks expiry again: a record taken over since the batch was chosen has a new expiry and
        stays.
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
    """A cursor for the statements every keyed request sends (the claim, the stored answer).

    On PostgreSQL, when the connection allows prepared statements (Django's
    ``OPTIONS["prepare_threshold"]``, off by default because a pooler in transaction mode may
    lose them), the cursor binds its parameters on the server: psycopg then prepares a
    statement once it has run that many times on the connection, and PostgreSQL plans the
    claim once per connection rather than on every request. Django's own cursors bind on the
    client and are never prepared; this one still runs Django's execute wrappers and query log.
    """
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    if getattr(connection.connection, "prepare_threshold", None) is None:
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor  # psycopg 3 only

    cursor = ServerBindingCursor(connection.connection)  # type: ignore[call-arg]  # psycopg.Cursor(connection)
    # Wrapped as Django wraps its own (thread check, query log, execute wrappers).
    return connection._prepare_cursor(cursor)


#: What the claim statement answers of a record that holds the key: what deciding its answer
#: needs, in the model's order (each column read costs its decoding, on every claim).
_HELD_FIELDS = (
    "id",
    "state",
    "fingerprint",
    "response_status",
    "response_headers",
    "response_body",
    "lease_owner",
    "lease_expires_at",
    "expires_at",
)

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

# The statements of the hot path, written once per database vendor (and assigned columns): they
# depend only on the model and on the vendor's quoting, neither of which changes while a process
# runs, and building them again cost a measurable share of a keyed request's CPU.
_statements: dict[tuple[str, ...], str] = {}


def _claim_sql(connection: Any) -> str:
    """The claim on PostgreSQL (see :meth:`DatabaseStore._insert_or_read`): whether it inserted,
    then the :data:`_HELD_FIELDS` of the record that held the key before (``NULL`` when it
    inserted: a data-modifying ``WITH`` is not seen by the rest of its statement)."""
    cache_key = ("claim", connection.vendor)
    sql = _statements.get(cache_key)
    if sql is None:
        quote = connection.ops.quote_name
        inserted = ", ".join(quote(name) for name in _CLAIM_COLUMNS)
        table = quote(IdempotencyRecord._meta.db_table)
        get_field = IdempotencyRecord._meta.get_field
        held = ", ".join(f"held.{quote(get_field(name).column)}" for name in _HELD_FIELDS)  # type: ignore[union-attr]
        # Identifiers come from the model, quoted; every value is a parameter.
        sql = _statements[cache_key] = (
            f"WITH claimed AS (INSERT INTO {table} ({inserted}) "  # noqa: S608
            "SELECT %s, %s, %s, %s, '{}'::jsonb, %s, %s, %s, %s, %s "
            "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed "
            f"ON CONFLICT ({quote('scope')}, {quote('key')}) DO NOTHING RETURNING 1) "
            f"SELECT EXISTS (SELECT 1 FROM claimed), {held} FROM (VALUES (1)) AS one "
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


def _lease(owner: str, now: datetime, lease_seconds: float, retention_seconds: int) -> dict[str, Any]:
    """The fields of a record claimed by ``owner`` at ``now``."""
    return {
        "state": State.STARTED,
        "lease_owner": owner,
        "lease_expires_at": now + timedelta(seconds=lease_seconds),
        "expires_at": now + timedelta(seconds=max(retention_seconds, lease_seconds)),
    }


def _answer_of_live_record(record: IdempotencyRecord, fingerprint: str, now: datetime) -> Claim | None:
    """A record within its retention: another request (422), a stored answer, or a live lease
    (409); ``None`` for a failed key or a dead worker's, which may be taken over."""
    if record.fingerprint != fingerprint:
        return Claim(ClaimOutcome.MISMATCH)
    if record.state == State.RESOLVED:
        return Claim(
            ClaimOutcome.RESOLVED,
            response=_stored_response(record),
            retention_remaining=(record.expires_at - now).total_seconds(),
        )
    if record.state == State.STARTED and record.lease_expires_at > now:
        return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=(record.lease_expires_at - now).total_seconds())
    return None


def _held(record: IdempotencyRecord, fingerprint: str, now: datetime) -> bool:
    """Whether ``record`` answers a claim without a write: replayed, refused or in flight."""
    expired = record.expires_at <= now and record.lease_expires_at <= now
    live_claim = record.state == State.STARTED and record.lease_expires_at > now
    return not expired and (record.fingerprint != fingerprint or record.state == State.RESOLVED or live_claim)


def _stored_response(record: IdempotencyRecord) -> StoredResponse:
    return StoredResponse(
        status=int(record.response_status or 200),
        headers=dict(record.response_headers or {}),
        body=bytes(record.response_body or b""),
    )
