"""The NetBox-shaped project's own error answers once adopted: what its clients read stays.

Each request goes to the project before adoption and after it. Once adopted, an error is a
problem whose ``detail`` is the project's own message (a 404's, an ``error`` member's, a
plain-text 403's); the check-in answer, marked ``keep_error_body``, is sent as the project built
it, its reserved ``status`` member included, with only the trace id header added.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client, override_settings

from testproject.billing.models import Customer, Invoice
from tests.netbox_shaped import project
from tests.netbox_shaped import settings as project_settings

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
INVOICE = "/api/billing/invoices/inv_01/"


def send(adopted: bool, method: str, path: str) -> Any:
    overrides = project_settings.after() if adopted else project_settings.before()
    with override_settings(**overrides):
        return getattr(Client(raise_request_exception=False), method)(path, content_type="application/json")


def both(method: str, path: str) -> tuple[Any, Any]:
    return send(False, method, path), send(True, method, path)


def problem(response: Any, status: int) -> dict[str, Any]:
    assert (response.status_code, response["Content-Type"]) == (status, PROBLEM)
    body: dict[str, Any] = json.loads(response.content)
    assert body["trace_id"] == response["X-Request-ID"]
    return body


@pytest.fixture(autouse=True)
def invoice() -> None:
    alice = Customer.objects.create(email="alice@example.com", name="Alice")
    Invoice.objects.create(id="inv_01", user=alice, amount_due=100, currency="eur", status="open")


def test_a_missing_objects_detail_is_kept() -> None:
    before, after = both("get", "/api/billing/invoices/inv_99/")

    assert json.loads(before.content) == {"detail": "No Invoice matches the given query."}
    assert problem(after, 404)["detail"] == "No Invoice matches the given query."


def test_an_unrouted_api_path_names_no_route() -> None:
    after = send(True, "get", "/api/billing/nowhere/")

    assert problem(after, 404)["detail"] == "No resource matches GET /api/billing/nowhere/."


def test_an_error_member_is_the_detail() -> None:
    before, after = both("post", f"{INVOICE}render-config/")
    message = "Failed to render the configuration: 'site' is undefined."

    assert (before.status_code, json.loads(before.content)) == (400, {"error": message})
    body = problem(after, 400)
    assert body["detail"] == message  # what NetBox's UI shows
    assert body["error"] == message  # what its API clients read


def test_the_check_ins_own_status_member_is_kept() -> None:
    before, after = both("post", f"{INVOICE}check-in/")

    for answer in (before, after):
        assert (answer.status_code, answer["Content-Type"]) == (400, "application/json")
        assert json.loads(answer.content) == project.CHECK_IN_INCOMPLETE
    assert after["X-Request-ID"]


def test_a_plain_text_403_keeps_its_message() -> None:
    before, after = both("post", f"{INVOICE}archive/")

    assert (before.status_code, before.content) == (403, b"Insufficient permissions")
    assert problem(after, 403)["detail"] == "Insufficient permissions"
