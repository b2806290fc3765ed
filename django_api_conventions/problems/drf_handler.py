"""DRF's ``EXCEPTION_HANDLER``: every exception a DRF view raises becomes a problem."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from rest_framework.views import set_rollback

from ..http_request import http_request_of
from .details import render_problem
from .mapping import problem_for_exception, report_server_failure


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """Answer ``exc`` with a problem; ``None`` lets an unexpected failure reach the middleware.

    Unexpected failures propagate so that Django's ``got_request_exception`` receivers (error
    trackers) see them; :class:`~django_api_conventions.middleware.ProblemDetailsMiddleware`
    then answers the 500 problem.
    """
    problem = problem_for_exception(exc)
    if problem is None:
        return None
    set_rollback()
    request = http_request_of(context["request"])
    if problem.status_code >= 500:
        report_server_failure(request, exc, problem.status_code)
    # A plain HttpResponse, not DRF's Response: content negotiation must never pick an HTML
    # renderer for an error.
    return render_problem(request, problem)
