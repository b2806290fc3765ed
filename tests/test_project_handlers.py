"""The project's own error views stay reachable: outside ``API_PATHS`` the package's error
views hand over to those ``HTML_ERROR_HANDLERS`` names (NetBox's ``handler_404`` and
``handler_500``), not only to Django's defaults; on API paths they answer problems as before."""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, HttpResponseServerError
from django.test import Client
from django.urls import include, path
from django.views.decorators.csrf import csrf_protect

from django_api_conventions.checks.setup import check_project_handlers
from django_api_conventions.problems import django_handlers

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

HANDLERS = "django_api_conventions.problems.django_handlers"
#: What the project's views were called with.
CALLS: list[tuple[str, Any]] = []


def own_400(request: HttpRequest, exception: Exception) -> HttpResponse:
    CALLS.append(("400", exception))
    return HttpResponse("the project's 400 page", status=400)


def own_403(request: HttpRequest, exception: Exception) -> HttpResponse:
    CALLS.append(("403", exception))
    return HttpResponse("the project's 403 page", status=403)


def own_404(request: HttpRequest, exception: Exception) -> HttpResponse:
    """NetBox's handler_404: reports the miss, then Django's page."""
    CALLS.append(("404", exception))
    return HttpResponseNotFound("the project's 404 page")


def own_500(request: HttpRequest) -> HttpResponse:
    """NetBox's handler_500: shows the exception, which Django's handling still holds."""
    type_, error = sys.exc_info()[:2]
    CALLS.append(("500", error))
    return HttpResponseServerError(f"the project's 500 page: {type_.__name__ if type_ else None}")


def own_csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    CALLS.append(("csrf", reason))
    return HttpResponse("the project's CSRF page", status=403)


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("boom")


def suspicious(request: HttpRequest) -> HttpResponse:
    raise SuspiciousOperation("odd")


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied


@csrf_protect
def form(request: HttpRequest) -> HttpResponse:
    return HttpResponse("posted")


urlpatterns = [
    path("api/crash", crash),
    path("api/forbidden", forbidden),
    path("ui/crash", crash),
    path("ui/suspicious", suspicious),
    path("ui/forbidden", forbidden),
    path("ui/form", form),
    path("api/form", form),
    path("", include("django_api_conventions.urls")),
]
handler400 = f"{HANDLERS}.bad_request"
handler403 = f"{HANDLERS}.permission_denied"
handler404 = f"{HANDLERS}.page_not_found"
handler500 = f"{HANDLERS}.server_error"

OWN = {
    "handler400": f"{__name__}.own_400",
    "handler403": f"{__name__}.own_403",
    "handler404": f"{__name__}.own_404",
    "handler500": f"{__name__}.own_500",
    "CSRF_FAILURE_VIEW": f"{__name__}.own_csrf_failure",
}


@pytest.fixture(autouse=True)
def _api_under_api(settings: Any) -> None:
    CALLS.clear()
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "API_PATHS": [r"^/(api|problems)/"]}


@pytest.fixture
def own_views(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "HTML_ERROR_HANDLERS": OWN}


def test_a_404_outside_the_api_is_the_projects_page(own_views: None) -> None:
    response = Client().get("/ui/no/such/page")
    assert (response.status_code, response.content) == (404, b"the project's 404 page")
    assert CALLS[0][0] == "404" and CALLS[0][1] is not None


def test_a_500_outside_the_api_is_the_projects_page_with_the_exception(own_views: None) -> None:
    response = Client(raise_request_exception=False).get("/ui/crash")
    assert (response.status_code, response.content) == (500, b"the project's 500 page: RuntimeError")
    assert isinstance(CALLS[0][1], RuntimeError)


def test_a_400_and_a_403_outside_the_api_are_the_projects_pages(own_views: None) -> None:
    assert Client().get("/ui/suspicious").content == b"the project's 400 page"
    assert Client().get("/ui/forbidden").content == b"the project's 403 page"
    assert [name for name, _ in CALLS] == ["400", "403"]
    assert isinstance(CALLS[0][1], SuspiciousOperation) and isinstance(CALLS[1][1], PermissionDenied)


def test_a_csrf_failure_outside_the_api_is_the_projects_page(own_views: None) -> None:
    response = Client(enforce_csrf_checks=True).post("/ui/form", {"a": "1"})
    assert (response.status_code, response.content) == (403, b"the project's CSRF page")
    assert CALLS == [("csrf", "CSRF cookie not set.")]


def test_the_api_still_answers_problems(own_views: None) -> None:
    client = Client(raise_request_exception=False)
    for url, status in [("/api/no/such/thing", 404), ("/api/crash", 500), ("/api/forbidden", 403)]:
        response = client.get(url)
        assert response.status_code == status
        assert response["Content-Type"] == "application/problem+json"
    response = Client(enforce_csrf_checks=True).post("/api/form", {"a": "1"})
    assert response.json()["type"].endswith("/problems/csrf-failed")
    assert CALLS == []


def test_a_handler_left_out_is_djangos(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "HTML_ERROR_HANDLERS": {"handler500": OWN["handler500"]}}
    response = Client().get("/ui/no/such/page")
    assert response.status_code == 404 and b"Not Found" in response.content
    assert CALLS == []


def test_without_the_setting_djangos_own_views_answer() -> None:
    response = Client(raise_request_exception=False).get("/ui/crash")
    assert response.status_code == 500 and b"Server Error (500)" in response.content


def test_a_view_that_cannot_be_imported_falls_back_on_djangos(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    django_handlers._import_view.cache_clear()
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "HTML_ERROR_HANDLERS": {"handler404": f"{__name__}.no_such_view"},
    }
    with caplog.at_level(logging.ERROR, logger="django_api_conventions.problems"):
        response = Client().get("/ui/no/such/page")
    assert response.status_code == 404 and b"Not Found" in response.content
    assert any("no_such_view" in record.getMessage() for record in caplog.records)


def test_the_packages_own_view_never_hands_over_to_itself(settings: Any) -> None:
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "HTML_ERROR_HANDLERS": {"handler404": f"{HANDLERS}.page_not_found"},
    }
    response = Client().get("/ui/no/such/page")
    assert response.status_code == 404 and b"Not Found" in response.content


def test_a_callable_is_accepted_too(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "HTML_ERROR_HANDLERS": {"handler404": own_404}}
    assert Client().get("/ui/no/such/page").content == b"the project's 404 page"
    assert check_project_handlers() == []


# The checks.


def test_the_projects_views_pass_the_checks(own_views: None) -> None:
    assert check_project_handlers() == []


@pytest.mark.parametrize(
    ("handlers", "check_id"),
    [
        ({"handler404": f"{__name__}.no_such_view"}, "E003"),
        ({"handler404": "no_such_module.views.handler_404"}, "E003"),
        ({"handler405": OWN["handler404"]}, "E003"),
        ({"handler404": 404}, "E003"),
        ({"handler404": f"{HANDLERS}.page_not_found"}, "E003"),
    ],
)
def test_a_wrong_view_is_an_error(settings: Any, handlers: dict[str, Any], check_id: str) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "HTML_ERROR_HANDLERS": handlers}
    errors = check_project_handlers()
    assert [error.id for error in errors] == [f"django_api_conventions.{check_id}"]
    assert "HTML_ERROR_HANDLERS" in errors[0].msg


def test_a_setting_of_the_wrong_type_is_reported_once(settings: Any) -> None:
    from django_api_conventions.checks.settings import check_settings

    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "HTML_ERROR_HANDLERS": [OWN["handler404"]]}
    assert [error.id for error in check_settings()] == ["django_api_conventions.E003"]
    assert check_project_handlers() == []
