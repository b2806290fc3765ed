"""The example's orders, filtered by a django-filter FilterSet, answer every query string as
they did with the package's own FilterSet (``/v2/orders-reference``, tests/urls_orders_reference.py):
never a 500; a 200 with the same rows, or a 400 problem naming the same parameters with the same
codes. Hypothesis draws the parameters from the declared ones and junk, repeated, with any
values: unicode (NUL-free: a NUL in a URL is refused before any view), commas, dates in and out
of ISO 8601. On SQLite and, with DATABASE_URL, PostgreSQL."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from testproject.billing.models import Customer, Order

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_orders_reference")]

START = datetime(2026, 1, 1, tzinfo=UTC)
STATUSES = ["pending", "shipped", "cancelled"]
examples = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "300")), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Any text a URL can carry to a view: no NUL (refused as a malformed request), no lone surrogates.
text = st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=12)
dates = st.sampled_from([
    "2026-01-01", "2026-01-01T00:30:00Z", "2026-01-01T01:00+01:00", "2026-01-01T00:10:00.5", "2026-01-01t00:20z",
    "2026-02-30", "2026-01-01 00:30", "20260101", "2026-W01", "2026-01-01T24:00",
    "\u0662\u0660\u0662\u0666-01-01", "\uff12\uff10\uff12\uff16-01-01",  # Arabic-Indic, fullwidth
    "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", " 2026-01-01", "2026-01-01,2026-01-02", "",
])
statuses = st.lists(st.sampled_from([*STATUSES, "", " pending", "PENDING", "lost"]), min_size=1, max_size=3).map(
    ",".join)
declared = st.sampled_from(["user_id", "status", "created_after", "created_before", "limit", "cursor", "format"])
junk = st.sampled_from(["statuz", "user", "created", "page", "status[]", "", "created_after "])
# A value as a client might misspell it: padded, upper-cased, with a comma too many or twice.
respellings = st.sampled_from([
    str, str, lambda v: f" {v}", lambda v: f"{v}\t", str.upper, lambda v: f"{v},", lambda v: f",{v}",
    lambda v: f"{v},{v}",
])
# Mostly declared names (one_of draws its branches alike): the values are where they differ.
names = st.one_of(*[declared] * 6, junk, text)


@st.composite
def queries(draw: Any, user_ids: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for _ in range(draw(st.integers(0, 4))):
        name = draw(names)
        values = {
            "status": statuses, "created_after": dates, "created_before": dates,
            "user_id": st.sampled_from(user_ids),
            "limit": st.sampled_from(["1", "2", "20", "0", "101", "05", "x"]),
            "format": st.sampled_from(["json", "xml", "api"]),
        }.get(name, text)
        value = draw(st.one_of(values, values, values, text))
        pairs.append((name, draw(respellings)(value)))
    return pairs


@pytest.fixture
def user_ids() -> list[str]:
    users = [Customer.objects.create(email=f"o{i}@example.com", name=f"O{i}") for i in range(3)]
    for index in range(30):
        Order.objects.create(user=users[index % 3], status=STATUSES[index % 3],
                             created_at=START + timedelta(minutes=10 * index - 60))
    return [user.pk for user in users]


def answer(client: APIClient, path: str, query: str) -> dict[str, Any]:
    # Each request in its own savepoint, as each has its transaction in production: DRF marks the
    # transaction of a GET it answered with a 400 for rollback (ATOMIC_REQUESTS), and the views
    # with IdempotencyMixin are not wrapped by Django, so the mark would land on the test's own.
    with transaction.atomic():
        response = client.get(f"{path}?{query}")
    assert response.status_code in (200, 400), (query, response.status_code, response.content)
    if response.status_code == 400:
        assert response["Content-Type"] == "application/problem+json", query
        body = response.json()
        return {"status": 400, "type": body["type"],
                "errors": sorted((item.get("parameter"), item["code"]) for item in body.get("errors", []))}
    body = response.json()
    return {"status": 200, "ids": [item["id"] for item in body["data"]], "has_next": body["pagination"]["has_next"],
            "limit": body["pagination"]["limit"]}


def test_the_orders_answer_every_query_string_as_before(user_ids: list[str]) -> None:
    client = APIClient(headers={"X-Client-ID": "orders-filterset"})

    @examples
    @given(pairs=queries(user_ids))
    def check(pairs: list[tuple[str, str]]) -> None:
        query = urlencode(pairs)
        assert answer(client, "/v2/orders", query) == answer(client, "/v2/orders-reference", query), query

    check()


def test_the_reference_serves_rows(user_ids: list[str]) -> None:
    """The oracle is not vacuous: both lists filter the rows the same, non-trivial way."""
    client = APIClient(headers={"X-Client-ID": "orders-filterset"})
    query = urlencode({"status": "pending,shipped", "created_after": "2026-01-01", "user_id": user_ids[1]})
    orders, reference = answer(client, "/v2/orders", query), answer(client, "/v2/orders-reference", query)
    assert orders == reference and orders["status"] == 200 and 0 < len(orders["ids"]) < 30
