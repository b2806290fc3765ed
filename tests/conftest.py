"""Backends: SQLite always; PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set.

``REQUIRE_BACKENDS=postgres,redis`` (set by ``./dev test`` for its services pass) turns a
missing service into a failure of the whole run rather than skipped tests. nginx (the
``nginx`` tests of the reverse-proxy recipe), PgBouncer (the ``pgbouncer`` tests: the database
store through transaction pooling) and headless Chromium (the ``browser`` tests) are required
the same way by ``REQUIRE_BACKENDS=nginx`` / ``pgbouncer`` / ``browser`` and by ``CI=true``:
elsewhere, without them, their tests are skipped.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core.cache import caches
from django.core.servers import basehttp
from django.db import connections
from django.utils import translation

from django_api_conventions.maintenance import switches as maintenance
from django_api_conventions.maintenance.switches import _last_reading

from .browser import INSTALL_BROWSER, find_browser
from .pgbouncer import INSTALL_PGBOUNCER, PgBouncer, find_pgbouncer, running_pgbouncer
from .redis_topologies import redis_cluster, redis_sentinel
from .reverse_proxy import find_nginx
from .stores import STORES, configure_store, use_store

# The live server's listen backlog (10) would reset the connections of 50 simultaneous clients
# before any code of ours runs; gunicorn's default is 2048.
basehttp.WSGIServer.request_queue_size = 256

REQUIRED = {name.strip() for name in os.environ.get("REQUIRE_BACKENDS", "").split(",") if name.strip()}
if os.environ.get("CI", "").lower() in ("true", "1"):
    REQUIRED.update({"nginx", "pgbouncer", "browser"})
INSTALL_NGINX = "apt-get install nginx"


def _reachable(url: str, default_port: int) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=3):
            return True
    except OSError:
        return False


def pytest_configure(config: pytest.Config) -> None:
    problems = []
    database_url = os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("REDIS_URL", "")
    if "postgres" in REQUIRED and not database_url.startswith(("postgres://", "postgresql://")):
        problems.append("PostgreSQL is required but DATABASE_URL is not a postgres:// URL")
    elif database_url.startswith("postgres") and not _reachable(database_url, 5432):
        problems.append(f"PostgreSQL at {database_url} cannot be reached")
    if "redis" in REQUIRED and not redis_url:
        problems.append("Redis is required but REDIS_URL is unset")
    elif redis_url and not _reachable(redis_url, 6379):
        problems.append(f"Redis at {redis_url} cannot be reached")
    if "nginx" in REQUIRED and find_nginx() is None:
        problems.append(f"nginx is required (CI=true or REQUIRE_BACKENDS=nginx) but is not installed: {INSTALL_NGINX}")
    if "pgbouncer" in REQUIRED and find_pgbouncer() is None:
        problems.append(
            f"pgbouncer is required (CI=true or REQUIRE_BACKENDS=pgbouncer) but is not installed: {INSTALL_PGBOUNCER}"
        )
    if "browser" in REQUIRED and find_browser() is None:
        problems.append(
            f"Chromium is required (CI=true or REQUIRE_BACKENDS=browser) but is not installed: {INSTALL_BROWSER}"
        )
    if problems:
        raise pytest.UsageError("; ".join(problems))


def pytest_report_header(config: pytest.Config) -> str:
    database = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    redis = "redis" if os.environ.get("REDIS_URL") else "no redis (Redis tests skipped)"
    nginx = find_nginx() or "no nginx (nginx tests skipped)"
    bouncer = find_pgbouncer() or "no pgbouncer (pgbouncer tests skipped)"
    browser = (find_browser() or ("no chromium (browser tests skipped)",))[0]
    return f"backends: {database}, {redis}, {nginx}, {bouncer}, {browser}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_redis = pytest.mark.skip(reason="REDIS_URL is unset")
    skip_postgres = pytest.mark.skip(reason="DATABASE_URL is not PostgreSQL")
    skip_nginx = pytest.mark.skip(reason=f"nginx is not installed (not on PATH, nor in /usr/sbin): {INSTALL_NGINX}")
    skip_pgbouncer = pytest.mark.skip(
        reason=f"pgbouncer is not installed (not on PATH, nor in /usr/sbin): {INSTALL_PGBOUNCER}"
    )
    skip_browser = pytest.mark.skip(reason=f"chromium, chromedriver or selenium is missing: {INSTALL_BROWSER}")
    nginx_missing = find_nginx() is None
    pgbouncer_missing = find_pgbouncer() is None
    browser_missing = find_browser() is None
    # The failover runs take minutes: only when selected (-m failover).
    skip_failover = pytest.mark.skip(reason="failover runs only when selected: pytest -m failover (FAILOVERS=20)")
    failover_selected = "failover" in (config.option.markexpr or "")
    for item in items:
        # Marks, not keywords: the keywords hold the folders' names too (a checkout named
        # "failover" or "redis" would skip everything).
        marks = {mark.name for mark in item.iter_markers()}
        if "failover" in marks and not failover_selected:
            item.add_marker(skip_failover)
        if "nginx" in marks and nginx_missing:
            item.add_marker(skip_nginx)
        if "pgbouncer" in marks and pgbouncer_missing:
            item.add_marker(skip_pgbouncer)
        if "browser" in marks and browser_missing:
            item.add_marker(skip_browser)
        if "redis" in marks and not os.environ.get("REDIS_URL"):
            item.add_marker(skip_redis)
        if "postgres" in marks and not os.environ.get("DATABASE_URL", "").startswith("postgres"):
            item.add_marker(skip_postgres)


@pytest.fixture(params=STORES)
def store_name(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """The store the test runs on, in this process: ``database`` or a variant of the Redis store
    (django-redis' cache, Django's own Redis cache, a client from IDEMPOTENCY_REDIS_URL: a plain
    server, and a Redis Cluster and a Sentinel set-up that the tests start)."""
    yield from configure_store(request, settings)


@pytest.fixture(scope="session")
def redis_cluster_topology() -> Iterator[Any]:
    """A 3-master, 3-replica Redis Cluster from redis-server, for the whole session (started on first use)."""
    with redis_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis_sentinel_topology() -> Iterator[Any]:
    """1 master, 2 replicas, 3 sentinels (quorum 2), for the whole session (started on first use)."""
    with redis_sentinel() as setup:
        yield setup


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.redis)])
def example_store(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """``IDEMPOTENCY_STORE`` of the example service started in another process (gunicorn), whose
    Redis store is the django-redis cache of REDIS_URL; this process reads the same records."""
    yield from use_store(settings, request.param)


@pytest.fixture(scope="session")
def pgbouncer(django_db_setup: None) -> Iterator[PgBouncer]:
    """One PgBouncer (transaction pooling) in front of the test database's server, for the session.

    It needs the test database, and stops before it is dropped (its pooled connections would
    keep ``DROP DATABASE`` from running).
    """
    config = connections["default"].settings_dict
    if config["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("DATABASE_URL is not PostgreSQL: PgBouncer pools PostgreSQL connections")
    with running_pgbouncer(
        config["HOST"] or "127.0.0.1", int(config["PORT"] or 5432), config["USER"] or "root", config["PASSWORD"] or ""
    ) as server:
        yield server


@pytest.fixture(autouse=True)
def _default_language_afterwards() -> Iterator[None]:
    # LocaleMiddleware activates a request's language in this thread and leaves it active: a
    # test that asked in German must not leave German to the next test of the session.
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _switch_read_on_every_request(monkeypatch: pytest.MonkeyPatch) -> None:
    # A test that flips the maintenance switch sees it on its next request, not a poll later.
    monkeypatch.setattr(maintenance, "SWITCH_POLL_SECONDS", 0)


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    # Throttle counters and the maintenance switch live in the cache: no test inherits them.
    for cache in caches.all():
        cache.clear()
    _last_reading.clear()
    yield
    _last_reading.clear()
