"""What ``IDEMPOTENCY_REDIS_WAIT_REPLICAS = 1`` costs a keyed POST (docs/reliability.md).

A Redis master with one replica, both started here from the ``redis-server`` binary on free
loopback ports (none of the running servers is touched), then, request by request in a
shuffled order: a POST without a key, a keyed POST on the Redis store without the wait, and
the same with ``WAIT 1`` after the claim and the committing record, all through Django's test
client against the same master. Skipped, and said so, where ``redis-server`` is missing.
"""

from __future__ import annotations

import json
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import services
from .stats import alternate, ratio, summary, warm_up

#: The scenarios, the first the baseline of the ratios: no key, a key without the wait, with it.
SCENARIOS = ("plain", "fresh_key", "fresh_key_wait_1")
WAIT_TIMEOUT_MS = 500


def run(plan: Any, base_postgres: str | None, skipped: list[str]) -> dict[str, Any]:
    """The scenarios on PostgreSQL (where the wait's guarantee holds) if given, else on SQLite
    (the smoke run); ``{}`` and a line in ``skipped`` without ``redis-server``."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        skipped.append("Redis replica wait (redis-server and redis-cli not installed)")
        return {}
    if base_postgres and "postgresql" in plan.backends:
        database, url = "postgresql", services.postgres_url(base_postgres, "replicas")
        assert url is not None
        services.create_database(url, recreate=True)
    else:
        database, url = "sqlite", services.sqlite_url(plan.sqlite_file("replica-wait"))
    with redis_with_replica() as redis_url:
        raw = services.run_task(
            "replica_wait",
            {
                "rounds": plan.inprocess_rounds,
                "requests_per_round": plan.inprocess_requests,
            },
            services.task_environment(DATABASE_URL=url, REDIS_URL=redis_url, IDEMPOTENCY_STORE="redis"),
        )
    return {
        database: {
            "scenarios": {name: summary(samples) for name, samples in raw["samples_ms"].items()},
            "cpu": {name: statistics.mean(samples) for name, samples in raw["cpu_ms"].items()},
            "statuses": raw["statuses"],
            "wait_ms": summary(raw["wait_ms"]),
            "replicas": 1,
            "wait_timeout_ms": WAIT_TIMEOUT_MS,
        }
    }


def _binary(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"{name} is not installed")
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cli(port: int, *args: str) -> str:
    command = [_binary("redis-cli"), "-h", "127.0.0.1", "-p", str(port), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=10).stdout.strip()


def _wait_for(what: str, condition: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} within {seconds} s")
        time.sleep(0.05)


@contextmanager
def redis_with_replica() -> Iterator[str]:
    """A master and one replica in sync, without persistence; yields the master's URL."""
    directory = Path(tempfile.mkdtemp(prefix="bench-redis-"))
    processes: list[subprocess.Popen[bytes]] = []

    def start(name: str, *extra: str) -> int:
        port = _free_port()
        (directory / name).mkdir()
        processes.append(
            subprocess.Popen(
                [
                    _binary("redis-server"),
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(directory / name),
                    "--logfile",
                    str(directory / name / "log"),
                    *extra,
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
        _wait_for(f"redis-server answering on {port}", lambda: _cli(port, "ping") == "PONG", 20)
        return port

    try:
        master = start("master")
        start("replica", "--replicaof", "127.0.0.1", str(master))
        _wait_for("replica in sync", lambda: "state=online" in _cli(master, "info", "replication"))
        yield f"redis://127.0.0.1:{master}/0"
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(directory, ignore_errors=True)


# --- inside Django (python -m benchmarks.tasks replica_wait ...) ---------------------------------


def replica_wait_task(rounds: int, requests_per_round: int) -> dict[str, Any]:
    from django.conf import settings
    from django.test import Client, override_settings
    from django_redis import get_redis_connection

    from .database import BENCH_USER, prepare_idempotency

    prepare_idempotency([])
    client = Client()
    body = json.dumps({"user_id": BENCH_USER})
    run = uuid.uuid4().hex[:8]
    counter = iter(range(10**9))
    base = settings.API_CONVENTIONS

    def post(key: str | None, replicas: int) -> int:
        headers = {"HTTP_X_CLIENT_ID": "bench-replica-wait"}
        if key is not None:
            headers["HTTP_IDEMPOTENCY_KEY"] = key
        # Every scenario under the same override: its cost (the settings reloaded) is in each.
        overridden = {**base, "IDEMPOTENCY_REDIS_WAIT_REPLICAS": replicas}
        with override_settings(API_CONVENTIONS=overridden):
            return client.post("/v2/orders", data=body, content_type="application/json", **headers).status_code

    scenarios: dict[str, Callable[[], int]] = {
        "plain": lambda: post(None, 0),
        "fresh_key": lambda: post(f"fresh-{run}-{next(counter)}", 0),
        "fresh_key_wait_1": lambda: post(f"wait-{run}-{next(counter)}", 1),
    }
    warm_up(scenarios)
    measured = alternate(scenarios, rounds * requests_per_round)
    # The replica's acknowledgement alone: a write, then WAIT 1, in one round trip (as the store sends them).
    connection = get_redis_connection("default")
    wait_ms: list[float] = []
    for number in range(rounds * requests_per_round):
        pipe = connection.pipeline(transaction=False)
        pipe.set(f"bench-replica-wait:{run}", number)
        pipe.execute_command("WAIT", 1, WAIT_TIMEOUT_MS)
        started = time.perf_counter()
        _written, acknowledged = pipe.execute()
        wait_ms.append((time.perf_counter() - started) * 1000)
        assert int(acknowledged) == 1, "the replica did not acknowledge"
    connection.delete(f"bench-replica-wait:{run}")
    return {**measured, "wait_ms": wait_ms}


# --- the table -----------------------------------------------------------------------------------


def tables(results: dict[str, Any]) -> list[str]:
    from .tables import format_ms as ms
    from .tables import format_ratio as x
    from .tables import text_table as table

    found = []
    for database, data in results.get("replica_wait", {}).items():
        scenarios = data["scenarios"]
        plain, fresh = scenarios["plain"]["p50_ms"], scenarios["fresh_key"]["p50_ms"]
        rows = []
        for name, scenario in scenarios.items():
            rows.append(
                [
                    name,
                    ms(scenario["p50_ms"]),
                    ms(scenario["p99_ms"]),
                    x(ratio(scenario["p50_ms"], plain)),
                    x(ratio(scenario["p50_ms"], fresh)),
                    f"{scenario['p50_ms'] - fresh:+.2f}",
                    ms(data["cpu"][name]),
                    str(scenario["n"]),
                    ", ".join(f"{status}: {count}" for status, count in sorted(data["statuses"][name].items())),
                ]
            )
        wait = data["wait_ms"]
        found.append(
            table(
                f"Keyed POST on the Redis store, a master with {data['replicas']} replica (started here), {database}, "
                f"in-process: without and with IDEMPOTENCY_REDIS_WAIT_REPLICAS = 1 (a write + WAIT 1 alone: "
                f"p50 {ms(wait['p50_ms'])} ms, p99 {ms(wait['p99_ms'])} ms)",
                [
                    "scenario",
                    "p50 ms",
                    "p99 ms",
                    "vs plain",
                    "vs fresh_key",
                    "ms vs fresh_key",
                    "CPU ms (mean)",
                    "requests",
                    "answers",
                ],
                rows,
            )
        )
    return found
