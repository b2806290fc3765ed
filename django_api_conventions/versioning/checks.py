"""Checks of the version table, the pieces that serve it, and every deprecation's support window."""

from __future__ import annotations

import datetime
import math
from typing import Any

from django.conf import settings
from django.core import checks
from django.utils import timezone

from ..check_messages import PACKAGE, message, settings_are_valid
from ..http.routes import Route, iter_routes
from .deprecation import endpoint_deprecations
from .fields import field_renames
from .lifecycle import Deprecation, VersionTable, get_version_table, version_in_path

#: Shortest support window, in days, from a deprecation to its sunset, for external consumers
#: (``E024``, which an internal service silences).
MIN_SUPPORT_DAYS = 90

VERSION_MIDDLEWARE = f"{PACKAGE}.versioning.middleware.VersionLifecycleMiddleware"
_VERSIONING_CLASS = f"{PACKAGE}.versioning.drf.LifecycleVersioning"
_AFTER_VERSION_MIDDLEWARE = (
    f"{PACKAGE}.middleware.ProblemDetailsMiddleware",
    f"{PACKAGE}.middleware.MaintenanceModeMiddleware",
    f"{PACKAGE}.idempotency.IdempotencyMiddleware",
)


@checks.register(checks.Tags.compatibility)
def check_versions(**kwargs: Any) -> list[checks.CheckMessage]:
    """The version table keeps the conventions, and the pieces that serve it are installed."""
    if not settings_are_valid():
        return []
    table = get_version_table()
    if not table:
        return []
    return [*_check_each_version(table), *_check_current_and_previous(table), *_check_wiring()]


def _check_each_version(table: VersionTable) -> list[checks.CheckMessage]:
    errors = []
    now = timezone.now()
    for version in table.versions:
        if version_in_path(f"/{version.name}/") != version.name:
            errors.append(message("version_unrequestable", name=version.name))
        if version.status == "retired" and version.sunset is not None and version.sunset > now:
            errors.append(message("retired_before_sunset", name=version.name, sunset=f"{version.sunset:%Y-%m-%d}"))
    return errors


def _check_current_and_previous(table: VersionTable) -> list[checks.CheckMessage]:
    current = [v for v in table.versions if v.status == "current"]
    if len(current) != 1:
        return [message("not_one_current", count=len(current))]
    index, name = table.versions.index(current[0]), current[0].name
    errors = [message("version_after_current", name=v.name, current=name) for v in table.versions[index + 1 :]]
    previous = table.versions[index - 1] if index > 0 else None
    if previous is not None and previous.status == "retired":
        errors.append(message("previous_retired", name=previous.name, current=name))
    elif previous is not None and previous.is_retired():
        sunset = f"{previous.sunset:%Y-%m-%d}"
        errors.append(message("previous_past_sunset", name=previous.name, current=name, sunset=sunset))
    return errors


def _check_wiring() -> list[checks.CheckMessage]:
    """VersionLifecycleMiddleware in its place, and DRF's versioning class."""
    errors = []
    middleware = list(settings.MIDDLEWARE)
    if VERSION_MIDDLEWARE not in middleware:
        errors.append(message("version_middleware_missing"))
    else:
        position = middleware.index(VERSION_MIDDLEWARE)
        trace = f"{PACKAGE}.middleware.TraceIdMiddleware"
        if trace in middleware and middleware.index(trace) > position:
            errors.append(message("middleware_out_of_order", middleware=trace, other=VERSION_MIDDLEWARE))
        errors.extend(
            message("middleware_out_of_order", middleware=VERSION_MIDDLEWARE, other=other)
            for other in _AFTER_VERSION_MIDDLEWARE
            if other in middleware and middleware.index(other) < position
        )
    drf = getattr(settings, "REST_FRAMEWORK", {})
    versioning_class = drf.get("DEFAULT_VERSIONING_CLASS") if isinstance(drf, dict) else None
    if versioning_class != _VERSIONING_CLASS:
        errors.append(message("versioning_class_not_packages", value=versioning_class))
    return errors


def _deprecations_to_check(routes: list[Route]) -> list[Deprecation]:
    found = [v.as_deprecation() for v in get_version_table().versions if v.status == "deprecated"]
    for route in routes:
        for entry in endpoint_deprecations(route.callback):
            deprecation = entry.as_deprecation(route.display)
            if deprecation not in found:
                found.append(deprecation)
    found.extend(rename.deprecation for rename in field_renames.values())
    return found


@checks.register(checks.Tags.urls)
def check_deprecation_dates(**kwargs: Any) -> list[checks.CheckMessage]:
    """Every deprecation (versions, endpoints, field renames) gives clients the support window."""
    if not settings_are_valid():
        return []
    errors = []
    minimum = MIN_SUPPORT_DAYS
    for deprecation in _deprecations_to_check(list(iter_routes())):
        if deprecation.deprecation is None or deprecation.sunset is None:
            continue
        values: dict[str, Any] = {
            "subject": deprecation.subject[:1].upper() + deprecation.subject[1:],
            "deprecation": f"{deprecation.deprecation:%Y-%m-%d}",
            "sunset": f"{deprecation.sunset:%Y-%m-%d}",
        }
        days = deprecation.support_days() or 0
        if days < 0:
            errors.append(message("sunset_before_deprecation", **values, minimum=minimum))
        elif days < minimum:
            earliest = f"{deprecation.deprecation + datetime.timedelta(days=minimum):%Y-%m-%d}"
            values |= {"days": math.floor(days), "minimum": minimum, "earliest": earliest}
            errors.append(message("support_window_short", **values))
    return errors
