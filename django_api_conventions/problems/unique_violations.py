"""Which fields a database unique violation is about: a 409 ``conflict``, not a 500.

A serializer's uniqueness check reads before it writes, so two requests racing with one new
value both pass it and one of them meets the database's unique constraint. The driver's error
says so (PostgreSQL's SQLSTATE ``23505``, SQLite's ``SQLITE_CONSTRAINT_UNIQUE``) and names the
constraint; the models' meta (a named ``UniqueConstraint``, its fields or the fields its
expressions reference) or the database's introspection map it to model fields. Other integrity
errors (foreign key, NOT NULL, CHECK) are not conflicts the client can resolve: they stay 500.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db import DatabaseError, IntegrityError, connections, models, router
from django.db.models.constants import LOOKUP_SEP

_POSTGRES_UNIQUE_VIOLATION = "23505"
_SQLITE_UNIQUE_ERRORS = frozenset({"SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"})
_SQLITE_UNIQUE = re.compile(r"UNIQUE constraint failed: (?:index '(?P<index>[^']+)'|(?P<columns>.+))")


@dataclass(frozen=True)
class UniqueViolation:
    """A unique constraint the database enforced; ``fields`` are the model field names it
    covers, empty when the constraint maps to no field this project declares."""

    constraint: str | None
    fields: tuple[str, ...]


def unique_violation(exc: IntegrityError) -> UniqueViolation | None:
    """The unique constraint ``exc`` reports; ``None`` for any other integrity error."""
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)  # psycopg 3, psycopg2
    if sqlstate is not None:
        return _postgres(cause.diag) if sqlstate == _POSTGRES_UNIQUE_VIOLATION else None  # type: ignore[union-attr]
    if getattr(cause, "sqlite_errorname", None) not in _SQLITE_UNIQUE_ERRORS:
        return None
    index, table, columns = sqlite_unique_target(str(cause))
    if index is not None:
        return UniqueViolation(index, _fields_of_named_constraint(index, _all_models()))
    return UniqueViolation(None, _fields_of_columns(_models_of_table(table), columns))


def _postgres(diag: Any) -> UniqueViolation:
    constraint, table = diag.constraint_name, diag.table_name
    candidates = _models_of_table(table)
    fields = _fields_of_named_constraint(constraint, candidates)
    if not fields and candidates:
        # A field's own ``unique=True``, ``unique_together`` or the primary key: the database
        # named the constraint, its catalogue knows the columns.
        alias = router.db_for_write(candidates[0])
        fields = _fields_of_columns(candidates, list(_constraint_columns(alias, table, constraint)))
    return UniqueViolation(constraint, fields)


@functools.lru_cache(maxsize=256)
def _constraint_columns(alias: str, table: str, constraint: str) -> tuple[str, ...]:
    # The request's transaction stays broken until its rollback: a connection of its own reads
    # the catalogue, once per constraint.
    connection = connections[alias].copy()
    try:
        with connection.cursor() as cursor:
            found: Any = connection.introspection.get_constraints(cursor, table).get(constraint) or {}
    except DatabaseError:
        return ()
    finally:
        connection.close()
    return tuple(found.get("columns") or ())


def sqlite_unique_target(message: str) -> tuple[str | None, str | None, list[str]]:
    """``(index, table, columns)`` of SQLite's ``UNIQUE constraint failed: table.col, table.col2``
    or ``UNIQUE constraint failed: index 'name'``: SQLite names them in its message only."""
    match = _SQLITE_UNIQUE.match(message)
    if match is None:
        return None, None, []
    if match["index"]:
        return match["index"], None, []
    qualified = [part.strip().rpartition(".") for part in match["columns"].split(",")]
    tables = {table for table, _, _ in qualified}
    return None, (tables.pop() if len(tables) == 1 else None), [column for _, _, column in qualified]


def _all_models() -> list[type[models.Model]]:
    return [model for model in apps.get_models() if not model._meta.proxy]


def _models_of_table(table: str | None) -> list[type[models.Model]]:
    return [model for model in _all_models() if model._meta.db_table == table]


def _fields_of_named_constraint(name: str | None, candidates: list[type[models.Model]]) -> tuple[str, ...]:
    for model in candidates:
        for constraint in model._meta.constraints:
            if isinstance(constraint, models.UniqueConstraint) and constraint.name == name:
                if constraint.fields:
                    return tuple(constraint.fields)
                return tuple(dict.fromkeys(_referenced_fields(constraint.expressions)))
    return ()


def _referenced_fields(expressions: Any) -> Iterator[str]:
    for expression in expressions:
        if isinstance(expression, models.F):
            yield expression.name.split(LOOKUP_SEP)[0]  # type: ignore[attr-defined]  # F.__init__ sets it; the stubs omit it
        elif hasattr(expression, "get_source_expressions"):
            yield from _referenced_fields(expression.get_source_expressions())


def _fields_of_columns(candidates: list[type[models.Model]], columns: list[str]) -> tuple[str, ...]:
    for model in candidates:
        by_column = {field.column: field.name for field in model._meta.concrete_fields}
        if columns and all(column in by_column for column in columns):
            return tuple(by_column[column] for column in columns)
    return ()
