"""The maintenance middleware: 503 with ``Retry-After`` while the switch is on, except for exempt views."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.log import log_response
from django.utils.translation import gettext

from ..conf import api_settings
from ..http.hook_middleware import HookMiddleware
from ..problems.api_paths import html_error_page, is_api_path
from ..problems.details import ProblemException, render_problem, retry_after_header
from .switches import amaintenance_retry_after, maintenance_retry_after

_View = TypeVar("_View", bound=Callable[..., object])


def maintenance_exempt(view: _View) -> _View:
    """Mark a view, function or class, to keep answering while maintenance is on: like
    ``csrf_exempt``, the mark travels with the view wherever its URL is mounted. The package's
    problem type pages and OpenAPI views carry it."""
    view.maintenance_exempt = True  # type: ignore[attr-defined]  # read by the middleware
    return view


class MaintenanceModeMiddleware(HookMiddleware):
    """Answers 503 with ``Retry-After`` while maintenance is on, on every path (API or not) but
    those of ``MAINTENANCE_EXEMPT_PATHS`` and views marked :func:`maintenance_exempt`. Outside
    the API the 503 is an HTML page (the project's ``503.html`` template when there is one)."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        return None if _exempt_path(request) else self._answer(request, maintenance_retry_after())

    async def aprocess_request(self, request: HttpRequest) -> HttpResponse | None:
        return None if _exempt_path(request) else self._answer(request, await amaintenance_retry_after())

    def _answer(self, request: HttpRequest, retry_after: int | None) -> HttpResponse | None:
        if retry_after is None or _resolves_to_exempt_view(request):
            return None
        problem = ProblemException(
            "service-unavailable",
            gettext("The service is down for maintenance; retry later."),
            headers=retry_after_header(retry_after),
        )
        response = render_problem(request, problem) if is_api_path(request) else html_error_page(request, problem)
        # A planned 503 is no server failure: Django would log it at ERROR on django.request,
        # where alerts listen. Logged here, at WARNING like a 4xx, Django skips it.
        log_response(
            "%s: %s", response.reason_phrase, request.path, response=response, request=request, level="warning"
        )
        return response


def _resolves_to_exempt_view(request: HttpRequest) -> bool:
    # Resolved only while maintenance is on: the URLconf is not walked twice on normal days.
    try:
        match = resolve(request.path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return False
    # A class-based view resolves to the function as_view() made; the mark is on its class.
    view = match.func
    return bool(
        getattr(view, "maintenance_exempt", False)
        or getattr(getattr(view, "view_class", None), "maintenance_exempt", False)
    )


def _exempt_path(request: HttpRequest) -> bool:
    return any(re.search(pattern, request.path) for pattern in api_settings.MAINTENANCE_EXEMPT_PATHS)
