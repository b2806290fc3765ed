"""The keyset predicate: rows strictly after (or before) a position in an ordering."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cached_property, lru_cache
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Expression, F, Field, Func, Model, Q, QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.db.models.lookups import Lookup
from django.db.models.sql import Query
from django.db.models.sql.where import AND
from django.utils.hashable import make_hashable


class Column(Expression):
    """A column of the query's own model by field name (``pk`` too), resolved to its table at once,
    without the lookup an ``F()`` goes through on every page; anything else resolves as ``F()``."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    @cached_property
    def identity(self) -> tuple[Any, ...]:
        # Expression.identity binds the constructor's signature (inspect) on every ORDER BY term.
        return (type(self), self.name)

    def resolve_expression(
        self,
        query: Any = None,
        allow_joins: bool = True,
        reuse: Any = None,
        summarize: bool = False,
        for_save: bool = False,
    ) -> Any:
        field = (
            None if LOOKUP_SEP in self.name or self.name in query.annotations else _own_field(query.model, self.name)
        )
        if field is None:
            return F(self.name).resolve_expression(query, allow_joins, reuse, summarize, for_save)
        return field.get_col(query.get_initial_alias())


def _own_field(model: type[Model], name: str) -> Any:
    """The concrete field ``name`` of ``model``'s own table, or None (inherited, many-to-many ...)."""
    opts = model._meta
    try:
        field = opts.pk if name == "pk" else opts.get_field(name)
    except FieldDoesNotExist:
        return None
    if field.model is not opts.model or not field.concrete or field.many_to_many:
        return None
    return field


def _shallow_copy(expression: Any) -> Any:
    """``copy.copy(expression)`` without the ``copyreg`` round trip, the largest cost left when
    the keyset condition is resolved on every page."""
    clone = object.__new__(type(expression))
    state = expression.__dict__.copy()
    state.pop("convert_value", None)  # as Django's __getstate__
    clone.__dict__.update(state)
    return clone


class _Columns(Func):
    """The left-hand side of a :class:`RowValueComparison`, compiled column by column by it."""

    template = "(%(expressions)s)"
    output_field = Field()  # columns of several types: no single output type to infer

    def copy(self) -> Any:
        clone = _shallow_copy(self)
        clone.source_expressions = self.source_expressions[:]  # as Func.copy()
        clone.extra = self.extra.copy()
        return clone


class RowValueComparison(Lookup):
    """``(a, b, c) < (x, y, z)`` as one SQL row-value comparison.

    PostgreSQL reads it as a range over a composite index on (a, b, c); SQLite (3.15+) supports
    it too. Django's ORM has no public spelling for it, hence this small lookup.

    With ``leading_bound``, the SQL also bounds the first column on its own, ``a <= x AND (a, b,
    c) < (x, y, z)`` (``>=`` for ``>``): redundant, but SQLite's planner needs it to read the
    index as a range.

    A ``Lookup`` rather than a plain boolean expression: ``filter()`` takes a lookup as it is,
    where it wraps any other expression in ``= true``, which Django 6.1 writes out on databases
    without a boolean type (SQLite) and which hides the bound from the planner.
    """

    lookup_name = "row_value_comparison"  # registered on no field: built only by its constructor
    prepare_rhs = False

    def __init__(
        self, fields: Sequence[str], operator: str, values: Sequence[Any], *, leading_bound: bool = False
    ) -> None:
        if operator not in ("<", ">", "<=", ">="):
            raise ValueError(f"operator must be '<', '>', '<=' or '>=', not {operator!r}")
        self.names = tuple(fields)
        self.operator = operator
        self.leading_bound = leading_bound
        super().__init__(_Columns(*(Column(name) for name in fields)), list(values))

    @cached_property
    def identity(self) -> tuple[Any, ...]:
        # As Column's: without binding the constructor's signature on every page.
        return (type(self), self.names, self.operator, make_hashable(self.rhs), self.leading_bound)

    def copy(self) -> Any:
        return _shallow_copy(self)

    def with_values(self, values: Sequence[Any]) -> RowValueComparison:
        """This comparison (resolved or not) against other ``values``."""
        clone = _shallow_copy(self)
        clone.__dict__.pop("identity", None)
        clone.rhs = list(values)
        return clone  # type: ignore[no-any-return]  # a copy of self

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:  # type: ignore[override]  # compilers take a list
        columns: list[str] = []
        column_params: list[Any] = []
        values: list[Any] = []
        for expression, value in zip(self.lhs.get_source_expressions(), self.rhs, strict=True):
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

    Every direction the same and no nullable field: one :class:`RowValueComparison` with
    ``leading_bound``. Otherwise the OR-expansion ``a < x OR (a = x AND b > y) ...``, NULL-safe
    for the fields in ``nullable``, whose NULLs sort last in either direction: forward, a NULL
    comes after every value; backward, every value comes before a NULL and no NULL before a value.
    """
    names = [name.lstrip("-") for name in ordering]
    # The direction rows are walked in: backward reads the ordering the other way round.
    descending = [name.startswith("-") != backward for name in ordering]
    if len(set(descending)) == 1 and not set(names) & set(nullable):
        operator = ("<" if descending[0] else ">") + ("=" if inclusive else "")
        return RowValueComparison(names, operator, position, leading_bound=True)
    expansion = Q(pk__in=[])  # nothing, until a step adds rows
    for index, name in enumerate(names):
        step = _step(name, position[index], descending[index], name in nullable, backward)
        if step is not None:
            expansion |= step & _equal(names[:index], position[:index])
    if inclusive:
        expansion |= _equal(names, position)
    return expansion


def _step(name: str, value: Any, descending: bool, nullable: bool, backward: bool) -> Q | None:
    """The rows past ``value`` in the field ``name`` alone; None: no row."""
    if value is None:
        # NULLs sort last: forward nothing comes after one; backward every value comes before it.
        return Q(**{f"{name}{LOOKUP_SEP}isnull": False}) if backward else None
    step = Q(**{f"{name}{LOOKUP_SEP}{'lt' if descending else 'gt'}": value})
    if nullable and not backward:
        step |= Q(**{f"{name}{LOOKUP_SEP}isnull": True})
    return step


def filter_after(
    queryset: Any,
    ordering: Sequence[str],
    position: Sequence[Any],
    nullable: Collection[str] = (),
    *,
    backward: bool = False,
    inclusive: bool = False,
) -> Any:
    """``queryset.filter(keyset_predicate(ordering, position, ...))``, in place on a queryset the
    caller has just cloned (``order_by()``).

    A row-value comparison of the model's own columns is resolved once per model, alias, columns
    and operator; each page binds its values into a copy, ANDed into the ``WHERE`` as ``filter()``
    would. Anything else, and a QuerySet or Query class of the project's own, goes through ``filter()``.
    """
    shape = _row_value_shape(tuple(ordering), frozenset(nullable), backward, inclusive)
    query = queryset.query
    if (
        shape is not None
        and type(queryset).filter is QuerySet.filter
        and type(query) is Query
        and not query.combinator
        and not query.is_sliced
        and not query.annotations.keys() & set(shape[0])
    ):
        template = _resolved_comparison(query.model, query.get_initial_alias(), *shape)
        if template is not None:
            query.where.add(template.with_values(position), AND)
            return queryset
    return queryset.filter(keyset_predicate(ordering, position, nullable, backward=backward, inclusive=inclusive))


@lru_cache(maxsize=1024)
def _row_value_shape(
    ordering: tuple[str, ...], nullable: frozenset[str], backward: bool, inclusive: bool
) -> tuple[tuple[str, ...], str] | None:
    """The columns and operator of :func:`keyset_predicate`'s row-value comparison, if it is one."""
    condition = keyset_predicate(ordering, [None] * len(ordering), nullable, backward=backward, inclusive=inclusive)
    if isinstance(condition, RowValueComparison):
        return condition.names, condition.operator
    return None


@lru_cache(maxsize=1024)
def _resolved_comparison(model: type[Model], alias: str, names: tuple[str, ...], operator: str) -> Any:
    """The comparison of ``names`` resolved against ``alias``, its values still to bind; None
    when a name is not a column of the model's own table."""
    fields = [_own_field(model, name) for name in names]
    if any(field is None for field in fields):
        return None
    template = RowValueComparison(names, operator, [None] * len(names), leading_bound=True)
    template.lhs = _Columns(*(field.get_col(alias) for field in fields))
    return template


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
        column = F(bare) if LOOKUP_SEP in bare else Column(bare)  # a transform: its annotation
        nulls = ({"nulls_first": True} if backward else {"nulls_last": True}) if bare in nullable else {}
        expressions.append(column.desc(**nulls) if descending else column.asc(**nulls))
    return expressions


def _annotation_name(name: str) -> str:
    """The annotation that holds a transform's value (``created_at__year``) on each row."""
    return "keyset_" + name.lstrip("-").replace(LOOKUP_SEP, "_")


def transform_annotations(ordering: Sequence[str]) -> dict[str, F]:
    """The ``annotate()`` arguments that select each transform of ``ordering``."""
    return {_annotation_name(name): F(name.lstrip("-")) for name in ordering if LOOKUP_SEP in name}


def position_of(row: Model, ordering: Sequence[str]) -> tuple[Any, ...]:
    """The values of ``row`` in the ordering's columns, a transform's from its annotation."""
    return tuple(getattr(row, _annotation_name(name) if LOOKUP_SEP in name else name.lstrip("-")) for name in ordering)
