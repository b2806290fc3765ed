"""Lists people ask for (issue 16): walking back, declared sorts, counts they can afford.

Over HTTP through the example's invoices (``/v2/invoices``: four declared sorts) and the lists
of ``tests/urls_lists.py`` (a capped and an estimated count, a sort by a transform).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from testproject.billing.models import Customer, Invoice

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_lists")]

START = datetime(2026, 1, 1, tzinfo=UTC)
SORTS = {
    "-created_at": lambda r: (r.created_at, r.pk),
    "created_at": lambda r: (r.created_at, r.pk),
    "-amount_due": lambda r: (r.amount_due, r.pk),
    "amount_due": lambda r: (r.amount_due, r.pk),
}


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "lists"})


@pytest.fixture
def invoices() -> list[Invoice]:
    """17 invoices in tie groups: 3 per created_at, 4 amounts."""
    user = Customer.objects.create(email="lists@example.com", name="L")
    return [
        Invoice.objects.create(
            user=user, amount_due=index % 4 * 100, currency="eur", created_at=START + timedelta(days=index // 3 * 200)
        )
        for index in range(17)
    ]


def in_order(rows: list[Invoice], sort: str) -> list[str]:
    return [r.pk for r in sorted(rows, key=SORTS[sort], reverse=sort.startswith("-"))]


def get(client: APIClient, path: str, **query: Any) -> dict[str, Any]:
    response = client.get(path, {k: v for k, v in query.items() if v is not None})
    assert response.status_code == 200, response.content
    return {**response.json(), "link": response.get("Link", "")}


def ids(page: dict[str, Any]) -> list[str]:
    return [item["id"] for item in page["data"]]


def walk(client: APIClient, path: str, limit: int, **query: Any) -> list[dict[str, Any]]:
    pages = [get(client, path, limit=limit, **query)]
    while pages[-1]["pagination"]["next_cursor"]:
        pages.append(get(client, path, limit=limit, cursor=pages[-1]["pagination"]["next_cursor"], **query))
    return pages


def walk_back(client: APIClient, path: str, last: dict[str, Any], limit: int, **query: Any) -> list[dict[str, Any]]:
    pages = [last]
    while pages[-1]["pagination"]["previous_cursor"]:
        pages.append(get(client, path, limit=limit, cursor=pages[-1]["pagination"]["previous_cursor"], **query))
    return pages[::-1]


# --- walking back -------------------------------------------------------------------------------


@pytest.mark.parametrize("sort", [None, *SORTS])
def test_walking_back_serves_the_pages_of_the_walk_forward(
    client: APIClient, invoices: list[Invoice], sort: str | None
) -> None:
    forward = walk(client, "/v2/invoices", 4, sort=sort)
    assert [row for page in forward for row in ids(page)] == in_order(invoices, sort or "-created_at")
    back = walk_back(client, "/v2/invoices", forward[-1], 4, sort=sort)
    assert [ids(page) for page in back] == [ids(page) for page in forward]
    first_forward, first_back = forward[0]["pagination"], back[0]["pagination"]
    for first in (first_forward, first_back):
        assert first["previous_cursor"] is None and first["has_previous"] is False
        assert first["has_next"] is True
    assert forward[-1]["pagination"]["has_next"] is False and forward[-1]["pagination"]["has_previous"] is True


def test_links_carry_next_and_prev_where_they_exist(client: APIClient, invoices: list[Invoice]) -> None:
    pages = walk(client, "/v2/invoices", 6, sort="amount_due")
    rels = [re.findall(r'rel="(\w+)"', page["link"]) for page in pages]
    assert rels == [["next"], ["next", "prev"], ["prev"]]
    middle = pages[1]
    prev_url = re.search(r'<([^>]+)>; rel="prev"', middle["link"]).group(1)  # type: ignore[union-attr]
    assert "sort=amount_due" in prev_url and "limit=6" in prev_url
    assert ids(get(client, prev_url)) == ids(pages[0])


def test_a_page_walked_back_is_one_query(client: APIClient, invoices: list[Invoice]) -> None:
    last = walk(client, "/v2/invoices", 5)[-1]
    with CaptureQueriesContext(connection) as captured:
        page = get(client, "/v2/invoices", limit=5, cursor=last["pagination"]["previous_cursor"])
    own = [q["sql"] for q in captured.captured_queries if "billing_invoice" in q["sql"]]
    assert len(own) == 1 and "COUNT" not in own[0].upper() and "LIMIT 6" in own[0]
    assert page["pagination"]["has_next"] is True and page["pagination"]["has_previous"] is True


def test_a_deleted_page_leaves_an_empty_page_that_leads_back(client: APIClient, invoices: list[Invoice]) -> None:
    # The rows after a cursor were deleted: the empty page still leads back to the page before,
    # the row at the cursor included (its cursors are inclusive).
    pages = walk(client, "/v2/invoices", 5)
    Invoice.objects.filter(pk__in=[*ids(pages[1]), *ids(pages[2]), *ids(pages[3])]).delete()
    empty = get(client, "/v2/invoices", limit=5, cursor=pages[0]["pagination"]["next_cursor"])
    assert empty["data"] == [] and empty["pagination"]["has_next"] is False
    back = get(client, "/v2/invoices", limit=5, cursor=empty["pagination"]["previous_cursor"])
    assert ids(back) == ids(pages[0]) and back["pagination"]["has_previous"] is False
    assert ids(get(client, "/v2/invoices", limit=5, cursor=back["pagination"]["next_cursor"])) == []


def test_the_search_walks_back_too(client: APIClient, invoices: list[Invoice]) -> None:
    body: dict[str, Any] = {"any": [{"status": "open"}], "limit": 5, "sort": "-amount_due"}
    pages = []
    while True:
        answer = client.post("/v2/invoices/search", body, format="json")
        assert answer.status_code == 200, answer.content
        pages.append(answer.json())
        body["cursor"] = answer.json()["pagination"]["next_cursor"]
        if body["cursor"] is None:
            break
    assert [row for page in pages for row in ids(page)] == in_order(invoices, "-amount_due")
    body["cursor"] = pages[-1]["pagination"]["previous_cursor"]
    back = client.post("/v2/invoices/search", body, format="json").json()
    assert ids(back) == ids(pages[-2]) and "Link" not in client.post("/v2/invoices/search", body, format="json")


# --- declared sorts -------------------------------------------------------------------------------


def test_an_undeclared_sort_is_400_naming_sort_and_listing_the_choices(client: APIClient) -> None:
    for value in ("status", "-id", "amount_due,-created_at", "", "AMOUNT_DUE"):
        response = client.get("/v2/invoices", {"sort": value})
        assert response.status_code == 400 and response["Content-Type"] == "application/problem+json"
        assert response.json()["type"].endswith("/invalid-parameters")
        assert response.json()["errors"] == [
            {
                "parameter": "sort",
                "code": "invalid",
                "detail": "sort must be one of: -created_at, created_at, -amount_due, amount_due.",
            }
        ]
    assert client.get("/v2/invoices?sort=amount_due&sort=created_at").json()["errors"][0]["code"] == "repeated"
    # A list that declares no sorts has no sort parameter.
    assert client.get("/v2/orders", {"sort": "created_at"}).json()["errors"][0]["code"] == "unknown"


def test_a_cursor_is_bound_to_its_sort(client: APIClient, invoices: list[Invoice]) -> None:
    page = get(client, "/v2/invoices", limit=3, sort="amount_due")
    for cursor in (
        page["pagination"]["next_cursor"],
        get(client, "/v2/invoices", limit=3, sort="amount_due", cursor=page["pagination"]["next_cursor"])["pagination"][
            "previous_cursor"
        ],
    ):
        for other in ("-amount_due", "created_at", None):
            response = client.get("/v2/invoices", {"limit": 3, "cursor": cursor, **({"sort": other} if other else {})})
            assert response.status_code == 400 and response.json()["type"].endswith("/invalid-cursor")
            assert response.json()["errors"][0]["parameter"] == "cursor"


def test_the_search_takes_a_declared_sort_and_refuses_another_with_a_pointer(client: APIClient) -> None:
    answer = client.post("/v2/invoices/search", {"any": [{"status": "open"}], "sort": "status"}, format="json")
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {
            "pointer": "/sort",
            "code": "invalid",
            "detail": "sort must be one of: -created_at, created_at, -amount_due, amount_due.",
        }
    ]


def test_a_sort_by_a_transform(client: APIClient, invoices: list[Invoice]) -> None:
    def key(row: Invoice) -> tuple[Any, ...]:
        return (-row.created_at.year, row.amount_due, row.pk)

    expected = [r.pk for r in sorted(invoices, key=key)]
    forward = walk(client, "/v2/by-year", 4)
    assert [row for page in forward for row in ids(page)] == expected
    back = walk_back(client, "/v2/by-year", forward[-1], 4)
    assert [ids(page) for page in back] == [ids(page) for page in forward]
    # ("created_at__year", "-amount_due"): ties broken by pk in the last field's direction, descending.
    by_pk_descending = sorted(invoices, key=lambda r: r.pk, reverse=True)
    expected = [r.pk for r in sorted(by_pk_descending, key=lambda r: (r.created_at.year, -r.amount_due))]
    ascending = walk(client, "/v2/by-year", 7, sort="year")
    assert [row for page in ascending for row in ids(page)] == expected


# --- counts -------------------------------------------------------------------------------------


def test_a_capped_count_is_exact_up_to_the_cap_then_a_lower_bound(client: APIClient, invoices: list[Invoice]) -> None:
    big = get(client, "/v2/capped", limit=2)["pagination"]
    assert (big["total"], big["total_is_lower_bound"], big["total_is_estimate"]) == (5, True, False)
    small = get(client, "/v2/capped", limit=2, user_id="nobody")["pagination"]
    assert (small["total"], small["total_is_lower_bound"]) == (0, False)
    exact = get(client, "/v2/capped", limit=2, created_before="2026-06-01")["pagination"]
    assert (exact["total"], exact["total_is_lower_bound"]) == (3, False)
    six = get(client, "/v2/capped", limit=2, created_before="2026-08-01")["pagination"]
    assert (six["total"], six["total_is_lower_bound"]) == (5, True)
    invoices[0].delete()
    five = get(client, "/v2/capped", limit=2, created_before="2026-08-01")["pagination"]
    assert (five["total"], five["total_is_lower_bound"]) == (5, False), "exactly the cap is exact"


def test_the_count_runs_on_the_first_page_only_and_is_bounded(client: APIClient, invoices: list[Invoice]) -> None:
    with CaptureQueriesContext(connection) as captured:
        first = get(client, "/v2/capped", limit=4)
    own = [q["sql"] for q in captured.captured_queries if "billing_invoice" in q["sql"]]
    assert len(own) == 2
    count = next(sql for sql in own if "COUNT(" in sql.upper())
    assert "LIMIT 6" in count and "ORDER BY" not in count.upper()  # cap + 1 rows at most, never sorted
    with CaptureQueriesContext(connection) as captured:
        later = get(client, "/v2/capped", limit=4, cursor=first["pagination"]["next_cursor"])
    assert len([q for q in captured.captured_queries if "billing_invoice" in q["sql"]]) == 1
    assert not {"total", "total_is_lower_bound", "total_is_estimate"} & set(later["pagination"])
    back = get(client, "/v2/capped", limit=4, cursor=later["pagination"]["previous_cursor"])
    assert "total" not in back["pagination"], "a first page reached backwards is not counted again"
    # The search counts its first page too.
    search = client.post("/v2/capped/search", {"any": [{"status": "open"}]}, format="json").json()
    assert search["pagination"]["total"] == 5


def test_an_estimate_elsewhere_than_postgresql_is_the_capped_count(client: APIClient, invoices: list[Invoice]) -> None:
    page = get(client, "/v2/estimated", limit=2)["pagination"]
    if connection.vendor == "postgresql":
        assert page["total_is_estimate"] is True and page["total_is_lower_bound"] is False
        assert page["total"] >= 0
    else:
        assert (page["total"], page["total_is_lower_bound"], page["total_is_estimate"]) == (5, True, False)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_estimate_reads_the_planner_not_the_rows(client: APIClient) -> None:
    user = Customer.objects.create(email="estimate@example.com", name="E")
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO billing_invoice (id, user_id, status, amount_due, currency, created_at) "
            "SELECT 'inv_' || lpad(n::text, 20, '0'), %s, 'open', n %% 7, 'eur', now() "
            "FROM generate_series(1, 3000) AS n",
            [user.pk],
        )
        cursor.execute("ANALYZE billing_invoice")
    with CaptureQueriesContext(connection) as captured:
        page = get(client, "/v2/estimated", limit=2)["pagination"]
    assert any(q["sql"].startswith("EXPLAIN") for q in captured.captured_queries)
    assert not any("COUNT(" in q["sql"].upper() for q in captured.captured_queries)
    assert page["total_is_estimate"] is True and 2000 < page["total"] < 4500
