"""Credentials that cannot be valid (a NUL in a Basic user name) are a 400, never a 500: the
user name would reach the database, which PostgreSQL refuses with a DataError."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from .http import send

pytestmark = pytest.mark.django_db(transaction=True)


def basic(credentials: str) -> str:
    return "Basic " + base64.b64encode(credentials.encode()).decode()


def problem(response: Any) -> dict[str, Any]:
    assert response["Content-Type"] == "application/problem+json"
    return json.loads(response.content)


@pytest.mark.parametrize("credentials", ["ad\x00min:secret", "admin:sec\x00ret", "\x00:"])
@pytest.mark.parametrize("path", ["/v2/users", "/v2/invoices"])
def test_a_nul_in_basic_credentials_is_a_400_naming_the_authorization_header(credentials: str, path: str) -> None:
    response = Client().get(path, headers={"Authorization": basic(credentials)})
    assert response.status_code == 400, response.content
    body = problem(response)
    assert body["type"].endswith("/bad-request")
    assert body["detail"] == "The Basic credentials of the Authorization header hold a NUL character."
    assert body["errors"] == [
        {"header": "Authorization", "detail": "NUL characters are not allowed.", "code": "invalid"}
    ]


def test_a_nul_in_a_latin_1_user_name_is_found_as_drf_decodes_it() -> None:
    token = base64.b64encode("\xe9\x00:pw".encode("latin-1")).decode()
    response = Client().get("/v2/users", headers={"Authorization": f"Basic {token}"})
    assert response.status_code == 400


def test_a_nul_in_any_header_value_is_a_400_naming_it() -> None:
    response = Client().get("/v2/users", headers={"X-Client-ID": "acme\x00"})
    assert response.status_code == 400
    assert problem(response)["errors"][0]["header"] == "X-Client-Id"


@pytest.mark.parametrize("header", ["Basic !!!not-base64", "Basic", "Bearer ab\x01c", basic("no-colon")])
def test_credentials_without_a_nul_are_left_to_drf(header: str) -> None:
    response = Client().get("/v2/users", headers={"Authorization": header})
    assert response.status_code in (200, 401), response.content


def test_valid_basic_credentials_still_authenticate() -> None:
    User.objects.create_user("ada", password="secret")
    assert Client().get("/v2/users", headers={"Authorization": basic("ada:secret")}).status_code == 200
    assert Client().get("/v2/users", headers={"Authorization": basic("ada:wrong")}).status_code == 401


def test_over_http(live_server: Any) -> None:
    result = send(
        live_server.url,
        "POST",
        "/v2/users",
        json_body={"email": "n@example.com", "name": "N"},
        headers={"Authorization": basic("us\x00er:pw")},
    )
    assert result.status == 400 and result.json()["errors"][0]["header"] == "Authorization"
