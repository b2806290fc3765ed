"""Lists of the example service: envelope, limit, strict filters, cursors, search, soft delete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from testproject.billing.models import Customer, Invoice

pytestmark = pytest.mark.django_db

START = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "lists"})


@pytest.fixture
def invoices() -> list[Invoice]:
    users = [Customer.objects.create(email=f"u{i}@example.com", name=f"U{i}") for i in range(2)]
    rows = []
    for index in range(45):
        # Groups of three share one created_at: the id breaks the ties.
        rows.append(
            Invoice.objects.create(
                user=users[index % 2],
                amount_due=100 + index,
                currency="eur",
                status=["draft", "open", "paid"][index % 3],
                created_at=START + timedelta(minutes=index // 3),
            )
        )
    return rows


def newest_first(rows: list[Invoice]) -> list[str]:
    return [r.pk for r in sorted(rows, key=lambda r: (r.created_at, r.pk), reverse=True)]


def walk(client: APIClient, path: str, **params: Any) -> tuple[list[str], list[dict[str, Any]]]:
    ids, pages, cursor = [], [], None
    while True:
        query = {**params, **({"cursor": cursor} if cursor else {})}
        response = client.get(path, query)
        assert response.status_code == 200, response.content
        body = response.json()
        pages.append(body)
        ids.extend(item["id"] for item in body["data"])
        cursor = body["pagination"]["next_cursor"]
        assert body["pagination"]["has_next"] is (cursor is not None)
        if cursor is None:
            return ids, pages


def test_envelope_and_default_limit(client: APIClient, invoices: list[Invoice]) -> None:
    body = client.get("/v2/invoices").json()
    assert set(body) == {"data", "pagination"}
    assert body["pagination"]["limit"] == 20 and body["pagination"]["has_next"] is True
    assert [item["id"] for item in body["data"]] == newest_first(invoices)[:20]


@pytest.mark.parametrize("limit", [1, 7, 20, 45, 100])
def test_walking_every_page_returns_every_row_once_in_order(
    client: APIClient, invoices: list[Invoice], limit: int
) -> None:
    ids, pages = walk(client, "/v2/invoices", limit=limit)
    assert ids == newest_first(invoices)
    assert all(page["pagination"]["limit"] == limit for page in pages)


def test_one_query_per_page_and_no_count(client: APIClient, invoices: list[Invoice]) -> None:
    from django.db import connection

    cursor = client.get("/v2/invoices", {"limit": 5}).json()["pagination"]["next_cursor"]
    with CaptureQueriesContext(connection) as queries:
        client.get("/v2/invoices", {"limit": 5, "cursor": cursor})
    selects = [q["sql"] for q in queries.captured_queries if "billing_invoice" in q["sql"]]
    assert len(selects) == 1 and "COUNT" not in selects[0].upper() and "LIMIT 6" in selects[0]


def test_next_link_header(client: APIClient, invoices: list[Invoice]) -> None:
    response = client.get("/v2/invoices", {"limit": 10, "status": "open"})
    assert response["Link"].startswith("<http://testserver/v2/invoices?") and 'rel="next"' in response["Link"]
    assert "status=open" in response["Link"]


@pytest.mark.parametrize("limit", ["0", "101", "abc", "-1", "1.5", " ", "\u00b2", "\uff15", "9" * 5000])
def test_invalid_limits_are_400_naming_limit(client: APIClient, limit: str) -> None:
    response = client.get("/v2/invoices", {"limit": limit})
    assert response.status_code == 400
    body = response.json()
    assert body["type"].endswith("/invalid-parameters")
    assert body["errors"] == [
        {"parameter": "limit", "detail": "limit must be an integer from 1 to 100.", "code": "invalid"}
    ]


def test_unknown_parameters_are_400_listing_the_accepted_ones(client: APIClient) -> None:
    response = client.get("/v2/invoices", {"page": "2", "per_page": "10"})
    assert response.status_code == 400
    errors = {item["parameter"]: item for item in response.json()["errors"]}
    assert set(errors) == {"page", "per_page"}
    assert errors["page"]["detail"] == (
        "Unknown parameter. Accepted: created_after, created_before, status, user_id, cursor, limit, sort."
    )


def test_a_single_valued_parameter_repeated_is_400(client: APIClient) -> None:
    response = client.get("/v2/invoices?user_id=1&user_id=2&created_after=2026-01-01")
    assert response.status_code == 400 and response.json()["errors"] == [
        {"parameter": "user_id", "detail": "Send this parameter once.", "code": "repeated"}
    ]


def test_a_multi_value_filter_takes_its_values_repeated(client: APIClient, invoices: list[Invoice]) -> None:
    repeated, _ = walk(client, "/v2/invoices", status=["draft", "paid"], limit=4)
    joined, _ = walk(client, "/v2/invoices", status="draft,paid", limit=4)
    assert repeated == joined == newest_first([r for r in invoices if r.status in ("draft", "paid")])


def test_filters_and_together(client: APIClient, invoices: list[Invoice]) -> None:
    user = invoices[0].user
    ids, _ = walk(
        client, "/v2/invoices", status="draft,paid", user_id=user.pk, created_after="2026-01-01T00:03:00Z", limit=4
    )
    expected = [
        r
        for r in invoices
        if r.status in ("draft", "paid") and r.user_id == user.pk and r.created_at > START + timedelta(minutes=3)
    ]
    assert ids == newest_first(expected) and expected


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"status": "lost"}, "status"),
        ({"created_after": "yesterday"}, "created_after"),
        ({"created_before": ""}, "created_before"),
        ({"user_id": ""}, "user_id"),
    ],
)
def test_invalid_filter_values_are_400(client: APIClient, params: dict[str, str], parameter: str) -> None:
    response = client.get("/v2/invoices", params)
    assert response.status_code == 400 and response.json()["errors"][0]["parameter"] == parameter


def test_a_cursor_is_bound_to_its_filters_and_list(client: APIClient, invoices: list[Invoice]) -> None:
    cursor = client.get("/v2/invoices", {"limit": 5, "status": "open"}).json()["pagination"]["next_cursor"]
    other_filters = client.get("/v2/invoices", {"limit": 5, "status": "paid", "cursor": cursor})
    assert other_filters.status_code == 400 and other_filters.json()["type"].endswith("/invalid-cursor")
    other_list = client.get("/v2/orders", {"limit": 5, "status": "pending", "cursor": cursor})
    assert other_list.status_code == 400 and "another list" in other_list.json()["detail"]
    forged = client.get("/v2/invoices", {"limit": 5, "status": "open", "cursor": cursor[:-2] + "xx"})
    assert forged.status_code == 400 and forged.json()["errors"][0]["parameter"] == "cursor"


def test_detail_requests_ignore_list_filters(client: APIClient, invoices: list[Invoice]) -> None:
    assert client.get(f"/v2/invoices/{invoices[0].pk}").status_code == 200


def test_search_ors_filter_objects(client: APIClient, invoices: list[Invoice]) -> None:
    users = sorted({r.user_id for r in invoices})
    body = {"any": [{"status": "draft", "user_id": users[0]}, {"status": "paid"}], "limit": 4}
    expected = newest_first(
        [r for r in invoices if (r.status == "draft" and r.user_id == users[0]) or r.status == "paid"]
    )
    ids, cursor = [], None
    while True:
        response = client.post("/v2/invoices/search", {**body, **({"cursor": cursor} if cursor else {})}, format="json")
        assert response.status_code == 200, response.content
        page = response.json()
        ids.extend(item["id"] for item in page["data"])
        cursor = page["pagination"]["next_cursor"]
        if cursor is None:
            break
    assert ids == expected
    # A cursor of the search is bound to its body's filters, and to the search endpoint.
    first = client.post("/v2/invoices/search", body, format="json").json()["pagination"]["next_cursor"]
    changed = client.post(
        "/v2/invoices/search", {"any": [{"status": "open"}], "limit": 4, "cursor": first}, format="json"
    )
    assert changed.status_code == 400
    assert client.get("/v2/invoices", {"limit": 4, "cursor": first}).status_code == 400


@pytest.mark.parametrize(
    ("body", "pointers"),
    [
        ([], [""]),
        ({}, ["/any"]),
        ({"any": []}, ["/any"]),
        ({"any": [{"status": "lost"}], "order": "x"}, ["/order", "/any/0/status"]),
        ({"any": [{"status": "open"}], "sort": "status"}, ["/sort"]),
        ({"any": [{"status": "open"}], "sort": ["amount_due"]}, ["/sort"]),
        ({"any": ["open"]}, ["/any/0"]),
        ({"any": [{"colour": "red"}, {"status": {"open": True}}]}, ["/any/0/colour", "/any/1/status"]),
        ({"any": [{"status": "open"}], "limit": 0}, ["/limit"]),
        ({"any": [{"status": "open"}], "cursor": 5}, ["/cursor"]),
    ],
)
def test_search_body_errors_are_422_with_pointers(client: APIClient, body: Any, pointers: list[str]) -> None:
    response = client.post("/v2/invoices/search", body, format="json")
    assert response.status_code == 422, response.content
    assert [item["pointer"] for item in response.json()["errors"]] == pointers


def test_soft_delete(client: APIClient, invoices: list[Invoice]) -> None:
    target = invoices[-1]
    assert client.delete(f"/v2/invoices/{target.pk}").status_code == 204
    assert client.delete(f"/v2/invoices/{target.pk}").status_code == 204, "repeated DELETE is 204 too"
    assert client.delete("/v2/invoices/inv_never").status_code == 404
    assert client.get(f"/v2/invoices/{target.pk}").status_code == 404
    ids, _ = walk(client, "/v2/invoices", limit=50)
    assert target.pk not in ids and len(ids) == 44
    assert Invoice.all_objects.get(pk=target.pk).deleted_at is not None
    assert (
        client.post(
            f"/v2/invoices/{target.pk}/payments",
            {"amount": 1, "currency": "eur"},
            format="json",
            headers={"Idempotency-Key": "pay-deleted"},
        ).status_code
        == 404
    )


def test_soft_delete_queryset_and_hard_delete(invoices: list[Invoice]) -> None:
    assert Invoice.objects.filter(status="draft").delete()[0] == 15
    assert Invoice.objects.count() == 30 and Invoice.all_objects.deleted().count() == 15
    assert Invoice.all_objects.filter(status="draft").delete()[0] == 0, "deleted rows keep their first date"
    assert Invoice.all_objects.live().count() == 30
    invoices[0].refresh_from_db()
    assert invoices[0].delete() == (0, {"billing.Invoice": 0})
    assert invoices[1].hard_delete()[0] >= 1
    assert Invoice.all_objects.filter(status="draft").hard_delete()[0] == 15


def test_admin_shows_deleted_rows_on_request(invoices: list[Invoice]) -> None:
    from django.contrib.auth.models import User

    invoices[0].delete()
    browser = APIClient()
    browser.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    live = browser.get("/admin/billing/invoice/").content.decode()
    deleted = browser.get("/admin/billing/invoice/?deleted=yes").content.decode()
    everything = browser.get("/admin/billing/invoice/?deleted=all").content.decode()
    assert invoices[0].pk not in live and invoices[0].pk in deleted and invoices[0].pk in everything


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"user_id": "a\x00b"}, "user_id"),
        ({"created_after": "0001-01-01T00:00:00+01:00"}, "created_after"),
        ({"created_before": "9999-12-31T23:59:59-01:00"}, "created_before"),
    ],
)
def test_hostile_filter_values_are_400(client: APIClient, params: dict[str, str], parameter: str) -> None:
    response = client.get("/v2/invoices", params)
    assert response.status_code == 400, response.content


def test_a_nul_in_the_url_is_400(client: APIClient) -> None:
    assert client.get("/v2/invoices/a%00b").status_code == 400
    assert client.get("/v2/invoices?x%00=1").status_code == 400


def test_format_override_is_accepted(client: APIClient) -> None:
    assert client.get("/v2/invoices", {"format": "json"}).status_code == 200


def test_search_takes_nothing_from_the_query_string(client: APIClient) -> None:
    response = client.post("/v2/invoices/search?limit=1&bogus=1", {"any": [{"status": "open"}]}, format="json")
    assert response.status_code == 400
    assert {item["parameter"] for item in response.json()["errors"]} == {"limit", "bogus"}


def test_an_empty_search_alternative_is_422(client: APIClient) -> None:
    response = client.post("/v2/invoices/search", {"any": [{}, {"status": "paid"}]}, format="json")
    assert response.status_code == 422 and response.json()["errors"][0]["pointer"] == "/any/0"


@pytest.mark.urls("tests.urls_scoped")
def test_delete_and_search_respect_the_views_scope(invoices: list[Invoice]) -> None:
    mine, theirs = invoices[0].user_id, invoices[1].user_id
    client = APIClient(headers={"X-Tenant": mine})
    foreign = next(r for r in invoices if r.user_id == theirs)
    own = next(r for r in invoices if r.user_id == mine)
    assert client.delete(f"/scoped/{foreign.pk}").status_code == 404
    foreign.refresh_from_db()
    assert foreign.deleted_at is None, "a row outside the scope is never touched"
    assert client.delete(f"/scoped/{own.pk}").status_code == 204
    assert client.delete(f"/scoped/{own.pk}").status_code == 204, "a repeat inside the scope is 204"
    found = client.post("/scoped/search", {"any": [{"user_id": theirs}]}, format="json").json()
    assert found["data"] == []


def test_payments_of_a_deleted_invoice_are_gone(client: APIClient, invoices: list[Invoice]) -> None:
    from testproject.billing.models import Payment

    invoice = invoices[0]
    payment = Payment.objects.create(invoice=invoice, amount=1, currency="eur")
    path = f"/v2/invoices/{invoice.pk}/payments/{payment.pk}"
    assert client.get(path).status_code == 200
    invoice.delete()
    assert client.get(path).status_code == 404


def test_a_foreign_key_orders_by_its_column(client: APIClient, invoices: list[Invoice]) -> None:
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from django_api_conventions.pagination import KeysetPagination

    class ByUser(KeysetPagination):
        ordering = ("user", "-created_at")

    paginator = ByUser()
    assert paginator.get_ordering(Invoice) == ("user_id", "-created_at", "-pk")
    seen, cursor = [], None
    while True:
        query = {"limit": "7", **({"cursor": cursor} if cursor else {})}
        seen += paginator.paginate_queryset(Invoice.objects.all(), Request(APIRequestFactory().get("/", query)))
        cursor = paginator.next_cursor
        if cursor is None:
            break
    expected = sorted(invoices, key=lambda r: (r.user_id, -r.created_at.timestamp(), [-ord(c) for c in r.pk]))
    assert [r.pk for r in seen] == [r.pk for r in expected]


@pytest.mark.parametrize(
    ("limit", "detail"),
    [
        # int() read each of these as 5.
        (" 5", "limit must be an integer from 1 to 100 in plain digits: 5, not ' 5'."),
        ("05", "limit must be an integer from 1 to 100 in plain digits: 5, not '05'."),
        ("5\t", "limit must be an integer from 1 to 100 in plain digits: 5, not '5\\t'."),
        ("+5", "limit must be an integer from 1 to 100 in plain digits: 5, not '+5'."),
        ("5_0", "limit must be an integer from 1 to 100."),
        ("\u0665", "limit must be an integer from 1 to 100."),
        ("00", "limit must be an integer from 1 to 100."),
    ],
)
def test_a_limit_has_one_spelling(client: APIClient, limit: str, detail: str) -> None:
    response = client.get("/v2/invoices", {"limit": limit})
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "limit", "detail": detail, "code": "invalid"}]


TIMESTAMP_EXPECTED = (
    "created_after must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z (or a date, 2026-01-31), in ASCII digits."
)


@pytest.mark.parametrize(
    "moment",
    [
        "2026-W01",
        "2026-W01-1",
        "2026-001",
        "20260101",
        "20260101T000000Z",
        "2026-01-01 00:00:00",
        "2026-01-01T00:00:00,5Z",
        "2026-01-01T00",
        "2026-01-01T00:00:00.1234567Z",
        "2026-01-01T00:00:00+0100",
        "2026-01-01T00:00:00+01",
        "\u0662\u0660\u0662\u0666-01-01",
        "\u0662\u0660\u0662\u0666-01-01T00:00:00Z",
        "\uff12\uff10\uff12\uff16-01-01",
        "2026-01-01T00:00:00Z ",
        " 2026-01-01",
        "+2026-01-01",
        "2026-1-1",
    ],
)
def test_a_date_filter_takes_iso_8601_calendar_dates_in_ascii_digits_only(client: APIClient, moment: str) -> None:
    # Week dates, ordinal dates, the basic format and other scripts' digits were read as some moment.
    response = client.get("/v2/invoices", {"created_after": moment})
    assert response.status_code == 400, response.content
    assert response.json()["errors"] == [
        {"parameter": "created_after", "detail": TIMESTAMP_EXPECTED, "code": "invalid"}
    ]
    search = client.post("/v2/invoices/search", {"any": [{"created_after": moment}]}, format="json")
    assert search.status_code == 422
    assert search.json()["errors"] == [
        {"pointer": "/any/0/created_after", "detail": TIMESTAMP_EXPECTED, "code": "invalid"}
    ]


@pytest.mark.parametrize(
    "moment", ["2026-13-01", "2026-02-30", "2026-01-01T24:00:00Z", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00+24:00"]
)
def test_a_date_filter_refuses_moments_that_do_not_exist(client: APIClient, moment: str) -> None:
    response = client.get("/v2/invoices", {"created_after": moment})
    assert response.status_code == 400
    assert response.json()["errors"][0]["detail"] == f"{TIMESTAMP_EXPECTED[:-1]}; {moment!r} is no such moment."


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        ("2026-01-01T00:03:00Z", START + timedelta(minutes=3)),
        ("2026-01-01t00:03:00z", START + timedelta(minutes=3)),
        ("2026-01-01T01:03:00+01:00", START + timedelta(minutes=3)),
        ("2026-01-01T00:03:00.000000Z", START + timedelta(minutes=3)),
        ("2026-01-01T00:03Z", START + timedelta(minutes=3)),
        ("2026-01-01T00:03:00", START + timedelta(minutes=3)),  # no offset: the current time zone (UTC here)
        ("2026-01-01", START),
    ],
)
def test_every_documented_date_spelling_still_filters(
    client: APIClient, invoices: list[Invoice], moment: str, expected: datetime
) -> None:
    ids, _ = walk(client, "/v2/invoices", created_after=moment, limit=100)
    assert ids == newest_first([r for r in invoices if r.created_at > expected])


@pytest.mark.parametrize(
    ("limit", "kind"),
    [
        ('"5"', 'the string "5"'),
        ("5.0", "the number 5.0"),
        ("5e0", "the number 5e0"),
        ("true", "the boolean true"),
        ("[5]", "an array"),
        ('{"n": 5}', "an object"),
    ],
)
def test_a_search_limit_must_be_a_json_integer(client: APIClient, limit: str, kind: str) -> None:
    body = f'{{"any": [{{"status": "open"}}], "limit": {limit}}}'
    response = client.generic("POST", "/v2/invoices/search", body, content_type="application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"pointer": "/limit", "detail": f"limit must be a JSON integer, not {kind}.", "code": "invalid"}
    ]


def test_a_search_limit_out_of_range_names_limit(client: APIClient) -> None:
    response = client.post("/v2/invoices/search", {"any": [{"status": "open"}], "limit": 0}, format="json")
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"pointer": "/limit", "detail": "limit must be an integer from 1 to 100.", "code": "invalid"}
    ]
    assert (
        client.post("/v2/invoices/search", {"any": [{"status": "open"}], "limit": 5}, format="json").status_code == 200
    )
