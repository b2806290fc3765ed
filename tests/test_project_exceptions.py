"""A project's own errors keep their meaning: its exception types mapped to problems
(``map_exception``), and its previous DRF exception handler run first
(``PROJECT_EXCEPTION_HANDLER``), its answer converted into a problem, without check W001."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.test import Client
from django.urls import include, path
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler

from django_api_conventions.checks.settings import check_settings
from django_api_conventions.checks.setup import check_drf_settings, check_project_handlers
from django_api_conventions.problems import ProblemException
from django_api_conventions.problems.details import retry_after_header
from django_api_conventions.problems.drf_handler import problem_exception_handler
from django_api_conventions.problems.error_answers import problem_for_error_answer
from django_api_conventions.problems.mapping import (
    map_exception,
    problem_for_exception,
    unmap_exception,
)

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


class JobLocked(Exception):
    """A project's own exception, not DRF's: the package alone answers it 500."""

    def __init__(self, wait: int) -> None:
        super().__init__("locked")
        self.wait = wait


class ExportLocked(JobLocked):
    pass


class QuotaExceeded(drf.APIException):
    """A project's DRF exception with a status of its own."""

    status_code = 409
    default_detail = "The quota is used up."


class Unmapped(Exception):
    pass


RAISED: dict[str, Exception] = {}


class RaisingView(APIView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    throttle_classes: list[Any] = []

    def get(self, request: Any, name: str) -> Response:
        raise RAISED[name]


def plain_view(request: HttpRequest, name: str) -> HttpResponse:
    raise RAISED[name]


urlpatterns = [
    path("drf/<str:name>", RaisingView.as_view()),
    path("plain/<str:name>", plain_view),
    path("", include("django_api_conventions.urls")),
]
handler404 = "django_api_conventions.problems.django_handlers.page_not_found"
handler500 = "django_api_conventions.problems.django_handlers.server_error"


def raising(name: str, exc: Exception) -> str:
    RAISED[name] = exc
    return name


@pytest.fixture(autouse=True)
def _forget_mappings() -> Iterator[None]:
    yield
    for exc_type in (JobLocked, ExportLocked, QuotaExceeded, Http404, drf.ValidationError):
        unmap_exception(exc_type)


# map_exception: the project's exception types.


def locked(exc: JobLocked) -> ProblemException:
    return ProblemException("conflict", "A job holds the resource.", headers=retry_after_header(exc.wait))


def test_a_mapped_exception_is_its_problem_in_drf_views_and_django_views() -> None:
    map_exception(JobLocked, locked)
    for prefix in ("drf", "plain"):
        response = Client().get(f"/{prefix}/{raising('locked', JobLocked(5))}")
        assert response.status_code == 409, prefix
        assert response["Retry-After"] == "5"
        assert response.json()["type"].endswith("/problems/conflict")
        assert response.json()["detail"] == "A job holds the resource."


def test_without_a_mapping_it_is_a_500() -> None:
    response = Client(raise_request_exception=False).get(f"/drf/{raising('locked', JobLocked(5))}")
    assert response.status_code == 500


def test_a_subclass_takes_its_bases_mapping_and_the_nearest_wins() -> None:
    map_exception(JobLocked, locked)
    assert problem_for_exception(ExportLocked(3)).headers == {"Retry-After": "3"}  # type: ignore[union-attr]
    map_exception(ExportLocked, lambda exc: ProblemException("http-423", "Export locked."))
    assert problem_for_exception(ExportLocked(3)).status_code == 423  # type: ignore[union-attr]
    assert problem_for_exception(JobLocked(3)).status_code == 409  # type: ignore[union-attr]


def test_a_mapper_may_decline_and_the_package_answers() -> None:
    @map_exception(Http404)
    def only_exports(exc: Http404) -> ProblemException | None:
        return ProblemException("gone", "The export expired.") if "export" in str(exc) else None

    assert problem_for_exception(Http404("export 7")).status_code == 410  # type: ignore[union-attr]
    assert problem_for_exception(Http404("user 7")).status_code == 404  # type: ignore[union-attr]
    assert only_exports.__name__ == "only_exports"  # the decorator returns the function


def test_a_project_may_remap_drfs_own_exceptions() -> None:
    map_exception(
        QuotaExceeded, lambda exc: ProblemException("rate-limited", str(exc.detail), headers={"Retry-After": "60"})
    )
    response = Client().get(f"/drf/{raising('quota', QuotaExceeded())}")
    assert response.status_code == 429 and response["Retry-After"] == "60"
    assert response.json()["detail"] == "The quota is used up."


def test_a_mapper_must_return_a_problem() -> None:
    map_exception(JobLocked, lambda exc: 409)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="must return a ProblemException"):
        problem_for_exception(JobLocked(1))


@pytest.mark.parametrize("exc_type", [ValueError("x"), "JobLocked", int])
def test_only_exception_classes_are_mapped(exc_type: Any) -> None:
    with pytest.raises(TypeError):
        map_exception(exc_type, locked)


def test_a_problem_exception_is_never_remapped() -> None:
    map_exception(Exception, lambda exc: ProblemException("conflict"))
    try:
        problem = ProblemException("not-found")
        assert problem_for_exception(problem) is problem
    finally:
        unmap_exception(Exception)


# PROJECT_EXCEPTION_HANDLER: the project's previous DRF handler, run first.


def project_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """A handler as projects write them: its own cases, then DRF's default."""
    if isinstance(exc, JobLocked):
        return Response(
            {"detail": "Locked by a running job.", "job": "sync-7"}, status=409, headers={"Retry-After": str(exc.wait)}
        )
    if isinstance(exc, ValueError):
        return Response({"status": ["bogus is not a valid choice."]}, status=400)
    if isinstance(exc, KeyError):
        return JsonResponse({"detail": "No such key."}, status=404)
    if isinstance(exc, LookupError):
        return Response({"error": "lookup failed", "exception": "IndexError: secret"}, status=500)
    if isinstance(exc, ArithmeticError):
        return Response(status=204)
    return exception_handler(exc, context)


def decorating_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """A handler that adds a member to every answer of DRF's."""
    response = exception_handler(exc, context)
    if response is not None:
        response.data["status_code"] = response.status_code
    return response


def wrapping_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """A handler that wrapped the package's: its own case, then the package's handler."""
    if isinstance(exc, JobLocked):
        return Response({"detail": "Locked."}, status=423)
    return problem_exception_handler(exc, context)


def silent_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    return None


@pytest.fixture
def handler(settings: Any, request: pytest.FixtureRequest) -> None:
    name = getattr(request, "param", "project_handler")
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "PROJECT_EXCEPTION_HANDLER": f"{__name__}.{name}"}


def test_the_projects_own_answer_keeps_its_status_detail_and_headers(handler: None) -> None:
    response = Client().get(f"/drf/{raising('locked', JobLocked(5))}")
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == "5"
    body = response.json()
    assert body["type"].endswith("/problems/conflict")
    assert body["detail"] == "Locked by a running job."
    assert body["job"] == "sync-7"
    assert body["trace_id"] == response["X-Request-ID"]


def test_the_projects_field_messages_become_errors(handler: None) -> None:
    response = Client().get(f"/drf/{raising('bogus', ValueError('bogus'))}")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"pointer": "/status", "detail": "bogus is not a valid choice.", "code": "invalid"}
    ]


def test_a_plain_json_answer_is_read_too(handler: None) -> None:
    response = Client().get(f"/drf/{raising('key', KeyError('k'))}")
    assert response.status_code == 404 and response.json()["detail"] == "No such key."


def test_a_500_answer_keeps_nothing_of_the_failure(handler: None, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="django_api_conventions.problems"):
        response = Client().get(f"/drf/{raising('lookup', IndexError('secret'))}")
    assert response.status_code == 500
    assert b"secret" not in response.content and "exception" not in response.json()
    assert any(record.exc_info for record in caplog.records)  # logged, with its traceback


def test_a_non_error_answer_is_the_projects_choice(handler: None) -> None:
    assert Client().get(f"/drf/{raising('zero', ZeroDivisionError())}").status_code == 204


def test_where_the_project_defers_to_drf_the_packages_problem_answers(handler: None) -> None:
    response = Client().get(f"/drf/{raising('invalid', drf.ValidationError({'name': ['Required.']}))}")
    assert response.status_code == 422
    assert response.json()["type"].endswith("/problems/validation-error")
    assert response.json()["errors"] == [{"pointer": "/name", "detail": "Required.", "code": "invalid"}]
    response = Client().get(f"/drf/{raising('throttled', drf.Throttled(wait=30))}")
    assert (response.status_code, response["Retry-After"]) == (429, "30")
    assert response.json()["type"].endswith("/problems/rate-limited")
    response = Client().get(f"/drf/{raising('missing', Http404())}")
    assert response.status_code == 404 and response.json()["type"].endswith("/problems/not-found")


def test_an_exception_no_one_answers_is_a_500(handler: None) -> None:
    response = Client(raise_request_exception=False).get(f"/drf/{raising('unmapped', Unmapped())}")
    assert response.status_code == 500 and response.json()["type"].endswith("/problems/internal-error")


@pytest.mark.parametrize("handler", ["decorating_handler"], indirect=True)
def test_a_handler_that_changes_drfs_answer_is_kept(handler: None) -> None:
    response = Client().get(f"/drf/{raising('invalid', drf.ValidationError({'name': ['Required.']}))}")
    assert response.status_code == 400
    body = response.json()
    assert body["errors"] == [{"pointer": "/name", "detail": "Required.", "code": "invalid"}]
    assert body["status"] == body["status_code"] == 400  # an extension member, not a field message


@pytest.mark.parametrize("handler", ["wrapping_handler"], indirect=True)
def test_a_handler_that_wraps_the_packages_runs_once(handler: None) -> None:
    response = Client().get(f"/drf/{raising('locked', JobLocked(5))}")
    assert response.status_code == 423 and response.json()["detail"] == "Locked."
    response = Client().get(f"/drf/{raising('invalid', drf.ValidationError({'name': ['Required.']}))}")
    assert response.status_code == 422


@pytest.mark.parametrize("handler", ["silent_handler"], indirect=True)
def test_a_handler_without_an_answer_leaves_it_to_the_package(handler: None) -> None:
    assert Client().get(f"/drf/{raising('quota', QuotaExceeded())}").status_code == 409


def test_a_mapping_comes_before_the_projects_handler(handler: None) -> None:
    map_exception(JobLocked, lambda exc: ProblemException("http-423", "Mapped."))
    response = Client().get(f"/drf/{raising('locked', JobLocked(5))}")
    assert response.status_code == 423 and response.json()["detail"] == "Mapped."


def test_the_handler_runs_only_for_drf_views(handler: None) -> None:
    # Django views are the middleware's: the handler is DRF's, map_exception is for every layer.
    response = Client(raise_request_exception=False).get(f"/plain/{raising('locked', JobLocked(5))}")
    assert response.status_code == 500


# The checks: W001 stays quiet; a handler that cannot be imported is E003.


def test_w001_stays_quiet_with_the_projects_handler_kept(handler: None) -> None:
    assert check_drf_settings() == [] and check_settings() == [] and check_project_handlers() == []


@pytest.mark.parametrize(
    ("value", "check"),
    [
        (f"{__name__}.no_such_handler", "E003"),
        ("django_api_conventions.problems.drf_handler.problem_exception_handler", "E003"),
    ],
)
def test_a_wrong_handler_is_an_error(settings: Any, value: str, check: str) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "PROJECT_EXCEPTION_HANDLER": value}
    found = [m.id for m in check_settings()] + [m.id for m in check_project_handlers()]
    assert found == [f"django_api_conventions.{check}"]


def test_the_packages_own_handler_named_is_not_run_twice(settings: Any) -> None:
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "PROJECT_EXCEPTION_HANDLER": "django_api_conventions.problems.drf_handler.problem_exception_handler",
    }
    assert Client().get(f"/drf/{raising('quota', QuotaExceeded())}").status_code == 409


# problem_for_error_answer on its own.


@pytest.mark.parametrize(
    ("status", "data", "detail", "errors", "extensions"),
    [
        (
            409,
            {"detail": "Unable to delete object. 3 dependent objects were found."},
            "Unable to delete object. 3 dependent objects were found.",
            [],
            {},
        ),
        (
            400,
            ["First.", "Second."],
            "The request breaks the rules of the resource.",
            [
                {"pointer": "", "detail": "First.", "code": "invalid"},
                {"pointer": "", "detail": "Second.", "code": "invalid"},
            ],
            {},
        ),
        (
            400,
            {"non_field_errors": ["Dates overlap."], "detail": "Refused."},
            "Refused.",
            [{"pointer": "", "detail": "Dates overlap.", "code": "invalid"}],
            {},
        ),
        (422, {"status": "error", "reason": "expired", "title": "x"}, "Validation failed", [], {"reason": "expired"}),
        (404, "Gone away.", "Gone away.", [], {}),
        (400, None, "Bad request", [], {}),
        (503, {"detail": "Database error: relation x does not exist"}, "Service unavailable", [], {}),
    ],
)
def test_error_answers_as_problems(
    status: int, data: Any, detail: str, errors: list[Any], extensions: dict[str, Any]
) -> None:
    problem = problem_for_error_answer(status, data, {"Retry-After": "5"})
    assert (problem.status_code, str(problem.detail), problem.errors, problem.extensions) == (
        status,
        detail,
        errors,
        extensions,
    )
    assert problem.headers == {"Retry-After": "5"}
