"""QUERY (RFC 10008) on a collection, through the Django test client: the POST search's pages,
advertised, never keyed nor stored, under CSRF as a POST, refused as the search refuses."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import path
from rest_framework.authentication import SessionAuthentication
from rest_framework.test import APIClient

from django_api_conventions.models import IdempotencyRecord
from testproject.billing.models import Customer, Invoice
from testproject.billing.views import InvoiceViewSet

pytestmark = pytest.mark.django_db

START = datetime(2026, 1, 1, tzinfo=UTC)
BODY = {"any": [{"status": "open"}, {"status": "paid", "created_after": "2026-01-01T00:05:00Z"}], "limit": 4}


class SessionInvoices(InvoiceViewSet):
    """The example's invoices behind a browser login, for the CSRF rules."""

    authentication_classes = [SessionAuthentication]
    versioning_class = None


# The URLs of the CSRF test (pytest.mark.urls(__name__)).
urlpatterns = [
    path("session/invoices", SessionInvoices.as_view({"get": "list"})),
    path("session/invoices/search", SessionInvoices.as_view({"post": "search"})),
]


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "query-method"})


@pytest.fixture
def invoices() -> list[Invoice]:
    user = Customer.objects.create(email="q@example.com", name="Q")
    return [
        Invoice.objects.create(
            user=user,
            amount_due=100 + index % 7,
            currency="eur",
            status=["draft", "open", "paid"][index % 3],
            created_at=START + timedelta(minutes=index // 2),
        )
        for index in range(30)
    ]


def query(client: Client, body: Any, target: str = "/v2/invoices", **headers: str) -> Any:
    data = body if isinstance(body, str) else json.dumps(body)
    return client.generic("QUERY", target, data, content_type="application/json", headers=headers)


def walk(send: Any, body: dict[str, Any]) -> list[Any]:
    pages, cursor = [], None
    while True:
        response = send({**body, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.content
        # The next page is read with the same body: a Link a GET follows would lose it.
        assert "Link" not in response
        pages.append(response.json())
        cursor = response.json()["pagination"]["next_cursor"]
        if cursor is None:
            return pages


@pytest.mark.parametrize("sort", [None, "amount_due", "-created_at"])
def test_query_answers_the_pages_of_the_post_search(client: APIClient, invoices: list[Invoice], sort: str) -> None:
    body = {**BODY, **({"sort": sort} if sort else {})}
    by_query = walk(lambda page: query(client, page), body)
    by_search = walk(lambda page: client.post("/v2/invoices/search", page, format="json"), body)
    assert by_query == by_search
    assert len(by_query) > 2
    ids = [item["id"] for page in by_query for item in page["data"]]
    expected = [
        i
        for i in invoices
        if i.status == "open" or (i.status == "paid" and i.created_at > START + timedelta(minutes=5))
    ]
    assert sorted(ids) == sorted(str(i.pk) for i in expected) and len(set(ids)) == len(ids)


def test_a_cursor_of_one_method_pages_the_other(client: APIClient, invoices: list[Invoice]) -> None:
    cursor = query(client, BODY).json()["pagination"]["next_cursor"]
    second = client.post("/v2/invoices/search", {**BODY, "cursor": cursor}, format="json")
    assert query(client, {**BODY, "cursor": cursor}).json() == second.json()
    # Bound to the filters, as the search's: another body refuses it, as the search does; and a
    # GET of the list refuses it too (its cursors are bound to the query string's filters).
    other = {"any": [{"status": "draft"}], "cursor": cursor}
    by_query, by_search = query(client, other), client.post("/v2/invoices/search", other, format="json")
    assert by_query.status_code == by_search.status_code == 400
    assert by_query.json()["detail"] == by_search.json()["detail"]
    assert client.get("/v2/invoices", {"cursor": cursor}).status_code == 400


def test_the_collection_advertises_query(client: APIClient, invoices: list[Invoice]) -> None:
    for method in ("GET", "OPTIONS", "QUERY"):
        response = query(client, BODY) if method == "QUERY" else client.generic(method, "/v2/invoices")
        assert response.status_code == 200, (method, response.content)
        assert response["Accept-Query"] == "application/json"
        assert response["Allow"] == "GET, POST, HEAD, OPTIONS, QUERY"
    for target in (f"/v2/invoices/{invoices[0].pk}", "/v2/users"):
        assert "Accept-Query" not in client.get(target)


@pytest.mark.parametrize(
    ("target", "allow"),
    [
        ("/v2/invoices/{id}", "GET, DELETE, HEAD, OPTIONS"),
        ("/v2/invoices/search", "POST, OPTIONS"),
        ("/v2/users", "GET, POST, HEAD, OPTIONS"),
    ],
)
def test_one_invoice_the_search_route_and_a_list_without_search_refuse_query(
    client: APIClient, invoices: list[Invoice], target: str, allow: str
) -> None:
    response = query(client, BODY, target.format(id=invoices[0].pk))
    assert response.status_code == 405
    assert response["Content-Type"] == "application/problem+json"
    assert response["Allow"] == allow and "Accept-Query" not in response


def test_query_refuses_what_the_post_search_refuses(client: APIClient, invoices: list[Invoice]) -> None:
    def both(body: Any, suffix: str = "") -> tuple[Any, Any]:
        search = client.generic(
            "POST", f"/v2/invoices/search{suffix}", json.dumps(body), content_type="application/json"
        )
        return query(client, body, f"/v2/invoices{suffix}"), search

    for body, suffix, status in [
        (BODY, "?limit=2&bogus=1", 400),
        ({"any": [], "limit": "5", "bogus": 1}, "", 422),
        ({"any": [{"status": "lost"}, {"nope": 1}]}, "", 422),
        ([], "", 422),
        ({"any": [{"status": "open"}], "limit": 1000}, "", 422),
    ]:
        by_query, by_search = both(body, suffix)
        assert by_query.status_code == by_search.status_code == status, by_query.content
        assert by_query["Content-Type"] == "application/problem+json"
        assert by_query.json()["errors"] == by_search.json()["errors"]
    assert query(client, "{not json").status_code == 400
    assert query(client, "").status_code == 422  # no body: `any` is missing
    text = client.generic("QUERY", "/v2/invoices", "status=open", content_type="text/plain")
    assert text.status_code == 415 and text["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("example_store", ["database", pytest.param("redis", marks=pytest.mark.redis)], indirect=True)
def test_query_is_never_keyed_nor_stored(client: APIClient, invoices: list[Invoice], example_store: str) -> None:
    def stored() -> int:
        if example_store == "database":
            return IdempotencyRecord.objects.count()
        from django_api_conventions.idempotency.stores.redis import KEY_PREFIX, RedisStore

        return len(list(RedisStore().client.scan_iter(match=f"{KEY_PREFIX}*")))

    key = str(uuid.uuid4())
    answers = [query(client, BODY, **{"Idempotency-Key": key}) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert all("Idempotent-Replayed" not in a for a in answers)
    assert stored() == 0
    # The key is still free: a POST claims it and is stored (what the count would have seen).
    payload = {"user_id": invoices[0].user_id, "amount_due": 5, "currency": "eur"}
    created = client.post("/v2/invoices", payload, format="json", headers={"Idempotency-Key": key})
    assert created.status_code == 201, created.content
    assert created["Idempotent-Replayed"] == "false" and stored() == 1


@pytest.mark.urls(__name__)
@pytest.mark.parametrize(("method", "target"), [("QUERY", ""), ("POST", "/search")])
@pytest.mark.parametrize("send_token", [False, True])
def test_a_browser_login_sends_its_csrf_token_as_with_a_post(
    invoices: list[Invoice], method: str, target: str, send_token: bool
) -> None:
    """Django's CSRF check spares only GET, HEAD, OPTIONS and TRACE: a session's QUERY is
    checked as its POST search is, and passes with the token."""
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(User.objects.create_user("reader", password="x"))
    headers = {}
    if send_token:
        token = "querytoken" * 3 + "ok"  # a 32-character secret: Django takes it unmasked
        browser.cookies["csrftoken"] = token
        headers["X-CSRFToken"] = token
    answer = browser.generic(
        method, f"/session/invoices{target}", json.dumps(BODY), content_type="application/json", headers=headers
    )
    if send_token:
        assert answer.status_code == 200, answer.content
        assert len(answer.json()["data"]) == 4
    else:
        assert answer.status_code == 403, answer.content
        assert "CSRF" in answer.json()["detail"]


def test_the_openapi_document_has_the_query_operation(client: APIClient) -> None:
    paths = Client().get("/openapi.json").json()["paths"]
    operation = paths["/v2/invoices"]["get"]["x-query"]
    search = paths["/v2/invoices/search"]["post"]
    assert operation["operationId"] == "invoices_query" and operation["summary"] == "Query invoices"
    assert operation["requestBody"] == search["requestBody"]
    assert "x-idempotency" not in operation
    assert "Idempotency-Key" not in [p["name"] for p in operation["parameters"]]
    assert "Idempotent-Replayed" not in operation["responses"]["200"].get("headers", {})
    assert operation["responses"]["200"]["content"] == search["responses"]["200"]["content"]
    assert "x-query" not in paths["/v2/users"]["get"] and "x-query" not in paths["/v2/orders"]["get"]
