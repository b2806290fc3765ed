"""What the package's one use of Django's private API relies on (idempotency/stores/_django_compat.py),
tested against Django 5.2 and 6.1: each test fails on a Django that changes it."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper
from django.test.utils import CaptureQueriesContext

from django_api_conventions.idempotency.stores._django_compat import server_binding_cursor

postgres_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="a psycopg 3 cursor")


def test_django_wraps_a_cursor_through_prepare_cursor() -> None:
    """On every backend, so that a run on SQLite also catches a Django that renames it."""
    parameters = list(inspect.signature(BaseDatabaseWrapper._prepare_cursor).parameters)
    assert parameters == ["self", "cursor"]


@pytest.mark.postgres
@postgres_only
@pytest.mark.django_db
def test_the_cursor_binds_on_the_server_and_runs_through_djangos_wrappers() -> None:
    import psycopg

    seen: list[str] = []

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append(sql)
        return execute(sql, params, many, context)

    connection.ensure_connection()
    with (
        CaptureQueriesContext(connection) as logged,
        connection.execute_wrapper(wrapper),
        server_binding_cursor(connection) as cursor,
    ):
        assert isinstance(cursor, CursorWrapper)  # Django's own wrapper (thread check, query log)
        raw = cursor.cursor
        assert isinstance(raw, psycopg.Cursor) and not isinstance(raw, psycopg.ClientCursor)
        cursor.execute("SELECT %s::int + 1", [41])
        assert cursor.fetchone() == (42,)
    assert seen == ["SELECT %s::int + 1"], "Django's execute wrappers run"
    assert len(logged.captured_queries) == 1, "Django's query log sees the statement"
