"""The round-trip budget (issue 17, item 3): the statements each request sends to PostgreSQL and
the commands it sends to Redis, counted on the wire (tests/wire.py: libpq's trace of every
connection, Redis' MONITOR), for the requests the benchmarks time. A change that adds one fails
here, and says which; docs/performance.md shows the same table beside the figures.

Two set-ups, as in ``python -m benchmarks``: the database store with a cache local to the
process (throttling costs no round trip), and the Redis store with Redis as the cache too
(throttling counts the request there, in one script). The maintenance switch, read at most once a
``SWITCH_POLL_SECONDS`` per process, is read before the counted requests, as it is
on all but one request a second of a busy worker.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from django_api_conventions.idempotency.stores.database import DatabaseStore
from django_api_conventions.maintenance import switches as maintenance
from testproject.billing.models import Customer, Invoice, Order

from .wire import PostgresTraffic, RedisTraffic, postgres_wire, redis_monitor


def on_the_wire(test: Callable[..., None]) -> Callable[..., None]:
    """PostgreSQL's wire, committed transactions (the claim commits on its own)."""
    for mark in (
        pytest.mark.postgres,
        pytest.mark.django_db(transaction=True),
        pytest.mark.skipif(connection.vendor != "postgresql", reason="the budget is counted on PostgreSQL's wire"),
    ):
        test = mark(test)
    return test


@dataclass(frozen=True)
class Budget:
    statements: int  # statements that reach PostgreSQL, BEGIN and COMMIT included
    round_trips: int  # times the worker waits for PostgreSQL
    redis: int = 0  # commands sent to Redis


#: The budget: scenario -> (database store, cache in the process), (Redis store, Redis cache).
#: Change a number only with the reason in the commit and in docs/performance.md.
BUDGET: dict[str, tuple[Budget, Budget]] = {
    # BEGIN, the order's user, INSERT, COMMIT (ATOMIC_REQUESTS).
    "plain POST": (Budget(4, 4), Budget(4, 4, redis=1)),
    # Database store: + the claim (one autocommit statement) + the resolved record (an UPDATE
    # committed with the order). Redis store: + the claim, the committing response recorded
    # before COMMIT with the transaction's id (SELECT txid_current(), the commit marker) and the
    # resolved record: three scripts (EVALSHA).
    "fresh-key POST": (Budget(6, 6), Budget(5, 5, redis=4)),
    # The claim answers the stored response: the view never runs. On the database store the
    # claim's statement finds the key taken and answers the record that holds it.
    "replayed POST": (Budget(1, 1), Budget(0, 0, redis=2)),
    # The page's one query, in the request's transaction (ATOMIC_REQUESTS: BEGIN, COMMIT).
    "first page": (Budget(3, 3), Budget(3, 3, redis=1)),
    "cursor page": (Budget(3, 3), Budget(3, 3, redis=1)),
    "search page": (Budget(3, 3), Budget(3, 3, redis=1)),
    "search cursor page": (Budget(3, 3), Budget(3, 3, redis=1)),
}

HEADERS = {"HTTP_X_CLIENT_ID": "round-trip-budget"}


@dataclass
class Scenarios:
    client: Client
    user: Customer
    replay_key: str
    order_cursor: str
    search_cursor: str

    def post_order(self, key: str | None) -> Any:
        headers = dict(HEADERS, **({"HTTP_IDEMPOTENCY_KEY": key} if key else {}))
        response = self.client.post("/v2/orders", {"user_id": self.user.pk}, content_type="application/json", **headers)
        assert response.status_code == 201, response.content
        return response

    def get(self, url: str) -> Any:
        response = self.client.get(url, **HEADERS)
        assert response.status_code == 200, response.content
        return response

    def search(self, cursor: str | None = None) -> Any:
        body: dict[str, Any] = {"any": [{"status": "open"}], "limit": 5, **({"cursor": cursor} if cursor else {})}
        response = self.client.post("/v2/invoices/search", body, content_type="application/json", **HEADERS)
        assert response.status_code == 200, response.content
        return response

    def actions(self) -> dict[str, Callable[[], Any]]:
        return {
            "plain POST": lambda: self.post_order(None),
            "fresh-key POST": lambda: self.post_order(f"budget-{uuid.uuid4().hex}"),
            "replayed POST": lambda: self.post_order(self.replay_key),
            "first page": lambda: self.get("/v2/orders?limit=5"),
            "cursor page": lambda: self.get(f"/v2/orders?limit=5&cursor={self.order_cursor}"),
            "search page": lambda: self.search(),
            "search cursor page": lambda: self.search(self.search_cursor),
        }


@pytest.fixture(autouse=True)
def _switch_read_before_the_counted_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(maintenance, "SWITCH_POLL_SECONDS", 3600)


def prepare(settings: Any, store: str) -> Scenarios:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": store}
    if store == "database":
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    else:
        settings.CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["REDIS_URL"]}}
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Budget")
    Order.objects.bulk_create([Order(user=user) for _ in range(12)])
    Invoice.objects.bulk_create([Invoice(user=user, amount_due=100, currency="eur") for _ in range(12)])
    client = Client()
    scenarios = Scenarios(client, user, f"budget-replay-{uuid.uuid4().hex}", "", "")
    scenarios.post_order(scenarios.replay_key)
    scenarios.order_cursor = scenarios.get("/v2/orders?limit=5").json()["pagination"]["next_cursor"]
    scenarios.search_cursor = scenarios.search().json()["pagination"]["next_cursor"]
    # Warm up: imports, connections, the maintenance switch, per-class caches, and the package's
    # statements prepared once they ran prepare_threshold times (the preparation is a round trip
    # more, once per connection), so that a count is the same every time.
    threshold = settings.DATABASES["default"].get("OPTIONS", {}).get("prepare_threshold") or 1
    for _ in range(threshold + 1):
        for action in scenarios.actions().values():
            action()
    return scenarios


def measure(action: Callable[[], Any], redis_url: str | None) -> tuple[PostgresTraffic, RedisTraffic | None]:
    if redis_url is None:
        with postgres_wire() as postgres:
            action()
        return postgres, None
    with redis_monitor(redis_url) as redis_traffic, postgres_wire() as postgres:
        action()
    return postgres, redis_traffic


def over_budget(name: str, budget: Budget, postgres: PostgresTraffic, redis_traffic: RedisTraffic | None) -> list[str]:
    """What ``name`` sent beyond (or short of) its budget, with every statement and command."""
    measured = Budget(
        len(postgres.statements), postgres.round_trips, len(redis_traffic.commands) if redis_traffic else 0
    )
    if measured == budget:
        return []
    commands = [f"redis: {command}" for command in (redis_traffic.commands if redis_traffic else [])]
    sent = "\n    ".join(line if len(line) <= 160 else f"{line[:157]}..." for line in postgres.statements + commands)
    return [f"{name}: {measured} for a budget of {budget}; sent:\n    {sent}"]


def check_budget(settings: Any, store: str) -> None:
    scenarios = prepare(settings, store)
    redis_url = os.environ["REDIS_URL"] if store == "redis" else None
    column = 0 if store == "database" else 1
    failures: list[str] = []
    for name, action in scenarios.actions().items():
        postgres, redis_traffic = measure(action, redis_url)
        failures += over_budget(name, BUDGET[name][column], postgres, redis_traffic)
    assert not failures, "\n".join(failures)


@on_the_wire
def test_the_database_store_keeps_its_budget(settings: Any) -> None:
    check_budget(settings, "database")


@on_the_wire
@pytest.mark.redis
def test_the_redis_store_keeps_its_budget(settings: Any) -> None:
    check_budget(settings, "redis")


@on_the_wire
def test_one_statement_more_fails_the_budget(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget catches a statement added where no test of behaviour would notice: here one
    more (harmless) query when the database store resolves a key."""
    complete = DatabaseStore.complete

    def complete_and_ask(self: DatabaseStore, *args: Any, **kwargs: Any) -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return complete(self, *args, **kwargs)

    monkeypatch.setattr(DatabaseStore, "complete", complete_and_ask)
    with pytest.raises(AssertionError, match=r"(?s)fresh-key POST: .*statements=7.*\n +SELECT 1\n"):
        check_budget(settings, "database")


@on_the_wire
@pytest.mark.redis
def test_one_redis_command_more_fails_the_budget(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from django_api_conventions.idempotency.stores.redis import RedisStore

    def ping_before(final_write: Any) -> Any:
        def ping_and_write(self: RedisStore, *args: Any, **kwargs: Any) -> bool:
            self.client.ping()
            return final_write(self, *args, **kwargs)  # type: ignore[no-any-return]

        return ping_and_write

    # The answer's final write: settle() after a prepared commit (PostgreSQL), complete() elsewhere.
    monkeypatch.setattr(RedisStore, "complete", ping_before(RedisStore.complete))
    monkeypatch.setattr(RedisStore, "settle", ping_before(RedisStore.settle))
    with pytest.raises(AssertionError, match=r"(?s)fresh-key POST: .*redis=5\).*\n +redis: PING\n"):
        check_budget(settings, "redis")


def budget_table() -> str:
    """The budget as docs/performance.md shows it."""
    lines = [
        "| request | database store: statements | Redis store: statements | Redis store: Redis commands |",
        "|---|---|---|---|",
    ]
    for name, (database, redis_store) in BUDGET.items():
        lines.append(f"| {name} | {database.statements} | {redis_store.statements} | {redis_store.redis} |")
    return "\n".join(lines)


def test_the_docs_show_this_budget() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parent.parent / "docs" / "performance.md").read_text()
    assert budget_table() in docs, f"docs/performance.md should show the budget as:\n{budget_table()}"


@on_the_wire
def test_the_wire_sees_raw_cursors_and_other_connections() -> None:
    """Statements on a raw cursor, inside a transaction, and on a connection opened inside the
    block all count; so do the BEGIN psycopg sends implicitly and the COMMIT."""
    from django.db import connections, transaction

    other = connections.create_connection("default")
    try:
        with postgres_wire() as traffic:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            with other.cursor() as cursor:  # connected inside the block
                cursor.execute("SELECT 2")
    finally:
        other.close()
    assert traffic.statements == ["BEGIN", "SELECT 1", "COMMIT", "SELECT 2"], traffic.statements
