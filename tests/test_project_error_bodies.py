"""Error responses a project's views build themselves keep their information as problems."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db  # ATOMIC_REQUESTS, the maintenance switch

PROBLEM = "application/problem+json"


def _problem(path: str, status: int, slug: str) -> dict[str, Any]:
    response = Client().get(path, headers={"Accept": "application/json"})
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["status"] == status
    assert body["type"].endswith(f"/problems/{slug}")
    return body


@pytest.mark.parametrize("prefix", ["/faults/own-errors/", "/faults/own-json-errors/"], ids=["drf", "django"])
def test_a_blocked_delete_keeps_its_detail(prefix: str) -> None:
    body = _problem(f"{prefix}blocked-delete", 409, "conflict")
    assert body["detail"] == "Unable to delete object. 3 dependent objects were found: cable 1, cable 2, cable 3"
    assert "errors" not in body


def test_the_headers_of_the_response_stay() -> None:
    response = Client().get("/faults/own-errors/blocked-delete")
    assert response["Retry-After"] == "5"


@pytest.mark.parametrize("prefix", ["/faults/own-errors/", "/faults/own-json-errors/"], ids=["drf", "django"])
def test_field_messages_become_errors_with_pointers(prefix: str) -> None:
    body = _problem(f"{prefix}field-messages", 400, "bad-request")
    assert body["errors"] == [{"pointer": "/status", "detail": "bogus is not a valid choice.", "code": "invalid"}]
    assert body["detail"] == "The request breaks the rules of the resource."


def test_a_detail_beside_field_messages_keeps_both() -> None:
    body = _problem("/faults/own-errors/detail-and-fields", 400, "bad-request")
    assert body["detail"] == "Check-in refused."
    assert body["errors"] == [
        {"pointer": "/status", "detail": "Unknown status.", "code": "invalid"},
        {"pointer": "/reason", "detail": "This field is required.", "code": "invalid"},
    ]


def test_nested_messages_are_translated_as_validation_errors_are() -> None:
    body = _problem("/faults/own-errors/nested-fields", 400, "bad-request")
    assert body["errors"] == [
        {"pointer": "/address/city", "detail": "Too long.", "code": "invalid"},
        {"pointer": "/tags/1/name", "detail": "Blank.", "code": "invalid"},
        {"pointer": "/a~1b~0c", "detail": "Odd name.", "code": "invalid"},
        {"pointer": "", "detail": "The dates overlap.", "code": "invalid"},
    ]


def test_a_list_of_messages_points_at_the_whole_body() -> None:
    body = _problem("/faults/own-errors/list-of-messages", 400, "bad-request")
    assert [item["pointer"] for item in body["errors"]] == ["", ""]
    assert [item["detail"] for item in body["errors"]] == ["The object is locked.", "Retry once it is unlocked."]


def test_a_views_own_not_found_keeps_its_detail() -> None:
    body = _problem("/faults/own-errors/own-not-found", 404, "not-found")
    assert body["detail"] == "No Device matches the given query."


@pytest.mark.parametrize("case", ["not-of-drf-shape", "detail-not-text", "numbers-are-no-messages"])
def test_other_shapes_keep_the_generic_problem(case: str) -> None:
    body = _problem(f"/faults/own-errors/{case}", 409 if case != "numbers-are-no-messages" else 400,
                    "conflict" if case != "numbers-are-no-messages" else "bad-request")
    assert body["detail"] == body["title"]
    assert "errors" not in body


def test_a_body_not_labelled_json_is_not_read() -> None:
    body = _problem("/faults/own-text-error", 409, "conflict")
    assert body["detail"] == "Conflict"


@pytest.mark.parametrize(("case", "status", "slug"), [("server-error", 500, "internal-error"),
                                                      ("bad-gateway", 502, "bad-gateway")])
@pytest.mark.parametrize("prefix", ["/faults/own-errors/", "/faults/own-json-errors/"], ids=["drf", "django"])
def test_a_server_errors_body_is_never_sent(prefix: str, case: str, status: int, slug: str) -> None:
    response = Client().get(f"{prefix}{case}")
    assert response.status_code == status
    text = response.content.decode()
    assert "db.internal" not in text and "hunter2" not in text
    assert "errors" not in response.json()
