"""API_PATHS: problems on the API, Django's own error pages and CSRF page beside it (the admin).

The example service sets ``API_PATHS = [r"^/(?!admin/)"]``. Requests are sent over real HTTP as
a browser sends them (``Accept: text/html``, a form body).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

from django_api_conventions.maintenance.switches import write_switch
from django_api_conventions.problems import django_handlers

from .http import HTTPResult, send
from .problem_assertions import assert_problem
from .servers import gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
LOGIN_FORM = {**BROWSER, "Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture(params=[False, True], ids=["debug-off", "debug-on"])
def debug(request: pytest.FixtureRequest, settings: Any) -> bool:
    settings.DEBUG = request.param
    return bool(request.param)


def assert_html(result: HTTPResult, status: int) -> str:
    assert result.status == status, result.body[:300]
    assert (result.header("Content-Type") or "").startswith("text/html"), result.header("Content-Type")
    return result.body.decode()


def staff_session() -> dict[str, str]:
    User.objects.create_superuser("admin", "admin@example.com", "pw")
    browser = Client()
    browser.login(username="admin", password="pw")
    return {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}


def test_a_404_under_the_admin_is_djangos_page(live_server: Any, debug: bool) -> None:
    result = send(live_server.url, "GET", "/admin/no/such/page/", headers={**BROWSER, **staff_session()})
    assert "not found" in assert_html(result, 404).lower()


def test_a_csrf_failure_at_the_admin_login_is_djangos_page(live_server: Any, debug: bool) -> None:
    result = send(live_server.url, "POST", "/admin/login/", body="username=a&password=b", headers=LOGIN_FORM)
    assert "CSRF verification failed" in assert_html(result, 403)


def test_the_api_answers_problems_to_the_same_browser(live_server: Any, debug: bool) -> None:
    assert_problem(send(live_server.url, "GET", "/v2/no/such/page", headers=BROWSER), 404, "not-found")
    assert_problem(send(live_server.url, "POST", "/faults/csrf", body="a=1", headers=LOGIN_FORM), 403, "csrf-failed")


@pytest.mark.parametrize("path", ["/problems/no-such-type", "/docs/no-such-page", "/adminx/"])
def test_the_packages_own_pages_and_their_neighbours_are_api_paths(live_server: Any, path: str) -> None:
    assert_problem(send(live_server.url, "GET", path, headers=BROWSER), 404, "not-found")


def test_without_api_paths_the_whole_site_is_api_as_before(live_server: Any, settings: Any) -> None:
    settings.API_CONVENTIONS = {k: v for k, v in settings.API_CONVENTIONS.items() if k != "API_PATHS"}
    result = send(live_server.url, "POST", "/admin/login/", body="username=a&password=b", headers=LOGIN_FORM)
    assert_problem(result, 403, "csrf-failed")


def test_a_drf_view_outside_the_api_still_answers_problems(live_server: Any, settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "API_PATHS": [r"^/v2/"]}
    assert_problem(
        send(live_server.url, "GET", "/faults/drf-database-down", headers=BROWSER), 503, "database-unavailable"
    )
    # A plain Django view there gets Django's handling: its 500 page, its CSRF page.
    assert "Server Error" in assert_html(send(live_server.url, "GET", "/faults/database-down", headers=BROWSER), 500)
    csrf = send(live_server.url, "POST", "/faults/csrf", body="a=1", headers=LOGIN_FORM)
    assert "CSRF verification failed" in assert_html(csrf, 403)


def test_outside_the_api_a_refused_request_is_djangos_400_page(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/admin/login/?next=%00", headers=BROWSER)
    assert "Bad Request" in assert_html(result, 400)
    host = send(live_server.url, "GET", "/admin/login/", headers={**BROWSER, "Host": "evil.example"})
    assert "Bad Request" in assert_html(host, 400)
    assert_problem(send(live_server.url, "GET", "/v2/users?next=%00", headers=BROWSER), 400, "bad-request")


def test_maintenance_outside_the_api_is_an_html_503(live_server: Any, settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_EXEMPT_PATHS": []}
    write_switch(True, retry_after=120)
    page = send(live_server.url, "GET", "/admin/login/", headers=BROWSER)
    assert "down for maintenance" in assert_html(page, 503)
    assert page.header("Retry-After") == "120"
    assert_problem(send(live_server.url, "GET", "/v2/users", headers=BROWSER), 503, "service-unavailable")
    write_switch(False)


@pytest.mark.parametrize(
    ("handler", "arguments", "status"),
    [
        ("bad_request", (Exception(),), 400),
        ("permission_denied", (Exception(),), 403),
        ("page_not_found", (Exception(),), 404),
        ("server_error", (), 500),
    ],
)
def test_the_error_views_hand_over_to_djangos_outside_the_api(
    handler: str, arguments: tuple[Any, ...], status: int
) -> None:
    outside = getattr(django_handlers, handler)(RequestFactory().get("/admin/x/"), *arguments)
    assert outside.status_code == status and outside["Content-Type"].startswith("text/html")
    inside = getattr(django_handlers, handler)(RequestFactory().get("/v2/x"), *arguments)
    assert inside.status_code == status and inside["Content-Type"] == "application/problem+json"


@pytest.mark.postgres  # the gunicorn workers share the test database
def test_over_gunicorn_the_admin_is_html_and_the_api_problems() -> None:
    with gunicorn(1) as server:
        login = send(server.url, "POST", "/admin/login/", body="username=a&password=b", headers=LOGIN_FORM)
        assert "CSRF verification failed" in assert_html(login, 403)
        assert_problem(send(server.url, "GET", "/v2/no/such/page", headers=BROWSER), 404, "not-found")
        assert_problem(
            send(server.url, "POST", "/v2/users", body="a=1", headers=LOGIN_FORM), 415, "unsupported-media-type"
        )
