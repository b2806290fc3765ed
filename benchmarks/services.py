"""What the benchmark starts and creates: its own PostgreSQL databases, SQLite files and
gunicorn and uvicorn servers, all on loopback. It never stops or reconfigures a running server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REPOSITORY = Path(__file__).resolve().parent.parent
#: Ignored by git (``var/``): SQLite files and result JSON of the benchmarks.
WORK_DIR = REPOSITORY / "var" / "benchmarks"
PORTS = range(18100, 18200)


def postgres_url(base: str | None, suffix: str) -> str | None:
    """``postgres://.../h_bench`` -> ``postgres://.../h_bench_<suffix>``; None without PostgreSQL."""
    if not base or urlsplit(base).scheme not in ("postgres", "postgresql"):
        return None
    parts = urlsplit(base)
    name = parts.path.lstrip("/") or "bench"
    return urlunsplit(parts._replace(path=f"/{name}_{suffix}"))


def _admin_connection(url: str) -> Any:
    import psycopg

    parts = urlsplit(url)
    return psycopg.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=parts.username or None,
        password=parts.password or None,
        dbname="postgres",
        autocommit=True,
    )


def create_database(url: str, *, recreate: bool) -> None:
    """Create the database ``url`` names (dropping it first if ``recreate``)."""
    from psycopg import sql

    name = urlsplit(url).path.lstrip("/")
    with _admin_connection(url) as connection:
        if recreate:
            connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def postgres_reachable(url: str | None) -> bool:
    if not url:
        return False
    try:
        with _admin_connection(url):
            return True
    except Exception:
        return False


def redis_reachable(url: str | None) -> bool:
    if not url:
        return False
    try:
        import redis

        return bool(redis.Redis.from_url(url, socket_connect_timeout=2).ping())
    except Exception:
        return False


def sqlite_url(name: str) -> str:
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{WORK_DIR / name}"


def task_environment(**overrides: str | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env.update({key: value for key, value in overrides.items() if value is not None})
    env.setdefault("THROTTLE_RATE", "100000000/min")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPOSITORY), env.get("PYTHONPATH")]))
    return env


def run_task(name: str, arguments: dict[str, Any], env: dict[str, str]) -> Any:
    """Run :mod:`benchmarks.tasks` ``name`` in a fresh interpreter; its JSON answer."""
    import json

    with tempfile.NamedTemporaryFile(suffix=".json", dir=WORK_DIR if WORK_DIR.exists() else None) as output:
        subprocess.run(
            [sys.executable, "-m", "benchmarks.tasks", name, json.dumps(arguments), output.name],
            cwd=REPOSITORY,
            env={**env, "DJANGO_SETTINGS_MODULE": "benchmarks.settings"},
            check=True,
        )
        return json.loads(Path(output.name).read_text())


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


@contextmanager
def gunicorn(workers: int, env: dict[str, str]) -> Iterator[int]:
    """The example service under gunicorn (sync workers) on a loopback port; yields the port."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "testproject.wsgi:application",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--timeout",
        "120",
        "--graceful-timeout",
        "5",
        "--log-level",
        "warning",
    ]
    with _serving("gunicorn", command, port, env):
        yield port


@contextmanager
def uvicorn(workers: int, env: dict[str, str]) -> Iterator[int]:
    """The example service under uvicorn (ASGI, one event loop a worker) on a loopback port."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "testproject.asgi:application",
        "--workers",
        str(workers),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    with _serving("uvicorn", command, port, env):
        yield port


@contextmanager
def _serving(name: str, command: list[str], port: int, env: dict[str, str]) -> Iterator[None]:
    log = (WORK_DIR / f"{name}.log").open("ab")  # the 409s of the duplicate bursts are logged there
    # benchmarks.settings: the example service's settings with the benchmark's URLconf (the service's
    # URLs, the pagination lists and the idempotency floors, benchmarks/floor_views.py), as in the tasks.
    process = subprocess.Popen(
        command, cwd=REPOSITORY, env={**env, "DJANGO_SETTINGS_MODULE": "benchmarks.settings"}, stderr=log, stdout=log
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/problems/", timeout=5).read()
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited at start-up") from None
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name} did not answer within 60 s") from None
                time.sleep(0.2)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
