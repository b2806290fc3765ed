"""A NetBox-shaped project adopts the package per ``docs/adopting.md``, and answers as before
but for the changes the package means.

Every test sends the same requests to the project before adoption (plain DRF settings,
:func:`tests.netbox_shaped.settings.before`) and after it
(:func:`tests.netbox_shaped.settings.after`), and compares. The intended changes: an unknown
query parameter is a 400 problem where the project ignored it; a broken business rule is a 422
where DRF said 400; errors are problems (RFC 9457), which keep what the project's own bodies
said; ``/api/`` paths answer problems where the project's HTML 404 page answered; a keyed
``POST`` runs once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.test import Client, override_settings

from testproject.billing.models import Customer, Invoice
from tests.netbox_shaped import project
from tests.netbox_shaped import settings as project_settings

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
INVOICES = "/api/billing/invoices/"
TENANTS = "/api/tenancy/tenants/"


class Answer:
    """What one request got: status, headers, the body as sent and parsed."""

    def __init__(self, response: Any) -> None:
        self.status = response.status_code
        self.content: bytes = response.content
        self.headers = response.headers
        self.response = response

    @property
    def body(self) -> Any:
        return json.loads(self.content)


def send(adopted: bool, method: str, path: str, body: Any = None, **headers: str) -> Answer:
    """``method path`` sent to the project before or after adoption."""
    overrides = project_settings.after() if adopted else project_settings.before()
    with override_settings(**overrides):
        client = Client(raise_request_exception=False)
        extra: dict[str, Any] = {"headers": headers}
        if body is not None:
            extra.update(data=json.dumps(body), content_type="application/json")
        return Answer(getattr(client, method.lower())(path, **extra))


def both(method: str, path: str, body: Any = None, **headers: str) -> tuple[Answer, Answer]:
    return send(False, method, path, body, **headers), send(True, method, path, body, **headers)


@pytest.fixture(autouse=True)
def _forget_what_was_seen() -> Iterator[None]:
    project.SEEN.clear()
    yield
    project.SEEN.clear()


@pytest.fixture
def invoices() -> list[Invoice]:
    alice = Customer.objects.create(email="alice@example.com", name="Alice")
    bob = Customer.objects.create(email="bob@example.com", name="Bob")
    made = [
        Invoice.objects.create(
            id=f"inv_{n:02}",
            user=alice if n % 2 else bob,
            amount_due=100 * n,
            currency="eur" if n % 3 else "usd",
            status="open" if n % 4 else "paid",
        )
        for n in range(1, 9)
    ]
    return made


@pytest.fixture
def changes(invoices: list[Invoice]) -> list[LogEntry]:
    """A change log with integer keys: two users, entries with and without an object type."""
    users = [User.objects.create(username=name) for name in ("ada", "grace")]
    invoice_type = ContentType.objects.get_for_model(Invoice)
    return [
        LogEntry.objects.create(
            user=users[n % 2],
            content_type=invoice_type if n % 3 else None,
            object_repr=f"change {n}",
            action_flag=1 + n % 3,
        )
        for n in range(6)
    ]


# What stays as it was.

UNCHANGED = [
    "/api/",
    INVOICES,
    f"{INVOICES}?format=json",
    "/api/billing/invoices.json",
    f"{INVOICES}?limit=0",  # DRF's paginator forgives what it cannot read
    f"{INVOICES}?limit=1000",
    f"{INVOICES}?offset=abc",
    f"{INVOICES}?ordering=bogus",  # as OrderingFilter does
    f"{INVOICES}?limit=3",
    f"{INVOICES}?limit=3&offset=2",
    f"{INVOICES}?limit=2&start=4",  # the paginator's own parameter
    f"{INVOICES}?brief=true",
    f"{INVOICES}?brief=1&limit=2",
    f"{INVOICES}?fields=id,currency",
    f"{INVOICES}?omit=amount_due,user",
    f"{INVOICES}?ordering=-amount_due",  # OrderingFilter, after the strict backend
    f"{INVOICES}?ordering=amount_due&limit=2&offset=1",
    f"{INVOICES}?tenant_id=null",  # django-filter's null value
    f"{INVOICES}?status=paid",
    f"{INVOICES}?status=paid&status=open&ordering=-id",
    f"{INVOICES}?currency=usd",
    f"{INVOICES}?q=inv_0",
    f"{INVOICES}inv_02/",
    f"{INVOICES}inv_02/?brief=true",
    TENANTS,
    f"{TENANTS}?brief=true&ordering=-name",
    f"{TENANTS}?name=Alice",
]


@pytest.mark.parametrize("path", UNCHANGED)
def test_reads_answer_as_before(invoices: list[Invoice], path: str) -> None:
    before, after = both("GET", path)
    assert before.status == 200, before.content
    assert (after.status, after.body) == (before.status, before.body)
    assert after.headers["Content-Type"] == before.headers["Content-Type"]


CHANGES = "/api/core/object-changes/"


@pytest.mark.parametrize(
    "query",
    [
        "changed_object_type_id=null",  # django-filter's null value, on an integer key
        "changed_object_type_id={type}",
        "user_id={ada}",
        "user_id={ada}&user_id={grace}",  # several values, repeated
        "user_id={ada}&action_flag=2&ordering=-id&brief=true",
    ],
)
def test_integer_keys_filter_as_before(changes: list[LogEntry], query: str) -> None:
    path = f"{CHANGES}?" + query.format(
        type=ContentType.objects.get_for_model(Invoice).id, ada=changes[0].user_id, grace=changes[1].user_id
    )
    before, after = both("GET", path)
    assert before.status == 200 and 0 < before.body["count"] <= len(changes), before.content
    assert (after.status, after.body) == (before.status, before.body)


def test_the_tenant_filter_takes_a_key_as_before(invoices: list[Invoice]) -> None:
    path = f"{INVOICES}?tenant_id={invoices[0].user_id}"
    before, after = both("GET", path)
    assert before.status == 200 and before.body["count"] == 4
    assert (after.status, after.body) == (before.status, before.body)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("OPTIONS", INVOICES, None),
        ("PATCH", f"{INVOICES}inv_02/", {"status": "paid"}),
        ("POST", f"{INVOICES}inv_02/set-status/", {"status": "void"}),
    ],
)
def test_other_methods_answer_as_before(invoices: list[Invoice], method: str, path: str, body: Any) -> None:
    before = send(False, method, path, body)
    Invoice.objects.filter(id="inv_02").update(status="open")
    after = send(True, method, path, body)
    assert before.status == 200, before.content
    assert (after.status, after.body) == (before.status, before.body)


def test_a_valid_write_answers_as_before(invoices: list[Invoice]) -> None:
    for adopted in (False, True):
        body = {"user": invoices[0].user_id, "amount_due": 5, "currency": "eur", "status": "open"}
        answer = send(adopted, "POST", INVOICES, body)
        assert answer.status == 201, answer.content
        assert answer.body == {**body, "id": answer.body["id"]}
        # MultiPartParser, kept after the strict JSON parser.
        with override_settings(**(project_settings.after() if adopted else project_settings.before())):
            form = Client().post(INVOICES, {**body, "amount_due": 6})
        assert (form.status_code, form.json()["amount_due"]) == (201, 6)


# What the package means to change.


def test_an_unknown_parameter_is_a_400_problem_where_it_was_ignored(invoices: list[Invoice]) -> None:
    before, after = both("GET", f"{INVOICES}?foo=bar")
    assert before.status == 200 and before.body["count"] == len(invoices)  # the whole list
    assert (after.status, after.headers["Content-Type"]) == (400, PROBLEM)
    assert after.body["type"].endswith("/problems/invalid-parameters")
    assert [item["parameter"] for item in after.body["errors"]] == ["foo"]


@pytest.mark.parametrize("query", ["tenant_id=usr_nonexistent", "status=bogus"])
def test_a_filter_value_refused_is_a_400_problem_naming_it(invoices: list[Invoice], query: str) -> None:
    before, after = both("GET", f"{INVOICES}?{query}")
    name = query.split("=")[0]
    assert before.status == 400 and list(before.body) == [name]
    assert (after.status, after.headers["Content-Type"]) == (400, PROBLEM)
    assert [item["parameter"] for item in after.body["errors"]] == [name]


def test_a_broken_business_rule_is_a_422_problem_with_the_same_messages(invoices: list[Invoice]) -> None:
    body = {"user": invoices[0].user_id, "amount_due": 5, "currency": "EUR"}
    before, after = both("POST", INVOICES, body)
    assert (before.status, before.body) == (400, {"currency": ["Write the currency in lower case."]})
    assert (after.status, after.headers["Content-Type"]) == (422, PROBLEM)
    assert after.body["errors"] == [
        {"pointer": "/currency", "detail": "Write the currency in lower case.", "code": "invalid"}
    ]


def test_a_blocked_delete_keeps_its_detail(invoices: list[Invoice]) -> None:
    before, after = both("DELETE", f"{TENANTS}{invoices[0].user_id}/")
    detail = "Unable to delete object. 4 dependent objects were found: inv_01, inv_03, inv_05, inv_07"
    assert (before.status, before.body) == (409, {"detail": detail})
    assert (after.status, after.headers["Content-Type"]) == (409, PROBLEM)
    assert after.body["detail"] == detail
    assert after.body["type"].endswith("/problems/conflict")
    # Tests written against DRF read response.data: the problem is there too.
    assert after.response.data["detail"] == detail
    assert Customer.objects.filter(id=invoices[0].user_id).exists()


def test_field_messages_built_by_hand_become_errors_items(invoices: list[Invoice]) -> None:
    before, after = both("POST", f"{INVOICES}inv_02/set-status/", {"status": "bogus"})
    assert (before.status, before.body) == (400, {"status": ["bogus is not a valid choice."]})
    assert (after.status, after.headers["Content-Type"]) == (400, PROBLEM)
    assert after.body["errors"] == [{"pointer": "/status", "detail": "bogus is not a valid choice.", "code": "invalid"}]
    assert after.response.data == after.body


def test_a_missing_object_is_a_problem(invoices: list[Invoice]) -> None:
    before, after = both("GET", f"{INVOICES}inv_99/")
    assert (before.status, before.body) == (404, {"detail": "No Invoice matches the given query."})
    assert (after.status, after.headers["Content-Type"]) == (404, PROBLEM)


# The project's request id: one id for the change log, the client, the problem and the logs.


def _request_ids() -> list[str]:
    return [str(value) for name, value in project.SEEN if name == "request_id"]


@pytest.mark.parametrize(
    ("method", "path", "before_status", "status"),
    [
        ("GET", INVOICES, 200, 200),
        ("GET", f"{INVOICES}?foo=bar", 200, 400),
        ("POST", f"{INVOICES}inv_01/set-status/", 400, 400),
        ("GET", f"{INVOICES}report/", 500, 500),
    ],
)
def test_the_projects_request_id_is_the_one_everywhere(
    invoices: list[Invoice],
    caplog: pytest.LogCaptureFixture,
    method: str,
    path: str,
    before_status: int,
    status: int,
) -> None:
    body = {"status": "bogus"} if method == "POST" else None
    before = send(False, method, path, body)
    assert before.status == before_status
    assert [before.headers["X-Request-ID"]] == _request_ids()
    project.SEEN.clear()
    with caplog.at_level(logging.INFO, logger="django_api_conventions"):
        after = send(True, method, path, body)
    assert after.status == status
    (project_id,) = _request_ids()  # one id for the request
    assert after.headers["X-Request-ID"] == project_id
    if status >= 400:
        assert after.body["trace_id"] == project_id
        assert after.body["instance"] == f"urn:request:{project_id}"
        logged = [record for record in caplog.records if record.name == "django_api_conventions.problems"]
        assert [record.trace_id for record in logged] == [project_id]  # type: ignore[attr-defined]


# The project's own error pages outside the API; problems on it.


def test_a_page_that_does_not_exist_is_the_projects_html_page() -> None:
    before, after = both("GET", "/no/such/page")
    assert before.status == after.status == 404
    assert after.content == before.content == b"<html><body>The project's page: not found</body></html>"
    assert after.headers["Content-Type"].startswith("text/html")
    assert project.SEEN.count(("404", "/no/such/page")) == 2  # its handler ran both times


def test_a_failing_page_is_the_projects_html_500() -> None:
    before, after = both("GET", "/ui/crash")
    assert before.status == after.status == 500
    assert after.content == before.content == b"<html><body>The project's page: RuntimeError</body></html>"
    assert [type(error) for name, error in project.SEEN if name == "500"] == [RuntimeError, RuntimeError]


@pytest.mark.parametrize(("path", "status"), [("/api/no/such/thing", 404), (f"{INVOICES}report/", 500)])
def test_on_the_api_a_problem_answers_instead_of_the_html_page(path: str, status: int) -> None:
    before, after = both("GET", path)
    assert before.status == after.status == status
    assert before.headers["Content-Type"].startswith("text/html")
    assert after.headers["Content-Type"] == PROBLEM
    assert b"RuntimeError" not in after.content and b"a bug" not in after.content


# The project's schema class, with the package's problem responses.


def test_the_openapi_document_is_served_with_shared_problem_responses() -> None:
    before, after = both("GET", "/api/schema/?format=json")
    assert before.status == 200, before.content
    assert after.status == 200, after.content
    document = after.body
    assert document["paths"].keys() == before.body["paths"].keys()
    # The project's Decimal default: the package writes a request's default into its description.
    weight = document["components"]["schemas"]["InvoiceRequest"]["properties"]["weight"]
    assert before.body["components"]["schemas"]["InvoiceRequest"]["properties"]["weight"]["default"] == 0.0
    assert "Default: `0.0`." in weight["description"]
    # The filters, the one on a field the model lacks included, and the paginator's parameters.
    names = {parameter["name"] for parameter in document["paths"][INVOICES]["get"]["parameters"]}
    before_names = {parameter["name"] for parameter in before.body["paths"][INVOICES]["get"]["parameters"]}
    assert before_names <= names
    assert {"tenant_id", "cable_end", "q", "ordering", "limit", "offset"} <= names
    # Problem responses are components, referenced by each operation, not copied into it.
    shared = document["components"]["responses"]
    operations = [operation for methods in document["paths"].values() for operation in methods.values()]
    problems = [
        response
        for operation in operations
        for status, response in operation["responses"].items()
        if int(status) >= 400
    ]
    assert problems and all(response["$ref"].rsplit("/", 1)[-1] in shared for response in problems)
    assert len(shared) < len(problems)


# Idempotency on the base viewset.


@pytest.mark.django_db(transaction=True)
def test_a_keyed_post_runs_once_and_replays_byte_identical(invoices: list[Invoice]) -> None:
    body = {"user": invoices[0].user_id, "amount_due": 7, "currency": "eur"}
    key = {"Idempotency-Key": "2f1d7c4e-netbox-shaped"}
    Invoice.objects.filter(amount_due=7).delete()
    first, replay = send(True, "POST", INVOICES, body, **key), send(True, "POST", INVOICES, body, **key)
    assert first.status == replay.status == 201
    assert replay.content == first.content
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert Invoice.objects.filter(amount_due=7).count() == 1
    other = send(True, "POST", INVOICES, {**body, "amount_due": 8}, **key)
    assert (other.status, other.headers["Content-Type"]) == (422, PROBLEM)
    # Before adoption the key meant nothing: each POST made an invoice.
    send(False, "POST", INVOICES, body, **key)
    send(False, "POST", INVOICES, body, **key)
    assert Invoice.objects.filter(amount_due=7).count() == 3
