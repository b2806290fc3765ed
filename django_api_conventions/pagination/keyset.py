"""The keyset predicate: rows strictly after (or before) a position in an ordering."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cached_property
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db.models import BooleanField, Expression, F, Model, Q
from django.db.models.constants import LOOKUP_SEP
from django.utils.hashable import make_hashable


class Column(Expression):
    """A column of the query's own model by field name (``pk`` too), resolved to the model's own
    table at once, without the lookup machinery an ``F()`` goes through (``names_to_path``,
    ``setup_joins``) on every page. A transform, a related path, an annotation or a field
    inherited from a parent table (multi-table inheritance: a join) resolve as ``F(name)`` does.
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    @cached_property
    def identity(self) -> tuple[Any, ...]:
        # Expression.identity binds the constructor's signature (inspect) to hash an expression,
        # which the compiler does to each ORDER BY term, on every page.
        return (type(self), self.name)

    def resolve_expression(
        self, query: Any = None, allow_joins: bool = True, reuse: Any = None, summarize: bool = False,
        for_save: bool = False,
    ) -> Any:
        field = None
        if LOOKUP_SEP not in self.name and self.name not in query.annotations:
            opts = query.get_meta()
            try:
                field = opts.pk if self.name == "pk" else opts.get_field(self.name)
            except FieldDoesNotExist:
                field = None
            if field is not None and (field.model is not opts.model or not field.concrete or field.many_to_many):
                field = None
        if field is None:
            return F(self.name).resolve_expression(query, allow_joins, reuse, summarize, for_save)
        return field.get_col(query.get_initial_alias())


class RowValueComparison(Expression):
    """``(a, b, c) < (x, y, z)`` as one SQL row-value comparison.

    PostgreSQL reads it as a range over a composite index on (a, b, c); SQLite (3.15+) supports
    it too. Django's ORM has no public spelling for it, hence this small expression.

    With ``leading_bound``, the SQL also bounds the first column on its own, ``a <= x AND (a, b,
    c) < (x, y, z)`` (``>=`` for ``>``): redundant, but SQLite's planner needs it to read the
    index as a range. It is written here rather than as a lookup beside the expression, which
    the ORM would resolve field by field on every page.
    """

    output_field = BooleanField()
    conditional = True

    def __init__(
        self, fields: Sequence[str], operator: str, values: Sequence[Any], *, leading_bound: bool = False
    ) -> None:
        if operator not in ("<", ">", "<=", ">="):
            raise ValueError(f"operator must be '<', '>', '<=' or '>=', not {operator!r}")
        super().__init__()
        self.names = tuple(fields)
        self.fields = [Column(name) for name in fields]
        self.operator = operator
        self.values = list(values)
        self.leading_bound = leading_bound

    @cached_property
    def identity(self) -> tuple[Any, ...]:
        # As Column's: what the constructor was given (as Expression.identity), without binding
        # its signature (inspect) on every page.
        return (type(self), self.names, self.operator, make_hashable(self.values), self.leading_bound)

    def get_source_expressions(self) -> list[Any]:
        return self.fields

    def set_source_expressions(self, exprs: list[Any]) -> None:
        self.fields = exprs

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        columns: list[str] = []
        column_params: list[Any] = []
        values: list[Any] = []
        for expression, value in zip(self.fields, self.values, strict=True):
            sql, params = compiler.compile(expression)
            columns.append(sql)
            column_params.append(params)
            values.append(expression.output_field.get_db_prep_value(value, connection, prepared=False))
        placeholders = ", ".join(["%s"] * len(values))
        comparison = f"({', '.join(columns)}) {self.operator} ({placeholders})"
        params = [*(param for params in column_params for param in params), *values]
        if not self.leading_bound:
            return comparison, params
        # (a, b) < (x, y) bounded as a <= x AND (a, b) < (x, y): the first column's SQL and value again.
        return f"({columns[0]} {self.operator[0]}= %s AND {comparison})", [*column_params[0], values[0], *params]


def keyset_predicate(
    ordering: Sequence[str],
    position: Sequence[Any],
    nullable: Collection[str] = (),
    *,
    backward: bool = False,
    inclusive: bool = False,
) -> Q | RowValueComparison:
    """Rows that come strictly after ``position`` in ``ordering`` (``"-created_at"``-style names;
    a transform such as ``"-created_at__year"`` too); with ``backward``, strictly before it;
    with ``inclusive``, the row at ``position`` as well.

    Every direction the same and no nullable field: one row-value comparison, plus a redundant
    bound on the leading column that SQLite's planner needs to use the index as a range (one
    expression, :class:`RowValueComparison` with ``leading_bound``).
    Otherwise the OR-expansion ``a < x OR (a = x AND b > y) ...``, NULL-safe for the fields in
    ``nullable``, whose NULLs sort last in either direction (see :func:`order_by_expressions`):
    forward, a NULL comes after every value (an ``IS NULL`` branch); backward, every value comes
    before a NULL (an ``IS NOT NULL`` branch) and no NULL before a value.
    """
    names = [name.lstrip("-") for name in ordering]
    # The direction rows are walked in: backward reads the ordering the other way round.
    descending = [name.startswith("-") != backward for name in ordering]
    if len(set(descending)) == 1 and not set(names) & set(nullable):
        operator = ("<" if descending[0] else ">") + ("=" if inclusive else "")
        return RowValueComparison(names, operator, position, leading_bound=True)
    expansion = Q(pk__in=[])  # nothing, until a step adds rows
    for index, name in enumerate(names):
        value = position[index]
        if value is None:
            if not backward:
                continue  # NULLs sort last: nothing comes after a NULL in this field alone
            step = Q(**{f"{name}{LOOKUP_SEP}isnull": False})  # every value comes before a NULL
        else:
            step = Q(**{f"{name}{LOOKUP_SEP}{'lt' if descending[index] else 'gt'}": value})
            if name in nullable and not backward:
                step |= Q(**{f"{name}{LOOKUP_SEP}isnull": True})
        expansion |= step & _equal(names[:index], position[:index])
    if inclusive:
        expansion |= _equal(names, position)
    return expansion


def _equal(names: Sequence[str], values: Sequence[Any]) -> Q:
    """``a = x AND b = y ...``, where a ``None`` value is ``IS NULL``."""
    condition = Q()
    for name, value in zip(names, values, strict=True):
        condition &= Q(**{f"{name}{LOOKUP_SEP}isnull": True}) if value is None else Q(**{name: value})
    return condition


def order_by_expressions(
    ordering: Sequence[str], nullable: Collection[str] = (), *, backward: bool = False
) -> list[Any]:
    """The ``order_by()`` arguments of ``ordering``: NULLs last, whatever the direction or database;
    with ``backward``, the exact reverse (every direction flipped, NULLs first)."""
    expressions: list[Any] = []
    for name in ordering:
        bare = name.lstrip("-")
        descending = name.startswith("-") != backward
        # A field of the model's own table without the ORM's name lookup; a transform as F() (its
        # annotation is then ordered by, as before).
        column = F(bare) if LOOKUP_SEP in bare else Column(bare)
        if bare in nullable:
            nulls = {"nulls_first": True} if backward else {"nulls_last": True}
            expressions.append(column.desc(**nulls) if descending else column.asc(**nulls))
        else:
            expressions.append(column.desc() if descending else column.asc())
    return expressions


def annotation_name(name: str) -> str:
    """The annotation that holds the value of a transform (``created_at__year``) on each row,
    so that the cursor can be read from the row like a field."""
    return "keyset_" + name.lstrip("-").replace(LOOKUP_SEP, "_")


def annotations(ordering: Sequence[str]) -> dict[str, F]:
    """The ``annotate()`` arguments that select each transform of ``ordering``."""
    return {annotation_name(name): F(name.lstrip("-")) for name in ordering if LOOKUP_SEP in name}


def position_of(row: Model, ordering: Sequence[str]) -> tuple[Any, ...]:
    """The values of ``row`` in the ordering's columns (as :meth:`KeysetPagination.get_ordering` gives
    them), a transform's from its annotation (:func:`annotations`)."""
    return tuple(
        getattr(row, annotation_name(name) if LOOKUP_SEP in name else name.lstrip("-")) for name in ordering
    )
