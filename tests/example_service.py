"""The example service run as a user runs it: migrate, seed_demo, gunicorn on a free port.

For tests that talk to it over real HTTP: the end-to-end contract walk and Schemathesis.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .http import send
from .pgbouncer import running_pgbouncer
from .servers import REPOSITORY, free_port


@dataclass
class Service:
    url: str
    environment: dict[str, str]

    def manage(self, *arguments: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "testproject", *arguments],
            cwd=REPOSITORY,
            env=self.environment,
            check=True,
            capture_output=True,
            text=True,
        ).stdout


@contextmanager
def postgres_database(server_url: str) -> Iterator[str]:
    import psycopg

    name = f"e2e_{uuid.uuid4().hex[:12]}"
    parts = urlsplit(server_url)
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield parts._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def running_service(
    environment: dict[str, str], workers: int = 2, gunicorn_options: Sequence[str] = ()
) -> Iterator[Service]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # The service's absolute links (its migration guide) point at where it runs.
    environment = {"PUBLIC_URL": url, **environment}
    service = Service(url, environment)
    service.manage("migrate", "--no-input", "-v", "0")
    service.manage("seed_demo")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "testproject.wsgi:application",
            "--workers",
            str(workers),
            "--bind",
            f"127.0.0.1:{port}",
            "--timeout",
            "30",
            "--log-level",
            "warning",
            *gunicorn_options,
        ],
        cwd=REPOSITORY,
        env=environment,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if send(service.url, "GET", "/problems/").status == 200:
                    break
            except OSError:
                assert process.poll() is None, "gunicorn exited at start-up"
            assert time.monotonic() < deadline, "the example service did not start"
            time.sleep(0.1)
        yield service
    finally:
        process.terminate()
        process.wait(timeout=15)


@contextmanager
def example_service(
    backend: str, folder: Path, *, gunicorn_options: Sequence[str] = (), **settings: str
) -> Iterator[Service]:
    """``backend``: ``sqlite`` (a file in ``folder``), ``sqlite+redis`` (with the Redis cache and
    idempotency store), ``postgres+redis`` (a database of its own on
    DATABASE_URL's server, dropped afterwards, with the Redis cache and idempotency store),
    ``postgres+database`` (such a database with the database idempotency store, and no Redis) or
    ``postgres+pgbouncer`` (such a database reached through PgBouncer in transaction pooling mode,
    with the database idempotency store, and no Redis).
    ``gunicorn_options``: more command-line options of gunicorn (``-c deploy/gunicorn.conf.py``)."""
    environment = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "COVERAGE_PROCESS_START")},
        "PYTHONPATH": str(REPOSITORY),
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        **settings,
    }
    if backend.startswith("sqlite"):
        environment["DATABASE_URL"] = f"sqlite:///{folder / 'service.sqlite3'}"
        if backend == "sqlite+redis":
            environment.update(REDIS_URL=os.environ["REDIS_URL"], IDEMPOTENCY_STORE="redis")
        with running_service(environment, gunicorn_options=gunicorn_options) as running:
            yield running
        return
    with postgres_database(os.environ["DATABASE_URL"]) as database_url:
        if backend == "postgres+pgbouncer":
            parts = urlsplit(database_url)
            # Stopped before the database is dropped: its pooled connections would keep it in use.
            with running_pgbouncer(
                parts.hostname or "127.0.0.1", parts.port or 5432, parts.username or "root", parts.password or ""
            ) as bouncer:
                # PgBouncer pools the server connections: no second pool in the service (docs/deployment.md).
                environment.update(
                    DATABASE_URL=bouncer.url(database_url), IDEMPOTENCY_STORE="database", DATABASE_POOL="0"
                )
                with running_service(environment, gunicorn_options=gunicorn_options) as running:
                    yield running
            return
        if backend == "postgres+database":
            environment.update(DATABASE_URL=database_url, IDEMPOTENCY_STORE="database")
        else:
            environment.update(DATABASE_URL=database_url, REDIS_URL=os.environ["REDIS_URL"], IDEMPOTENCY_STORE="redis")
        with running_service(environment, gunicorn_options=gunicorn_options) as running:
            yield running
