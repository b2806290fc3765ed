"""The documentation pages of problem types: what a problem's ``type`` URL answers."""

from __future__ import annotations

import json

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join
from django.utils.translation import get_language, gettext
from django.views.decorators.http import require_safe

from ..maintenance import maintenance_exempt
from .details import render_problem
from .django_handlers import not_found_problem
from .markdown import markdown_to_html
from .types import ProblemType, problem_types


# The pages touch no database: they answer even while it is down, even under ATOMIC_REQUESTS,
# and during maintenance, so that the `type` of its 503 still explains it.
@maintenance_exempt
@transaction.non_atomic_requests
@require_safe
def problem_type_view(request: HttpRequest, slug: str) -> HttpResponse:
    """``GET /problems/<slug>``: HTML for browsers, JSON for clients that ask for it."""
    problem_type = problem_types.get(slug)
    if problem_type is None:
        return render_problem(request, not_found_problem(request))
    if _prefers_json(request):
        return _json(_as_dict(problem_type))
    return _html(problem_type.title, [problem_type])


@maintenance_exempt
@transaction.non_atomic_requests
@require_safe
def problem_type_list_view(request: HttpRequest) -> HttpResponse:
    """``GET /problems/``: every registered problem type."""
    types = list(problem_types)
    if _prefers_json(request):
        return _json([_as_dict(t) for t in types])
    return _html(gettext("Problem types"), types)


def _as_dict(problem_type: ProblemType) -> dict[str, object]:
    return {
        "slug": problem_type.slug,
        "title": str(problem_type.title),  # lazy translations, in the request's language
        "status": problem_type.status,
        "description": str(problem_type.description),
    }


def _json(payload: object) -> HttpResponse:
    return HttpResponse(json.dumps(payload), content_type="application/json")


def _html(title: object, types: list[ProblemType]) -> HttpResponse:
    sections = format_html_join(
        "\n",
        '<section id="{}"><h2>{} <small>(HTTP {})</small></h2><p><code>{}</code></p>{}</section>',
        ((t.slug, t.title, t.status, t.slug, markdown_to_html(str(t.description))) for t in types),
    )
    page = format_html(
        '<!DOCTYPE html><html lang="{}"><head><meta charset="utf-8"><title>{}</title></head>'
        "<body><main><h1>{}</h1>{}</main></body></html>",
        get_language() or "en",
        title,
        title,
        sections,
    )
    return HttpResponse(page, content_type="text/html; charset=utf-8")


def _prefers_json(request: HttpRequest) -> bool:
    preferred = request.get_preferred_type(["text/html", "application/json", "application/problem+json"])
    return preferred is not None and preferred != "text/html"
