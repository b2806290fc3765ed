"""Checks of the project's wiring: DRF settings, the middleware order, the maintenance switch."""

from __future__ import annotations

import itertools
from typing import Any

from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

from ..check_messages import PACKAGE, message, settings_are_valid
from ..conf import SETTINGS_NAME
from ..http.routes import iter_routes
from ..maintenance.switches import SWITCH_CACHE, unshared_switch_cache
from ..problems.checks import EXCEPTION_HANDLER, HANDLERS
from ..problems.django_handlers import HTML_ERROR_HANDLER_NAMES, is_own_view

MIDDLEWARE_ORDER = [
    f"{PACKAGE}.middleware.TraceIdMiddleware",
    f"{PACKAGE}.middleware.ProblemDetailsMiddleware",
    f"{PACKAGE}.middleware.MaintenanceModeMiddleware",
]
_MAINTENANCE_MIDDLEWARE = MIDDLEWARE_ORDER[2]
_DRF_JSON_PARSER = "rest_framework.parsers.JSONParser"


@checks.register(checks.Tags.compatibility)
def check_drf_settings(**kwargs: Any) -> list[checks.CheckMessage]:
    drf = getattr(settings, "REST_FRAMEWORK", {})
    if not isinstance(drf, dict):
        return []  # DRF reports that itself
    errors = []
    handler = drf.get("EXCEPTION_HANDLER", "rest_framework.views.exception_handler")
    if handler != EXCEPTION_HANDLER:
        errors.append(message("drf_handler_not_problems", value=handler))
    if _names_client_rate_throttle() and "client" not in drf.get("DEFAULT_THROTTLE_RATES", {}):
        errors.append(message("client_rate_missing"))
    if _DRF_JSON_PARSER in drf.get("DEFAULT_PARSER_CLASSES", [_DRF_JSON_PARSER]):
        errors.append(message("lax_json_parser", where="REST_FRAMEWORK['DEFAULT_PARSER_CLASSES']"))
    return errors


@checks.register(checks.Tags.urls)
def check_view_parsers(**kwargs: Any) -> list[checks.CheckMessage]:
    """The views and actions that name their own ``parser_classes``, which the check of the
    default cannot see: DRF's ``JSONParser`` raises the same 500 there."""
    from rest_framework.views import APIView

    errors = []
    seen: set[tuple[Any, str]] = set()
    for route in iter_routes():
        view_class = getattr(route.callback, "cls", None)
        initkwargs = getattr(route.callback, "initkwargs", None) or {}
        # A viewset's actions share a class but may each name parser classes.
        key = (view_class, repr(initkwargs.get("parser_classes")))
        if not (isinstance(view_class, type) and issubclass(view_class, APIView)) or key in seen:
            continue
        seen.add(key)
        name = f"{view_class.__module__}.{view_class.__qualname__}"
        if "parser_classes" in initkwargs:  # @action(parser_classes=[...])
            where, parsers = f"{name} (an action's parser_classes)", initkwargs["parser_classes"]
        elif next(k for k in view_class.__mro__ if "parser_classes" in vars(k)) is not APIView:  # set by the project
            where, parsers = f"{name}.parser_classes", view_class.parser_classes
        else:
            continue  # the default parser classes, checked with the DRF settings
        if any(_is_lax_json_parser(parser) for parser in parsers or ()):
            errors.append(message("lax_json_parser", obj=view_class, where=where))
    return errors


def _is_lax_json_parser(parser: Any) -> bool:
    from rest_framework.parsers import JSONParser

    from ..content import StrictJSONParser

    return isinstance(parser, type) and issubclass(parser, JSONParser) and not issubclass(parser, StrictJSONParser)


def _names_client_rate_throttle() -> bool:
    """Whether DRF's throttle classes include ``ClientRateThrottle``, by whichever path they name it."""
    from rest_framework.settings import api_settings as drf_settings

    from ..clients.throttling import ClientRateThrottle

    try:
        throttles = drf_settings.DEFAULT_THROTTLE_CLASSES
    except ImportError:
        return False  # DRF reports a path it cannot import itself
    return any(isinstance(throttle, type) and issubclass(throttle, ClientRateThrottle) for throttle in throttles)


@checks.register(checks.Tags.compatibility)
def check_project_handlers(**kwargs: Any) -> list[checks.CheckMessage]:
    """The project's own handlers the package hands over to: each names a view of the project
    that can be imported, never one of the package's (which would hand over to itself)."""
    if not settings_are_valid():
        return []  # check_settings reports a value of the wrong type
    user_settings = getattr(settings, SETTINGS_NAME, {})
    errors = []
    expected = "a dict of " + ", ".join(HTML_ERROR_HANDLER_NAMES) + " to the dotted paths of the project's own views"
    for name, target in user_settings.get("HTML_ERROR_HANDLERS", {}).items():
        try:
            wrong = (
                name not in HTML_ERROR_HANDLER_NAMES
                or not (isinstance(target, str) or callable(target))
                or (isinstance(target, str) and target.rpartition(".")[0] == HANDLERS)
                or is_own_view(import_string(target) if isinstance(target, str) else target)
            )
        except ImportError as exc:
            errors.append(message("not_importable", key="HTML_ERROR_HANDLERS", value=target, error=exc))
            continue
        if wrong:
            errors.append(message("wrong_setting", key="HTML_ERROR_HANDLERS", expected=expected, value={name: target}))
    handler = user_settings.get("PROJECT_EXCEPTION_HANDLER")
    if handler is not None and handler == EXCEPTION_HANDLER:
        expected = "the project's own handler, not the package's"
        errors.append(message("wrong_setting", key="PROJECT_EXCEPTION_HANDLER", expected=expected, value=handler))
    return errors


@checks.register(checks.Tags.compatibility)
def check_middleware(**kwargs: Any) -> list[checks.CheckMessage]:
    middleware = list(settings.MIDDLEWARE)
    wanted = [name for name in MIDDLEWARE_ORDER if name != _MAINTENANCE_MIDDLEWARE or _maintenance_configured()]
    missing = [message("middleware_missing", middleware=name) for name in wanted if name not in middleware]
    errors = list(missing)
    idempotency = f"{PACKAGE}.idempotency.IdempotencyMiddleware"
    if idempotency in middleware and middleware[-1] != idempotency:
        errors.append(message("idempotency_not_last"))
    errors.extend(_check_early_middleware(middleware))
    if missing:
        return errors
    present = [name for name in MIDDLEWARE_ORDER if name in middleware]
    for earlier, later in itertools.pairwise(present):
        if middleware.index(earlier) > middleware.index(later):
            errors.append(message("middleware_out_of_order", middleware=earlier, other=later))
    return errors


def _maintenance_configured() -> bool:
    """Whether the project names a MAINTENANCE_ setting: one with a maintenance mode of its own
    (NetBox's) leaves the package's middleware out."""
    user_settings = getattr(settings, SETTINGS_NAME, {})
    return isinstance(user_settings, dict) and any(key.startswith("MAINTENANCE_") for key in user_settings)


#: The class attribute of a middleware that sets what the package's early problems carry (the
#: language, the project's request id): True, it must come before the package's middleware;
#: False, it needs what later middleware set up (the session, the user) and stays after them.
_RUNS_FIRST_ATTRIBUTE = "api_conventions_first"


def _check_early_middleware(middleware: list[str]) -> list[checks.CheckMessage]:
    """A middleware that runs first (:data:`_RUNS_FIRST_ATTRIBUTE`, LocaleMiddleware) after one of the
    package's, whose early problems (a 413, a 503, a 410) would miss what it sets."""
    early = [*MIDDLEWARE_ORDER, f"{PACKAGE}.versioning.middleware.VersionLifecycleMiddleware"]
    errors = []
    for position, name in enumerate(middleware):
        if name in early or not _runs_first(name):
            continue
        before = [other for other in middleware[:position] if other in early]
        if before:
            errors.append(message("runs_first_middleware_late", middleware=name, other=before[0].rsplit(".", 1)[-1]))
    return errors


def _runs_first(path: str) -> bool:
    from django.middleware.locale import LocaleMiddleware

    try:
        middleware = import_string(path)
    except ImportError:
        return False  # Django reports a middleware it cannot import itself
    is_locale = isinstance(middleware, type) and issubclass(middleware, LocaleMiddleware)
    return bool(getattr(middleware, _RUNS_FIRST_ATTRIBUTE, is_locale))


@checks.register(checks.Tags.caches)
def check_maintenance_switch(**kwargs: Any) -> list[checks.CheckMessage]:
    """The run-time maintenance switch reaches every worker."""
    if not settings_are_valid() or _MAINTENANCE_MIDDLEWARE not in settings.MIDDLEWARE:
        return []  # no switch to reach: the project's own maintenance mode, if any, is its own
    local_cache = unshared_switch_cache()
    return (
        [] if local_cache is None else [message("unshared_maintenance_switch", backend=local_cache, value=SWITCH_CACHE)]
    )
