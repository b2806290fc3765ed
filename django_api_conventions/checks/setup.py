"""Checks of the project's wiring: DRF settings, the middleware order, the maintenance switch."""

from __future__ import annotations

import itertools
from typing import Any

from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

from ..check_messages import PACKAGE, message, settings_are_valid
from ..conf import SETTINGS_NAME
from ..http.routes import project_resolvers
from ..maintenance.switches import SWITCH_CACHE, unshared_switch_cache
from ..problems.checks import EXCEPTION_HANDLER, HANDLERS
from ..problems.django_handlers import HTML_ERROR_HANDLER_NAMES, is_own_view

MIDDLEWARE_ORDER = [
    f"{PACKAGE}.middleware.TraceIdMiddleware",
    f"{PACKAGE}.middleware.ProblemDetailsMiddleware",
    f"{PACKAGE}.middleware.MaintenanceModeMiddleware",
]
MAINTENANCE_MIDDLEWARE = MIDDLEWARE_ORDER[2]
DRF_JSON_PARSER = "rest_framework.parsers.JSONParser"


@checks.register(checks.Tags.compatibility)
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
    parsers = drf.get("DEFAULT_PARSER_CLASSES", [DRF_JSON_PARSER])
    if DRF_JSON_PARSER in parsers:
        errors.append(message("W006", where="REST_FRAMEWORK['DEFAULT_PARSER_CLASSES']"))
    return errors


@checks.register(checks.Tags.urls)
def check_view_parsers(**kwargs: Any) -> list[checks.CheckMessage]:
    """W006 for the views and actions that name their own ``parser_classes``: the default's check
    cannot see them, and DRF's ``JSONParser`` raises the same 500 there."""
    from rest_framework.views import APIView

    errors = []
    for view_class, initkwargs in _routed_views():
        if not (isinstance(view_class, type) and issubclass(view_class, APIView)):
            continue
        if "parser_classes" in initkwargs:  # @action(parser_classes=[...])
            where, parsers = f"{_view_name(view_class)} (an action's parser_classes)", initkwargs["parser_classes"]
        elif _declares_parser_classes(view_class, APIView):
            where, parsers = f"{_view_name(view_class)}.parser_classes", view_class.parser_classes
        else:
            continue  # the default parser classes, checked with the DRF settings
        if any(_is_lax_json_parser(parser) for parser in parsers or ()):
            errors.append(message("W006", obj=view_class, where=where))
    return errors


def _routed_views() -> Any:
    """Each routed (view class, as_view() keyword arguments) pair once, in every URLconf the
    project serves: a viewset's actions share a class but may each name parser classes."""
    seen: set[tuple[Any, str]] = set()
    stack = [pattern for resolver in project_resolvers() for pattern in resolver.url_patterns]
    while stack:
        pattern = stack.pop(0)
        if hasattr(pattern, "url_patterns"):
            stack[:0] = pattern.url_patterns
            continue
        callback = pattern.callback
        view_class = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        initkwargs = getattr(callback, "initkwargs", None) or {}
        key = (view_class, repr(initkwargs.get("parser_classes")))
        if view_class is not None and key not in seen:
            seen.add(key)
            yield view_class, initkwargs


def _declares_parser_classes(view_class: type, base: type) -> bool:
    """Whether a class of the project sets ``parser_classes`` rather than inheriting DRF's default."""
    owner = next(klass for klass in view_class.__mro__ if "parser_classes" in vars(klass))
    return owner is not base


def _is_lax_json_parser(parser: Any) -> bool:
    from rest_framework.parsers import JSONParser

    from ..content import StrictJSONParser

    return isinstance(parser, type) and issubclass(parser, JSONParser) and not issubclass(parser, StrictJSONParser)


def _view_name(view_class: type) -> str:
    return f"{view_class.__module__}.{view_class.__qualname__}"


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


@checks.register(checks.Tags.compatibility)
def check_middleware(**kwargs: Any) -> list[checks.CheckMessage]:
    middleware = list(settings.MIDDLEWARE)
    wanted = [name for name in MIDDLEWARE_ORDER if name != MAINTENANCE_MIDDLEWARE or _maintenance_configured()]
    errors = [message("W002", middleware=name) for name in wanted if name not in middleware]
    idempotency = f"{PACKAGE}.idempotency.IdempotencyMiddleware"
    if idempotency in middleware and middleware[-1] != idempotency:
        errors.append(message("W009"))
    errors.extend(_check_early_middleware(middleware))
    if any((error.id or "").endswith("W002") for error in errors):
        return errors
    present = [name for name in MIDDLEWARE_ORDER if name in middleware]
    for earlier, later in itertools.pairwise(present):
        if middleware.index(earlier) > middleware.index(later):
            errors.append(message("W003", middleware=earlier, other=later))
    return errors


def _maintenance_configured() -> bool:
    """Whether the project uses the package's maintenance mode: it names a MAINTENANCE_ setting.
    A project with a maintenance mode of its own (NetBox's) leaves the middleware out."""
    user_settings = getattr(settings, SETTINGS_NAME, {})
    return isinstance(user_settings, dict) and any(key.startswith("MAINTENANCE_") for key in user_settings)


#: The class attribute of a middleware that sets what the package's early problems carry (the
#: language, the project's request id): True, it must come before the package's middleware;
#: False, it needs what later middleware set up (the session, the user) and stays after them.
RUNS_FIRST_ATTRIBUTE = "api_conventions_first"


def _check_early_middleware(middleware: list[str]) -> list[checks.CheckMessage]:
    """Django's LocaleMiddleware (or a subclass), or a middleware marked with
    :data:`RUNS_FIRST_ATTRIBUTE`, before the package's middleware, whose early problems (a 413,
    a 503 for maintenance, a 410 for a retired version) would miss what it sets."""
    early = [*MIDDLEWARE_ORDER, f"{PACKAGE}.versioning.middleware.VersionLifecycleMiddleware"]
    errors = []
    for position, name in enumerate(middleware):
        if name in early or not _runs_first(name):
            continue
        before = [other for other in middleware[:position] if other in early]
        if before:
            errors.append(message("W011", middleware=name, other=before[0].rsplit(".", 1)[-1]))
    return errors


def _runs_first(path: str) -> bool:
    from django.middleware.locale import LocaleMiddleware

    try:
        middleware = import_string(path)
    except ImportError:
        return False  # Django reports a middleware it cannot import itself
    marked = getattr(middleware, RUNS_FIRST_ATTRIBUTE, None)
    if marked is not None:
        return bool(marked)
    return isinstance(middleware, type) and issubclass(middleware, LocaleMiddleware)


@checks.register(checks.Tags.caches)
def check_maintenance_switch(**kwargs: Any) -> list[checks.CheckMessage]:
    """The run-time maintenance switch reaches every worker."""
    if not settings_are_valid() or MAINTENANCE_MIDDLEWARE not in settings.MIDDLEWARE:
        return []  # no switch to reach: the project's own maintenance mode, if any, is its own
    local_cache = unshared_switch_cache()
    if local_cache is None:
        return []
    return [message("W007", backend=local_cache, value=SWITCH_CACHE)]
