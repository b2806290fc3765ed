"""``Column``, the cheaper ``F()`` of the keyset's own fields, writes the SQL ``F()`` writes; ``filter_after``
writes what ``filter(keyset_predicate(...))`` writes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from django.db import NotSupportedError
from django.db.models import F, QuerySet
from django.db.models.functions import Lower

from django_api_conventions.pagination.keyset import Column, RowValueComparison, filter_after, keyset_predicate
from testproject.billing.models import Invoice, Order

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["created_at", "pk", "id", "user_id", "user", "created_at__year"])
def test_a_column_orders_as_f_does(name: str) -> None:
    assert str(Order.objects.order_by(Column(name).desc()).query) == str(Order.objects.order_by(F(name).desc()).query)


def test_an_annotation_of_the_same_name_resolves_as_f_does() -> None:
    query = Order.objects.annotate(lowered=Lower("status")).query
    assert Column("lowered").resolve_expression(query) == F("lowered").resolve_expression(query)


def test_a_field_of_a_joined_query_still_names_the_own_table() -> None:
    # A filter across a relation joins billing_customer; the keyset's columns stay billing_order's.
    orders = Order.objects.filter(user__email__startswith="a")
    sql = str(orders.filter(keyset_predicate(("-created_at", "-pk"), (datetime(2026, 1, 1, tzinfo=UTC), "o"))).query)
    assert '("billing_order"."created_at", "billing_order"."id") <' in sql
    assert '"billing_order"."created_at" <=' in sql


def test_the_leading_bound_and_the_row_value_comparison_have_their_parameters_in_order() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    condition = RowValueComparison(["created_at", "pk"], ">", [moment, "inv_1"], leading_bound=True)
    sql, params = Invoice.objects.filter(condition).query.sql_with_params()
    columns = '"billing_invoice"."created_at", "billing_invoice"."id"'
    assert f'"billing_invoice"."created_at" >= %s AND ({columns}) > (%s, %s)' in sql
    assert len(params) == 3 and params[2] == "inv_1" and params[0] == params[1]


def test_equal_conditions_are_equal_and_hash_alike() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    one = RowValueComparison(["created_at", "pk"], "<", [moment, "o"], leading_bound=True)
    same = RowValueComparison(["created_at", "pk"], "<", [moment, "o"], leading_bound=True)
    other = RowValueComparison(["created_at", "pk"], "<", [moment, "p"], leading_bound=True)
    assert one == same and hash(one) == hash(same) and one != other
    assert Column("pk") == Column("pk") and Column("pk") != Column("id") and hash(Column("pk")) == hash(Column("pk"))


def _sql(queryset: QuerySet[Order]) -> tuple[str, tuple[object, ...]]:
    return queryset.query.sql_with_params()  # type: ignore[no-any-return]


@pytest.mark.parametrize("backward", [False, True])
@pytest.mark.parametrize("inclusive", [False, True])
@pytest.mark.parametrize(
    "base",
    [
        lambda: Order.objects.all(),
        lambda: Order.objects.filter(status="pending"),
        lambda: Order.objects.filter(user__email__startswith="a"),  # a join
        lambda: Order.objects.annotate(lowered=Lower("status")),
    ],
)
def test_filter_after_writes_what_filter_writes(
    base: Callable[[], QuerySet[Order]], backward: bool, inclusive: bool
) -> None:
    """The condition bound into a resolved comparison built once is the very SQL and parameters
    ``filter(keyset_predicate(...))`` writes, page after page (the template is not altered)."""
    ordering = ("-created_at", "-pk")
    for position in [(datetime(2026, 1, 1, tzinfo=UTC), "o1"), (datetime(2026, 2, 1, tzinfo=UTC), "o2")]:
        condition = keyset_predicate(ordering, position, backward=backward, inclusive=inclusive)
        expected = base().order_by("-created_at", "-pk").filter(condition)
        fast = filter_after(
            base().order_by("-created_at", "-pk"), ordering, position, backward=backward, inclusive=inclusive
        )
        assert _sql(fast) == _sql(expected)
        assert list(fast) == list(expected)


def test_filter_after_goes_through_filter_for_what_it_does_not_build() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    # A nullable field and mixed directions: the OR-expansion, through filter().
    nullable = filter_after(Invoice.objects.order_by("-created_at", "pk"), ("-created_at", "pk"), (moment, "i"))
    assert " OR " in str(nullable.query)
    # A transform: the annotation F() resolves.
    yearly = Order.objects.annotate(keyset_created_at_year=F("created_at__year")).order_by("-pk")
    assert "row_value" not in str(filter_after(yearly, ("-created_at__year", "-pk"), (2026, "o")).query)
    # A combined query: refused as filter() refuses it.
    union = Order.objects.filter(status="a").union(Order.objects.filter(status="b")).order_by("-created_at")
    with pytest.raises(NotSupportedError):
        filter_after(union, ("-created_at", "-pk"), (moment, "o"))


class AuditedQuerySet(QuerySet):
    """A project's QuerySet that changes how filtering works: it must see the keyset condition."""

    seen: list[tuple[object, ...]] = []

    def filter(self, *args: object, **kwargs: object) -> QuerySet:
        AuditedQuerySet.seen.append(args)
        return super().filter(*args, **kwargs)


def test_filter_after_goes_through_a_filter_the_project_overrides() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    AuditedQuerySet.seen.clear()
    audited = AuditedQuerySet(model=Order).order_by("-created_at", "-pk")
    page = filter_after(audited, ("-created_at", "-pk"), (moment, "o"))
    assert len(AuditedQuerySet.seen) == 1 and isinstance(AuditedQuerySet.seen[0][0], RowValueComparison)
    plain = Order.objects.order_by("-created_at", "-pk").filter(keyset_predicate(("-created_at", "-pk"), (moment, "o")))
    assert str(page.query) == str(plain.query)
