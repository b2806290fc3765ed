"""Keys per action: ``@idempotency_exempt`` leaves one handler unkeyed beside keyed ones.

A viewset with two POST actions: ``create`` takes keys (a retry is replayed), ``close`` commits
its own transaction (``transaction.atomic(durable=True)``), which the database store cannot
keep an answer for, and is exempt: with a key it runs as without one, each time, never a 501.
Real requests, without a test transaction (a durable block cannot nest in one), on the
database store and on the Redis store; the OpenAPI document and the checks follow the choice.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path
from rest_framework import routers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from django_api_conventions.idempotency import IdempotencyMixin, idempotency_exempt
from django_api_conventions.idempotency.checks import check_unidentified_callers
from testproject.billing.models import Customer

from .stores import use_store

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls(__name__)]


def _customer(name: str) -> Customer:
    return Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name=name)


class LedgerViewSet(IdempotencyMixin, viewsets.GenericViewSet):  # type: ignore[type-arg]
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    versioning_class = None
    idempotency_required = True  # on the keyed actions; an exempt one takes no key at all

    def create(self, request: Request) -> Response:
        return Response({"id": _customer("entry").pk}, status=201)

    @action(detail=False, methods=["post"])
    @idempotency_exempt
    def close(self, request: Request) -> Response:
        with transaction.atomic(durable=True):  # commits the period on its own, for real
            customer = _customer("closing")
        return Response({"id": customer.pk}, status=201)


class CloseView(IdempotencyMixin, APIView):
    """An APIView whose one keyed method is exempt: no caller without credentials shares keys."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    versioning_class = None

    @idempotency_exempt
    def post(self, request: Request) -> Response:
        return Response({"id": _customer("closing").pk}, status=201)


@idempotency_exempt
def plain_close(request: HttpRequest) -> HttpResponse:
    """A function view under ``IDEMPOTENCY_PATHS``, which the middleware would key."""
    return JsonResponse({"id": _customer("closing").pk}, status=201)


router = routers.SimpleRouter()
router.register("ledger", LedgerViewSet, basename="ledger")
urlpatterns = [
    path("", include(router.urls)),
    path("closing", CloseView.as_view()),
    path("plain-closing", plain_close),
]


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.redis)])
def store_name(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    yield from use_store(settings, request.param)


@pytest.fixture
def without_atomic_requests(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project without ATOMIC_REQUESTS, where a durable block in a view is allowed at all."""
    for config in settings.DATABASES.values():
        monkeypatch.setitem(config, "ATOMIC_REQUESTS", False)


def post(path: str, key: str | None = None) -> Any:
    headers = {"X-Client-ID": "ledger"} | ({"Idempotency-Key": key} if key else {})
    return APIClient().post(path, json.dumps({}), content_type="application/json", headers=headers)


@pytest.mark.usefixtures("store_name", "without_atomic_requests")
def test_the_keyed_action_replays_and_the_exempt_durable_one_runs_each_time() -> None:
    key = uuid.uuid4().hex
    first, retry = post("/ledger/", key), post("/ledger/", key)
    assert (first.status_code, retry.status_code) == (201, 201), retry.content
    assert retry["X-Cache-Lookup"] == "HIT"
    assert retry.json() == first.json()
    assert Customer.objects.filter(name="entry").count() == 1
    assert post("/ledger/").status_code == 400  # the keyed action requires its key

    closings = [post("/ledger/close/", key), post("/ledger/close/", key), post("/ledger/close/")]
    for response in closings:  # the key is ignored: no 501, no replay, no 400 without one
        assert response.status_code == 201, response.content
        assert "X-Cache-Lookup" not in response
    assert len({response.json()["id"] for response in closings}) == 3
    assert Customer.objects.filter(name="closing").count() == 3


@pytest.mark.usefixtures("store_name")
def test_an_exempt_apiview_method_runs_each_time() -> None:
    key = uuid.uuid4().hex
    assert [post("/closing", key).status_code for _ in range(2)] == [201, 201]
    assert Customer.objects.filter(name="closing").count() == 2


def test_the_middleware_leaves_an_exempt_function_view_unkeyed(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_PATHS": [r"^/plain-closing$"]}
    key = uuid.uuid4().hex
    responses = [post("/plain-closing", key) for _ in range(2)]
    assert [response.status_code for response in responses] == [201, 201]
    assert "X-Cache-Lookup" not in responses[1]
    assert Customer.objects.filter(name="closing").count() == 2


def test_the_document_lists_the_key_on_the_keyed_action_only() -> None:
    from drf_spectacular.settings import spectacular_settings

    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS(urlconf=__name__)
    schema = generator.get_schema(request=None, public=True)

    def header_names(path: str) -> set[str]:
        operation = schema["paths"][path]["post"]
        return {parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] == "header"}

    def replay_documented(path: str) -> bool:
        return any(
            "Idempotent-Replayed" in answer.get("headers", {})
            for answer in schema["paths"][path]["post"]["responses"].values()
        )

    assert "Idempotency-Key" in header_names("/ledger/")
    assert replay_documented("/ledger/")
    for exempt in ("/ledger/close/", "/closing"):
        assert "Idempotency-Key" not in header_names(exempt)
        assert not replay_documented(exempt)


def test_a_route_whose_keyed_methods_are_exempt_shares_no_keys(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    warned = {warning.obj for warning in check_unidentified_callers()}
    assert any("ledger" in route and "close" not in route for route in warned), warned
    assert not any("clos" in route for route in warned), warned
