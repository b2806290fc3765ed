"""The NetBox-shaped project's query parameters once adopted, compared with the project before
(tests/test_netbox_shaped.py sends the same way): ``expand`` repeated, declared repeatable in
``EXTRA_QUERY_PARAMS``, reaches the project with every value; a boolean filter sent as ``1``
filters as django-filter filters it; the document describes ``expand`` as repeatable."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, override_settings

from testproject.billing.models import Customer, Invoice
from tests.netbox_shaped import project
from tests.netbox_shaped import settings as project_settings

pytestmark = pytest.mark.django_db

INVOICES = "/api/billing/invoices/"


def send(adopted: bool, path: str) -> tuple[int, Any, list[tuple[str, Any]]]:
    """``GET path`` before or after adoption: the status, the body, what the project saw."""
    project.SEEN.clear()
    overrides = project_settings.after() if adopted else project_settings.before()
    with override_settings(**overrides):
        response = Client(raise_request_exception=False).get(path)
    return response.status_code, json.loads(response.content), list(project.SEEN)


@pytest.fixture(autouse=True)
def _forget_what_was_seen() -> Iterator[None]:
    yield
    project.SEEN.clear()


@pytest.fixture
def invoices() -> list[Invoice]:
    alice = Customer.objects.create(email="alice@example.com", name="Alice")
    return [
        Invoice.objects.create(
            id=f"inv_{n:02}", user=alice, amount_due=100 * n, currency="eur", status="open" if n % 4 else "paid"
        )
        for n in range(1, 9)
    ]


def ids(body: Any) -> list[str]:
    return [row["id"] for row in body["results"]]


def test_a_repeated_expand_reaches_the_project_with_every_value(invoices: list[Invoice]) -> None:
    path = f"{INVOICES}?expand=user&expand=payments&brief=true"
    before, after = send(False, path), send(True, path)
    assert after[:2] == before[:2] and after[0] == 200
    assert ("expand", ["user", "payments"]) in after[2] and ("expand", ["user", "payments"]) in before[2]
    one = f"{INVOICES}inv_02/?expand=user&expand=payments"
    assert send(True, one)[:2] == send(False, one)[:2]


def test_a_parameter_not_declared_repeatable_is_still_sent_once(invoices: list[Invoice]) -> None:
    status, body, _ = send(True, f"{INVOICES}?brief=true&brief=false")
    assert status == 400
    assert body["errors"] == [{"parameter": "brief", "detail": "Send this parameter once.", "code": "repeated"}]


@pytest.mark.parametrize("query", ["paid=1", "paid=0", "paid=true", "paid=False", "is_paid=true", "is_paid=False"])
def test_a_boolean_filter_filters_as_django_filter_does(invoices: list[Invoice], query: str) -> None:
    before, after = send(False, f"{INVOICES}?{query}"), send(True, f"{INVOICES}?{query}")
    assert after[:2] == before[:2]
    paid = query.split("=")[1].lower() in ("1", "true")
    assert ids(after[1]) == [invoice.pk for invoice in invoices if (invoice.status == "paid") == paid]


def test_a_boolean_filter_django_filter_would_skip_is_a_400(invoices: list[Invoice]) -> None:
    """NetBox's own BooleanFilter (Django's NullBooleanSelect) reads ``1`` as "unknown": the
    project answered every row, unfiltered; adopted, the client learns what the filter takes."""
    before = send(False, f"{INVOICES}?is_paid=1")
    assert (before[0], len(ids(before[1]))) == (200, 8)
    status, body, _ = send(True, f"{INVOICES}?is_paid=1")
    assert status == 400
    assert body["errors"] == [
        {"parameter": "is_paid", "detail": "is_paid must be one of: true, false.", "code": "invalid"}
    ]


def test_the_document_describes_expand_as_repeatable(invoices: list[Invoice]) -> None:
    with override_settings(**project_settings.after()):
        response = Client().get("/api/schema/", headers={"Accept": "application/json"})
    assert response.status_code == 200
    document = json.loads(response.content)
    parameters = {p["name"]: p for p in document["paths"][INVOICES]["get"]["parameters"]}
    assert parameters["expand"]["schema"] == {"type": "array", "items": {"type": "string"}}
    assert (parameters["expand"]["style"], parameters["expand"]["explode"]) == ("form", True)
    assert parameters["brief"]["schema"] == {"type": "string"}
    assert parameters["paid"]["schema"] == {"type": "boolean"}
