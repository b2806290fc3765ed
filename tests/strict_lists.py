"""What the tests of strict lists share: their invoices, and reading their answers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from testproject.billing.models import Customer, Invoice

START = datetime(2026, 1, 1, tzinfo=UTC)
STATUSES = ["draft", "open", "paid", "void"]
CURRENCIES = ["eur", "usd", "gbp"]


def create_users(prefix: str, count: int = 2) -> list[Customer]:
    return [Customer.objects.create(email=f"{prefix}{i}@example.com", name=f"{prefix}{i}") for i in range(count)]


def create_invoices(
    users: Sequence[Customer],
    count: int,
    *,
    every: timedelta = timedelta(hours=1),
    statuses: Sequence[str] = STATUSES,
    currencies: Sequence[str] = CURRENCIES,
) -> list[Invoice]:
    """``count`` invoices from :data:`START`, one ``every`` apart, the users, statuses and
    currencies in turn, ``amount_due`` 100, 101, ..."""
    return [
        Invoice.objects.create(
            user=users[i % len(users)],
            amount_due=100 + i,
            currency=currencies[i % len(currencies)],
            status=statuses[i % len(statuses)],
            created_at=START + every * i,
        )
        for i in range(count)
    ]


def newest_first(rows: list[Invoice]) -> list[str]:
    return [r.pk for r in sorted(rows, key=lambda r: (r.created_at, r.pk), reverse=True)]


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content
    return response.json()  # type: ignore[no-any-return]


def errors_of(response: Any, status: int = 400) -> list[dict[str, Any]]:
    """The ``errors`` of a problem answer of ``status``."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    return response.json()["errors"]  # type: ignore[no-any-return]


def codes(response: Any) -> list[tuple[str, str]]:
    """Each parameter a 400 names, with its code."""
    return [(item["parameter"], item["code"]) for item in errors_of(response)]


def accepted_names(error: dict[str, Any]) -> list[str]:
    """The names an "Unknown parameter" error lists."""
    return error["detail"].removeprefix("Unknown parameter. Accepted: ").rstrip(".").split(", ")  # type: ignore[no-any-return]
