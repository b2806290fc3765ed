"""The package's one use of Django's private API, kept for its measured gain.

The database store's claim and stored answer go through a cursor that binds on the server, so
that psycopg prepares them where ``OPTIONS["prepare_threshold"]`` allows it: 250 to 320 µs less
a replay (benchmarks/NOTES.md). Django has no public way to wrap such a cursor as it wraps its
own. tests/test_django_compat.py fails on a Django that changes what this relies on.
"""

from __future__ import annotations

from typing import Any


def server_binding_cursor(connection: Any) -> Any:
    """A cursor of ``connection`` (PostgreSQL, psycopg 3, connected) that binds its parameters on
    the server, wrapped as Django wraps its own."""
    from django.db.backends.postgresql.base import ServerBindingCursor  # psycopg 3 only

    cursor = ServerBindingCursor(connection.connection)  # type: ignore[call-arg]  # psycopg.Cursor(connection)
    return connection._prepare_cursor(cursor)
