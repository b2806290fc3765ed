"""A real gunicorn serving the example service against the test database, for crash and load tests."""

from __future__ import annotations

import os
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
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


@contextmanager
def gunicorn(workers: int, **environment: str) -> Iterator[Gunicorn]:
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        "DATABASE_URL": test_database_url(),
        "PYTHONPATH": str(REPOSITORY),
        **environment,
    }
    env.pop("COVERAGE_PROCESS_START", None)
    command = [sys.executable, "-m", "gunicorn", "testproject.wsgi:application", "--workers", str(workers),
               "--bind", f"127.0.0.1:{port}", "--timeout", "60", "--graceful-timeout", "2", "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=REPOSITORY, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}/problems/", timeout=2).read()  # noqa: S310 -- loopback only
                break
            except OSError:
                assert process.poll() is None, "gunicorn exited at start-up"
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.1)
        yield Gunicorn(url, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
