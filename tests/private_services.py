"""Private PostgreSQL and Redis servers that a fault test may stop, crash and restart.

The shared servers of the test run are never touched: each private server lives in a temporary
directory, on a free loopback port, and is torn down at the end. Where the binaries are missing
the test skips, or fails when ``REQUIRE_BACKENDS`` names the service (CI).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from .redis_topologies import Server
from .servers import REPOSITORY, free_port

REQUIRED = {name.strip() for name in os.environ.get("REQUIRE_BACKENDS", "").split(",") if name.strip()}


def missing(service: str, what: str) -> None:
    """Skip, or fail where CI requires ``service``: a fault test must not vanish silently."""
    if service in REQUIRED:
        pytest.fail(f"{what} (REQUIRE_BACKENDS={','.join(sorted(REQUIRED))})")
    pytest.skip(what)


def postgres_bindir() -> Path | None:
    candidates = [os.environ.get("PG_BINDIR", "")]
    pg_config = shutil.which("pg_config")
    if pg_config:
        candidates.append(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(str(Path(initdb).resolve().parent))
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").is_file() and (Path(candidate) / "pg_ctl").is_file():
            return Path(candidate)
    return None


@dataclass
class PrivatePostgres:
    bindir: Path
    directory: Path
    port: int

    @property
    def data(self) -> Path:
        return self.directory / "data"

    def url(self, database: str = "faults") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        # PostgreSQL refuses to run as root: as root, run its tools as the postgres user.
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run([*prefix, *command], capture_output=True, text=True, check=check, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.directory / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """``mode="immediate"`` is a crash: no checkpoint, in-flight transactions cut, WAL replayed at start."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop", check=False)

    def psql(self, sql: str, database: str = "faults") -> str:
        return self._run(
            str(self.bindir / "psql"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-d",
            database,
            "-At",
            "-c",
            sql,
        ).stdout


@contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """An initdb'ed PostgreSQL with a migrated ``faults`` database of the example service."""
    bindir = postgres_bindir()
    if bindir is None:
        missing("postgres", "PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    assert bindir is not None
    directory = Path(tempfile.mkdtemp(prefix="faults-pg-"))
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
    server = PrivatePostgres(bindir, directory, free_port())
    try:
        server._run(
            str(bindir / "initdb"), "-D", str(server.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"
        )
        server.start()
        server.psql("CREATE DATABASE faults", database="postgres")
        environment = {
            **os.environ,
            "DATABASE_URL": server.url(),
            "DJANGO_SETTINGS_MODULE": "testproject.settings",
            "PYTHONPATH": str(REPOSITORY),
        }
        environment.pop("COVERAGE_PROCESS_START", None)
        subprocess.run(
            [sys.executable, "-m", "testproject", "migrate", "--no-input", "-v", "0"],
            cwd=REPOSITORY,
            env=environment,
            check=True,
            timeout=180,
        )
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(directory, ignore_errors=True)


@dataclass
class PrivateRedis(Server):
    """A server without persistence: restarted, it starts empty, like a lost cache node."""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.kill()  # an outage, not a shutdown


@contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        missing("redis", "redis-server / redis-cli are not installed")
    directory = Path(tempfile.mkdtemp(prefix="faults-redis-"))
    server = PrivateRedis(directory, free_port(), [])
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)
