"""The mapping of exceptions that the live tests cannot easily provoke over HTTP."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.exceptions import BadRequest, TooManyFilesSent
from django.http.multipartparser import MultiPartParserError
from django.test import Client, RequestFactory
from rest_framework import exceptions as drf
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from django_api_conventions.content.negotiation import FallbackContentNegotiation
from django_api_conventions.problems import ProblemException, problem_type_url
from django_api_conventions.problems import django_handlers as handlers
from django_api_conventions.problems.drf_handler import problem_exception_handler
from django_api_conventions.problems.mapping import problem_for_exception
from testproject.billing.views import UserViewSet

factory = RequestFactory()


def body(response: Any) -> dict[str, Any]:
    assert response["Content-Type"] == "application/problem+json"
    return json.loads(response.content)


def test_not_authenticated_without_a_challenge_is_403() -> None:
    problem = problem_for_exception(drf.NotAuthenticated())
    assert problem is not None
    assert (problem.status_code, problem.problem_type.slug) == (403, "permission-denied")
    assert "WWW-Authenticate" not in problem.headers


def test_api_exception_with_a_non_error_status_is_a_500() -> None:
    exc = drf.APIException("moved")
    exc.status_code = 302
    problem = problem_for_exception(exc)
    assert problem is not None and problem.status_code == 500


@pytest.mark.parametrize(
    ("exc", "slug"), [(BadRequest("x"), "bad-request"), (MultiPartParserError("x"), "malformed-request")]
)
def test_django_bad_request_errors(exc: Exception, slug: str) -> None:
    problem = problem_for_exception(exc)
    assert problem is not None and problem.status_code == 400 and problem.problem_type.slug == slug


def test_problem_status_must_be_an_error() -> None:
    with pytest.raises(ValueError, match=r"400\.\.599"):
        ProblemException("conflict", status=200)


def test_throttled_without_a_wait_has_no_retry_after() -> None:
    problem = problem_for_exception(drf.Throttled())
    assert problem is not None and problem.status_code == 429 and problem.headers == {}


def test_api_exception_with_structured_detail_becomes_items() -> None:
    exc = drf.APIException({"field": ["broken"]})
    problem = problem_for_exception(exc)
    assert problem is not None and problem.status_code == 500
    assert problem.errors == [{"pointer": "/field", "detail": "broken", "code": "error"}]


def test_a_recursion_error_in_code_is_a_logged_500_not_a_client_error() -> None:
    assert problem_for_exception(RecursionError()) is None


def test_too_many_files() -> None:
    problem = problem_for_exception(TooManyFilesSent())
    assert problem is not None and problem.problem_type.slug == "too-many-fields"


def test_unexpected_exceptions_are_left_to_the_middleware() -> None:
    assert problem_for_exception(KeyError("x")) is None
    request = Request(factory.get("/"))
    assert problem_exception_handler(KeyError("x"), {"request": request, "view": None}) is None


@pytest.mark.django_db
def test_unreadable_body_is_a_400() -> None:
    class BrokenStream(io.RawIOBase):
        def read(self, size: int = -1) -> bytes:
            raise OSError("connection reset by peer")

    request = APIRequestFactory().post("/v2/users", b"{}", content_type="application/json")
    request.META["wsgi.input"] = BrokenStream()
    request._stream = request.META["wsgi.input"]
    response = UserViewSet.as_view({"post": "create"})(request)
    assert response.status_code == 400
    assert body(response)["type"].endswith("/problems/unreadable-request")


def test_bad_request_handler_without_an_exception() -> None:
    assert handlers.bad_request(factory.get("/")).status_code == 400


def test_server_error_handler_outside_an_exception() -> None:
    response = handlers.server_error(factory.get("/"))
    assert response.status_code == 500 and "trace_id" in body(response)["detail"]


def test_permission_denied_handler() -> None:
    assert handlers.permission_denied(factory.get("/"), Exception("x")).status_code == 403


def test_page_not_found_handler() -> None:
    assert body(handlers.page_not_found(factory.get("/x"), Exception()))["detail"] == "No resource matches GET /x."


def test_non_integer_content_length_is_a_400() -> None:
    response = Client().generic("POST", "/v2/users", b"{}", content_type="application/json", CONTENT_LENGTH="twelve")
    assert response.status_code == 400 and body(response)["type"].endswith("/problems/bad-request")


def test_type_url_without_routes_or_base(settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.urls_without_package"
    assert problem_type_url(factory.get("/"), "not-found") == "about:blank"


def test_type_url_from_the_configured_base(settings: Any) -> None:
    settings.API_CONVENTIONS = {"PROBLEM_BASE_URL": "https://docs.example.com/problems/"}
    assert problem_type_url(factory.get("/"), "not-found") == "https://docs.example.com/problems/not-found"


def test_type_url_for_a_rejected_host_without_concrete_allowed_hosts(settings: Any) -> None:
    settings.ALLOWED_HOSTS = [".example.com"]
    request = factory.get("/", HTTP_HOST="evil.test")
    assert problem_type_url(request, "invalid-host") == "http://localhost/problems/invalid-host"


def test_negotiation_falls_back_to_the_first_renderer() -> None:
    from rest_framework.renderers import JSONRenderer

    request = Request(factory.get("/", headers={"Accept": "text/html"}))
    _renderer, media_type = FallbackContentNegotiation().select_renderer(request, [JSONRenderer()])
    assert media_type == "application/json"


def test_exception_signal_without_a_request_is_ignored() -> None:
    from django.core.signals import got_request_exception

    got_request_exception.send(sender=None)
