"""``VersionLifecycleMiddleware``: the lifecycle of versions, endpoints and fields on every response.

Put it right after ``TraceIdMiddleware``, outside ``ProblemDetailsMiddleware``: the problems
that middleware answers before any view (413, a rejected Host, a NUL in the URL) and the 503
of maintenance are then announced too::

    "django_api_conventions.middleware.TraceIdMiddleware",
    "django_api_conventions.versioning.middleware.VersionLifecycleMiddleware",
    "django_api_conventions.middleware.ProblemDetailsMiddleware",
    "django_api_conventions.middleware.MaintenanceModeMiddleware",

- a path in an unknown version: 404 ``not-found``; in a retired version, or one whose sunset
  has passed: 410 ``version-retired`` linking the migration guide (never 404 or 301);
- a deprecated endpoint past its sunset: 410 ``endpoint-retired``;
- every response of a deprecated version or endpoint, errors included, and of a request that
  used a renamed field's old name: ``Deprecation``, ``Sunset``, ``Link`` and a
  ``Cache-Control`` that no cache can stretch past the sunset;
- each such use: a signal and a log line with the client id.
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
from .lifecycle import APIVersion, Deprecation, get_version_table, version_in_path
from .problems import endpoint_retired_problem, unknown_version_problem, version_retired_problem
from .signals import deprecated_endpoint_used, deprecated_version_used
from .usage import note_deprecation, noted_deprecations, report_use

__all__ = ["VersionLifecycleMiddleware"]


class VersionLifecycleMiddleware(HookMiddleware):
    """Answers unknown and retired versions and announces every deprecation a request touches.

    Under ASGI each use is reported (its log line with the client id, its signal) in a thread:
    the client id may come from ``request.user``, which the database resolves, and the signal's
    receivers are the project's. A request that uses nothing deprecated stays on the event loop.
    """

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        # This middleware runs before ProblemDetailsMiddleware, and its 404 and 410 are problems too.
        honour_refused_languages(request)
        checked = _check_version(request)
        if not isinstance(checked, APIVersion):
            return checked
        report_use(request, deprecated_version_used, checked.as_deprecation(), retired=True, version=checked.name)
        return render_problem(request, version_retired_problem(checked))

    async def aprocess_request(self, request: HttpRequest) -> HttpResponse | None:
        honour_refused_languages(request)
        checked = _check_version(request)
        if not isinstance(checked, APIVersion):
            return checked
        await sync_to_async(report_use)(
            request, deprecated_version_used, checked.as_deprecation(), retired=True, version=checked.name
        )
        return render_problem(request, version_retired_problem(checked))

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        retired = _check_endpoint(request, view_func)
        if retired is None:
            return None
        report_use(request, deprecated_endpoint_used, retired, retired=True)
        return _endpoint_retired(request, retired)

    async def aprocess_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        retired = _check_endpoint(request, view_func)
        if retired is None:
            return None
        await sync_to_async(report_use)(request, deprecated_endpoint_used, retired, retired=True)
        return _endpoint_retired(request, retired)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # After the view: DRF has authenticated the request, so the client id is the real one.
        _report_uses(request, pop_state(request, DEPRECATED_USES, []))
        apply_deprecation_headers(response, noted_deprecations(request), timezone.now())
        return response

    async def aprocess_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        uses = pop_state(request, DEPRECATED_USES, [])
        if uses:
            await sync_to_async(_report_uses)(request, uses)
        apply_deprecation_headers(response, noted_deprecations(request), timezone.now())
        return response


def _check_version(request: HttpRequest) -> HttpResponse | APIVersion | None:
    """The answer to an unknown version, the retired version to report and answer, or ``None``
    (a deprecated version is noted for the response's headers and its use for the report)."""
    name = version_in_path(request.path_info)
    table = get_version_table()
    if name is None or not table:
        return None
    version = table.get(name)
    if version is None:
        return render_problem(request, unknown_version_problem(name, table))
    set_state(request, VERSION, name)
    now = timezone.now()
    if version.is_retired(now):
        return version
    if version.is_deprecated(now):
        note_deprecation(request, version.as_deprecation())
        _uses(request).append((deprecated_version_used, version.as_deprecation(), {"version": name}))
    return None


def _check_endpoint(request: HttpRequest, view_func: Any) -> Deprecation | None:
    """The endpoint's deprecation whose sunset has passed, to report and answer, or ``None``
    (the live deprecations noted for the response's headers and their uses for the report)."""
    entries = endpoint_deprecations(view_func)
    if not entries:
        return None
    match = request.resolver_match
    route = display_route(match.route) if match is not None else request.path_info
    for entry in entries:
        if not entry.applies_to(request.method):
            continue
        deprecation = entry.as_deprecation(route, request.method)
        if deprecation.sunset_passed():
            return deprecation
        note_deprecation(request, deprecation)
        _uses(request).append((deprecated_endpoint_used, deprecation, {}))
    return None


def _endpoint_retired(request: HttpRequest, deprecation: Deprecation) -> HttpResponse:
    # Noted, so that the headers of the 410 name this endpoint's sunset, not the version's.
    note_deprecation(request, deprecation)
    return render_problem(request, endpoint_retired_problem(deprecation))


def _report_uses(request: HttpRequest, uses: list[tuple[Any, Any, dict[str, Any]]]) -> None:
    for signal, deprecation, extra in uses:
        report_use(request, signal, deprecation, **extra)


def _uses(request: HttpRequest) -> list[tuple[Any, Any, dict[str, Any]]]:
    return state_list(request, DEPRECATED_USES)
