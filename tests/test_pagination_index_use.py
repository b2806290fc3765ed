"""A deep keyset page is an index range scan on SQLite too, not a scan of the whole table.

Django compiles a row-value comparison on SQLite to an OR form the planner cannot use as a
range; the keyset predicate adds a redundant bound on the leading column for it. These tests
hold that bound in place (benchmarks/ measures what it is worth: docs/performance.md).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from django_api_conventions.pagination.keyset import keyset_predicate
from testproject.billing.models import Customer, Order

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, tzinfo=UTC)
ORDERING = ("-created_at", "-pk")


def deep_page_sql() -> str:
    user = Customer.objects.create(email="plan@example.com", name="P")
    Order.objects.bulk_create(
        Order(id=f"ord_{n:08d}", user=user, created_at=START + timedelta(seconds=n // 3)) for n in range(3000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    deep = Order.objects.order_by("-created_at", "-pk")[2500]
    page = Order.objects.filter(keyset_predicate(ORDERING, (deep.created_at, deep.pk))).order_by(*ORDERING)[:21]
    assert len(list(page)) == 21
    return page.explain()


def test_the_predicate_bounds_the_leading_column_on_its_own() -> None:
    sql = str(Order.objects.filter(keyset_predicate(ORDERING, (START, "ord_1"))).query)
    assert '"billing_order"."created_at" <=' in sql, sql
    assert '("billing_order"."created_at", "billing_order"."id") <' in sql, sql


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's planner")
def test_a_deep_page_on_sqlite_searches_the_index() -> None:
    plan = deep_page_sql()
    assert "SEARCH billing_order USING" in plan and "INDEX order_newest_first (" in plan, plan
    assert "SCAN billing_order" not in plan and "TEMP B-TREE" not in plan, plan
