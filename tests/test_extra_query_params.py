"""The parameters a project's serializers and views read (tests/urls_extra_query_params.py):
repeatable ones (``?expand=a&expand=b``), families (``attr[<key>]``), declared on the view or
in ``EXTRA_QUERY_PARAMS``; everything else still a 400; the settings check and the OpenAPI
document."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from rest_framework.test import APIClient

from django_api_conventions import checks
from django_api_conventions.pagination.extra_parameters import extra_parameters_of
from testproject.billing.models import Invoice

from .strict_lists import accepted_names, codes, create_invoices, create_users, errors_of, ok

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_extra_query_params")]

LIST = "/v2/expanding-invoices"
UNFILTERED = "/v2/unfiltered-invoices"


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "extra-params"})


@pytest.fixture
def invoices() -> list[Invoice]:
    return create_invoices(create_users("X"), 4)


def rows(response: Any) -> int:
    assert response.status_code == 200, response.content
    body = response.json()
    return len(body["data"] if isinstance(body, dict) else body)


# --- repeatable ------------------------------------------------------------------------------------


def test_a_repeatable_parameter_is_taken_repeated_on_a_list_and_on_one_resource(
    client: APIClient, invoices: list[Invoice]
) -> None:
    assert rows(client.get(f"{LIST}?expand=user&expand=payments&status=paid&status=open")) == 2
    one = ok(client.get(f"{LIST}/{invoices[0].pk}?expand=user&expand=payments"))
    assert one["id"] == invoices[0].pk


def test_a_parameter_not_declared_repeatable_is_still_sent_once(
    client: APIClient, invoices: list[Invoice], settings: Any
) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "EXTRA_QUERY_PARAMS": ["brief"]}
    assert codes(client.get(f"{LIST}?brief=true&brief=false")) == [("brief", "repeated")]
    assert codes(client.get(f"{LIST}/{invoices[0].pk}?brief=1&brief=0")) == [("brief", "repeated")]
    # A filter of the name the view also declares repeatable keeps the filter's rule.
    assert codes(client.get(f"{LIST}?currency=eur&currency=gbp")) == [("currency", "repeated")]


def test_the_setting_declares_repeatable_parameters_and_families(
    client: APIClient, invoices: list[Invoice], settings: Any
) -> None:
    assert codes(client.get(f"{UNFILTERED}?include=a&include=b&meta[x]=1")) == [
        ("include", "unknown"),
        ("meta[x]", "unknown"),
    ]
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "EXTRA_QUERY_PARAMS": [{"name": "include", "repeatable": True}, "meta[*]"],
    }
    assert rows(client.get(f"{UNFILTERED}?include=a&include=b&meta[x]=1&meta[y]=2")) == 4
    assert codes(client.get(f"{UNFILTERED}?meta[x]=1&meta[x]=2&other=1")) == [
        ("meta[x]", "repeated"),
        ("other", "unknown"),
    ]


# --- families ------------------------------------------------------------------------------------


def test_a_family_takes_each_key_once(client: APIClient, invoices: list[Invoice]) -> None:
    assert rows(client.get(f"{LIST}?attr[color]=red&attr[size]=10&status=paid")) == 1
    assert codes(client.get(f"{LIST}?attr[color]=red&attr[color]=blue")) == [("attr[color]", "repeated")]
    assert ok(client.get(f"{LIST}/{invoices[0].pk}?attr[color]=red"))["id"] == invoices[0].pk


def test_a_repeatable_family_takes_each_key_repeated(client: APIClient, invoices: list[Invoice]) -> None:
    assert rows(client.get(f"{LIST}?tag[env]=prod&tag[env]=staging&tag[team]=a")) == 4


@pytest.mark.parametrize("name", ["attr", "attr[]", "attr[a][b]", "attr[a", "attrs[a]", "attr[*]x", "xattr[a]"])
def test_a_name_outside_the_family_is_unknown(client: APIClient, invoices: list[Invoice], name: str) -> None:
    errors = errors_of(client.get(LIST, {name: "1"}))
    assert [(e["parameter"], e["code"]) for e in errors] == [(name, "unknown")]
    assert accepted_names(errors[0])[-4:] == ["expand", "attr[*]", "tag[*]", "currency"]


# --- declarations ----------------------------------------------------------------------------------


class _View:
    def __init__(self, *entries: Any) -> None:
        self.extra_query_params = entries


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("", "a name is not empty"),
        ("[*]", "a name is not empty"),
        ("attr[*][*]", "is no name nor family"),
        ("at*", "is no name nor family"),
        ("attr[x]", "is no name nor family"),
        ({"name": "expand", "repeat": True}, "a dict takes name, repeatable and description, not repeat"),
        ({"name": "expand", "repeatable": "yes"}, "repeatable is True or False"),
        ({"repeatable": True}, "a dict has a name, a string"),
        ({"name": "expand", "description": 3}, "description is a string"),
        (("expand", True), "an entry is a name"),
    ],
)
def test_a_wrong_entry_fails_the_settings_check_and_the_view(entry: Any, reason: str) -> None:
    with override_settings(API_CONVENTIONS={"EXTRA_QUERY_PARAMS": ["brief", entry]}):
        (message,) = checks.settings.check_settings()
    assert message.id == "django_api_conventions.E003"
    assert message.msg.startswith("API_CONVENTIONS['EXTRA_QUERY_PARAMS'] must be a list whose entries are each")
    assert reason in message.msg and message.msg.endswith(f", not {entry!r}.")
    with pytest.raises(ImproperlyConfigured, match="each entry is a name"):
        extra_parameters_of(_View(entry), [])


def test_the_settings_check_takes_every_shape() -> None:
    shapes = [
        "brief",
        "attr[*]",
        {"name": "expand", "repeatable": True, "description": "Related objects to embed."},
        {"name": "tag[*]"},
    ]
    with override_settings(API_CONVENTIONS={"EXTRA_QUERY_PARAMS": shapes}):
        assert checks.settings.check_settings() == []
    with override_settings(API_CONVENTIONS={"EXTRA_QUERY_PARAMS": "brief"}):
        assert [m.id for m in checks.settings.check_settings()] == ["django_api_conventions.E003"]


def test_the_views_own_entry_wins_over_the_settings() -> None:
    read = extra_parameters_of(_View({"name": "expand", "repeatable": True}), ["expand", "brief"])
    assert read.names == ("expand", "brief") and read.repeatable == {"expand"}


# --- OpenAPI ---------------------------------------------------------------------------------------


@pytest.fixture
def schema(settings: Any) -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "EXTRA_QUERY_PARAMS": ["brief"]}
    generator = SchemaGenerator(urlconf="tests.urls_extra_query_params", api_version="v2")
    return generator.get_schema(request=None, public=True)  # type: ignore[no-any-return]


def _query_parameters(schema: dict[str, Any], path: str, method: str) -> dict[str, dict[str, Any]]:
    operation = schema["paths"][path][method]
    return {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "query"}


def test_the_document_describes_them_on_every_operation_that_checks_them(schema: dict[str, Any]) -> None:
    for path, method in [(LIST, "get"), (LIST + "/{id}", "get"), (UNFILTERED, "get")]:
        parameters = _query_parameters(schema, path, method)
        assert parameters["brief"] == {"name": "brief", "in": "query", "required": False, "schema": {"type": "string"}}
    parameters = _query_parameters(schema, LIST, "get")
    assert parameters["expand"] == {
        "name": "expand",
        "in": "query",
        "required": False,
        "description": "Related objects to embed.",
        "schema": {"type": "array", "items": {"type": "string"}},
        "style": "form",
        "explode": True,
    }
    assert parameters["attr"] == {
        "name": "attr",
        "in": "query",
        "required": False,
        "style": "deepObject",
        "explode": True,
        "schema": {"type": "object", "additionalProperties": {"type": "string"}},
    }
    assert parameters["tag"]["schema"] == {
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    }
    # The filter of the same name stays the filter.
    assert parameters["currency"]["schema"] == {"type": "string", "minLength": 1}
    # The search reads its body: no query parameter there.
    assert _query_parameters(schema, LIST + "/search", "post") == {}
