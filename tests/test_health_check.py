"""contrib/health_check: django-health-check's view answers for the idempotency store, within its
bound when the store does not answer: refused (nothing listens), silent (a socket that accepts
and never replies), the database store failing, and each store up."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client

from django_api_conventions.contrib.health_check import backends as checks
from django_api_conventions.idempotency.stores import IdempotencyStore
from django_api_conventions.idempotency.stores.database import DatabaseStore

pytestmark = [pytest.mark.urls("tests.urls_health"), pytest.mark.django_db(transaction=True)]

CHECK = "IdempotencyStoreCheck(store='redis')"


def health(path: str = "/health/") -> tuple[int, dict[str, str], float]:
    started = time.monotonic()
    response = Client().get(path, headers={"Accept": "application/json"})
    return response.status_code, response.json(), time.monotonic() - started


@pytest.fixture(autouse=True)
def _no_probe_left(settings: Any) -> Iterator[None]:
    # As docs/operations.md says: the health URL outside API_PATHS, or its 500 becomes a problem.
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "API_PATHS": [r"^/(?!admin/|static/|health/)"]}
    yield
    for thread in checks._running:
        thread.join(5)
        assert not thread.is_alive(), "a probe outlived its store"


@pytest.fixture
def silent_redis() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never answers a byte."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]
    # Closed: the connections still in the backlog are reset, and the hanging probe ends.


def test_inside_api_paths_the_health_answer_would_be_a_problem(settings: Any) -> None:
    """Why the health URL must be left out of API_PATHS."""
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "API_PATHS": [r"^/"]}
    redis_store_at(settings, "redis://127.0.0.1:1/0")
    response = Client().get("/health/", headers={"Accept": "application/json"})
    assert response.status_code == 500 and response["Content-Type"] == "application/problem+json"


def redis_store_at(settings: Any, url: str) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "redis", "IDEMPOTENCY_REDIS_URL": url}


def test_the_store_that_answers_is_ok(store_name: str) -> None:
    status, body, _ = health()
    assert status == 200 and body == {f"IdempotencyStoreCheck(store={store_name.split('-')[0]!r})": "OK"}


def test_a_redis_where_nothing_listens_is_unavailable_at_once(settings: Any) -> None:
    redis_store_at(settings, "redis://127.0.0.1:1/0")
    status, body, elapsed = health()
    assert status == 500 and body == {CHECK: "Unavailable: The idempotency store cannot be reached (ConnectionError)."}
    assert elapsed < 1


def test_a_silent_redis_is_unavailable_within_the_bound(settings: Any, silent_redis: int) -> None:
    redis_store_at(settings, f"redis://127.0.0.1:{silent_redis}/0")
    status, body, elapsed = health()
    assert status == 500 and body == {CHECK: "Unavailable: The idempotency store did not answer within 1 seconds."}
    assert 1 <= elapsed < 1.5, elapsed
    print(f"silent Redis, default bound 1 s: answered in {elapsed:.3f} s")

    # The probe still hangs: the next check does not start another one, and answers at once.
    status, body, elapsed = health()
    assert status == 500 and body == {
        CHECK: "Unavailable: An earlier probe of the idempotency store has not been answered yet."
    }
    assert elapsed < 0.5, elapsed


def test_the_bound_is_the_check_s_timeout(settings: Any, silent_redis: int) -> None:
    redis_store_at(settings, f"redis://127.0.0.1:{silent_redis}/0")
    status, body, elapsed = health("/health/quick/")
    assert status == 500 and body == {CHECK: "Unavailable: The idempotency store did not answer within 0.3 seconds."}
    assert 0.3 <= elapsed < 0.8, elapsed
    print(f"silent Redis, bound 0.3 s: answered in {elapsed:.3f} s")


def _replica_port(setup: Any) -> int:
    master = setup.master_port()  # read now: another test may have failed the set-up over
    return next(server.port for server in setup.data if server.port != master)


@pytest.mark.redis_topologies
@pytest.mark.parametrize("server", ["sentinel", "replica"])
def test_a_redis_that_answers_but_cannot_hold_keys_is_unavailable(
    settings: Any,
    redis_sentinel_topology: Any,
    server: str,
) -> None:
    """A Sentinel's port and a replica both answer PING; neither can take a claim."""
    setup = redis_sentinel_topology
    port = setup.sentinels[0].port if server == "sentinel" else _replica_port(setup)
    redis_store_at(settings, f"redis://127.0.0.1:{port}/0")
    status, body, _ = health()
    error = "CommandsRefused" if server == "sentinel" else "ReadOnlyError"
    assert status == 500 and body == {CHECK: f"Unavailable: The idempotency store cannot be reached ({error})."}


def test_a_database_store_that_fails_is_unavailable(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "database"}

    def refused(self: DatabaseStore) -> None:
        raise OperationalError("connection to server at 10.0.0.1 failed: Connection refused")

    monkeypatch.setattr(DatabaseStore, "ping", refused)
    status, body, _ = health()
    assert status == 500
    assert body == {
        "IdempotencyStoreCheck(store='database')": (
            "Unavailable: The idempotency store cannot be reached (OperationalError)."
        )
    }, "no host in the body"


def test_the_database_store_pings_its_own_alias(django_assert_num_queries: Any) -> None:
    store = DatabaseStore()
    store.ping()  # opens the connection if needed
    with django_assert_num_queries(1) as captured:
        store.ping()
    assert captured.captured_queries[0]["sql"] == "SELECT 1"


class UncheckableStore(DatabaseStore):
    """A custom store that does not implement ping()."""

    ping = IdempotencyStore.ping


class BrokenStore(DatabaseStore):
    def ping(self) -> None:
        raise RuntimeError("a bug, not an outage")


def test_a_store_without_ping_says_what_to_add(settings: Any) -> None:
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "IDEMPOTENCY_STORE": "tests.test_health_check.UncheckableStore",
    }
    status, body, _ = health()
    assert status == 500 and body == {
        "IdempotencyStoreCheck(store='tests.test_health_check.UncheckableStore')": (
            "Unexpected Result: UncheckableStore cannot be checked: give it a ping() method (IdempotencyStore.ping)."
        )
    }


def test_a_bug_in_the_probe_is_not_reported_as_an_outage(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "tests.test_health_check.BrokenStore"}
    status, body, _ = health()
    # django-health-check logs the exception and shows no detail of it.
    assert status == 500 and body == {
        "IdempotencyStoreCheck(store='tests.test_health_check.BrokenStore')": "Unknown Error: unknown error"
    }
