"""Property tests: a walk over all pages, with rows inserted and deleted between pages, returns
every row that lived through the walk exactly once, never a row twice, always in order."""

from __future__ import annotations

import functools
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import RequestFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.request import Request

from django_api_conventions.pagination import KeysetPagination
from django_api_conventions.pagination.keyset import keyset_predicate
from testproject.billing.models import Customer, Invoice, Order

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, tzinfo=UTC)


class NewestFirst(KeysetPagination):
    ordering = ("-created_at", "-pk")


class OldestFirstByStatus(KeysetPagination):
    ordering = ("status", "-created_at")  # mixed directions, pk appended as the tie-breaker


def page(paginator: KeysetPagination, limit: int, cursor: str | None) -> tuple[list[Order], str | None]:
    query = {"limit": str(limit), **({"cursor": cursor} if cursor else {})}
    request = Request(RequestFactory().get("/v2/orders", query))
    rows = paginator.paginate_queryset(Order.objects.all(), request)
    return rows, paginator.next_cursor


class Rollback(Exception):
    pass


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    minutes=st.lists(st.integers(min_value=0, max_value=4), min_size=0, max_size=40),
    limit=st.integers(min_value=1, max_value=12),
    changes=st.lists(
        st.tuples(st.sampled_from(["insert", "delete"]), st.integers(0, 4), st.integers(0, 10**6)), max_size=8
    ),
    mixed=st.booleans(),
)
def test_walks_are_complete_unique_and_ordered(minutes: list[int], limit: int, changes: list[Any], mixed: bool) -> None:
    try:
        with transaction.atomic():
            _walk_and_check(minutes, limit, changes, mixed)
            raise Rollback
    except Rollback:
        pass


def _walk_and_check(minutes: list[int], limit: int, changes: list[Any], mixed: bool) -> None:
    user = Customer.objects.create(email="walker@example.com", name="W")
    statuses = ["pending", "shipped", "cancelled"]
    for index, minute in enumerate(minutes):  # few distinct created_at values: many ties
        Order.objects.create(user=user, status=statuses[index % 3], created_at=START + timedelta(minutes=minute))
    paginator: KeysetPagination = OldestFirstByStatus() if mixed else NewestFirst()
    ordering = paginator.get_ordering(Order)

    def key(order: Order) -> tuple[Any, ...]:
        # Sort key equal to the SQL ordering: descending fields by negated rank.
        values = []
        for name in ordering:
            value = order.pk if name.lstrip("-") == "pk" else getattr(order, name.lstrip("-"))
            values.append((name.startswith("-"), value))
        return tuple(values)

    at_start = {o.pk: o for o in Order.objects.all()}
    deleted: set[str] = set()
    seen: list[Order] = []
    cursor = None
    pending = list(changes)
    while True:
        rows, cursor = page(paginator, limit, cursor)
        seen.extend(rows)
        if cursor is None:
            break
        if pending:  # change the table between two pages
            kind, minute, pick = pending.pop(0)
            if kind == "insert":
                Order.objects.create(user=user, status=statuses[pick % 3], created_at=START + timedelta(minutes=minute))
            elif at_start:
                victim = sorted(at_start)[pick % len(at_start)]
                Order.objects.filter(pk=victim).delete()
                deleted.add(victim)
    ids = [o.pk for o in seen]
    assert len(ids) == len(set(ids)), "no row twice"
    for earlier, later in itertools.pairwise(seen):
        assert _before(earlier, later, ordering), "strictly in order"
    missing = set(at_start) - deleted - set(ids)
    assert not missing, "every row that lived through the walk was returned"


def _before(a: Order, b: Order, ordering: tuple[str, ...]) -> bool:
    for name in ordering:
        field = name.lstrip("-")
        left = a.pk if field == "pk" else getattr(a, field)
        right = b.pk if field == "pk" else getattr(b, field)
        if left == right:
            continue
        return left > right if name.startswith("-") else left < right
    return False


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_deep_page_is_an_index_range_scan() -> None:
    user = Customer.objects.create(email="deep@example.com", name="D")
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO billing_order (id, user_id, status, created_at) "
            "SELECT 'ord_' || lpad(n::text, 8, '0'), %s, 'pending', %s::timestamptz + (n / 7) * interval '1 second' "
            "FROM generate_series(1, 60000) AS n",
            [user.pk, START],
        )
        cursor.execute("ANALYZE billing_order")
    deep = Order.objects.order_by("-created_at", "-pk")[50000]
    position = (deep.created_at, deep.pk)
    deep_page = Order.objects.filter(keyset_predicate(("-created_at", "-pk"), position)).order_by("-created_at", "-pk")
    plan = deep_page[:101].explain()
    assert "order_newest_first" in plan, plan
    assert "Index Cond" in plan and "Seq Scan" not in plan and "Sort" not in plan, plan
    # The row-value bound is in the index condition itself, not a filter applied row by row.
    index_condition = next(line for line in plan.splitlines() if "Index Cond" in line)
    assert "ROW(" in index_condition or "created_at, id) <" in index_condition, plan
    assert len(list(deep_page[:101])) == 101


class ByDeletionThenAmount(KeysetPagination):
    ordering = ("-deleted_at", "amount_due")  # nullable first field, mixed directions


class ByDeletion(KeysetPagination):
    ordering = ("-deleted_at",)  # nullable, same direction: NULL-safe expansion, pk appended


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    deleted=st.lists(st.one_of(st.none(), st.integers(min_value=0, max_value=3)), max_size=30),
    amounts=st.lists(st.integers(min_value=0, max_value=3), min_size=30, max_size=30),
    limit=st.integers(min_value=1, max_value=8),
    mixed=st.booleans(),
)
def test_nullable_orderings_walk_every_row_once_in_order(
    deleted: list[int | None], amounts: list[int], limit: int, mixed: bool
) -> None:
    try:
        with transaction.atomic():
            user = Customer.objects.create(email="nulls@example.com", name="N")
            for index, minute in enumerate(deleted):
                Invoice.all_objects.create(
                    user=user,
                    amount_due=amounts[index],
                    currency="eur",
                    deleted_at=None if minute is None else START + timedelta(minutes=minute),
                )
            paginator: KeysetPagination = ByDeletionThenAmount() if mixed else ByDeletion()
            ordering = paginator.get_ordering(Invoice)
            seen: list[Invoice] = []
            cursor = None
            while True:
                query = {"limit": str(limit), **({"cursor": cursor} if cursor else {})}
                request = Request(RequestFactory().get("/", query))
                seen += paginator.paginate_queryset(Invoice.all_objects.all(), request)
                cursor = paginator.next_cursor
                if cursor is None:
                    break
            assert sorted(r.pk for r in seen) == sorted(Invoice.all_objects.values_list("pk", flat=True))
            assert [r.pk for r in seen] == [r.pk for r in sorted(seen, key=lambda r: _nulls_last_key(r, ordering))]
            raise Rollback
    except Rollback:
        pass


def _nulls_last_key(row: Invoice, ordering: tuple[str, ...]) -> tuple[Any, ...]:
    key: list[Any] = []
    for name in ordering:
        value = getattr(row, name.lstrip("-"))
        if value is None:
            key.append((1, 0))  # NULLs last, in either direction
        elif isinstance(value, datetime):
            stamp = value.timestamp()
            key.append((0, -stamp if name.startswith("-") else stamp))
        elif isinstance(value, int):
            key.append((0, -value if name.startswith("-") else value))
        else:  # the string primary key
            key.append((0, tuple(-ord(c) for c in value) if name.startswith("-") else value))
    return tuple(key)


class EverySort(KeysetPagination):
    """Declared sorts over nullable, tied, mixed-direction and transformed fields."""

    sorts = {
        "-created_at": ("-created_at",),
        "created_at": ("created_at",),
        "-amount_due": ("-amount_due",),
        "amount_due": ("amount_due",),
        "-deleted_at": ("-deleted_at",),  # nullable: NULLs last, either way
        "deleted_at": ("deleted_at", "-amount_due"),  # nullable and mixed directions
        "status": ("status", "-created_at"),  # mixed directions
        "-year": ("-created_at__year", "amount_due"),  # a transform
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(0, 2),
            st.one_of(st.none(), st.integers(0, 2)),
            st.sampled_from(["draft", "open", "paid"]),
        ),
        max_size=30,
    ),
    sort=st.sampled_from(list(EverySort.sorts)),
    limits=st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=6),
    back_limits=st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=6),
)
def test_every_declared_sort_walks_forward_then_back_serving_each_row_once_in_order(
    rows: list[tuple[int, int, int | None, str]],
    sort: str,
    limits: list[int],
    back_limits: list[int],
) -> None:
    try:
        with transaction.atomic():
            _walk_both_ways(rows, sort, limits, back_limits)
            raise Rollback
    except Rollback:
        pass


def _walk_both_ways(
    rows: list[tuple[int, int, int | None, str]], sort: str, limits: list[int], back_limits: list[int]
) -> None:
    user = Customer.objects.create(email="sorts@example.com", name="S")
    for amount, days, deleted, status in rows:  # few distinct values in every column: heavy ties
        Invoice.all_objects.create(
            user=user,
            amount_due=amount,
            currency="eur",
            status=status,
            created_at=START + timedelta(days=days * 200),
            deleted_at=None if deleted is None else START + timedelta(minutes=deleted),
        )
    paginator = EverySort()
    ordering = paginator.get_ordering(Invoice, sort)
    expected = [
        row.pk
        for row in sorted(Invoice.all_objects.all(), key=functools.cmp_to_key(lambda a, b: _compare(a, b, ordering)))
    ]

    def page(limit: int, cursor: str | None) -> tuple[list[str], dict[str, Any]]:
        query = {"limit": str(limit), "sort": sort, **({"cursor": cursor} if cursor else {})}
        found = paginator.paginate_queryset(Invoice.all_objects.all(), Request(RequestFactory().get("/", query)))
        return [row.pk for row in found], paginator.get_paginated_response([]).data["pagination"]

    forward: list[list[str]] = []
    cursor = None
    for step in itertools.count():
        ids, pagination = page(limits[step % len(limits)], cursor)
        assert pagination["has_previous"] is (step > 0)
        forward.append(ids)
        cursor = pagination["next_cursor"]
        if cursor is None:
            break
    assert [pk for ids in forward for pk in ids] == expected, "forward: every row once, in order"
    back: list[list[str]] = [forward[-1]]
    cursor = pagination["previous_cursor"]
    for step in itertools.count():
        if cursor is None:
            break
        ids, pagination = page(back_limits[step % len(back_limits)], cursor)
        assert pagination["has_next"] is True
        back.insert(0, ids)
        cursor = pagination["previous_cursor"]
    assert pagination["has_previous"] is False
    assert [pk for ids in back for pk in ids] == expected, "backward: every row once, in order"
    if len(set(limits)) == 1 and back_limits == limits:
        assert back == forward, "the same page size walks back through the same pages"


def _compare(a: Invoice, b: Invoice, ordering: tuple[str, ...]) -> int:
    """The SQL ordering: NULLs last in either direction, ``__year`` read as the transform."""
    for name in ordering:
        field, _, transform = name.lstrip("-").partition("__")
        left, right = getattr(a, field), getattr(b, field)
        if transform == "year":
            left, right = left.year, right.year
        if left == right:
            continue
        if left is None or right is None:
            return 1 if left is None else -1
        smaller = -1 if left < right else 1
        return -smaller if name.startswith("-") else smaller
    return 0
