"""The documentation pages of problem types: what a problem's ``type`` URL answers, in HTML or JSON.

The pages render with an engine of their own, so they need no ``TEMPLATES`` setting and no
static files set-up; they touch no database, so they answer while it is down and during
maintenance, when the ``type`` of the 503 must still explain it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.template import Context, Engine
from django.urls import NoReverseMatch, reverse
from django.utils.translation import get_language, gettext

from ..conf import api_settings
from ..http import header_names
from ..http.accept import preferred_type
from ..http.read_only import read_only
from ..maintenance.middleware import maintenance_exempt
from .details import PROBLEM_CONTENT_TYPE, problem_type_url, render_problem
from .django_handlers import not_found_problem
from .markdown import markdown_to_html
from .types import ProblemField, ProblemType, problem_types

#: The forms of PROBLEM_BASE_URL: an absolute http(s) URL or a path, with at least one segment:
#: at the root, the pages' ``<slug>`` route would take every one-segment path of the site.
BASE_URL_FORM = re.compile(r"(?:https?://[^/\s?#]+)?(?:/[A-Za-z0-9._~-]+)+/?")
_DEFAULT_PAGES_PATH = "problems/"

_PACKAGE = Path(__file__).resolve().parent.parent
_STYLESHEET = _PACKAGE / "static" / "django_api_conventions" / "problems.css"
_EXAMPLE_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def problem_pages_path() -> str:
    """Where ``django_api_conventions.urls`` routes the pages: the path of ``PROBLEM_BASE_URL``,
    else ``problems/``; a value the pages cannot take stops the start-up."""
    base = api_settings.PROBLEM_BASE_URL
    if base is None:
        return _DEFAULT_PAGES_PATH
    if not isinstance(base, str) or BASE_URL_FORM.fullmatch(base) is None:
        raise ImproperlyConfigured(
            f"API_CONVENTIONS['PROBLEM_BASE_URL'] = {base!r} is neither an absolute http(s) URL nor a path, "
            "with at least one segment: use e.g. 'https://api.example.com/problems' or '/api/problem-types'."
        )
    return urlsplit(base).path.strip("/") + "/"


def _page_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    return read_only(maintenance_exempt(transaction.non_atomic_requests(view)))


@_page_view
def problem_type_view(request: HttpRequest, slug: str) -> HttpResponse:
    problem_type = problem_types.get(slug)
    if problem_type is None:
        return render_problem(request, not_found_problem(request))
    if _prefers_json(request):
        return _json(_as_dict(request, problem_type))
    same_status = [t for t in problem_types if t.status == problem_type.status and t.slug != slug]
    return _html(
        request,
        "problem_type.html",
        {
            "type": _type_context(request, problem_type),
            "standard_members": _standard_members(),
            "example": _example(request, problem_type),
            "same_status": [_type_context(request, t) for t in same_status],
        },
    )


@_page_view
def problem_type_list_view(request: HttpRequest) -> HttpResponse:
    types = list(problem_types)
    if _prefers_json(request):
        return _json([_as_dict(request, t) for t in types])
    return _html(
        request,
        "problem_type_list.html",
        {
            "types": [_type_context(request, t) for t in types],
            "standard_members": _standard_members(),
        },
    )


@_page_view
def problem_type_redirect_view(request: HttpRequest, slug: str | None = None) -> HttpResponse:
    # /problems and /problems/<slug>/: a permanent redirect to the page's one URL.
    if slug is None:
        target = reverse("api_conventions:problem-type-list")
    elif problem_types.get(slug) is not None:
        target = reverse("api_conventions:problem-type", kwargs={"slug": slug})
    else:
        return render_problem(request, not_found_problem(request))
    query = request.META.get("QUERY_STRING", "")
    return HttpResponsePermanentRedirect(f"{target}?{query}" if query else target)


@_page_view
def problem_stylesheet_view(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(_stylesheet(), content_type="text/css; charset=utf-8")
    response[header_names.CACHE_CONTROL] = "public, max-age=86400"
    return response


@cache
def _stylesheet() -> bytes:
    return _STYLESHEET.read_bytes()


@cache
def _engine() -> Engine:
    return Engine(
        dirs=[str(_PACKAGE / "templates" / "django_api_conventions" / "problems")],
        libraries={"i18n": "django.templatetags.i18n"},
    )


def _html(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    language = get_language() or "en"
    context.update(
        language=language,
        stylesheet=reverse("api_conventions:problem-stylesheet"),
        index=reverse("api_conventions:problem-type-list"),
        docs=_docs_url(),
    )
    page = _engine().get_template(template).render(Context(context))
    response = HttpResponse(page, content_type="text/html; charset=utf-8")
    response["Content-Language"] = language
    return response


def _json(payload: object) -> HttpResponse:
    response = HttpResponse(json.dumps(payload, cls=DjangoJSONEncoder), content_type="application/json")
    response["Content-Language"] = get_language() or "en"
    return response


def _docs_url() -> str | None:
    try:
        return reverse("api_conventions_openapi:docs")
    except NoReverseMatch:
        return None


def _prefers_json(request: HttpRequest) -> bool:
    # Not request.get_preferred_type(): it parses every range of an Accept of any length.
    preferred = preferred_type(request, ["text/html", "application/json", PROBLEM_CONTENT_TYPE])
    return preferred is not None and preferred != "text/html"


def _page_url(slug: str) -> str:
    return reverse("api_conventions:problem-type", kwargs={"slug": slug})


def _as_dict(request: HttpRequest, problem_type: ProblemType, text: Callable[[str], str] = str) -> dict[str, object]:
    """The texts in the request's language: Markdown, or ``text`` of it."""

    def fields(documented: tuple[ProblemField, ...]) -> list[dict[str, str]]:
        return [{"name": field.name, "description": text(str(field.description))} for field in documented]

    return {
        "slug": problem_type.slug,
        "type": problem_type_url(request, problem_type.slug),
        "title": str(problem_type.title),
        "status": problem_type.status,
        "description": text(str(problem_type.description)),
        "fix": text(str(problem_type.fix)),
        "members": fields(problem_type.members),
        "headers": fields(problem_type.headers),
    }


def _type_context(request: HttpRequest, problem_type: ProblemType) -> dict[str, object]:
    context = _as_dict(request, problem_type, markdown_to_html)
    return {**context, "url": context["type"], "page": _page_url(problem_type.slug)}


def _standard_members() -> list[dict[str, object]]:
    texts = [
        (
            "type",
            gettext(
                "The URL of the page that documents the kind of error. Compare `type`, not `title`, in "
                "your code: it never changes with the language."
            ),
        ),
        ("title", gettext("A short summary of the type, in the response's language (Content-Language).")),
        ("status", gettext("The HTTP status code of the response.")),
        (
            "detail",
            gettext("What went wrong with this request, in the response's language: for people, not for parsing."),
        ),
        ("instance", gettext("This occurrence: `urn:request:` followed by the trace id.")),
        (
            "trace_id",
            gettext(
                "The id of the request in the service's logs, also in the {header} response header. "
                "Quote it when you contact support."
            ).format(header=api_settings.TRACE_ID_HEADER),
        ),
    ]
    return [{"name": name, "description": markdown_to_html(text)} for name, text in texts]


def _example(request: HttpRequest, problem_type: ProblemType) -> str:
    body: dict[str, object] = {
        "type": problem_type_url(request, problem_type.slug),
        "title": problem_type.title,
        "status": problem_type.status,
        "detail": problem_type.example_detail or problem_type.title,
        "instance": f"urn:request:{_EXAMPLE_TRACE_ID}",
        "trace_id": _EXAMPLE_TRACE_ID,
    }
    body.update((member.name, member.example) for member in problem_type.members)
    try:
        phrase = HTTPStatus(problem_type.status).phrase
    except ValueError:
        phrase = ""
    lines = [
        f"HTTP/1.1 {problem_type.status} {phrase}".rstrip(),
        f"Content-Type: {PROBLEM_CONTENT_TYPE}",
        f"Content-Language: {get_language() or 'en'}",
        *(f"{header.name}: {header.example}" for header in problem_type.headers),
        f"{api_settings.TRACE_ID_HEADER}: {_EXAMPLE_TRACE_ID}",
        "",
        json.dumps(body, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False),
    ]
    return "\n".join(lines)
