"""Which paths are the API (``API_PATHS``): there every error is a problem; elsewhere (the
admin) Django answers as usual."""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.template import TemplateDoesNotExist, loader
from django.utils.html import escape
from django.views.defaults import ERROR_PAGE_TEMPLATE

from ..conf import api_settings
from .details import ProblemException


def is_api_path(request: HttpRequest) -> bool:
    """Whether one of the patterns of ``API_PATHS`` is found in ``request.path`` (``re.search``)."""
    return any(re.search(pattern, request.path) for pattern in api_settings.API_PATHS)


def html_error_page(request: HttpRequest, problem: ProblemException) -> HttpResponse:
    """A problem outside the API, as Django shows an error: the template ``<status>.html``, else
    Django's plain error page, with the problem's headers."""
    status = problem.status_code
    try:
        content = loader.get_template(f"{status}.html").render(
            {"request_path": request.path, "title": problem.problem_type.title, "detail": str(problem.detail)},
            request,
        )
    except TemplateDoesNotExist:
        content = ERROR_PAGE_TEMPLATE % {
            "title": escape(problem.problem_type.title),
            "details": escape(str(problem.detail)),
        }
    response = HttpResponse(content, status=status)
    for name, value in problem.headers.items():
        response[name] = value
    return response
