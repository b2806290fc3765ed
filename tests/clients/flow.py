"""A consumer's code against the client openapi-python-client generates from the example's document.

tests/test_generated_clients.py generates the client (no generator configuration), installs it
into a fresh virtualenv, checks this file with ``mypy --strict`` and runs it against the live
example service, for each served version: the same code for every version, since operationIds
and tags carry no version. ``openapi.json``, the document the client was generated from, gives
what the generated code does not keep: ``x-idempotency``. Environment: ``SERVICE_URL``;
``ODD_ORDER_ID`` and ``ODD_INVOICE_ID``, rows whose status the document does not list (inserted
directly into the database). The lines between the ``previous_cursor`` markers are left out
when the document's list envelope has no ``previous_cursor``.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
from billing_api_django_api_conventions_example_service_client import Client
from billing_api_django_api_conventions_example_service_client.api.invoices import (
    invoices_create,
    invoices_list,
    invoices_payments_create,
    invoices_retrieve,
)
from billing_api_django_api_conventions_example_service_client.api.orders import orders_retrieve
from billing_api_django_api_conventions_example_service_client.api.users import users_create
from billing_api_django_api_conventions_example_service_client.models import (
    Invoice,
    InvoiceRequest,
    Order,
    OrderStatusEnum,
    PaginatedInvoiceList,
    Payment,
    PaymentRequest,
    Problem,
    User,
    UserRequest,
)
from billing_api_django_api_conventions_example_service_client.types import UNSET, Response, Unset

T = TypeVar("T")


def expect(response: Response[Any], status: int, kind: type[T]) -> T:
    """The parsed body of ``response``, which must have ``status`` and parse into ``kind``."""
    parsed = response.parsed
    if response.status_code != status or not isinstance(parsed, kind):
        raise AssertionError(f"expected {status} {kind.__name__}, got {response.status_code}: {response.content!r}")
    return parsed


def expect_problem(response: Response[Any], status: int, slug: str) -> Problem:
    problem = expect(response, status, Problem)
    if not problem.type_.endswith(f"/problems/{slug}") or problem.status != status or not problem.trace_id:
        raise AssertionError(f"expected the problem {slug}, got {problem.to_dict()}")
    return problem


def keyed_operations(document: dict[str, Any]) -> list[tuple[str, re.Pattern[str], dict[str, Any]]]:
    """Method, path pattern and ``x-idempotency`` of each operation the document marks as keyed."""
    return [
        (method.upper(), re.compile(re.sub(r"\{[^}/]+\}", "[^/]+", route)), operation["x-idempotency"])
        for route, item in document["paths"].items()
        for method, operation in item.items()
        if "x-idempotency" in operation
    ]


def send_keys(document: dict[str, Any]) -> Callable[[httpx.Request], None]:
    """An httpx request hook: a new key on each operation the document marks, unless one is set."""
    keyed = keyed_operations(document)

    def hook(request: httpx.Request) -> None:
        for method, route, extension in keyed:
            if request.method == method and route.fullmatch(request.url.path):
                request.headers.setdefault(extension["header"], str(uuid.uuid4()))

    return hook


def main() -> None:
    client = Client(base_url=os.environ["SERVICE_URL"], headers={"X-Client-ID": f"python-{uuid.uuid4().hex[:8]}"})

    # A user and three invoices.
    user = expect(
        users_create.sync_detailed(
            client=client,
            body=UserRequest(email=f"{uuid.uuid4().hex}@example.com", name="Ada"),
            idempotency_key=str(uuid.uuid4()),
        ),
        201,
        User,
    )
    created = [
        expect(
            invoices_create.sync_detailed(
                client=client,
                body=InvoiceRequest(user_id=user.id, amount_due=100, currency="eur"),
                idempotency_key=str(uuid.uuid4()),
            ),
            201,
            Invoice,
        )
        for _ in range(3)
    ]
    status: str = created[0].status  # a known value or any other string, typed as such
    assert status == "open"

    # Pay with a key, replay it, reuse it for another payment.
    key = str(uuid.uuid4())
    first = invoices_payments_create.sync_detailed(
        created[0].id, client=client, body=PaymentRequest(amount=40, currency="eur"), idempotency_key=key
    )
    payment = expect(first, 201, Payment)
    assert first.headers["Idempotent-Replayed"] == "false"
    again = invoices_payments_create.sync_detailed(
        created[0].id, client=client, body=PaymentRequest(amount=40, currency="eur"), idempotency_key=key
    )
    assert expect(again, 201, Payment).payment_id == payment.payment_id
    assert again.headers["Idempotent-Replayed"] == "true"
    expect_problem(
        invoices_payments_create.sync_detailed(
            created[0].id, client=client, body=PaymentRequest(amount=41, currency="eur"), idempotency_key=key
        ),
        422,
        "idempotency-key-reused",
    )

    # Keys where x-idempotency says, as a generator that reads it sends them; and only there.
    document: dict[str, Any] = json.loads(Path("openapi.json").read_text())
    users = next(route for route in document["paths"] if route.endswith("/users"))
    extension = document["paths"][users]["post"]["x-idempotency"]
    sent: list[httpx.Request] = []
    keying = Client(
        base_url=os.environ["SERVICE_URL"],
        headers={"X-Client-ID": f"python-{uuid.uuid4().hex[:8]}"},
        httpx_args={"event_hooks": {"request": [send_keys(document), sent.append]}},
    )
    made = users_create.sync_detailed(
        client=keying, body=UserRequest(email=f"{uuid.uuid4().hex}@example.com", name="Bo")
    )
    expect(made, 201, User)
    assert made.headers[extension["replayHeaders"][0]] == "false", made.headers
    assert int(made.headers["Idempotency-Retention"]) == extension["retentionSeconds"], made.headers
    retried = keying.get_httpx_client().send(sent[0])  # a retry of the same request, with its key
    assert retried.status_code == 201 and retried.headers["Idempotent-Replayed"] == "true", retried.headers
    assert all(name in retried.headers for name in extension["replayHeaders"]), retried.headers
    expect(invoices_list.sync_detailed(client=keying, user_id=user.id), 200, PaginatedInvoiceList)
    assert [request.headers.get(extension["header"]) is not None for request in sent] == [True, True, False]

    # Walk the user's invoices forward, one per page: newest first.
    pages: list[PaginatedInvoiceList] = []
    cursor: str | None = None
    while True:
        page = expect(
            invoices_list.sync_detailed(
                client=client, user_id=user.id, limit=1, cursor=cursor if cursor is not None else UNSET
            ),
            200,
            PaginatedInvoiceList,
        )
        pages.append(page)
        cursor = page.pagination.next_cursor
        assert page.pagination.has_next is (cursor is not None)
        if cursor is None:
            break
    forward = [invoice.id for page in pages for invoice in page.data]
    assert forward == [invoice.id for invoice in reversed(created)], forward
    # >>> previous_cursor
    # And back from the last page: the same items, in the same order.
    backward: list[str] = []
    previous = pages[-1].pagination.previous_cursor
    while previous is not None:
        page = expect(
            invoices_list.sync_detailed(client=client, user_id=user.id, limit=1, cursor=previous),
            200,
            PaginatedInvoiceList,
        )
        backward = [invoice.id for invoice in page.data] + backward
        previous = page.pagination.previous_cursor
        assert page.pagination.has_previous is (previous is not None)
    assert backward == forward[:-1], (backward, forward)
    # <<< previous_cursor

    # A 400 names the parameter at fault in its errors.
    problem = expect_problem(invoices_list.sync_detailed(client=client, limit=0), 400, "invalid-parameters")
    assert not isinstance(problem.errors, Unset) and problem.errors[0].parameter == "limit", problem.errors

    # A key still running: 409 with Retry-After (the gateway takes PAYMENT_GATEWAY_DELAY_MS).
    busy_key, answers = str(uuid.uuid4()), list[Response[Payment | Problem]]()

    def pay() -> None:
        answers.append(
            invoices_payments_create.sync_detailed(
                created[1].id, client=client, body=PaymentRequest(amount=10, currency="eur"), idempotency_key=busy_key
            )
        )

    runner = threading.Thread(target=pay)
    runner.start()
    time.sleep(0.3)
    pay()
    runner.join()
    in_use = next(answer for answer in answers if answer.status_code == 409)
    expect_problem(in_use, 409, "idempotency-key-in-use")
    assert int(in_use.headers["Retry-After"]) >= 1
    expect(next(answer for answer in answers if answer.status_code != 409), 201, Payment)

    # Statuses the document does not list parse, and are kept as they are.
    order = expect(orders_retrieve.sync_detailed(os.environ["ODD_ORDER_ID"], client=client), 200, Order)
    assert order.status == "returned" and not isinstance(order.status, OrderStatusEnum), order.status
    invoice = expect(invoices_retrieve.sync_detailed(os.environ["ODD_INVOICE_ID"], client=client), 200, Invoice)
    assert invoice.status == "refunded", invoice.status
    listed = expect(invoices_list.sync_detailed(client=client, user_id=invoice.user_id), 200, PaginatedInvoiceList)
    assert [row.status for row in listed.data] == ["refunded"]
    print("python flow: ok")


if __name__ == "__main__":
    main()
