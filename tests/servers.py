"""A real gunicorn (WSGI) or uvicorn (ASGI) serving the example service against the test database, for
crash and load tests."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

REPOSITORY = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A free loopback port: from ``TEST_PORTS`` ("18200-18299") when set, else any the OS gives."""
    first, _, last = os.environ.get("TEST_PORTS", "").partition("-")
    candidates = random.sample(range(int(first), int(last) + 1), int(last) - int(first) + 1) if last else [0]
    for candidate in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise RuntimeError(f"no free port in TEST_PORTS={os.environ['TEST_PORTS']}")


def rss_kib(pid: int) -> int:
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def test_database_url() -> str:
    config = connection.settings_dict
    assert config["ENGINE"].endswith("postgresql"), "gunicorn tests need PostgreSQL"
    user = config["USER"] or "root"
    return f"postgres://{user}@{config['HOST'] or '127.0.0.1'}:{config['PORT'] or 5432}/{config['NAME']}"


@dataclass
class Gunicorn:
    url: str
    process: subprocess.Popen[bytes]

    def worker_pids(self) -> list[int]:
        output = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in output.split()]

    def kill_workers(self) -> list[int]:
        pids = self.worker_pids()
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        return pids

    def wait_until_serving(self, timeout: float = 30) -> None:
        """Until a worker answers (after a kill, gunicorn boots a new one)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(f"{self.url}/problems/", timeout=2).read()  # noqa: S310 -- loopback only
                return
            except OSError:
                assert self.process.poll() is None, "gunicorn exited"
                assert time.monotonic() < deadline, "gunicorn did not replace its worker"
                time.sleep(0.05)


@contextmanager
def gunicorn(
    workers: int, *, preload: bool = False, threads: int = 1, cold: bool = False, **environment: str
) -> Iterator[Gunicorn]:
    """``preload``: import the application once in the master, so a killed worker is replaced in
    milliseconds (a fork) rather than seconds (an import of Django). ``threads`` > 1: gunicorn's
    ``gthread`` workers. ``cold``: yield as soon as the port accepts connections, before any
    request has reached a worker (the first requests queue until the workers have booted)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "testproject.wsgi:application",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--bind",
        f"127.0.0.1:{port}",
        "--timeout",
        "60",
        "--graceful-timeout",
        "2",
        "--log-level",
        "warning",
        *(["--preload"] if preload else []),
    ]
    with _serving("gunicorn", command, port, environment, cold=cold) as (url, process):
        yield Gunicorn(url, process)


@dataclass
class Uvicorn:
    url: str
    process: subprocess.Popen[bytes]


@contextmanager
def uvicorn(workers: int = 1, **environment: str) -> Iterator[Uvicorn]:
    """The example service under ASGI: uvicorn serving ``testproject.asgi:application``."""
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
    with _serving("uvicorn", command, port, environment) as (url, process):
        yield Uvicorn(url, process)


@contextmanager
def _serving(
    name: str,
    command: list[str],
    port: int,
    environment: dict[str, str],
    *,
    cold: bool = False,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        "DATABASE_URL": environment.get("DATABASE_URL") or test_database_url(),
        "PYTHONPATH": str(REPOSITORY),
        **environment,
    }
    env.pop("COVERAGE_PROCESS_START", None)
    process = subprocess.Popen(command, cwd=REPOSITORY, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if cold:
                    socket.create_connection(("127.0.0.1", port), timeout=2).close()
                else:
                    urllib.request.urlopen(f"{url}/problems/", timeout=2).read()  # noqa: S310 -- loopback only
                break
            except OSError:
                assert process.poll() is None, f"{name} exited at start-up"
                assert time.monotonic() < deadline, f"{name} did not start"
                time.sleep(0.1)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
