"""``x-idempotency``: each operation that takes ``Idempotency-Key`` says so to client generators.

The member names the header, whether the operation requires it, how long a key is kept and the
response headers that tell a replay; exempt actions, reads and unkeyed methods have none. What
it says is checked against the example service's answers, on the database and the Redis store.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import include, path
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import extend_schema
from rest_framework import routers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from django_api_conventions.idempotency import IdempotencyMixin, idempotency_exempt
from testproject.billing.models import Customer, Invoice

from .stores import use_store

RETENTION = 24 * 60 * 60
REPLAY_HEADERS = ["Idempotent-Replayed", "X-Cache-Lookup", "Idempotency-Retention"]
OWN = {"header": "Idempotency-Key", "required": True, "retentionSeconds": 60, "replayHeaders": []}


class LedgerViewSet(IdempotencyMixin, viewsets.GenericViewSet):  # type: ignore[type-arg]
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    versioning_class = None
    idempotency_methods = frozenset({"POST", "PATCH", "DELETE"})

    def list(self, request: Request) -> Response:
        return Response([])

    def create(self, request: Request) -> Response:
        return Response({}, status=201)

    @extend_schema(extensions={"x-idempotency": OWN})
    def partial_update(self, request: Request, pk: str) -> Response:
        return Response({})

    @extend_schema(extensions={"x-badges": [{"name": "Beta"}]})
    def destroy(self, request: Request, pk: str) -> Response:
        return Response(status=204)

    @action(detail=False, methods=["post"])
    @idempotency_exempt
    def close(self, request: Request) -> Response:
        return Response({}, status=201)


router = routers.SimpleRouter()
router.register("ledger", LedgerViewSet, basename="ledger")
urlpatterns = [path("", include(router.urls))]


def document(urlconf: str, version: str | None = None) -> dict[str, Any]:
    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS(urlconf=urlconf, api_version=version)
    schema: dict[str, Any] = generator.get_schema(request=None, public=True)
    return schema


def operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for route, item in schema["paths"].items():
        for method, operation in item.items():
            yield route, method.upper(), operation


def key_parameter(operation: dict[str, Any]) -> dict[str, Any] | None:
    return next((p for p in operation.get("parameters", []) if p["name"] == "Idempotency-Key"), None)


@pytest.fixture(scope="module")
def example_documents() -> dict[str, dict[str, Any]]:
    return {version: document("testproject.urls", version) for version in ("v1", "v2")}


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_every_operation_that_takes_a_key_says_so_and_no_other(
    example_documents: dict[str, dict[str, Any]], version: str
) -> None:
    from openapi_spec_validator import validate

    schema = example_documents[version]
    keyed = set()
    for route, method, operation in operations(schema):
        parameter = key_parameter(operation)
        if parameter is None:
            assert "x-idempotency" not in operation, (route, method)
            continue
        keyed.add((method, route.removeprefix(f"/{version}")))
        assert operation["x-idempotency"] == {
            "header": "Idempotency-Key",
            "required": parameter["required"],
            "retentionSeconds": RETENTION,
            "replayHeaders": REPLAY_HEADERS,
        }, (route, method)
        for response in operation["responses"].values():
            if "$ref" not in response and response.get("content", {}).keys() != {"application/problem+json"}:
                assert set(REPLAY_HEADERS) <= set(response["headers"]), (route, method)
    # Every POST of the example; never a read, nor the soft delete (DELETE is not a keyed method there).
    assert keyed == {
        ("POST", "/users"),
        ("POST", "/orders"),
        ("POST", "/invoices"),
        ("POST", "/invoices/search"),
        ("POST", "/invoices/{invoice_id}/payments"),
        ("POST", "/invoices/{invoice_id}/async-payments"),
    }
    paths = schema["paths"]
    queries = [operation["x-query"] for _, _, operation in operations(schema) if "x-query" in operation]
    assert queries and not any("x-idempotency" in query for query in queries)  # QUERY: never keyed
    assert paths[f"/{version}/invoices/{{invoice_id}}/payments"]["post"]["x-idempotency"]["required"] is True
    assert paths[f"/{version}/users"]["post"]["x-idempotency"]["required"] is False
    validate(json.loads(json.dumps(schema)))


def test_exempt_actions_and_reads_have_none_and_a_views_own_extensions_win() -> None:
    schema = document(__name__)
    paths = schema["paths"]
    assert paths["/ledger/"]["post"]["x-idempotency"]["required"] is False
    assert "x-idempotency" not in paths["/ledger/"]["get"]
    assert "x-idempotency" not in paths["/ledger/close/"]["post"]
    destroy = paths["/ledger/{id}/"]["delete"]
    assert destroy["x-badges"] == [{"name": "Beta"}]
    assert destroy["x-idempotency"]["header"] == "Idempotency-Key"
    assert paths["/ledger/{id}/"]["patch"]["x-idempotency"] == OWN


def test_the_retention_is_the_settings(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_RETENTION_SECONDS": 3600}
    assert document(__name__)["paths"]["/ledger/"]["post"]["x-idempotency"]["retentionSeconds"] == 3600


# --- What the served document says is what the service does ----------------------------------------


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.redis)])
def store(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    yield from use_store(settings, request.param)


def post(route: str, body: dict[str, Any], key: str | None, client_id: str) -> Any:
    headers = {"X-Client-ID": client_id} | ({"Idempotency-Key": key} if key else {})
    return Client().post(route, json.dumps(body), content_type="application/json", headers=headers)


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("testproject.urls")
def test_the_served_extension_tells_what_a_keyed_request_gets(store: str) -> None:
    served = {query: Client().get(f"/openapi.json{query}").json() for query in ("", "?version=v1")}
    for query, schema in served.items():
        marked = [("x-idempotency" in op, key_parameter(op) is not None) for _, _, op in operations(schema)]
        assert all(has == keyed for has, keyed in marked) and (True, True) in marked, query
    paths = served[""]["paths"]  # v2, the current version
    customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Ada")
    invoice = Invoice.objects.create(user=customer, amount_due=10_000, currency="eur")
    client_id = f"extension-{store}"
    requests = {
        "/v2/users": lambda: {"email": f"{uuid.uuid4().hex}@example.com", "name": "Ada"},
        "/v2/invoices/{invoice_id}/payments": lambda: {"amount": 10, "currency": "eur"},
    }
    for route, body in requests.items():
        extension = paths[route]["post"]["x-idempotency"]
        url = route.replace("{invoice_id}", invoice.pk)
        key, sent = str(uuid.uuid4()), body()
        first = post(url, sent, key, client_id)
        again = post(url, sent, key, client_id)
        assert first.status_code == again.status_code == 201, first.content
        assert first[extension["replayHeaders"][0]] == "false"
        assert again[extension["replayHeaders"][0]] == "true"
        assert int(first["Idempotency-Retention"]) == extension["retentionSeconds"]
        assert all(name in again for name in extension["replayHeaders"]), dict(again.items())
        unkeyed = post(url, body(), None, client_id)
        if extension["required"]:
            assert unkeyed.status_code == 400 and unkeyed.json()["type"].endswith("/idempotency-key-missing")
        else:
            assert unkeyed.status_code == 201 and "Idempotent-Replayed" not in unkeyed
    # An operation without the extension ignores a key.
    assert "x-idempotency" not in paths["/v2/invoices/{id}"]["delete"]
    deleted = Client().delete(f"/v2/invoices/{invoice.pk}", headers={"Idempotency-Key": str(uuid.uuid4())})
    assert deleted.status_code == 204 and "Idempotent-Replayed" not in deleted
