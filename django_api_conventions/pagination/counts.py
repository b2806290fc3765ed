"""Counts a list can afford: exact up to a cap (``"capped"``: a ``COUNT(*)`` over ``LIMIT cap + 1``
rows), or the planner's estimate on PostgreSQL (``"estimate"``: ``pg_class.reltuples`` for a
table read unfiltered, else the rows ``EXPLAIN`` expects; elsewhere the capped count).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.db.models import QuerySet

COUNT_MODES = ("capped", "estimate")


@dataclass(frozen=True)
class Total:
    """The ``total`` of a list and how far to trust it."""

    value: int
    lower_bound: bool = False  # the list holds at least ``value`` rows, perhaps more
    estimate: bool = False  # the planner's guess, neither a lower nor an upper bound

    def as_members(self) -> dict[str, Any]:
        return {"total": self.value, "total_is_lower_bound": self.lower_bound, "total_is_estimate": self.estimate}


def capped_count(queryset: QuerySet[Any], cap: int) -> Total:
    """The rows of ``queryset``, counted up to ``cap``: one bounded query."""
    # Django counts a sliced queryset as COUNT(*) over the sliced subquery; values("pk") keeps
    # the subquery's select list to one column, and order_by() drops the ORDER BY it does not need.
    counted = queryset.order_by().values("pk")[: cap + 1].count()
    return Total(min(counted, cap), lower_bound=counted > cap)


def estimated_count(queryset: QuerySet[Any], cap: int) -> Total:
    """The planner's estimate of the rows of ``queryset`` on PostgreSQL, else :func:`capped_count`."""
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return capped_count(queryset, cap)
    query = queryset.order_by().query
    with connection.cursor() as cursor:
        if not query.where:
            cursor.execute(
                "SELECT reltuples FROM pg_class WHERE oid = %s::regclass",
                [connection.ops.quote_name(queryset.model._meta.db_table)],
            )
            row = cursor.fetchone()
            # -1 (PostgreSQL 14+): never vacuumed nor analysed; the plan below still has a guess.
            if row is not None and row[0] >= 0:
                return Total(int(row[0]), estimate=True)
        sql, params = query.sql_with_params()
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return Total(int(plan[0]["Plan"]["Plan Rows"]), estimate=True)


def count_rows(queryset: QuerySet[Any], mode: str, cap: int) -> Total:
    return estimated_count(queryset, cap) if mode == "estimate" else capped_count(queryset, cap)
