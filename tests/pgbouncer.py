"""A real PgBouncer in transaction pooling mode between the tests and PostgreSQL.

Each server is started by the tests on a free loopback port, in a temporary directory of its
own, in front of the PostgreSQL server the tests already use: ``pool_mode = transaction``, so
two transactions of one client may run on two server connections and two clients may take
turns on one, which is what breaks session state (server-side prepared statements, ``WITH
HOLD`` cursors, session ``SET``) and what the database store must survive.

Nothing is installed here: :func:`find_pgbouncer` says whether the machine has it, and
tests/conftest.py decides whether its absence skips the ``pgbouncer`` tests or fails the run.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .servers import free_port

INSTALL_PGBOUNCER = "apt-get install pgbouncer"
#: Fewer server connections than the concurrency tests have clients: they really share them.
POOL_SIZE = 8


def find_pgbouncer() -> str | None:
    """pgbouncer on the PATH, or in /usr/sbin (where Debian puts it, and not always on a user's PATH)."""
    return shutil.which("pgbouncer", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"]))


@dataclass
class PgBouncer:
    port: int
    directory: Path
    process: subprocess.Popen[bytes]

    def url(self, database_url: str) -> str:
        """``database_url`` (postgres://user@host:port/name) with PgBouncer as its host and port."""
        parts = urlsplit(database_url)
        credentials = parts.netloc.rpartition("@")[0]
        return parts._replace(
            netloc=f"{credentials}@127.0.0.1:{self.port}" if credentials else f"127.0.0.1:{self.port}"
        ).geturl()

    def show(self, what: str, user: str) -> list[dict[str, Any]]:
        """``SHOW <what>`` on PgBouncer's admin console (simple query protocol only)."""
        import psycopg

        with psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user=user,
            dbname="pgbouncer",
            autocommit=True,
            cursor_factory=psycopg.ClientCursor,
        ) as connection:
            cursor = connection.execute(f"SHOW {what}")
            names = [column.name for column in cursor.description or []]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def transactions(self, database: str, user: str) -> int:
        """How many transactions PgBouncer has passed to ``database`` so far."""
        return sum(int(row["total_xact_count"]) for row in self.show("STATS", user) if row["database"] == database)

    @property
    def log(self) -> str:
        return (self.directory / "pgbouncer.log").read_text(errors="replace")


@contextmanager
def running_pgbouncer(upstream_host: str, upstream_port: int, user: str, password: str = "") -> Iterator[PgBouncer]:
    """PgBouncer in front of ``upstream_host:upstream_port``, every database, ``user`` trusted."""
    binary = find_pgbouncer()
    assert binary is not None, f"pgbouncer is not installed: {INSTALL_PGBOUNCER}"
    directory = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
    port = free_port()
    quoted_password = password.replace('"', '""')
    (directory / "userlist.txt").write_text(f'"{user}" "{quoted_password}"\n')
    (directory / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"* = host={upstream_host} port={upstream_port}\n"
        "[pgbouncer]\n"
        "listen_addr = 127.0.0.1\n"
        f"listen_port = {port}\n"
        "unix_socket_dir =\n"
        "auth_type = trust\n"
        f"auth_file = {directory / 'userlist.txt'}\n"
        f"admin_users = {user}\n"
        "pool_mode = transaction\n"
        f"default_pool_size = {POOL_SIZE}\n"
        "max_client_conn = 500\n"
        # psql and some drivers send it at start-up; PgBouncer refuses unknown parameters.
        "ignore_startup_parameters = extra_float_digits\n"
    )
    command = [binary, str(directory / "pgbouncer.ini")]
    if os.geteuid() == 0:
        # PgBouncer refuses to run as root: as root, let it assume an unprivileged identity.
        account = next(name for name in ("postgres", "nobody") if _has_account(name))
        for path in [directory, *directory.iterdir()]:
            shutil.chown(path, account)
        command[1:1] = ["-u", account]
    log = (directory / "pgbouncer.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    server = PgBouncer(port, directory, process)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert process.poll() is None, f"pgbouncer exited at start-up:\n{server.log}"
                assert time.monotonic() < deadline, f"pgbouncer did not listen within 15 s:\n{server.log}"
                time.sleep(0.05)
        yield server
    finally:
        # SIGTERM is PgBouncer's immediate shutdown: its server connections close with it, so
        # the test database can be dropped afterwards.
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        shutil.rmtree(directory, ignore_errors=True)


def _has_account(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@contextmanager
def django_database_through(server: PgBouncer, alias: str = "default") -> Iterator[Callable[[], int]]:
    """Every new connection of ``alias``, in every thread (gunicorn's too, see
    ``servers.test_database_url``), through ``server``, configured as docs/deployment.md says a
    project behind PgBouncer must be; back to the direct route after.

    Yields a function that answers how many transactions went through PgBouncer since.
    """
    from django.db import connections

    config = connections[alias].settings_dict  # the dict every thread's connection is built from
    user = config["USER"] or "root"
    before = server.transactions(config["NAME"], user)
    saved = {name: config.get(name) for name in ("HOST", "PORT", "DISABLE_SERVER_SIDE_CURSORS", "OPTIONS")}
    connections[alias].close()
    # No prepared statements: PgBouncer in transaction mode loses them between transactions.
    options = {name: value for name, value in (config.get("OPTIONS") or {}).items() if name != "prepare_threshold"}
    config.update(HOST="127.0.0.1", PORT=str(server.port), DISABLE_SERVER_SIDE_CURSORS=True, OPTIONS=options)
    try:
        yield lambda: server.transactions(config["NAME"], user) - before
    finally:
        connections[alias].close()
        config.update(saved)
