"""Django's error views (``handler400`` ... ``handler500``, ``CSRF_FAILURE_VIEW``) as problems.

Point your root URLconf at them: ``handler404 = "django_api_conventions.problems.django_handlers.page_not_found"``
and so on. Outside ``API_PATHS`` each hands over to the view ``HTML_ERROR_HANDLERS`` names, else to Django's.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import Any, cast

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.module_loading import import_string
from django.utils.translation import gettext
from django.views import csrf, defaults

from ..conf import api_settings
from .api_paths import is_api_path
from .details import ProblemException, render_problem
from .mapping import INTERNAL_ERROR_DETAIL, PERMISSION_DENIED_DETAIL, own_not_found_detail, problem_for_exception

__all__ = ["bad_request", "csrf_failure", "page_not_found", "permission_denied", "server_error"]

logger = logging.getLogger("django_api_conventions.problems")

#: The names ``HTML_ERROR_HANDLERS`` takes: Django's own names of its error views.
HTML_ERROR_HANDLER_NAMES = ("handler400", "handler403", "handler404", "handler500", "CSRF_FAILURE_VIEW")


def _html_error_handler(name: str) -> Callable[..., HttpResponse] | None:
    # None: none named, one of the package's own views (which would call itself), or one that
    # cannot be imported (logged; check E004 says so at start-up).
    handlers = api_settings.HTML_ERROR_HANDLERS
    target = handlers.get(name) if isinstance(handlers, dict) else None
    if target is None:
        return None
    view = _import_view(target) if isinstance(target, str) else target
    if not callable(view) or is_own_view(view):
        return None
    return cast("Callable[..., HttpResponse]", view)  # callable, checked above


@functools.lru_cache(maxsize=64)
def _import_view(path: str) -> Any:
    try:
        return import_string(path)
    except ImportError:
        logger.exception(
            "API_CONVENTIONS['HTML_ERROR_HANDLERS'] names %s, which cannot be imported: "
            "Django's own error view answers instead.",
            path,
        )
        return None


def is_own_view(view: object) -> bool:
    return getattr(view, "__module__", None) == __name__


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not is_api_path(request):
        view: Callable[..., HttpResponse] = _html_error_handler("handler400") or defaults.bad_request
        return view(request, exception)
    problem = problem_for_exception(exception) if exception is not None else None
    return render_problem(request, problem or ProblemException("bad-request"))


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not is_api_path(request):
        view: Callable[..., HttpResponse] = _html_error_handler("handler403") or defaults.permission_denied
        return view(request, exception)
    return render_problem(request, ProblemException("permission-denied", PERMISSION_DENIED_DETAIL))


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not is_api_path(request):
        return (_html_error_handler("handler404") or defaults.page_not_found)(request, exception)
    # An Http404 a view raised keeps its message; a path nothing routes gets the package's.
    detail = own_not_found_detail(exception) if isinstance(exception, Http404) else None
    return render_problem(request, ProblemException("not-found", detail) if detail else not_found_problem(request))


def server_error(request: HttpRequest) -> HttpResponse:
    if not is_api_path(request):
        return (_html_error_handler("handler500") or defaults.server_error)(request)
    # Django calls handler500 inside its ``except`` block: the failure is still at hand, and
    # a database outage deserves a 503 rather than a 500.
    exception = sys.exc_info()[1]
    problem = problem_for_exception(exception) if exception is not None else None
    return render_problem(request, problem or ProblemException("internal-error", INTERNAL_ERROR_DETAIL))


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if not is_api_path(request):
        return (_html_error_handler("CSRF_FAILURE_VIEW") or csrf.csrf_failure)(request, reason=reason)
    return render_problem(
        request,
        ProblemException("csrf-failed", gettext("CSRF verification failed: send the CSRF token with the request.")),
    )


def not_found_problem(request: HttpRequest) -> ProblemException:
    """The 404 of a path that nothing serves, naming the path with or without its trailing slash
    when that one is routed."""
    detail = gettext("No resource matches {method} {path}.").format(method=request.method, path=request.path)
    near = near_path(request)
    if near is not None:
        detail += " " + gettext("Did you mean {path}?").format(path=near)
    return ProblemException("not-found", detail)


def near_path(request: HttpRequest) -> str | None:
    """``request.path`` with its trailing slash removed or added, if only that one is routed."""
    # APPEND_SLASH redirects only GETs (and is often off): a stray slash is the commonest 404.
    path_info = request.path_info
    if path_info == "/" or _is_routed(request, path_info):
        return None
    other = path_info[:-1] if path_info.endswith("/") else f"{path_info}/"
    if not _is_routed(request, other):
        return None
    return request.path.removesuffix(path_info) + other


def _is_routed(request: HttpRequest, path_info: str) -> bool:
    try:
        resolve(path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return False
    return True
