"""A boolean filter takes what its django-filter widget reads as that boolean
(tests/urls_extra_query_params.py): ``1``/``0`` and any letter case with django-filter's DRF
``BooleanFilter``; ``True``/``False`` with its own ``BooleanFilter`` (Django's
``NullBooleanSelect``, which reads ``1`` as no filter at all); what a widget would read as no
filter or as the wrong boolean stays a 400."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from testproject.billing.models import Invoice

from .strict_lists import create_invoices, create_users, errors_of

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_extra_query_params")]

LIST = "/v2/expanding-invoices"


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "boolean-filters"})


@pytest.fixture
def invoices() -> list[Invoice]:
    rows = create_invoices(create_users("B"), 5)
    Invoice.objects.filter(pk__in=[rows[0].pk, rows[1].pk]).update(status=Invoice.Status.PAID)
    Invoice.objects.exclude(pk__in=[rows[0].pk, rows[1].pk]).update(status=Invoice.Status.OPEN)
    return rows


def statuses(client: APIClient, query: str) -> list[str]:
    response = client.get(f"{LIST}?{query}")
    assert response.status_code == 200, response.content
    return sorted(row["status"] for row in response.json()["data"])


PAID = ["paid", "paid"]
UNPAID = ["open", "open", "open"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("paid=1", PAID),
        ("paid=0", UNPAID),
        ("paid=true", PAID),
        ("paid=false", UNPAID),
        ("paid=True", PAID),
        ("paid=FALSE", UNPAID),
        ("settled=true", PAID),
        ("settled=False", UNPAID),
        ("only_paid=1", PAID),
        ("only_paid=true", PAID),
        ("only_paid=false", [*UNPAID, *PAID]),
    ],
)
def test_a_boolean_its_widget_reads_filters_as_with_django_filter(
    client: APIClient, invoices: list[Invoice], query: str, expected: list[str]
) -> None:
    assert statuses(client, query) == sorted(expected)


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("paid=maybe", "paid must be one of: true, false, 1, 0."),
        ("paid=yes", "paid must be one of: true, false, 1, 0."),
        ("paid=2", "paid must be one of: true, false, 1, 0."),
        ("paid=%201", "paid must not start or end with white space."),
        ("paid=", "paid must not be empty."),
        # NullBooleanSelect reads 1 and 0 as "unknown": django-filter would not filter at all.
        ("settled=1", "settled must be one of: true, false."),
        ("settled=0", "settled must be one of: true, false."),
        # ... and 2 and 3 as true and false, for forms of Django 2.1: not a boolean's spelling.
        ("settled=2", "settled must be one of: true, false."),
        ("settled=TRUE", "settled must be one of: true, false."),
        # CheckboxInput reads any text as true, 0 included.
        ("only_paid=0", "only_paid must be one of: true, false, 1."),
        ("only_paid=no", "only_paid must be one of: true, false, 1."),
    ],
)
def test_anything_else_is_a_400_listing_what_the_filter_takes(
    client: APIClient, invoices: list[Invoice], query: str, detail: str
) -> None:
    name = query.split("=")[0]
    assert errors_of(client.get(f"{LIST}?{query}")) == [{"parameter": name, "detail": detail, "code": "invalid"}]


def test_the_search_body_takes_the_same_spellings(client: APIClient, invoices: list[Invoice]) -> None:
    def search(body: dict[str, Any]) -> Any:
        return client.post(f"{LIST}/search", body, format="json")

    response = search({"any": [{"paid": "1"}]})
    assert response.status_code == 200, response.content
    assert sorted(row["status"] for row in response.json()["data"]) == PAID
    response = search({"any": [{"paid": True}, {"settled": "false"}]})
    assert response.status_code == 200, response.content
    assert len(response.json()["data"]) == 5
    errors = errors_of(search({"any": [{"settled": 1}]}), 422)
    assert errors == [
        {"pointer": "/any/0/settled", "detail": "settled must be one of: true, false.", "code": "invalid"}
    ]
