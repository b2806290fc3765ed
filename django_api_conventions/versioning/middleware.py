"""``VersionLifecycleMiddleware``: the lifecycle of versions, endpoints and fields on every response.

Put it right after ``TraceIdMiddleware``, outside ``ProblemDetailsMiddleware``, so that the
problems answered before any view and the 503 of maintenance are announced too.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone

from ..http.hook_middleware import HookMiddleware
from ..http.languages import honour_refused_languages
from ..http.request_attributes import DEPRECATED_USES, VERSION, pop_state, set_state, state_list
from ..http.routes import display_route
from ..problems.details import render_problem
from .deprecation import endpoint_deprecations
from .headers import apply_deprecation_headers
from .lifecycle import Deprecation, get_version_table, version_in_path
from .problems import (
    endpoint_retired_problem,
    unknown_version_problem,
    version_brownout_problem,
    version_retired_problem,
)
from .signals import deprecated_endpoint_used, deprecated_version_used, version_brownout_refused
from .usage import note_deprecation, noted_deprecations, report_use

__all__ = ["VersionLifecycleMiddleware"]


class VersionLifecycleMiddleware(HookMiddleware):
    """Answers unknown (404) and retired (410) versions and endpoints, and versions in a brownout
    (410 with ``Retry-After``), and announces every deprecation a request touches with
    ``Deprecation``, ``Sunset`` and ``Link``, errors included.

    Each use is reported (a signal, a log line with the client id); under ASGI in a thread, as
    the client id may need the database. A request that uses nothing deprecated stays on the
    event loop.
    """

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        # This middleware runs before ProblemDetailsMiddleware, and its 404 and 410 are problems too.
        honour_refused_languages(request)
        answer, uses = _check_version(request)
        _report_uses(request, uses)
        return answer

    async def aprocess_request(self, request: HttpRequest) -> HttpResponse | None:
        honour_refused_languages(request)
        answer, uses = _check_version(request)
        await _areport_uses(request, uses)
        return answer

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        answer, uses = _check_endpoint(request, view_func)
        _report_uses(request, uses)
        return answer

    async def aprocess_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        answer, uses = _check_endpoint(request, view_func)
        await _areport_uses(request, uses)
        return answer

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # After the view: DRF has authenticated the request, so the client id is the real one.
        _report_uses(request, pop_state(request, DEPRECATED_USES, []))
        apply_deprecation_headers(response, noted_deprecations(request), timezone.now())
        return response

    async def aprocess_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        await _areport_uses(request, pop_state(request, DEPRECATED_USES, []))
        apply_deprecation_headers(response, noted_deprecations(request), timezone.now())
        return response


_Uses = list[tuple[Any, Deprecation, dict[str, Any]]]


def _check_version(request: HttpRequest) -> tuple[HttpResponse | None, _Uses]:
    """The answer to an unknown or retired version and the uses to report now; a deprecated
    version is noted for the response's headers, its use reported with the response."""
    name = version_in_path(request.path_info)
    table = get_version_table()
    if name is None or not table:
        return None, []
    version = table.get(name)
    if version is None:
        return render_problem(request, unknown_version_problem(name, table)), []
    set_state(request, VERSION, name)
    now = timezone.now()
    if version.is_retired(now):
        use = (deprecated_version_used, version.as_deprecation(), {"retired": True, "version": name})
        return render_problem(request, version_retired_problem(version)), [use]
    if version.is_deprecated(now):
        note_deprecation(request, version.as_deprecation())
        brownout = version.brownout_at(now)
        if brownout is not None:
            use = (version_brownout_refused, version.as_deprecation(), {"version": name, "brownout": brownout})
            return render_problem(request, version_brownout_problem(version, brownout, now)), [use]
        _uses(request).append((deprecated_version_used, version.as_deprecation(), {"version": name}))
    return None, []


def _check_endpoint(request: HttpRequest, view_func: Any) -> tuple[HttpResponse | None, _Uses]:
    """The 410 of an endpoint past its sunset and its use to report now; live deprecations are
    noted for the response's headers, their uses reported with the response."""
    entries = endpoint_deprecations(view_func)
    if not entries:
        return None, []
    match = request.resolver_match
    route = display_route(match.route) if match is not None else request.path_info
    for entry in entries:
        if not entry.applies_to(request.method):
            continue
        deprecation = entry.as_deprecation(route, request.method)
        if deprecation.sunset_passed():
            # Noted, so that the headers of the 410 name this endpoint's sunset, not the version's.
            note_deprecation(request, deprecation)
            answer = render_problem(request, endpoint_retired_problem(deprecation))
            return answer, [(deprecated_endpoint_used, deprecation, {"retired": True})]
        note_deprecation(request, deprecation)
        _uses(request).append((deprecated_endpoint_used, deprecation, {}))
    return None, []


def _report_uses(request: HttpRequest, uses: _Uses) -> None:
    for signal, deprecation, extra in uses:
        report_use(request, signal, deprecation, **extra)


async def _areport_uses(request: HttpRequest, uses: _Uses) -> None:
    if uses:
        await sync_to_async(_report_uses)(request, uses)


def _uses(request: HttpRequest) -> _Uses:
    return state_list(request, DEPRECATED_USES)
