"""DRF's ``EXCEPTION_HANDLER``: every exception a DRF view raises becomes a problem.

A project that had its own handler keeps it as ``API_CONVENTIONS["PROJECT_EXCEPTION_HANDLER"]``
(``REST_FRAMEWORK["EXCEPTION_HANDLER"]`` stays the package's, so check W001 stays quiet): it runs
first, and its answer is converted into a problem.
"""

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

#: Set while the project's handler runs: a project handler that itself ends by calling this one
#: (the usual way to wrap it) gets the package's answer, not a second call of itself.
_in_project_handler: ContextVar[bool] = ContextVar("api_conventions_in_project_handler", default=False)


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponseBase | None:
    """Answer ``exc`` with a problem; ``None`` lets an unexpected failure reach the middleware.

    In order: a :class:`ProblemException` as it is; the project's mapping of the exception's
    type (``map_exception``); the project's own handler (``PROJECT_EXCEPTION_HANDLER``), whose
    answer is converted (or kept as it is in a view marked
    :func:`~django_api_conventions.problems.kept_answers.keep_error_body`); the package's
    mapping. Unexpected failures propagate so that Django's ``got_request_exception``
    receivers (error trackers) see them;
    :class:`~django_api_conventions.middleware.ProblemDetailsMiddleware` then answers the 500
    problem.
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
    # A plain HttpResponse, not DRF's Response: content negotiation must never pick an HTML
    # renderer for an error.
    response = render_problem(request, problem)
    if answer is not None:
        response.cookies = answer.cookies
    return response


def _project_answer(exc: Exception, context: dict[str, Any]) -> tuple[HttpResponseBase | None, Any]:
    """The project's own handler's answer to ``exc`` (``None`` without one, or when it has none),
    and what DRF's own handler would have answered, as ``(status, data)`` (``None``: nothing)."""
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
    """``(status, data)`` of the answer DRF's own ``exception_handler`` gives ``exc``, if any."""
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
    """The problem of the project's error answer to ``exc``.

    Where it answers as DRF's own handler would (the same status and body: the project handles
    its own cases and leaves the others to DRF's), the package's problem of ``exc`` (422 for a
    validation error, ``rate-limited``...); else the project's answer as a problem
    (:func:`~django_api_conventions.problems.error_answers.problem_for_error_answer`). Either way the
    answer's headers (``Retry-After``...) are kept.
    """
    headers = headers_beside_body(answer)
    data = error_answer_data(answer)
    problem = package_problem(exc) if drf_default == (answer.status_code, data) else None
    if problem is None:
        return problem_for_error_answer(answer.status_code, data, headers)
    own = {name.lower() for name in problem.headers}
    problem.headers.update({name: value for name, value in headers.items() if name.lower() not in own})
    return problem
