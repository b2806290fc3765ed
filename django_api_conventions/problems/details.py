"""Problem details (RFC 9457): the exception that carries one, and the response that renders it."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.urls import NoReverseMatch, reverse
from django.utils import translation
from rest_framework.exceptions import APIException
from rest_framework.utils.encoders import JSONEncoder

from ..conf import api_settings
from ..http import header_names
from ..tracing.trace_ids import assign_trace_id
from .built_in import RETRYABLE_WITH_SAME_KEY
from .hosts import checked_host
from .types import ProblemType, problem_types

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

PROBLEM_CONTENT_TYPE = "application/problem+json"

logger = logging.getLogger("django_api_conventions.problems")

#: Members of every problem body, which extensions never overwrite (a field called ``title``
#: keeps its message: field errors live in ``errors``).
RESERVED_MEMBERS = frozenset({"type", "title", "status", "detail", "instance", "trace_id", "errors"})

ErrorItem = dict[str, str]


class ProblemException(APIException):
    """Raise to answer with a problem of a registered type.

    ``errors`` are items of the form ``{"pointer" | "parameter" | "header": ..., "detail":
    ..., "code": ...}``; ``extensions`` are extra members (never one of
    :data:`RESERVED_MEMBERS`); ``headers`` are added to the response.
    """

    def __init__(
        self,
        problem_type: str | ProblemType,
        detail: StrOrPromise | None = None,
        *,
        status: int | None = None,
        errors: Iterable[ErrorItem] = (),
        headers: Mapping[str, str] | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        self.problem_type = problem_type if isinstance(problem_type, ProblemType) else problem_types[problem_type]
        self.status_code = status or self.problem_type.status
        if not 400 <= self.status_code <= 599:
            raise ValueError(f"A problem's status must be 400..599, not {self.status_code}.")
        self.errors = list(errors)
        self.headers = dict(headers or {})
        self.extensions = dict(extensions or {})
        clashing = RESERVED_MEMBERS.intersection(self.extensions)
        if clashing:
            raise ValueError(f"Problem extensions may not use reserved members: {sorted(clashing)}")
        retryable = RETRYABLE_WITH_SAME_KEY.get(self.problem_type.slug)
        if retryable is not None:
            # An idempotency problem tells the client what to do next, and concerns this moment
            # of its key: no cache may answer a retry with it.
            self.extensions.setdefault("retryable", retryable)
            self.headers.setdefault(header_names.CACHE_CONTROL, "no-store")
        super().__init__(detail or self.problem_type.title)


def retry_after_header(seconds: float) -> dict[str, str]:
    """A ``Retry-After`` header of whole seconds, at least one."""
    return {header_names.RETRY_AFTER: str(max(1, math.ceil(seconds)))}


def _origin(request: HttpRequest) -> str:
    try:
        checked_host(request)  # build_absolute_uri() would echo a port such as 99999999999999999999
        return request.build_absolute_uri("/").rstrip("/")
    except DisallowedHost:  # fall back on a host the service does serve
        hosts = [h for h in settings.ALLOWED_HOSTS if h and h[0] not in ".*"]
        return f"{request.scheme}://{hosts[0] if hosts else 'localhost'}"


def problem_type_url(request: HttpRequest, slug: str) -> str:
    """The absolute ``type`` URL of ``slug``: under an absolute ``PROBLEM_BASE_URL``, else the
    package's own page on the request's host."""
    base = api_settings.PROBLEM_BASE_URL
    if base and not base.startswith("/"):
        return f"{base.rstrip('/')}/{slug}"
    try:
        path = reverse("api_conventions:problem-type", kwargs={"slug": slug})
    except NoReverseMatch:
        return "about:blank"
    return _origin(request) + path


def render_problem(request: HttpRequest, problem: ProblemException) -> HttpResponse:
    """The ``application/problem+json`` response of ``problem`` for ``request``."""
    trace_id = assign_trace_id(request)
    body: dict[str, Any] = {
        "type": problem_type_url(request, problem.problem_type.slug),
        "title": str(problem.problem_type.title),  # a lazy translation, in the active language
        "status": problem.status_code,
        "detail": str(problem.detail),
        "instance": f"urn:request:{trace_id}",
        "trace_id": trace_id,
    }
    if problem.errors:
        body["errors"] = problem.errors
    body.update(problem.extensions)
    response = HttpResponse(
        json.dumps(body, cls=JSONEncoder), status=problem.status_code, content_type=PROBLEM_CONTENT_TYPE
    )
    # Tests written against DRF read response.data; a plain HttpResponse still, so that content
    # negotiation can never pick an HTML renderer for a problem.
    response.data = body  # type: ignore[attr-defined]  # as DRF's Response has it
    language = translation.get_language()
    if language:
        response["Content-Language"] = language
    for name, value in problem.headers.items():
        response[name] = value
    if api_settings.TRACE_ID_HEADER not in response:  # a header the project's problem names is its own
        response[api_settings.TRACE_ID_HEADER] = trace_id
    if problem.status_code < 500:  # server failures are logged, with their traceback, where they happen
        _log_rejection(request, problem, trace_id)
    return response


def _log_rejection(request: HttpRequest, problem: ProblemException, trace_id: str) -> None:
    # What was answered, never what was sent (no body, no header).
    logger.info(
        "Rejected %s %s: %s %s",
        ascii(request.method or "")[1:-1],  # ascii(): a path's CR, LF or NUL cannot forge a log line
        ascii(request.path)[1:-1],
        problem.status_code,
        problem.problem_type.slug,
        extra={"status_code": problem.status_code, "problem_type": problem.problem_type.slug, "trace_id": trace_id},
    )


def is_problem_response(response: HttpResponseBase) -> bool:
    return response.get("Content-Type", "").split(";")[0].strip() == PROBLEM_CONTENT_TYPE
