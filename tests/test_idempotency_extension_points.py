"""What a project changes in a subclass rather than in a setting: a view's scope and replayed
headers, the middleware's replayed headers, a paginator's cursor salt."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.views import APIView

from django_api_conventions.idempotency import IdempotencyMiddleware, IdempotencyMixin
from django_api_conventions.idempotency import checks as idempotency_checks
from django_api_conventions.pagination import KeysetPagination

pytestmark = pytest.mark.django_db(transaction=True)


class OrganisationView(IdempotencyMixin, APIView):
    """Keys shared by every client of one organisation, named in X-Organisation."""

    runs = 0

    def get_idempotency_scope(self, request: Request) -> str:
        return f"org:{request.headers['X-Organisation']}"

    def post(self, request: Request) -> Response:
        OrganisationView.runs += 1
        return Response({"run": OrganisationView.runs}, status=201, headers={"X-Run": str(OrganisationView.runs)})


def post_as(client_id: str, organisation: str, key: str) -> Any:
    request = APIRequestFactory().post("/things", b'{"a": 1}', content_type="application/json")
    request.META.update(
        {"HTTP_IDEMPOTENCY_KEY": key, "HTTP_X_CLIENT_ID": client_id, "HTTP_X_ORGANISATION": organisation}
    )
    return OrganisationView.as_view()(request)


def test_a_view_scopes_its_keys_with_get_idempotency_scope() -> None:
    key = uuid.uuid4().hex
    first, colleague = post_as("alice", "acme", key), post_as("bob", "acme", key)
    stranger = post_as("eve", "umbrella", key)
    assert (first["X-Cache-Lookup"], colleague["X-Cache-Lookup"], stranger["X-Cache-Lookup"]) == ("MISS", "HIT", "MISS")
    assert colleague.content == first.content != stranger.content


def test_a_view_names_the_headers_its_replays_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    key = uuid.uuid4().hex
    first, again = post_as("alice", "acme", key), post_as("alice", "acme", key)
    assert first["X-Run"] and "X-Run" not in again
    monkeypatch.setattr(OrganisationView, "replayed_headers", ("Content-Type", "X-Run"))
    key = uuid.uuid4().hex
    first, again = post_as("alice", "acme", key), post_as("alice", "acme", key)
    assert again["X-Cache-Lookup"] == "HIT" and again["X-Run"] == first["X-Run"]


def test_a_view_with_its_own_scope_is_not_warned_about_anonymous_callers(monkeypatch: pytest.MonkeyPatch) -> None:
    from testproject.billing.views import OrderViewSet

    monkeypatch.setattr(OrderViewSet, "permission_classes", [])
    assert any("orders" in str(m.obj) for m in idempotency_checks.check_unidentified_callers())
    monkeypatch.setattr(OrderViewSet, "get_idempotency_scope", lambda self, request: "org:1", raising=False)
    assert not any("orders" in str(m.obj) for m in idempotency_checks.check_unidentified_callers())


def test_the_middleware_names_the_headers_its_replays_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    client = APIClient(headers={"X-Client-ID": "acme"})

    def post(key: str) -> Any:
        return client.post(
            "/idempotency/plain",
            json.dumps({"email": f"{key}@example.com"}),
            content_type="application/json",
            headers={"Idempotency-Key": key},
        )

    key = uuid.uuid4().hex
    first, again = post(key), post(key)
    assert again["X-Cache-Lookup"] == "HIT" and again["Content-Type"] == first["Content-Type"]
    monkeypatch.setattr(IdempotencyMiddleware, "replayed_headers", ())
    key = uuid.uuid4().hex
    first, again = post(key), post(key)
    assert again["X-Cache-Lookup"] == "HIT" and "Content-Type" in first and "Content-Type" not in again


def test_a_paginator_with_another_cursor_salt_refuses_the_cursors_of_the_old_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from testproject.billing.models import Customer, Order

    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Salt")
    Order.objects.bulk_create([Order(user=user) for _ in range(3)])
    client = APIClient(headers={"X-Client-ID": "acme"})
    cursor = client.get("/v2/orders?limit=1").json()["pagination"]["next_cursor"]
    assert client.get(f"/v2/orders?limit=1&cursor={cursor}").status_code == 200
    monkeypatch.setattr(KeysetPagination, "cursor_salt", "rotated")
    refused = client.get(f"/v2/orders?limit=1&cursor={cursor}")
    assert refused.status_code == 400 and refused.json()["type"].endswith("/invalid-cursor")
