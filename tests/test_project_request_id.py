"""One request id: a project that assigns its own (NetBox's ``request.id``, echoed as
``X-Request-ID``) keeps it, and problems, log lines and the response header carry it.

The project's middleware here is shaped as NetBox's ``CoreMiddleware``: it sets
``request.id = uuid.uuid4()`` when the request arrives, deep inside the package's middleware, and
writes ``response["X-Request-ID"] = request.id`` on the way out, whatever is there.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient, Client
from django.urls import include, path
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from django_api_conventions.checks.settings import check_settings
from django_api_conventions.problems import ProblemException
from django_api_conventions.tracing import trace_ids as tracing
from django_api_conventions.tracing.trace_ids import TraceIdFilter, log_trace_id

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

#: The ids the project's middleware gave, in order.
project_ids: list[uuid.UUID] = []
#: ``(message, trace_id)`` of each record of the ``tests.project`` logger, as a log format sees it.
log_lines: list[tuple[str, str]] = []
project_logger = logging.getLogger("tests.project")


class ProjectRequestIdMiddleware:
    """NetBox's ``CoreMiddleware``, as far as the request id goes."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.id = uuid.uuid4()  # type: ignore[attr-defined]
        project_ids.append(request.id)  # type: ignore[attr-defined]
        response = self.get_response(request)
        response["X-Request-ID"] = request.id  # type: ignore[attr-defined]
        return response


class ProjectRequestIdOnlyMiddleware(ProjectRequestIdMiddleware):
    """A project that keeps its id on the request and leaves the header to the package."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.id = uuid.uuid4()  # type: ignore[attr-defined]
        project_ids.append(request.id)  # type: ignore[attr-defined]
        return self.get_response(request)


class UnsafeRequestIdMiddleware(ProjectRequestIdOnlyMiddleware):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.id = "not a token"  # type: ignore[attr-defined]
        return self.get_response(request)


class _Lines(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        log_lines.append((record.getMessage(), record.trace_id))  # type: ignore[attr-defined]


class NoThrottle(APIView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    throttle_classes: list[Any] = []


class InvalidView(NoThrottle):
    def post(self, request: Any) -> Response:
        project_logger.warning("about to refuse")
        raise ValidationError({"name": ["This field is required."]})


class FineView(NoThrottle):
    def get(self, request: Any) -> Response:
        project_logger.warning("answering")
        return Response({"trace_id": request.trace_id, "logged": log_trace_id()})


class OwnHeaderProblemView(NoThrottle):
    def get(self, request: Any) -> Response:
        raise ProblemException("conflict", "Taken.", headers={"X-Request-ID": "the-projects-own"})


def crash(request: HttpRequest) -> HttpResponse:
    project_logger.warning("crashing")
    raise RuntimeError("boom")


urlpatterns = [
    path("ids/invalid", InvalidView.as_view()),
    path("ids/fine", FineView.as_view()),
    path("ids/own-header-problem", OwnHeaderProblemView.as_view()),
    path("ids/crash", crash),
    path("", include("django_api_conventions.urls")),
]
handler404 = "django_api_conventions.problems.django_handlers.page_not_found"
handler500 = "django_api_conventions.problems.django_handlers.server_error"


@pytest.fixture(autouse=True)
def _capture() -> Iterator[None]:
    project_ids.clear()
    log_lines.clear()
    handler = _Lines()
    handler.addFilter(TraceIdFilter())
    project_logger.addHandler(handler)
    problems_logger = logging.getLogger("django_api_conventions.problems")
    problems_logger.addHandler(handler)
    level = problems_logger.level
    problems_logger.setLevel(logging.INFO)
    tracing._warned.clear()
    yield
    project_logger.removeHandler(handler)
    problems_logger.removeHandler(handler)
    problems_logger.setLevel(level)


def with_project_middleware(settings: Any, middleware: type, *, first: bool = False) -> None:
    """The project's middleware where NetBox has it, after authentication (or before everything)."""
    name = f"{__name__}.{middleware.__name__}"
    others = list(settings.MIDDLEWARE)
    settings.MIDDLEWARE = [name, *others] if first else [*others[:-1], name, others[-1]]


@pytest.fixture
def netbox(settings: Any) -> None:
    with_project_middleware(settings, ProjectRequestIdMiddleware)
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "REQUEST_ID_ATTRIBUTE": "id"}


def test_a_problem_carries_the_projects_id_in_body_header_and_logs(netbox: None) -> None:
    response = Client().post("/ids/invalid", {}, content_type="application/json")
    assert response.status_code == 422
    project_id = str(project_ids[-1])
    assert response["X-Request-ID"] == project_id
    assert response.json()["trace_id"] == project_id
    assert response.json()["instance"] == f"urn:request:{project_id}"
    # The view's own line, written before any problem, and the package's rejection line.
    assert log_lines == [
        ("about to refuse", project_id),
        ("Rejected POST /ids/invalid: 422 validation-error", project_id),
    ]


def test_a_success_carries_the_projects_id(netbox: None) -> None:
    response = Client().get("/ids/fine", headers={"X-Request-ID": "callers-own"})
    project_id = str(project_ids[-1])
    assert response.status_code == 200
    assert response["X-Request-ID"] == project_id
    assert response.json() == {"trace_id": project_id, "logged": project_id}
    assert log_lines == [("answering", project_id)]


def test_an_unexpected_failure_is_logged_and_answered_under_the_projects_id(netbox: None) -> None:
    response = Client(raise_request_exception=False).get("/ids/crash")
    project_id = str(project_ids[-1])
    assert response.status_code == 500
    assert response.json()["trace_id"] == response["X-Request-ID"] == project_id
    assert ("crashing", project_id) in log_lines
    assert ("Internal Server Error on GET /ids/crash", project_id) in log_lines


def test_under_asgi_too(netbox: None) -> None:
    response = async_to_sync(AsyncClient().post)("/ids/invalid", {}, content_type="application/json")
    project_id = str(project_ids[-1])
    assert response.status_code == 422
    assert response.json()["trace_id"] == response["X-Request-ID"] == project_id


def test_the_projects_middleware_first_gives_every_line_its_id(settings: Any) -> None:
    with_project_middleware(settings, ProjectRequestIdMiddleware, first=True)
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "REQUEST_ID_ATTRIBUTE": "id"}
    response = Client().post("/ids/invalid", {}, content_type="application/json")
    project_id = str(project_ids[-1])
    assert response.json()["trace_id"] == response["X-Request-ID"] == project_id
    assert {trace_id for _, trace_id in log_lines} == {project_id}


def test_the_package_sends_the_projects_id_when_the_project_sends_no_header(settings: Any) -> None:
    with_project_middleware(settings, ProjectRequestIdOnlyMiddleware)
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "REQUEST_ID_ATTRIBUTE": "id"}
    response = Client().get("/ids/fine")
    assert response["X-Request-ID"] == response.json()["trace_id"] == str(project_ids[-1])


def test_the_header_the_project_set_is_never_replaced(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    # Without REQUEST_ID_ATTRIBUTE the package cannot know the project's id: its header is kept
    # all the same, and the mismatch is logged once, naming the setting.
    with_project_middleware(settings, ProjectRequestIdMiddleware)
    client = Client()
    with caplog.at_level(logging.WARNING, logger="django_api_conventions.tracing.trace_ids"):
        first = client.post("/ids/invalid", {}, content_type="application/json")
        client.post("/ids/invalid", {}, content_type="application/json")
    assert first["X-Request-ID"] == str(project_ids[0])
    assert first.json()["trace_id"] != first["X-Request-ID"]
    warnings = [r.getMessage() for r in caplog.records if r.name == "django_api_conventions.tracing.trace_ids"]
    assert len(warnings) == 1 and "REQUEST_ID_ATTRIBUTE" in warnings[0]


def test_a_problems_own_trace_header_is_kept() -> None:
    response = Client().get("/ids/own-header-problem")
    assert response.status_code == 409
    assert response["X-Request-ID"] == "the-projects-own"


def test_an_unsafe_project_id_is_not_used(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    with_project_middleware(settings, UnsafeRequestIdMiddleware)
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "REQUEST_ID_ATTRIBUTE": "id"}
    with caplog.at_level(logging.WARNING, logger="django_api_conventions.tracing.trace_ids"):
        response = Client().get("/ids/fine", headers={"X-Request-ID": "callers-own"})
    assert response["X-Request-ID"] == response.json()["trace_id"] == "callers-own"
    assert any("not a safe request id" in r.getMessage() for r in caplog.records)


def test_without_the_projects_middleware_the_id_is_the_packages(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "REQUEST_ID_ATTRIBUTE": "id"}
    response = Client().get("/ids/fine", headers={"X-Request-ID": "callers-own"})
    assert response["X-Request-ID"] == response.json()["trace_id"] == "callers-own"


def test_an_incoming_id_the_project_trusts_under_its_own_header_name(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "TRACE_ID_HEADER": "X-Correlation-ID"}
    response = Client().post(
        "/ids/invalid", {}, content_type="application/json", headers={"X-Correlation-ID": "gateway-7"}
    )
    assert response["X-Correlation-ID"] == response.json()["trace_id"] == "gateway-7"


def test_no_stale_request_between_requests(netbox: None) -> None:
    Client().get("/ids/fine")
    assert tracing._traced_request.get() is None and log_trace_id() == "-"


@pytest.mark.parametrize("value", ["trace_id", "not an attribute", 7])
def test_the_attribute_must_be_another_one(settings: Any, value: object) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "REQUEST_ID_ATTRIBUTE": value}
    assert [m.id for m in check_settings()] == ["django_api_conventions.E003"]


def test_the_attribute_passes_the_checks(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "REQUEST_ID_ATTRIBUTE": "id"}
    assert check_settings() == []
