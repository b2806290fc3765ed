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

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone
from django.utils.deprecation import MiddlewareMixin

from ..problems.details import render_problem
from ..request_attributes import DEPRECATED_USES, VERSION, pop_state, set_state, state_list
from ..url_conventions import display_route
from .deprecation import endpoint_deprecations
from .headers import apply_deprecation_headers
from .lifecycle import get_version_table, version_in_path
from .problems import endpoint_retired_problem, unknown_version_problem, version_retired_problem
from .signals import deprecated_endpoint_used, deprecated_version_used
from .usage import note_deprecation, noted_deprecations, report_use


class VersionLifecycleMiddleware(MiddlewareMixin):
    """Answers unknown and retired versions and announces every deprecation a request touches."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
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
            report_use(request, deprecated_version_used, version.as_deprecation(), retired=True, version=name)
            return render_problem(request, version_retired_problem(version))
        if version.is_deprecated(now):
            note_deprecation(request, version.as_deprecation())
            _uses(request).append((deprecated_version_used, version.as_deprecation(), {"version": name}))
        return None

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
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
                report_use(request, deprecated_endpoint_used, deprecation, retired=True)
                # Noted, so that the headers of the 410 name this endpoint's sunset, not the version's.
                note_deprecation(request, deprecation)
                return render_problem(request, endpoint_retired_problem(deprecation))
            note_deprecation(request, deprecation)
            _uses(request).append((deprecated_endpoint_used, deprecation, {}))
        return None

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # After the view: DRF has authenticated the request, so the client id is the real one.
        for signal, deprecation, extra in pop_state(request, DEPRECATED_USES, []):
            report_use(request, signal, deprecation, **extra)
        apply_deprecation_headers(response, noted_deprecations(request), timezone.now())
        return response


def _uses(request: HttpRequest) -> list[tuple[Any, Any, dict[str, Any]]]:
    return state_list(request, DEPRECATED_USES)
