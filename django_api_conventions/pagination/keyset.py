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
        self,
        query: Any = None,
        allow_joins: bool = True,
        reuse: Any = None,
        summarize: bool = False,
        for_save: bool = False,
    ) -> Any:
        field = own_field(query, self.name)
        if field is None:
            return F(self.name).resolve_expression(query, allow_joins, reuse, summarize, for_save)
        return field.get_col(query.get_initial_alias())


def own_field(query: Any, name: str) -> Any:
    """The concrete field ``name`` (``pk`` too) of the query's model in its own table, or None: a
    transform, a related path, an annotation, a many-to-many or an inherited field."""
    if LOOKUP_SEP in name or name in query.annotations:
        return None
    return _own_model_field(query.model, name)


def _own_model_field(model: type[Model], name: str) -> Any:
    opts = model._meta
    try:
        field = opts.pk if name == "pk" else opts.get_field(name)
    except FieldDoesNotExist:
        return None
    if field.model is not opts.model or not field.concrete or field.many_to_many:
        return None
    return field


def _shallow_copy(expression: Any) -> Any:
    """``copy.copy(expression)``, what ``Expression.copy()`` does, without the ``copyreg``
    round trip (``__reduce_ex__``, ``__getstate__``): the same class, a copy of its ``__dict__``
    but the ``convert_value`` Django's ``__getstate__`` leaves out. Resolving the keyset
    condition copies it twice on every page, and that round trip was the largest cost left."""
    clone = object.__new__(type(expression))
    state = expression.__dict__.copy()
    state.pop("convert_value", None)
    clone.__dict__.update(state)
    return clone


class _Columns(Func):
    """The columns of a :class:`RowValueComparison`, its left-hand side: resolved, relabelled and
    grouped as any expression; compiled one by one by the comparison."""

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
    index as a range. It is written here rather than as a lookup beside the comparison, which
    the ORM would resolve field by field on every page.

    A ``Lookup`` rather than a plain boolean expression: ``filter()`` takes a lookup as it is,
    where it wraps any other expression in ``= true``, which Django 6.1 writes out on databases
    without a boolean type (SQLite): ``(a <= x AND ...) = 1`` hides the bound from the planner.
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
        # As Column's: what the constructor was given, without binding its signature (inspect)
        # on every page.
        return (type(self), self.names, self.operator, make_hashable(self.rhs), self.leading_bound)

    def copy(self) -> Any:
        return _shallow_copy(self)

    def with_values(self, values: Sequence[Any]) -> RowValueComparison:
        """This comparison (resolved or not) against other ``values``: what changes from page to page."""
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
    caller has just cloned (``order_by()``): no second clone.

    When the condition is one :class:`RowValueComparison` of the model's own columns, it is
    built and resolved once per model, table alias, columns and operator, and each page only
    binds its values into a copy, ANDed into the ``WHERE`` as ``filter()`` would put it
    (``Query.build_filter`` resolves a conditional expression and adds it alone): no ``Q``, no
    join promoter, no field lookup per page. Anything else (a nullable field, mixed directions,
    a transform, an annotation, a combined or sliced query) goes through ``filter()``, which
    also refuses what it refuses.
    """
    shape = _row_value_shape(tuple(ordering), frozenset(nullable), backward, inclusive)
    query = queryset.query
    if (
        shape is not None
        and _plain_filtering(queryset)
        and not query.combinator
        and not query.is_sliced
        and not query.annotations.keys() & set(shape[0])
    ):
        template = _resolved_comparison(query.model, query.get_initial_alias(), *shape)
        if template is not None:
            query.where.add(template.with_values(position), AND)
            return queryset
    return queryset.filter(keyset_predicate(ordering, position, nullable, backward=backward, inclusive=inclusive))


def _plain_filtering(queryset: Any) -> bool:
    """Whether ``filter()`` on ``queryset`` is Django's own: a QuerySet or Query class that
    changes how filtering works must see the keyset condition go through it."""
    queryset_class = type(queryset)
    return (
        queryset_class.filter is QuerySet.filter
        and queryset_class._filter_or_exclude is QuerySet._filter_or_exclude  # type: ignore[attr-defined]  # private
        and queryset_class._filter_or_exclude_inplace is QuerySet._filter_or_exclude_inplace  # type: ignore[attr-defined]  # private
        and type(queryset.query) is Query
    )


@lru_cache(maxsize=1024)
def _row_value_shape(
    ordering: tuple[str, ...], nullable: frozenset[str], backward: bool, inclusive: bool
) -> tuple[tuple[str, ...], str] | None:
    """The columns and operator of :func:`keyset_predicate`'s row-value comparison, or None
    when it would be the OR-expansion."""
    condition = keyset_predicate(ordering, [None] * len(ordering), nullable, backward=backward, inclusive=inclusive)
    if isinstance(condition, RowValueComparison):
        return condition.names, condition.operator
    return None


@lru_cache(maxsize=1024)
def _resolved_comparison(model: type[Model], alias: str, names: tuple[str, ...], operator: str) -> Any:
    """The row-value comparison of ``names`` resolved against ``alias`` (the query's own table),
    its values still to bind; None when a name is not a column of the model's own table."""
    fields = [_own_model_field(model, name) for name in names]
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


def transform_annotations(ordering: Sequence[str]) -> dict[str, F]:
    """The ``annotate()`` arguments that select each transform of ``ordering``."""
    return {annotation_name(name): F(name.lstrip("-")) for name in ordering if LOOKUP_SEP in name}


def position_of(row: Model, ordering: Sequence[str]) -> tuple[Any, ...]:
    """The values of ``row`` in the ordering's columns (as :meth:`KeysetPagination.get_ordering` gives
    them), a transform's from its annotation (:func:`annotations`)."""
    return tuple(getattr(row, annotation_name(name) if LOOKUP_SEP in name else name.lstrip("-")) for name in ordering)
