"""What reaches PostgreSQL and Redis during a block of code, read off the wire, never mocked.

:func:`postgres_wire` has libpq trace every frontend message of every PostgreSQL connection of
this thread (``PQtrace``, through psycopg's ``pgconn.trace``), those open when the block starts
and those opened inside it (the ``connection_created`` signal): raw cursors, the ORM, prepared
statements, the implicit ``BEGIN`` psycopg sends and ``COMMIT`` alike, whatever connection they
run on. A statement is a simple-protocol ``Query`` or an extended-protocol ``Execute``; a round
trip, each time the client waits for ``ReadyForQuery`` (a ``Query`` or a ``Sync``).

:func:`redis_monitor` reads Redis' own ``MONITOR`` feed between two ``ECHO`` markers and keeps
the commands sent to one logical database by clients (a script's inner ``redis.call``\\ s, which
MONITOR shows with the address ``lua``, are kept apart).
"""

from __future__ import annotations

import queue
import re
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from django.db import connections
from django.db.backends.signals import connection_created

_TRACE_LINE = re.compile(r"^(?P<side>[FB])\t\d+\t(?P<message>\w+)\t?(?P<rest>.*)$")
_QUERY = re.compile(r'^"(?P<sql>.*)"$', re.S)
_PARSE = re.compile(r'^"(?P<name>[^"]*)" "(?P<sql>.*)" \d+(?: \S+)*$', re.S)
_BIND = re.compile(r'^"(?P<portal>[^"]*)" "(?P<name>[^"]*)"')


@dataclass
class PostgresTraffic:
    statements: list[str] = field(default_factory=list)
    round_trips: int = 0


def parse_trace(text: str, into: PostgresTraffic) -> None:
    """Add the statements and round trips of one connection's libpq trace to ``into``."""
    prepared: dict[str, str] = {}
    bound = ""
    for line in text.splitlines():
        match = _TRACE_LINE.match(line)
        if match is None or match["side"] != "F":
            continue
        message, rest = match["message"], match["rest"].strip()
        if message == "Query":
            query = _QUERY.match(rest)
            into.statements.append(query["sql"] if query else rest)
            into.round_trips += 1
        elif message == "Parse" and (parse := _PARSE.match(rest)):
            prepared[parse["name"]] = parse["sql"]
        elif message == "Bind" and (bind := _BIND.match(rest)):
            bound = prepared.get(bind["name"], f"<prepared statement {bind['name']}>")
        elif message == "Execute":
            into.statements.append(bound)
        elif message == "Sync":
            into.round_trips += 1


@contextmanager
def postgres_wire() -> Iterator[PostgresTraffic]:
    """Every statement this thread sends to PostgreSQL inside the block (see the module)."""
    from psycopg import pq

    traffic = PostgresTraffic()
    traced: list[tuple[Any, Any]] = []

    def trace(connection: Any) -> None:
        if connection.vendor != "postgresql":
            return
        connection.ensure_connection()
        pgconn = connection.connection.pgconn
        sink = tempfile.TemporaryFile("w+")  # noqa: SIM115 -- libpq writes into it until untraced
        pgconn.trace(sink.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        traced.append((pgconn, sink))

    def on_created(sender: Any, connection: Any, **kwargs: Any) -> None:
        trace(connection)

    for connection in connections.all(initialized_only=True):
        trace(connection)
    connection_created.connect(on_created)
    try:
        yield traffic
    finally:
        connection_created.disconnect(on_created)
        for pgconn, sink in traced:
            with suppress(Exception):  # a connection closed meanwhile was flushed when it closed
                pgconn.untrace()
            sink.seek(0)
            parse_trace(sink.read(), traffic)
            sink.close()


@dataclass
class RedisTraffic:
    commands: list[str] = field(default_factory=list)
    in_scripts: list[str] = field(default_factory=list)


@contextmanager
def redis_monitor(url: str) -> Iterator[RedisTraffic]:
    """The commands clients send to the logical database of ``url`` inside the block, as Redis'
    ``MONITOR`` saw them (the server may be shared: other databases are left out)."""
    import redis

    traffic = RedisTraffic()
    marker = f"wire-{uuid.uuid4().hex}"
    client = redis.Redis.from_url(url)
    database = int(client.connection_pool.connection_kwargs.get("db", 0))
    seen: queue.Queue[str] = queue.Queue()
    collected: list[dict[str, Any]] = []

    def read(monitor: Any) -> None:
        for entry in monitor.listen():
            command = str(entry.get("command", ""))
            if command == f"ECHO {marker}-start":
                collected.clear()  # only what comes after the last start marker
                seen.put("start")
                continue
            if command == f"ECHO {marker}-end":
                seen.put("end")
                return
            collected.append(entry)

    with client.monitor() as monitor:
        reader = threading.Thread(target=read, args=(monitor,), daemon=True)
        reader.start()
        while True:  # MONITOR may start after the first ECHO: send it until it is seen
            client.echo(f"{marker}-start")
            with suppress(queue.Empty):
                if seen.get(timeout=0.2) == "start":
                    break
        try:
            yield traffic
        finally:
            client.echo(f"{marker}-end")
            while seen.get(timeout=10) != "end":  # start markers MONITOR saw late
                pass
            reader.join(timeout=10)
    client.close()
    for entry in collected:
        if int(entry.get("db", -1)) != database:
            continue
        if str(entry.get("client_type", "")) == "lua" or str(entry.get("client_address", "")) == "lua":
            traffic.in_scripts.append(str(entry["command"]))
        elif not str(entry["command"]).startswith(f"ECHO {marker}"):
            traffic.commands.append(str(entry["command"]))
