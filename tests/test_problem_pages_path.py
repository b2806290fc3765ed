"""The path of PROBLEM_BASE_URL moves the problem type pages; a second URLconf (per-host routing) answers
problems and problem pages of its own."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.test import Client, override_settings
from django.urls import include, path

import django_api_conventions.urls as package_urls
from django_api_conventions import checks
from django_api_conventions.problems import checks as problem_checks

SECOND_HOST = "portal.example.com"
SECOND_URLCONF = "tests.urls_second_host"


def own_slug_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A project's own route of one slug at the root (an organisation's page)."""
    return HttpResponse(f"the page of {slug}")


@pytest.fixture
def pages_at(settings: Any) -> Iterator[Callable[[str], None]]:
    """Serve a root URLconf that includes the package's URLs loaded with a PROBLEM_BASE_URL."""
    without = {k: v for k, v in settings.API_CONVENTIONS.items() if k != "PROBLEM_BASE_URL"}

    def serve(base: str) -> None:
        settings.API_CONVENTIONS = {**without, "PROBLEM_BASE_URL": base}
        urlconf = types.ModuleType("tests.pages_path_urls")
        urlconf.urlpatterns = [  # type: ignore[attr-defined]
            path("", include(importlib.reload(package_urls))),
            path("<slug:slug>", own_slug_page),
        ]
        for handler in ("handler400", "handler403", "handler404", "handler500"):
            setattr(urlconf, handler, getattr(sys.modules[SECOND_URLCONF], handler))
        sys.modules[urlconf.__name__] = urlconf
        settings.ROOT_URLCONF = urlconf.__name__

    importlib.import_module(SECOND_URLCONF)
    yield serve
    sys.modules.pop("tests.pages_path_urls", None)
    with override_settings(API_CONVENTIONS=without):
        importlib.reload(package_urls)  # the default routes again, for the tests that follow


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("base", "type_url"),
    [
        ("/api/problem-types", "http://testserver/api/problem-types/not-found"),
        ("https://api.example.com/api/problem-types/", "https://api.example.com/api/problem-types/not-found"),
    ],
)
def test_the_pages_move_to_the_path_of_the_base_url(pages_at: Callable[[str], None], base: str, type_url: str) -> None:
    pages_at(base)
    client = Client()
    # The project's own /problems route is its own again.
    assert client.get("/problems").content == b"the page of problems"
    page = client.get("/api/problem-types/not-found", HTTP_ACCEPT="application/json")
    assert page.status_code == 200 and page.json()["type"] == type_url
    assert client.get("/api/problem-types").status_code == 301
    assert client.get("/api/problem-types/no-such-type").json()["type"] == type_url


@pytest.mark.parametrize("value", ["problems", "https://api.example.com", "/", "/api//problems", "/<slug:x>"])
def test_a_base_url_the_pages_cannot_take_stops_the_start_up(settings: Any, value: str) -> None:
    try:
        with override_settings(API_CONVENTIONS={**settings.API_CONVENTIONS, "PROBLEM_BASE_URL": value}):
            assert [m.id for m in checks.settings.check_settings()] == ["django_api_conventions.E003"]
            with pytest.raises(ImproperlyConfigured, match=r"PROBLEM_BASE_URL'\] = .* '/api/problem-types'"):
                importlib.reload(package_urls)
    finally:
        importlib.reload(package_urls)  # the default routes again, for the tests that follow


class HostRouting:
    """Per-host routing as django-hosts does it: the second host's URLconf as request.urlconf."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.get_host() == SECOND_HOST:
            request.urlconf = SECOND_URLCONF
        return self.get_response(request)


@pytest.fixture
def second_host(settings: Any) -> Client:
    settings.MIDDLEWARE = [f"{__name__}.HostRouting", *settings.MIDDLEWARE]
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, SECOND_HOST]
    return Client(HTTP_HOST=SECOND_HOST)


@pytest.mark.django_db
def test_a_second_urlconf_answers_problems_and_problem_pages(second_host: Client) -> None:
    missing = second_host.get("/nowhere")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/problem+json"
    assert missing.json()["type"] == f"http://{SECOND_HOST}/help/problems/not-found"
    invalid = second_host.post("/tickets", {}, content_type="application/json")
    assert invalid.status_code == 422
    assert invalid.json()["type"] == f"http://{SECOND_HOST}/help/problems/validation-error"
    page = second_host.get("/help/problems/validation-error", HTTP_ACCEPT="application/json")
    assert page.status_code == 200 and page.json()["slug"] == "validation-error"
    # The first host keeps its own pages, where its URLconf routes them.
    assert Client().get("/help/problems/validation-error").status_code == 404


def test_the_checks_read_a_second_urlconf(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "EXTRA_URLCONFS": [SECOND_URLCONF]}
    assert problem_checks.check_error_views() == []
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "EXTRA_URLCONFS": ["tests.urls_without_package"]}
    found = [(m.id, m.obj) for m in problem_checks.check_error_views() if m.id.endswith("E008")]
    assert found == [("django_api_conventions.E008", "tests.urls_without_package")]
