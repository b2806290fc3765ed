"""A 404 for a path that differs from a routed one only by its trailing slash names that one."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory

from django_api_conventions.problems.django_handlers import near_path, not_found_problem

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("path", "near"),
    [
        ("/v2/users/", "/v2/users"),  # API paths have no trailing slash
        ("/openapi.json/", "/openapi.json"),
        ("/docs/", "/docs"),
        ("/v2/users/abc/", "/v2/users/abc"),
    ],
)
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_the_404_names_the_near_path_that_exists(path: str, near: str, method: str) -> None:
    answer = Client().generic(method, path, b"{}", content_type="application/json")
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/problem+json"
    assert answer.json()["detail"] == f"No resource matches {method} {path}. Did you mean {near}?"


# "/" is the example's index, which answers.
@pytest.mark.parametrize("path", ["/nothing", "/nothing/", "/nothing/else", "/v2/nothing/"])
def test_no_hint_when_no_near_path_exists(path: str) -> None:
    assert Client().get(path).json()["detail"] == f"No resource matches GET {path}."


def test_no_hint_when_the_path_itself_is_routed() -> None:
    # The view answered 404 itself (an unknown problem type): the path was right.
    assert Client().get("/problems/no-such-type").json()["detail"] == "No resource matches GET /problems/no-such-type."


def test_the_hint_keeps_the_script_prefix() -> None:
    request = RequestFactory().get("/v2/users/", SCRIPT_NAME="/billing")
    request.path = "/billing/v2/users/"
    assert near_path(request) == "/billing/v2/users"
    assert not_found_problem(request).detail == (
        "No resource matches GET /billing/v2/users/. Did you mean /billing/v2/users?"
    )
