"""The extension points DRF users expect: a paginator's own parameter names and limits, and
``get_filterset_class()`` choosing the filters per action (tests/urls_pagination_names.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from rest_framework.test import APIClient

from testproject.billing.models import Invoice

from .strict_lists import create_invoices, create_users, errors_of, newest_first

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_pagination_names")]


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "extension-points"})


@pytest.fixture
def invoices() -> list[Invoice]:
    return create_invoices(
        create_users("x"), 23, every=timedelta(minutes=1), statuses=["draft", "open"], currencies=["eur"]
    )


# --- renamed parameters, own limits --------------------------------------------------------------


def test_default_limit_of_the_class_and_next_link_with_the_cursor_parameter(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    response = client.get("/v2/renamed", {"status": "draft,open"})
    body = response.json()
    assert body["pagination"]["limit"] == 5 and len(body["data"]) == 5
    url, rel = response["Link"].split(">; ")
    assert rel == 'rel="next"'
    assert parse_qs(urlsplit(url.lstrip("<")).query) == {
        "after": [body["pagination"]["next_cursor"]],
        "status": ["draft,open"],
    }


def test_walking_the_pages_with_the_renamed_parameters(client: APIClient, invoices: list[Invoice]) -> None:
    ids: list[str] = []
    cursor = None
    while True:
        body = client.get("/v2/renamed", {"page_size": 10, **({"after": cursor} if cursor else {})}).json()
        assert body["pagination"]["limit"] == 10
        ids.extend(item["id"] for item in body["data"])
        cursor = body["pagination"]["next_cursor"]
        if cursor is None:
            break
    assert ids == newest_first(invoices)


@pytest.mark.parametrize("value", ["11", "0", "05"])
def test_a_page_size_beyond_the_class_max_limit_names_the_parameter(client: APIClient, value: str) -> None:
    [error] = errors_of(client.get("/v2/renamed", {"page_size": value}))
    assert error["parameter"] == "page_size"
    assert error["detail"].startswith("page_size must be an integer from 1 to 10")


def test_the_old_names_are_undeclared_parameters(client: APIClient) -> None:
    errors = errors_of(client.get("/v2/renamed", {"cursor": "x", "limit": "5"}))
    assert {error["parameter"] for error in errors} == {"cursor", "limit"}
    assert all(error["code"] == "unknown" for error in errors)
    accepted = errors[0]["detail"]
    assert "after" in accepted and "page_size" in accepted, accepted


def test_a_bad_cursor_names_the_cursor_parameter(client: APIClient) -> None:
    response = client.get("/v2/renamed", {"after": "not-a-cursor"})
    assert response.json()["type"].endswith("/invalid-cursor")
    assert [error["parameter"] for error in errors_of(response)] == ["after"]


def test_the_search_body_uses_the_renamed_members(client: APIClient, invoices: list[Invoice]) -> None:
    first = client.post("/v2/renamed/search", {"any": [{"status": "draft"}], "page_size": 3}, format="json").json()
    assert first["pagination"]["limit"] == 3
    rest = client.post(
        "/v2/renamed/search",
        {"any": [{"status": "draft"}], "page_size": 3, "after": first["pagination"]["next_cursor"]},
        format="json",
    )
    assert rest.status_code == 200, rest.content
    assert not {item["id"] for item in first["data"]} & {item["id"] for item in rest.json()["data"]}
    refused = client.post(
        "/v2/renamed/search", {"any": [{"status": "draft"}], "limit": 3, "page_size": 11}, format="json"
    )
    assert refused.status_code == 422, refused.content
    errors = {error["pointer"]: error["detail"] for error in refused.json()["errors"]}
    assert errors["/limit"] == "Unknown member. Accepted: any, page_size, after."
    refused = client.post("/v2/renamed/search", {"any": [{"status": "draft"}], "page_size": 11}, format="json")
    assert refused.json()["errors"] == [
        {"pointer": "/page_size", "detail": "page_size must be an integer from 1 to 10.", "code": "invalid"},
    ]


def test_a_class_limit_is_read_at_request_time_when_it_is_none(
    client: APIClient, settings: Any, invoices: list[Invoice]
) -> None:
    settings.API_CONVENTIONS = {**getattr(settings, "API_CONVENTIONS", {}), "PAGINATION_DEFAULT_LIMIT": 7}
    assert client.get("/v2/per-action").json()["pagination"]["limit"] == 7


# --- get_filterset_class() per action ------------------------------------------------------------


def test_get_filterset_class_chooses_the_filters_of_each_action(client: APIClient, invoices: list[Invoice]) -> None:
    drafts = client.get("/v2/per-action", {"status": "draft", "limit": 50}).json()["data"]
    assert drafts and {item["status"] for item in drafts} == {"draft"}
    [error] = errors_of(client.get("/v2/per-action", {"user_id": invoices[0].user_id}))
    assert error["parameter"] == "user_id" and error["code"] == "unknown"

    mine = client.get("/v2/per-action/by-user", {"user_id": invoices[0].user_id, "limit": 50}).json()["data"]
    assert mine and {item["user_id"] for item in mine} == {invoices[0].user_id}
    [error] = errors_of(client.get("/v2/per-action/by-user", {"status": "draft"}))
    assert error["parameter"] == "status" and error["code"] == "unknown"

    searched = client.post("/v2/per-action/search", {"any": [{"user_id": invoices[1].user_id}]}, format="json")
    assert searched.status_code == 200, searched.content
    assert {item["user_id"] for item in searched.json()["data"]} == {invoices[1].user_id}
    refused = client.post("/v2/per-action/search", {"any": [{"status": "open"}]}, format="json")
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["pointer"] == "/any/0/status"


# --- the OpenAPI schema ------------------------------------------------------------------------


@pytest.fixture
def schema() -> dict[str, Any]:
    pytest.importorskip("drf_spectacular")
    from drf_spectacular.generators import SchemaGenerator

    generator = SchemaGenerator(urlconf="tests.urls_pagination_names", api_version="v2")
    return generator.get_schema(request=None, public=True)  # type: ignore[no-any-return]


def test_the_schema_documents_the_paginator_names_and_limits(schema: dict[str, Any]) -> None:
    parameters = {p["name"]: p for p in schema["paths"]["/v2/renamed"]["get"]["parameters"]}
    assert {"after", "page_size"} <= set(parameters) and not {"cursor", "limit"} & set(parameters)
    assert parameters["page_size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 10, "default": 5}
    body = schema["paths"]["/v2/renamed/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["properties"]) == {"any", "page_size", "after"}
    assert body["properties"]["page_size"]["maximum"] == 10


def test_the_schema_documents_the_filters_of_each_action(schema: dict[str, Any]) -> None:
    parameters = schema["paths"]["/v2/per-action"]["get"]["parameters"]
    assert {p["name"] for p in parameters if p["in"] == "query"} == {"status", "cursor", "limit"}
    body = schema["paths"]["/v2/per-action/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["properties"]["any"]["items"]["properties"]) == {"user_id"}
