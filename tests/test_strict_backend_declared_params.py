"""StrictFilterBackend in a NetBox-shaped project (tests/urls_strict_backend_declared_params.py):
every query parameter the view declares is accepted (its paginator's whatever its class, its
other filter backends', the project's own names), anything else stays a 400; django-filter's
null values and multi-value filters keep working; the backend honours django-filter's hooks and
builds the FilterSet once; a filter the package cannot type leaves the OpenAPI document to
drf-spectacular's description; check W040 names the strict views that bypass the backend."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from django_api_conventions.pagination.checks import check_filter_backends
from testproject.billing.models import Invoice

from .strict_lists import accepted_names, codes, create_invoices, create_users, errors_of, ok
from .urls_strict_backend_declared_params import ProjectFilterSet

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_strict_backend_declared_params")]

LIST = "/v2/netbox-invoices"


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "netbox-shaped"})


@pytest.fixture
def invoices() -> list[Invoice]:
    return create_invoices(create_users("N"), 12)


# --- the parameters the view declares ------------------------------------------------------------


def test_the_paginators_backends_and_projects_parameters_are_accepted(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    body = ok(
        client.get(
            LIST,
            {
                "limit": 3,
                "offset": 3,
                "ordering": "amount_due",
                "brief": "true",
                "fields": "id",
                "omit": "x",
                "exclude": "y",
            },
        )
    )
    assert [sorted(item) for item in body["results"]] == [["id", "status"]] * 3  # brief, read by the viewset
    ordered = ok(client.get(LIST, {"limit": 3, "start": 2, "ordering": "-amount_due"}))["results"]
    assert [item["amount_due"] for item in ordered] == [109, 108, 107]


def test_anything_else_is_a_400_listing_what_the_view_declares(client: APIClient, invoices: list[Invoice]) -> None:
    errors = errors_of(client.get(LIST, {"statuz": "open", "ordering": "amount_due"}))
    assert [(e["parameter"], e["code"]) for e in errors] == [("statuz", "unknown")]
    assert accepted_names(errors[0]) == [
        "owner_id",
        "user",
        "status",
        "currency",
        "user_email",
        "amount_due",
        "limit",
        "offset",
        "start",
        "ordering",
        "brief",
        "fields",
        "omit",
        "exclude",
    ]
    # One format: ?format=json works, and the list does not offer it.
    assert ok(client.get(LIST, {"format": "json"}))["count"] == 12


def test_the_project_names_parameters_in_a_setting_too(
    client: APIClient,
    invoices: list[Invoice],
    settings: Any,
) -> None:
    assert errors_of(client.get("/v2/plain-invoices", {"brief": "true"}))[0]["parameter"] == "brief"
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "EXTRA_QUERY_PARAMS": ["brief"]}
    assert ok(client.get("/v2/plain-invoices", {"brief": "true"}))["count"] == 12
    assert errors_of(client.get("/v2/plain-invoices", {"fields": "id"}))[0]["parameter"] == "fields"


def test_one_resource_takes_the_projects_parameters_not_the_lists(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    assert ok(client.get(f"{LIST}/{invoices[0].pk}", {"brief": "true"}))["id"] == invoices[0].pk
    errors = errors_of(client.get(f"{LIST}/{invoices[0].pk}", {"ordering": "amount_due"}))
    assert errors[0]["detail"] == "Unknown parameter. Accepted: brief, fields, omit, exclude."


# --- django-filter's values ---------------------------------------------------------------------


def test_django_filters_null_value_is_a_value(client: APIClient, invoices: list[Invoice]) -> None:
    assert ok(client.get(LIST, {"owner_id": "null"}))["count"] == 0
    assert ok(client.get(LIST, {"user": "null"}))["count"] == 0
    # Anything else than the null value still has to be a key.
    assert errors_of(client.get(LIST, {"owner_id": ["null", "999"]}))[0]["detail"].startswith("owner_id: Select")
    assert (
        errors_of(client.get(LIST, {"owner_id": "nul"}))[0]["detail"] == "owner_id must be an integer in ASCII digits."
    )


def test_multi_value_filters_take_repeated_parameters_single_ones_do_not(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    both = ok(client.get(LIST, {"currency": ["eur", "gbp"], "status": ["draft", "paid"]}))["results"]
    expected = [i for i in invoices if i.currency in ("eur", "gbp") and i.status in ("draft", "paid")]
    assert sorted(item["id"] for item in both) == sorted(i.pk for i in expected) and expected
    assert codes(client.get(LIST, {"amount_due": ["100", "101"]})) == [("amount_due", "repeated")]


def test_a_key_that_is_no_field_of_the_model_filters_as_django_filter_does(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    rows = ok(client.get(LIST, {"user_email": "n0@EXAMPLE.com"}))["results"]
    assert {item["id"] for item in rows} == {i.pk for i in invoices if i.user.email == "N0@example.com"}
    assert (
        errors_of(client.get(LIST, {"user_email": " n0@example.com"}))[0]["detail"]
        == "user_email must not start or end with white space."
    )


# --- django-filter's hooks, one FilterSet a request ---------------------------------------------


def test_the_backends_filterset_kwargs_reach_the_one_filterset_of_the_request(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    ProjectFilterSet.built = 0
    # The backend's scope="project" keeps the rows; without it the FilterSet would answer none.
    assert ok(client.get(LIST, {"status": "open", "limit": 50}))["count"] == 3
    assert ProjectFilterSet.built == 1


# --- OpenAPI --------------------------------------------------------------------------------------


def test_a_filter_the_package_cannot_type_is_drf_spectaculars() -> None:
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    generator = SchemaGenerator(urlconf="tests.urls_strict_backend_declared_params", api_version="v2")
    schema = generator.get_schema(request=None, public=True)
    parameters = {p["name"]: p for p in schema["paths"]["/v2/netbox-invoices"]["get"]["parameters"]}
    assert parameters["user_email"]["schema"] == {"type": "string"}  # drf-spectacular's, from the model
    assert parameters["owner_id"]["schema"] == {
        "type": "array",
        "items": {"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["null"]}]},
    }
    assert parameters["amount_due"]["schema"] == {"type": "integer"}
    warnings = [message for message in GENERATOR_STATS._warn_cache if "user_email" in message]
    assert warnings and "cannot type this filter" in warnings[0]


# --- check W040 ---------------------------------------------------------------------------------


def test_the_check_names_each_strict_view_whose_own_backends_bypass_the_strict_one() -> None:
    warnings = check_filter_backends()
    assert [(w.id, w.msg.split(" ")[0]) for w in warnings] == [
        ("django_api_conventions.W040", "BypassingInvoices"),
        ("django_api_conventions.W040", "UnfilteredInvoices"),
    ]
    assert "own filter_backends (DjangoFilterBackend, OrderingFilter) leave out StrictFilterBackend" in warnings[0].msg
    assert "(DjangoFilterBackend, OrderingFilter)" not in warnings[1].msg
