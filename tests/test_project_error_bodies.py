"""Error responses a project's views build themselves keep their information as problems."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import include, path
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler

from tests.project_views import OWN_ERRORS, OwnErrorView, own_json_error

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


@pytest.mark.parametrize("prefix", ["/faults/own-errors/", "/faults/own-json-errors/"], ids=["drf", "django"])
def test_other_members_are_kept_as_extension_members(prefix: str) -> None:
    body = _problem(f"{prefix}not-of-drf-shape", 409, "conflict")
    assert body["title"] == "Conflict"
    assert body["detail"] == body["message"] == "differently shaped"  # the project's own message
    assert body["status"] == 409  # a reserved member stays the problem's
    assert "errors" not in body
    body = _problem(f"{prefix}numbers-are-no-messages", 400, "bad-request")
    assert body["count"] == [3] and "errors" not in body


def test_an_object_under_detail_reads_as_the_messages_of_a_field_named_detail() -> None:
    body = _problem("/faults/own-errors/detail-not-text", 409, "conflict")
    assert body["detail"] == "The request breaks the rules of the resource."
    assert body["errors"] == [{"pointer": "/detail/text", "detail": "nested", "code": "invalid"}]


class OwnAnswer(Exception):
    """Answered by the project's former exception handler with a body of :data:`OWN_ERRORS`."""

    def __init__(self, case: str) -> None:
        super().__init__(case)
        self.case = case


def project_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, OwnAnswer):
        body, status = OWN_ERRORS[exc.case]
        return Response(body, status=status)
    return exception_handler(exc, context)


class RaisingView(APIView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    def get(self, request: Request, case: str) -> Response:
        raise OwnAnswer(case)


class CheckInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    reason = serializers.CharField()


class SerializerErrorsView(APIView):
    """Answers a serializer's errors by hand, as many views do: ``Response(serializer.errors)``."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    def get(self, request: Request) -> Response:
        serializer = CheckInSerializer(data={})
        serializer.is_valid()
        return Response(serializer.errors, status=400)


urlpatterns = [
    path("faults/serializer-errors", SerializerErrorsView.as_view()),
    path("faults/own-errors/<str:case>", OwnErrorView.as_view()),
    path("faults/own-json-errors/<str:case>", own_json_error),
    path("faults/raised/<str:case>", RaisingView.as_view()),
    path("", include("django_api_conventions.urls")),
]


def _without_request_ids(body: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in body.items() if name not in ("instance", "trace_id")}


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("case", [name for name, (_, status) in OWN_ERRORS.items() if status < 500])
def test_a_body_converts_the_same_whichever_layer_converts_it(settings: Any, case: str) -> None:
    # The middleware converts what a view returns, the exception handler what the project's
    # former handler answers: one conversion, one problem.
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "PROJECT_EXCEPTION_HANDLER": f"{__name__}.project_exception_handler",
    }
    bodies = [
        _without_request_ids(Client().get(f"/faults/{kind}/{case}").json())
        for kind in ("own-errors", "own-json-errors", "raised")
    ]
    assert bodies[0] == bodies[1] == bodies[2]


@pytest.mark.urls(__name__)
def test_a_responses_data_keeps_drfs_error_codes() -> None:
    body = _problem("/faults/serializer-errors", 400, "bad-request")
    assert body["errors"] == [{"pointer": "/reason", "detail": "This field is required.", "code": "required"}]


def test_a_detail_field_messages_and_other_members_are_all_kept() -> None:
    body = _problem("/faults/own-errors/detail-fields-and-more", 400, "bad-request")
    assert _without_request_ids(body) == {
        "type": body["type"],
        "title": "Bad request",
        "status": 400,
        "detail": "Check-in refused.",
        "errors": [{"pointer": "/status", "detail": "Unknown status.", "code": "invalid"}],
        "reason": "expired",
        "retry_in": 3,
    }


@pytest.mark.parametrize("prefix", ["/faults/own-errors/", "/faults/own-json-errors/", "/faults/crash"])
def test_the_problem_is_the_responses_data_as_drfs_response_has_it(prefix: str) -> None:
    # Tests written against DRF read ``response.data`` after an error.
    path = prefix if prefix == "/faults/crash" else f"{prefix}blocked-delete"
    response = Client(raise_request_exception=False).get(path)
    assert response["Content-Type"] == PROBLEM
    assert response.data == response.json()


def test_a_body_not_labelled_json_is_not_read() -> None:
    body = _problem("/faults/own-text-error", 409, "conflict")
    assert body["detail"] == "Conflict"


@pytest.mark.parametrize(
    ("case", "status", "slug"), [("server-error", 500, "internal-error"), ("bad-gateway", 502, "bad-gateway")]
)
@pytest.mark.parametrize("prefix", ["/faults/own-errors/", "/faults/own-json-errors/"], ids=["drf", "django"])
def test_a_server_errors_body_is_never_sent(prefix: str, case: str, status: int, slug: str) -> None:
    response = Client().get(f"{prefix}{case}")
    assert response.status_code == status
    text = response.content.decode()
    assert "db.internal" not in text and "hunter2" not in text
    assert "errors" not in response.json()
