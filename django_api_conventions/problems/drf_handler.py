"""DRF's ``EXCEPTION_HANDLER``: every exception a DRF view raises becomes a problem."""

from __future__ import annotations

import copy
from contextvars import ContextVar
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseBase
from rest_framework import exceptions as drf
from rest_framework.views import set_rollback

from ..conf import api_settings
from ..http.request_attributes import http_request_of
from .details import ProblemException, is_problem_response, render_problem
from .error_answers import error_answer_data, headers_beside_body, problem_for_error_answer
from .kept_answers import is_kept_answer, keep_error_body
from .mapping import mapped_problem, package_problem, report_server_failure

__all__ = ["problem_exception_handler"]

# Set while the project's handler runs: one that ends by calling this one gets the package's
# answer, not a second call of itself.
_in_project_handler: ContextVar[bool] = ContextVar("api_conventions_in_project_handler", default=False)


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponseBase | None:
    """Answer ``exc`` with a problem; ``None`` lets an unexpected failure reach the middleware.

    In order: a :class:`ProblemException` as it is; the project's ``map_exception``; the
    project's ``PROJECT_EXCEPTION_HANDLER``, whose answer is converted (or kept, see
    ``keep_error_body``); the package's mapping. Unexpected failures propagate, so that
    ``got_request_exception`` receivers (error trackers) see them, and the middleware answers 500.
    """
    request = http_request_of(context["request"])
    answer: HttpResponseBase | None = None
    problem = exc if isinstance(exc, ProblemException) else mapped_problem(exc)
    if problem is None:
        answer, drf_default = _project_answer(exc, context)
        if answer is None:
            problem = package_problem(exc)
        elif answer.status_code < 400 or is_problem_response(answer):
            return answer  # not an error, or already a problem (the project's handler called this one)
        elif is_kept_answer(request, answer, context.get("view")):
            # Marked too, so that the middleware, which may not see the view's mark, keeps it.
            return keep_error_body(answer)
        else:
            problem = _problem_of_answer(exc, answer, drf_default)
    if problem is None:
        return None
    set_rollback()
    if problem.status_code >= 500:
        report_server_failure(request, exc, problem.status_code)
    response = render_problem(request, problem)
    if answer is not None:
        response.cookies = answer.cookies
    return response


def _project_answer(exc: Exception, context: dict[str, Any]) -> tuple[HttpResponseBase | None, Any]:
    # The project's handler's answer (None: none), and DRF's own handler's as (status, data).
    handler = api_settings.PROJECT_EXCEPTION_HANDLER
    if handler is None or handler is problem_exception_handler or _in_project_handler.get():
        return None, None
    # Taken before the project's handler runs: one that wraps DRF's may change DRF's answer in
    # place, and with it ``exc.detail``.
    drf_default = _drf_default(exc)
    token = _in_project_handler.set(True)
    try:
        return handler(exc, context), drf_default
    finally:
        _in_project_handler.reset(token)


def _drf_default(exc: Exception) -> tuple[int, Any] | None:

    if isinstance(exc, Http404):
        exc = drf.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = drf.PermissionDenied(*exc.args)
    if not isinstance(exc, drf.APIException):
        return None
    data = exc.detail if isinstance(exc.detail, (list, dict)) else {"detail": exc.detail}
    return exc.status_code, copy.deepcopy(data)


def _problem_of_answer(
    exc: Exception, answer: HttpResponseBase, drf_default: tuple[int, Any] | None
) -> ProblemException:
    # An answer the same as DRF's own handler's (the project left the case to DRF) is the
    # package's problem of exc (a 422, rate-limited...); either way its headers are kept.
    headers = headers_beside_body(answer)
    data = error_answer_data(answer)
    problem = package_problem(exc) if drf_default == (answer.status_code, data) else None
    if problem is None:
        return problem_for_error_answer(answer.status_code, data, headers)
    own = {name.lower() for name in problem.headers}
    problem.headers.update({name: value for name, value in headers.items() if name.lower() not in own})
    return problem
