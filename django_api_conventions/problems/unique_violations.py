"""Which fields a database unique violation is about: a 409 ``conflict``, not a 500.

A serializer's uniqueness check reads before it writes, so two requests racing with one new
value both pass it and one of them meets the database's unique constraint. The
:class:`~django.db.IntegrityError` raised then says which constraint, in a form each backend
has its own way of saying:

- PostgreSQL: SQLSTATE ``23505`` (``unique_violation``), with the constraint's name and the
  table in the error's diagnostics, and its columns in the DETAIL line (``Key (email)=(...)``,
  whose value is never read);
- SQLite: ``UNIQUE constraint failed: table.col, table.col2`` or, for an expression
  constraint, ``UNIQUE constraint failed: index 'name'``.

The constraint maps to model fields through the models' meta: a ``UniqueConstraint`` by its
name (its fields, or the fields its expressions reference, as in ``Lower("email")``), else the
columns named. Other integrity errors (foreign key, NOT NULL, CHECK) are not conflicts the
client can resolve: they stay 500.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db import IntegrityError, models
from django.db.models.constants import LOOKUP_SEP

UNIQUE_VIOLATION_SQLSTATE = "23505"
_SQLITE_UNIQUE = re.compile(r"UNIQUE constraint failed: (?:index '(?P<index>[^']+)'|(?P<columns>.+))")
# The DETAIL of PostgreSQL's error: ``Key (a, b)=(...)``; an expression has parentheses and
# does not match. Only the column list is read, never the value that follows.
_POSTGRES_KEY_COLUMNS = re.compile(r"\((?P<columns>[^()]*)\)=\(")
_IDENTIFIER = re.compile(r'"?(?P<name>[^",\s]+)"?')


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
        return _postgres(cause) if sqlstate == UNIQUE_VIOLATION_SQLSTATE else None
    match = _SQLITE_UNIQUE.match(str(exc))
    if match is None:
        return None
    if match["index"]:
        constraint = match["index"]
        return UniqueViolation(constraint, _fields_of_named_constraint(constraint, _all_models()))
    tables_and_columns = [_split_qualified(part.strip()) for part in match["columns"].split(",")]
    tables = {table for table, _ in tables_and_columns}
    columns = [column for _, column in tables_and_columns]
    table = tables.pop() if len(tables) == 1 else None
    return UniqueViolation(None, _fields_of_columns(_models_of_table(table), columns) if table else ())


def _postgres(cause: Any) -> UniqueViolation:
    diag = getattr(cause, "diag", None)
    constraint = getattr(diag, "constraint_name", None)
    table = getattr(diag, "table_name", None)
    candidates = _models_of_table(table) if table else _all_models()
    fields = _fields_of_named_constraint(constraint, candidates) if constraint else ()
    if not fields:
        # A field's own ``unique=True`` or ``unique_together``: Django named the constraint,
        # PostgreSQL names its columns.
        match = _POSTGRES_KEY_COLUMNS.search(getattr(diag, "message_detail", None) or "")
        if match is not None:
            columns = [_IDENTIFIER.fullmatch(part.strip()) for part in match["columns"].split(",")]
            if all(columns):
                fields = _fields_of_columns(candidates, [column["name"] for column in columns if column])
    return UniqueViolation(constraint, fields)


def _split_qualified(name: str) -> tuple[str, str]:
    table, _, column = name.rpartition(".")
    return table, column


def _all_models() -> list[type[models.Model]]:
    return [model for model in apps.get_models() if not model._meta.proxy]


def _models_of_table(table: str | None) -> list[type[models.Model]]:
    return [model for model in _all_models() if model._meta.db_table == table]


def _fields_of_named_constraint(name: str, candidates: list[type[models.Model]]) -> tuple[str, ...]:
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
        if all(column in by_column for column in columns):
            return tuple(by_column[column] for column in columns)
    return ()
