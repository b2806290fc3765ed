"""The keyset predicate: rows strictly after a position in an ordering."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from django.db.models import BooleanField, Expression, F, Model, Q
from django.db.models.constants import LOOKUP_SEP


class RowValueComparison(Expression):
    """``(a, b, c) < (x, y, z)`` as one SQL row-value comparison.

    PostgreSQL reads it as a range over a composite index on (a, b, c); SQLite (3.15+) supports
    it too. Django's ORM has no public spelling for it, hence this small expression.
    """

    output_field = BooleanField()
    conditional = True

    def __init__(self, fields: Sequence[str], operator: str, values: Sequence[Any]) -> None:
        if operator not in ("<", ">"):
            raise ValueError(f"operator must be '<' or '>', not {operator!r}")
        super().__init__()
        self.fields = [F(name) for name in fields]
        self.operator = operator
        self.values = list(values)

    def get_source_expressions(self) -> list[Any]:
        return self.fields

    def set_source_expressions(self, exprs: list[Any]) -> None:
        self.fields = exprs

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        columns, params = [], []
        for expression, value in zip(self.fields, self.values, strict=True):
            sql, column_params = compiler.compile(expression)
            columns.append(sql)
            params.extend(column_params)
            params.append(expression.output_field.get_db_prep_value(value, connection, prepared=False))
        placeholders = ", ".join(["%s"] * len(self.values))
        return f"({', '.join(columns)}) {self.operator} ({placeholders})", params


def keyset_predicate(
    ordering: Sequence[str], position: Sequence[Any], nullable: Collection[str] = ()
) -> Q | RowValueComparison:
    """Rows that come strictly after ``position`` in ``ordering`` (``"-created_at"``-style names).

    Every direction the same and no nullable field: one row-value comparison, plus a redundant
    bound on the leading column that SQLite's planner needs to use the index as a range.
    Otherwise the OR-expansion ``a < x OR (a = x AND b > y) ...``, NULL-safe for the fields in
    ``nullable``, whose NULLs sort last in either direction (see :func:`order_by_expressions`).
    """
    names = [name.lstrip("-") for name in ordering]
    descending = [name.startswith("-") for name in ordering]
    if len(set(descending)) == 1 and not set(names) & set(nullable):
        operator = "<" if descending[0] else ">"
        leading = Q(**{f"{names[0]}{LOOKUP_SEP}{'lte' if descending[0] else 'gte'}": position[0]})
        return leading & Q(RowValueComparison(names, operator, position))
    expansion = Q(pk__in=[])  # nothing, until a step adds rows
    for index, name in enumerate(names):
        value = position[index]
        if value is None:
            continue  # NULLs sort last: nothing comes after a NULL in this field alone
        step = Q(**{f"{name}{LOOKUP_SEP}{'lt' if descending[index] else 'gt'}": value})
        if name in nullable:
            step |= Q(**{f"{name}{LOOKUP_SEP}isnull": True})
        for earlier in range(index):
            earlier_value = position[earlier]
            if earlier_value is None:
                step &= Q(**{f"{names[earlier]}{LOOKUP_SEP}isnull": True})
            else:
                step &= Q(**{names[earlier]: earlier_value})
        expansion |= step
    return expansion


def order_by_expressions(ordering: Sequence[str], nullable: Collection[str] = ()) -> list[Any]:
    """The ``order_by()`` arguments of ``ordering``: NULLs last, whatever the direction or database."""
    expressions: list[Any] = []
    for name in ordering:
        bare = name.lstrip("-")
        if bare not in nullable:
            expressions.append(name)
        elif name.startswith("-"):
            expressions.append(F(bare).desc(nulls_last=True))
        else:
            expressions.append(F(bare).asc(nulls_last=True))
    return expressions


def position_of(row: Model, ordering: Sequence[str]) -> tuple[Any, ...]:
    """The values of ``row`` in the ordering's columns (as :meth:`KeysetPagination.get_ordering` gives them)."""
    return tuple(getattr(row, name.lstrip("-")) for name in ordering)
