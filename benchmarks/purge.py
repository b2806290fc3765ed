"""Retention at scale, inside Django: how fast ``idempotency_purge`` deletes expired records of the
database store while keyed requests keep arriving, and what it costs them.

A service taking 1,000 keyed requests a second writes 86.4 million records a day; purging keeps
up while it deletes expired records at least as fast as requests create them. For each run (a
purge variant under a keyed load), on a table rebuilt the same way each time (``rows`` records,
the oldest ``expired`` of them past their retention, written by one ``INSERT ... SELECT`` over
``generate_series`` on PostgreSQL):

1. the load alone: fresh-key claim + resolve through the store, paced at the run's rate on
   ``load_threads`` threads (or as fast as they go: the rate the database then takes is the
   most keyed requests it could ever have to purge), for ``baseline_seconds`` (the p50/p99
   without purge);
2. the purge under the same load, until it is done (records deleted per second, and the p50/p99
   of the claims that ran meanwhile);
3. PostgreSQL: ``VACUUM`` of the table, timed (the other half of removing rows: autovacuum must
   keep up with the dead tuples the purge leaves).

Variants: ``before``, the purge as it was (SELECT a batch of primary keys, then DELETE them: two
statements and the ORM's collector per batch), and ``after``, the store's ``purge`` that
``manage.py idempotency_purge`` calls.
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta
from typing import Any

from .stats import summary

LEASE_SECONDS = 60
RETENTION_SECONDS = 86_400
RESPONSE_BODY = b'{"id": "ord_0123456789abcdef0123", "user_id": "usr_1", "status": "pending"}'


def purge(
    rows: int,
    expired: int,
    batch_size: int,
    load_threads: int,
    baseline_seconds: float,
    runs: list[tuple[str, float]],
) -> dict[str, Any]:
    """``runs``: (variant, keyed requests a second meanwhile; 0 for as many as the threads make)."""
    from django.db import connection

    from .database import migrate

    migrate()
    result: dict[str, Any] = {
        "vendor": connection.vendor,
        "rows": rows,
        "expired": expired,
        "batch_size": batch_size,
        "load_threads": load_threads,
        "runs": [],
    }
    for variant, load_rate in runs:
        started = time.perf_counter()
        build_records(rows, expired)
        built = time.perf_counter() - started
        load_started = time.perf_counter()
        baseline = load_summary(
            run_load(load_rate, load_threads, seconds=baseline_seconds), load_started, time.perf_counter()
        )
        measured = purge_under_load(
            PURGES[variant], batch_size, load_rate, load_threads, warm_up=min(1.0, baseline_seconds)
        )
        result["runs"].append(
            {
                "variant": variant,
                "load_rate": load_rate,
                "build_seconds": round(built, 1),
                "baseline": baseline,
                **measured,
                "vacuum_seconds": vacuum_seconds(),
                "expired_left": count_expired(),
            }
        )
    return result


# --- the data --------------------------------------------------------------------------------


def build_records(rows: int, expired: int) -> None:
    """``rows`` resolved records: the oldest ``expired`` of them expired within the last day, the
    others expiring from an hour from now on (so none expires while the purge runs)."""
    from django.db import connection

    from django_api_conventions.models import IdempotencyRecord

    table = connection.ops.quote_name(IdempotencyRecord._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"TRUNCATE {table}")
            cursor.execute(
                f"INSERT INTO {table} (scope, key, state, fingerprint, response_status, response_headers, "
                "response_body, lease_owner, lease_expires_at, expires_at, created_at, updated_at) "
                "SELECT 'client:' || (g %% 1000), md5(g::text), 'resolved', md5(g::text) || md5((-g)::text), 201, "
                "jsonb_build_object('Content-Type', 'application/json', 'Location', '/v2/orders/ord_' || g), "
                "%s, '', at - interval '1 day', at, at - interval '1 day', at - interval '1 day' "
                "FROM generate_series(1, %s) AS g, LATERAL (SELECT CASE WHEN g <= %s "
                "THEN now() - (%s - g) * (interval '1 day' / greatest(%s, 1)) "
                "ELSE now() + interval '1 hour' + (g - %s) * (interval '1 day' / greatest(%s - %s, 1)) END AS at) AS t",
                [RESPONSE_BODY, rows, expired, expired, expired, expired, rows, expired],
            )
            cursor.execute(f"VACUUM ANALYZE {table}")
            return
        cursor.execute(f"DELETE FROM {table}")
    _build_portably(rows, expired)


def _build_portably(rows: int, expired: int) -> None:
    """Other databases (the smoke run's SQLite): the same records through the ORM, in batches."""
    from django.utils import timezone

    from django_api_conventions.models import IdempotencyRecord

    now = timezone.now()
    batch: list[IdempotencyRecord] = []
    for index in range(1, rows + 1):
        if index <= expired:
            at = now - (expired - index) * timedelta(days=1) / max(expired, 1)
        else:
            at = now + timedelta(hours=1) + (index - expired) * timedelta(days=1) / max(rows - expired, 1)
        batch.append(
            IdempotencyRecord(
                scope=f"client:{index % 1000}",
                key=f"{index:032x}",
                state="resolved",
                fingerprint=f"{index:064x}",
                response_status=201,
                response_headers={"Content-Type": "application/json"},
                response_body=RESPONSE_BODY,
                lease_expires_at=at - timedelta(days=1),
                expires_at=at,
            )
        )
        if len(batch) == 5_000:
            IdempotencyRecord.objects.bulk_create(batch)
            batch.clear()
    IdempotencyRecord.objects.bulk_create(batch)


def count_expired() -> int:
    from django.utils import timezone

    from django_api_conventions.models import IdempotencyRecord

    now = timezone.now()
    return IdempotencyRecord.objects.filter(expires_at__lt=now, lease_expires_at__lt=now).count()


def vacuum_seconds() -> float | None:
    from django.db import connection

    from django_api_conventions.models import IdempotencyRecord

    if connection.vendor != "postgresql":
        return None
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM {connection.ops.quote_name(IdempotencyRecord._meta.db_table)}")
    return round(time.perf_counter() - started, 2)


# --- the purges compared ---------------------------------------------------------------------


def purge_before(batch_size: int) -> int:
    """The purge as it was up to this release: SELECT a batch of keys, then DELETE them."""
    from django.utils import timezone

    from django_api_conventions.models import IdempotencyRecord

    records = IdempotencyRecord.objects
    now = timezone.now()
    expired = records.filter(expires_at__lt=now, lease_expires_at__lt=now)
    total = 0
    while True:
        batch = list(expired.values_list("pk", flat=True)[:batch_size])
        if not batch:
            return total
        deleted, _ = records.filter(pk__in=batch, expires_at__lt=now, lease_expires_at__lt=now).delete()
        total += deleted


def purge_after(batch_size: int) -> int:
    """What ``manage.py idempotency_purge --batch-size N`` runs."""
    from django_api_conventions.idempotency.stores.database import DatabaseStore

    return DatabaseStore().purge(batch_size=batch_size, dry_run=False)


PURGES = {"before": purge_before, "after": purge_after}


# --- the keyed requests that keep arriving ---------------------------------------------------


def run_load(
    rate: float, threads: int, *, seconds: float | None = None, stop: threading.Event | None = None
) -> list[tuple[float, float]]:
    """Fresh-key claim + resolve through the database store, ``rate`` a second in all, on
    ``threads`` threads, for ``seconds`` or until ``stop`` is set: (start time, milliseconds) of
    each. Each thread keeps to its schedule (a late claim does not push the next one back), so
    a slow database meets the same arrivals as a fast one."""
    from django.db import connections

    from django_api_conventions.idempotency.stores import StoredResponse
    from django_api_conventions.idempotency.stores.database import DatabaseStore

    stop = stop or threading.Event()
    samples: list[list[tuple[float, float]]] = [[] for _ in range(threads)]
    interval = threads / rate if rate > 0 else 0.0  # 0: each thread sends the next as soon as it can
    run = uuid.uuid4().hex[:8]
    response = StoredResponse(201, {"Content-Type": "application/json"}, RESPONSE_BODY)
    started = time.perf_counter()
    deadline = started + seconds if seconds is not None else None

    def client(index: int) -> None:
        store = DatabaseStore()
        next_at = started + interval * index / threads
        try:
            while not stop.is_set() and (deadline is None or time.perf_counter() < deadline):
                pause = next_at - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                began = time.perf_counter()
                key = f"load-{run}-{index}-{len(samples[index])}"
                owner = store.claim("client:load", key, "f" * 64, LEASE_SECONDS, RETENTION_SECONDS).owner
                assert owner and store.complete("client:load", key, owner, response, RETENTION_SECONDS), key
                samples[index].append((began, (time.perf_counter() - began) * 1000))
                next_at += interval
        finally:
            connections.close_all()

    workers = [threading.Thread(target=client, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return [sample for one in samples for sample in one]


def load_summary(samples: list[tuple[float, float]], start: float, end: float) -> dict[str, Any]:
    """The claims + resolves that started between ``start`` and ``end``: latency and rate."""
    inside = [milliseconds for began, milliseconds in samples if start <= began < end]
    return {**summary(inside), "rate": round(len(inside) / (end - start), 1) if end > start else 0.0}


def purge_under_load(purge: Any, batch_size: int, rate: float, threads: int, warm_up: float) -> dict[str, Any]:
    stop = threading.Event()
    samples: list[tuple[float, float]] = []
    load = threading.Thread(target=lambda: samples.extend(run_load(rate, threads, stop=stop)))
    load.start()
    time.sleep(warm_up)  # every client under way before the purge starts
    started = time.perf_counter()
    try:
        deleted = purge(batch_size)
    finally:
        ended = time.perf_counter()
        stop.set()
        load.join()
    seconds = ended - started
    return {
        "deleted": deleted,
        "purge_seconds": round(seconds, 2),
        "deleted_per_second": round(deleted / seconds) if seconds else 0,
        "during": load_summary(samples, started, ended),
    }
