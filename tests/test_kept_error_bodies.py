"""A project's own error bodies: kept as they are where marked, else their message as ``detail``.

Through real requests and the whole middleware stack, with this module as the URLconf.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseForbidden,
    JsonResponse,
)
from django.test import Client, override_settings
from django.urls import Resolver404, path
from django.views import View
from rest_framework import exceptions as drf
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView, exception_handler

from django_api_conventions.conf import api_settings
from django_api_conventions.problems.django_handlers import page_not_found
from django_api_conventions.problems.kept_answers import keep_error_body
from django_api_conventions.problems.mapping import INTERNAL_ERROR_DETAIL
from tests.settings import API_CONVENTIONS

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

PROBLEM = "application/problem+json"
#: The check-in endpoint's answer whose clients read ``status``, a member RFC 9457 reserves.
CHECKIN = {"status": "incomplete", "questions": [{"id": 3, "text": "Seat?"}], "checkin_texts": []}
#: allauth's headless API: ``data.flows`` is what a login client reads next.
LOGIN_REQUIRED = {"status": 401, "data": {"flows": [{"id": "login"}]}, "meta": {"is_authenticated": False}}


# Kept, per response.
def checkin_response(request: HttpRequest) -> HttpResponseBase:
    return keep_error_body(JsonResponse(CHECKIN, status=400))


# Kept, per view: a DRF class, a DRF function view, a Django class with the attribute.
@keep_error_body
class CheckinView(APIView):
    def post(self, request: Request) -> Response:
        return Response(CHECKIN, status=400)


@keep_error_body
@api_view(["POST"])
def checkin_function(request: Request) -> Response:
    return Response(CHECKIN, status=400)


class PlainForbidden(View):
    keep_error_body = True

    def get(self, request: HttpRequest) -> HttpResponse:
        return HttpResponseForbidden("Insufficient permissions", content_type="text/plain")


@keep_error_body
class KeptButRaising(APIView):
    def post(self, request: Request) -> Response:
        raise drf.ValidationError({"seat": ["This field is required."]})


# A third-party app's view, which the project cannot mark: kept per path.
def headless_session(request: HttpRequest) -> HttpResponse:
    return JsonResponse(LOGIN_REQUIRED, status=401)


# Converted: the project's own message becomes the detail.
def plain_text_forbidden(request: HttpRequest) -> HttpResponse:
    return HttpResponseForbidden("Insufficient permissions")


def html_forbidden(request: HttpRequest) -> HttpResponse:
    return HttpResponseForbidden("<h1>403 Forbidden</h1>")


def text_page(request: HttpRequest) -> HttpResponse:
    return HttpResponse("Traceback (most recent call last):\n  secret line", status=400, content_type="text/plain")


def text_failure(request: HttpRequest) -> HttpResponse:
    return HttpResponse("secret failure", status=500, content_type="text/plain")


def error_member(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"error": "Unable to render the configuration: undefined variable."}, status=400)


def message_member(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"message": "The export is still running."}, status=409)


def django_not_found(request: HttpRequest) -> HttpResponse:
    raise Http404("No Site matches the given query.")


class DRFNotFound(APIView):
    def get(self, request: Request) -> Response:
        raise Http404("No Site matches the given query.")


class DRFNotFoundException(APIView):
    def get(self, request: Request) -> Response:
        raise drf.NotFound("No Site matches the given query.")


urlpatterns = [
    path("kept/response", checkin_response),
    path("kept/class", CheckinView.as_view()),
    path("kept/function", checkin_function),
    path("kept/attribute", PlainForbidden.as_view()),
    path("kept/raising", KeptButRaising.as_view()),
    path("api/_allauth/browser/v1/auth/session", headless_session),
    path("converted/plain-text", plain_text_forbidden),
    path("converted/html", html_forbidden),
    path("converted/text-page", text_page),
    path("converted/text-failure", text_failure),
    path("converted/error", error_member),
    path("converted/message", message_member),
    path("converted/django-404", django_not_found),
    path("converted/drf-404", DRFNotFound.as_view()),
    path("converted/drf-not-found", DRFNotFoundException.as_view()),
]

KEEP_ALLAUTH = {**API_CONVENTIONS, "KEEP_ERROR_BODY_PATHS": [r"^/api/_allauth/"]}


def send(method: str, path: str) -> HttpResponse:
    return getattr(Client(raise_request_exception=False), method)(path)  # type: ignore[no-any-return]


def assert_kept(response: HttpResponse, status: int, body: Any, content_type: str) -> None:
    assert response.status_code == status
    assert response["Content-Type"] == content_type
    assert json.loads(response.content) == body if content_type == "application/json" else response.content == body
    assert response[api_settings.TRACE_ID_HEADER]


def problem(response: HttpResponse, status: int) -> dict[str, Any]:
    assert response.status_code == status
    assert response["Content-Type"] == PROBLEM
    body: dict[str, Any] = json.loads(response.content)
    assert body["status"] == status
    assert body["trace_id"] == response[api_settings.TRACE_ID_HEADER]
    return body


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/kept/response"), ("post", "/kept/class"), ("post", "/kept/function")],
)
def test_a_marked_answer_keeps_its_body_and_reserved_members(method: str, path: str) -> None:
    assert_kept(send(method, path), 400, CHECKIN, "application/json")


def test_a_view_class_attribute_keeps_a_plain_text_answer() -> None:
    response = send("get", "/kept/attribute")

    assert_kept(response, 403, b"Insufficient permissions", "text/plain")


def test_a_marked_view_still_answers_problems_for_what_it_raises() -> None:
    body = problem(send("post", "/kept/raising"), 422)

    assert body["errors"][0]["pointer"] == "/seat"


@override_settings(API_CONVENTIONS=KEEP_ALLAUTH)
def test_a_kept_path_keeps_a_third_party_apps_body() -> None:
    assert_kept(send("get", "/api/_allauth/browser/v1/auth/session"), 401, LOGIN_REQUIRED, "application/json")


def test_the_same_path_unkept_is_converted() -> None:
    body = problem(send("get", "/api/_allauth/browser/v1/auth/session"), 401)

    assert body["meta"] == LOGIN_REQUIRED["meta"]  # an extension member, beside the problem's own


@pytest.mark.parametrize("debug", [False, True])
@override_settings(API_CONVENTIONS=KEEP_ALLAUTH)
def test_an_unrouted_path_under_a_kept_path_is_a_problem_that_names_no_pattern(debug: bool) -> None:
    with override_settings(DEBUG=debug):
        body = problem(send("get", "/api/_allauth/nowhere"), 404)

    assert body["detail"] == "No resource matches GET /api/_allauth/nowhere."


def test_a_plain_text_error_is_the_detail() -> None:
    body = problem(send("get", "/converted/plain-text"), 403)

    assert body["detail"] == "Insufficient permissions"


@pytest.mark.parametrize(
    ("path", "status", "detail"),
    [
        ("/converted/html", 403, "Permission denied"),  # a page, not a message
        ("/converted/text-page", 400, "Bad request"),  # many lines: Django's text pages in DEBUG
        ("/converted/text-failure", 500, INTERNAL_ERROR_DETAIL),  # a 5xx's text is never sent
    ],
)
def test_a_page_or_a_failure_text_is_not_the_detail(path: str, status: int, detail: str) -> None:
    body = problem(send("get", path), status)

    assert body["detail"] == str(detail)


def test_an_error_member_is_the_detail_and_stays() -> None:
    body = problem(send("get", "/converted/error"), 400)

    assert body["detail"] == "Unable to render the configuration: undefined variable."
    assert body["error"] == body["detail"]


def test_a_message_member_is_the_detail() -> None:
    body = problem(send("get", "/converted/message"), 409)

    assert body["detail"] == "The export is still running."


@pytest.mark.parametrize("path", ["/converted/django-404", "/converted/drf-404", "/converted/drf-not-found"])
@pytest.mark.parametrize("debug", [False, True])
def test_a_raised_404_keeps_its_message(path: str, debug: bool) -> None:
    with override_settings(DEBUG=debug):
        body = problem(send("get", path), 404)

    assert body["detail"] == "No Site matches the given query."


@pytest.mark.parametrize("debug", [False, True])
def test_an_unrouted_404_keeps_the_generic_detail(debug: bool) -> None:
    with override_settings(DEBUG=debug):
        body = problem(send("get", "/converted/nowhere"), 404)

    assert body["detail"] == "No resource matches GET /converted/nowhere."  # not the patterns tried


def drf_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """A project's former exception handler: DRF's own."""
    return exception_handler(exc, context)


@override_settings(API_CONVENTIONS={**API_CONVENTIONS, "PROJECT_EXCEPTION_HANDLER": f"{__name__}.drf_handler"})
def test_a_marked_view_keeps_the_answer_of_the_projects_exception_handler() -> None:
    response = send("post", "/kept/raising")

    assert_kept(response, 400, {"seat": ["This field is required."]}, "application/json")


def test_handler404_sends_the_message_of_a_raised_404_never_the_resolvers() -> None:
    request = APIRequestFactory().get("/converted/below-the-middleware")

    own = json.loads(page_not_found(request, Http404("No Site matches the given query.")).content)
    unrouted = json.loads(page_not_found(request, Resolver404({"tried": [], "path": "secret"})).content)

    assert own["detail"] == "No Site matches the given query."
    assert unrouted["detail"] == "No resource matches GET /converted/below-the-middleware."
