"""What transaction pooling changes, and why the database store is unaffected (docs/deployment.md, "PgBouncer").

The store's protocol through PgBouncer is the conformance, protocol, concurrency and end-to-end
suites run with PgBouncer in between (``database-via-pgbouncer``, ``postgres+pgbouncer``); these
tests pin the two session-state hazards the docs name.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from django.db import connections

from django_api_conventions.idempotency.stores import StoredResponse
from django_api_conventions.idempotency.stores.database import DatabaseStore

from .pgbouncer import POOL_SIZE, PgBouncer, django_database_through

pytestmark = [pytest.mark.postgres, pytest.mark.pgbouncer, pytest.mark.django_db(transaction=True)]


def connect(server: PgBouncer, **options: Any) -> Any:
    import psycopg

    config = connections["default"].settings_dict
    return psycopg.connect(
        host="127.0.0.1",
        port=server.port,
        user=config["USER"] or "root",
        dbname=config["NAME"],
        autocommit=True,
        **options,
    )


def test_the_claims_relaxed_durability_stays_in_its_own_transaction(pgbouncer: PgBouncer) -> None:
    # The claim commits with synchronous_commit off. Set for the session, it would stay on the
    # pooled server connection and make other clients' commits non-durable too.
    with django_database_through(pgbouncer):
        store = DatabaseStore()
        for _ in range(3 * POOL_SIZE):
            key = uuid.uuid4().hex
            owner = store.claim("client:pool", key, "f", 60, 3600).owner
            assert store.complete("client:pool", key, owner, StoredResponse(201, {}, b"{}"), 3600)
    # One open transaction per server connection of the pool: every one of them is looked at.
    barrier = threading.Barrier(POOL_SIZE)
    seen: dict[int, str] = {}

    def look() -> None:
        with connect(pgbouncer) as connection, connection.transaction():
            pid, durability = connection.execute(
                "SELECT pg_backend_pid(), current_setting('synchronous_commit')"
            ).fetchone()
            seen[pid] = durability
            barrier.wait(timeout=30)  # hold this server connection while the others look

    lookers = [threading.Thread(target=look) for _ in range(POOL_SIZE)]
    for looker in lookers:
        looker.start()
    for looker in lookers:
        looker.join()
    assert len(seen) == POOL_SIZE and set(seen.values()) == {"on"}, seen


def test_server_side_prepared_statements_break_through_transaction_pooling(pgbouncer: PgBouncer) -> None:
    # Why OPTIONS["prepare_threshold"] must stay None (Django's default with psycopg 3) behind
    # PgBouncer < 1.21: two clients taking turns on one server connection meet each other's
    # statements. Without prepared statements the same queries pass.
    import psycopg

    query = "SELECT count(*) FROM django_api_conventions_idempotencyrecord WHERE scope = %s"
    with connect(pgbouncer, prepare_threshold=0) as first, connect(pgbouncer, prepare_threshold=0) as second:
        first.execute(query, ["client:a"]).fetchone()
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement):
            second.execute(query, ["client:b"]).fetchone()
    with connect(pgbouncer, prepare_threshold=None) as first, connect(pgbouncer, prepare_threshold=None) as second:
        for _ in range(10):
            first.execute(query, ["client:a"]).fetchone()
            second.execute(query, ["client:b"]).fetchone()
