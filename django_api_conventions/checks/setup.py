"""Checks of the project's wiring: DRF settings, the middleware order, the maintenance switch."""

from __future__ import annotations

import itertools
from typing import Any

from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

from ..conf import SETTINGS_NAME
from ..maintenance.switches import SWITCH_CACHE, unshared_switch_cache
from ..problems.checks import EXCEPTION_HANDLER, HANDLERS
from ..problems.django_handlers import HTML_ERROR_HANDLER_NAMES, is_own_view
from .messages import PACKAGE, message
from .settings import settings_are_valid

MIDDLEWARE_ORDER = [
    f"{PACKAGE}.middleware.TraceIdMiddleware",
    f"{PACKAGE}.middleware.ProblemDetailsMiddleware",
    f"{PACKAGE}.middleware.MaintenanceModeMiddleware",
]


def check_drf_settings(**kwargs: Any) -> list[checks.CheckMessage]:
    drf = getattr(settings, "REST_FRAMEWORK", {})
    if not isinstance(drf, dict):
        return []  # DRF reports that itself
    errors = []
    handler = drf.get("EXCEPTION_HANDLER", "rest_framework.views.exception_handler")
    if handler != EXCEPTION_HANDLER:
        errors.append(message("W001", value=handler))
    throttles = drf.get("DEFAULT_THROTTLE_CLASSES", [])
    if _names_client_rate_throttle(throttles) and "client" not in drf.get("DEFAULT_THROTTLE_RATES", {}):
        errors.append(message("E012"))
    parsers = drf.get("DEFAULT_PARSER_CLASSES", ["rest_framework.parsers.JSONParser"])
    if "rest_framework.parsers.JSONParser" in parsers:
        errors.append(message("W006"))
    return errors


def _names_client_rate_throttle(throttles: Any) -> bool:
    """Whether DRF's throttle classes include ``ClientRateThrottle``, by whichever path they name
    it (``clients.ClientRateThrottle`` or ``clients.throttling.ClientRateThrottle``)."""
    from ..clients.throttling import ClientRateThrottle

    for path in throttles if isinstance(throttles, (list, tuple)) else ():
        try:
            throttle = import_string(path) if isinstance(path, str) else path
        except ImportError:
            continue  # DRF reports a path it cannot import itself
        if isinstance(throttle, type) and issubclass(throttle, ClientRateThrottle):
            return True
    return False


def check_project_handlers(**kwargs: Any) -> list[checks.CheckMessage]:
    """The project's own handlers the package hands over to: each names a view of the project
    that can be imported, never one of the package's (which would hand over to itself)."""
    if not settings_are_valid():
        return []  # check_settings reports a value of the wrong type
    user_settings = getattr(settings, SETTINGS_NAME, {})
    errors = []
    expected = "a dict of " + ", ".join(HTML_ERROR_HANDLER_NAMES) + " to the dotted paths of the project's own views"
    for name, target in user_settings.get("HTML_ERROR_HANDLERS", {}).items():
        if name not in HTML_ERROR_HANDLER_NAMES or not (isinstance(target, str) or callable(target)):
            errors.append(message("E003", key="HTML_ERROR_HANDLERS", expected=expected, value={name: target}))
            continue
        if isinstance(target, str) and target.rpartition(".")[0] == HANDLERS:
            errors.append(message("E003", key="HTML_ERROR_HANDLERS", expected=expected, value={name: target}))
            continue
        try:
            view = import_string(target) if isinstance(target, str) else target
        except ImportError as exc:
            errors.append(message("E004", key="HTML_ERROR_HANDLERS", value=target, error=exc))
            continue
        if is_own_view(view):
            errors.append(message("E003", key="HTML_ERROR_HANDLERS", expected=expected, value={name: target}))
    handler = user_settings.get("PROJECT_EXCEPTION_HANDLER")
    if handler is not None and handler == EXCEPTION_HANDLER:
        errors.append(
            message(
                "E003",
                key="PROJECT_EXCEPTION_HANDLER",
                expected="the project's own handler, not the package's",
                value=handler,
            )
        )
    return errors


def check_middleware(**kwargs: Any) -> list[checks.CheckMessage]:
    middleware = list(settings.MIDDLEWARE)
    errors = [message("W002", middleware=name) for name in MIDDLEWARE_ORDER if name not in middleware]
    idempotency = f"{PACKAGE}.idempotency.IdempotencyMiddleware"
    if idempotency in middleware and middleware[-1] != idempotency:
        errors.append(message("W009"))
    errors.extend(_check_locale_middleware(middleware))
    if any((error.id or "").endswith("W002") for error in errors):
        return errors
    positions = [middleware.index(name) for name in MIDDLEWARE_ORDER]
    for index, (earlier, later) in enumerate(itertools.pairwise(positions)):
        if earlier > later:
            errors.append(message("W003", middleware=MIDDLEWARE_ORDER[index], other=MIDDLEWARE_ORDER[index + 1]))
    return errors


LOCALE_MIDDLEWARE = "django.middleware.locale.LocaleMiddleware"


def _check_locale_middleware(middleware: list[str]) -> list[checks.CheckMessage]:
    """LocaleMiddleware before the package's middleware, whose early problems it would miss."""
    if LOCALE_MIDDLEWARE not in middleware:
        return []
    position = middleware.index(LOCALE_MIDDLEWARE)
    early = [*MIDDLEWARE_ORDER, f"{PACKAGE}.versioning.middleware.VersionLifecycleMiddleware"]
    before = [name for name in middleware[:position] if name in early]
    return [message("W011", middleware=before[0].rsplit(".", 1)[-1])] if before else []


def check_maintenance_switch(**kwargs: Any) -> list[checks.CheckMessage]:
    """The run-time maintenance switch reaches every worker."""
    if not settings_are_valid():
        return []
    local_cache = unshared_switch_cache()
    if local_cache is None:
        return []
    return [message("W007", backend=local_cache, value=SWITCH_CACHE)]
