"""System checks: a wrong setup fails at start-up with a message that says the fix.

Every check id, message and hint lives in :data:`MESSAGES`, so no id is used twice.
"""

from __future__ import annotations

import datetime
import difflib
import itertools
import math
import os
import re
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.urls import NoReverseMatch, URLResolver, get_resolver, reverse
from django.utils import timezone
from django.utils.module_loading import import_string

from .conf import DEFAULTS, IMPORT_STRINGS, SETTINGS_NAME, api_settings
from .idempotency.stores import load_store_class
from .maintenance import unshared_switch_cache
from .url_conventions import Route, find_naming_problems, is_drf_view, iter_routes
from .versioning.deprecation import endpoint_deprecations
from .versioning.fields import field_renames
from .versioning.lifecycle import Deprecation, get_version_table, load_versions, version_in_path
from .versioning.urls import VersionedURLResolver

PACKAGE = "django_api_conventions"
DOCS = "See the settings reference (docs/settings.md) of django-api-conventions."

#: id -> (level, message, hint). Messages and hints are formatted with the check's values.
MESSAGES: dict[str, tuple[type[checks.CheckMessage], str, str]] = {
    "E001": (checks.Error, f"{SETTINGS_NAME} must be a dict, not {{type}}.",
             f"Set {SETTINGS_NAME} = {{{{...}}}} in your settings."),
    "E002": (checks.Error, f"{SETTINGS_NAME} has an unknown key {{key!r}}.",
             "{suggestion}"),
    "E003": (checks.Error, f"{SETTINGS_NAME}[{{key!r}}] must be {{expected}}, not {{value!r}}.",
             DOCS),
    "E004": (checks.Error, f"{SETTINGS_NAME}[{{key!r}}] = {{value!r}} cannot be imported: {{error}}.",
             "Give the dotted path of a callable."),
    "E005": (checks.Error, f"{SETTINGS_NAME}['PROBLEM_BASE_URL'] = {{value!r}} is not an absolute http(s) URL.",
             "Use e.g. 'https://api.example.com/problems'."),
    "E006": (checks.Error,
             f"{SETTINGS_NAME}[{{key!r}}] has an invalid pattern {{value!r}}: {{error}}.",
             "Give regular expressions matched against request.path."),
    "E007": (checks.Error, f"{SETTINGS_NAME}['MAINTENANCE_SWITCH_CACHE'] = {{value!r}} is not in CACHES.",
             "Name an alias of settings.CACHES, shared by all workers (e.g. Redis)."),
    "E008": (checks.Error, "Problem type URLs cannot be built: PROBLEM_BASE_URL is unset and "
                           "the 'api_conventions:problem-type' URL is not routed.",
             "Add path('', include('django_api_conventions.urls')) to your root URLconf, "
             f"or set {SETTINGS_NAME}['PROBLEM_BASE_URL']."),
    "E009": (checks.Error, f"{SETTINGS_NAME}['IDEMPOTENCY_STORE'] = {{value!r}} cannot be loaded: {{error}}.",
             "Use 'database', 'redis' (pip install 'django-api-conventions[redis]') or the dotted path "
             "of an IdempotencyStore subclass."),
    "E010": (checks.Error, f"{SETTINGS_NAME}['IDEMPOTENCY_DATABASE'] = {{value!r}} is not in DATABASES.",
             "Name the alias of your primary database."),
    "E011": (checks.Error, f"{SETTINGS_NAME}['IDEMPOTENCY_CACHE'] = {{value!r}} is not a django-redis cache.",
             "The Redis store needs a CACHES entry with BACKEND 'django_redis.cache.RedisCache'."),
    "E012": (checks.Error, "ClientRateThrottle is a default throttle class but DEFAULT_THROTTLE_RATES has no "
                           "'client' rate: every request would fail.",
             "Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['client'], e.g. '1000/min' (None disables it)."),
    "E020": (checks.Error, f"{SETTINGS_NAME}['VERSIONS'] is invalid: {{error}}.",
             "Each version is a dict such as {{'name': 'v1', 'status': 'deprecated', 'deprecation': '2026-06-01', "
             "'sunset': '2027-06-01', 'migration_guide': 'https://api.example.com/docs/v1-to-v2'}}, oldest first; "
             "see docs/versioning.md."),
    "E021": (checks.Error, "{subject}: the sunset {sunset} is before the deprecation {deprecation}.",
             "Put the sunset after the deprecation, at least MIN_SUPPORT_DAYS later."),
    "E022": (checks.Error, f"{SETTINGS_NAME}['VERSIONS'] has {{count}} versions with status 'current'; exactly one "
                           "must be.",
             "Mark the newest served version 'current' and the older ones 'deprecated' or 'retired'."),
    "E023": (checks.Error, "Version {name}, the one before the current {current}, is retired: at least the current "
                           "and the previous version must be supported.",
             "Mark {name} 'deprecated' with a sunset in the future; retire it once a newer version replaces "
             "{current}."),
    "E024": (checks.Error, "{subject} is supported for {days} days between its deprecation and its sunset, fewer "
                           f"than {SETTINGS_NAME}['MIN_SUPPORT_DAYS'] ({{minimum}}).",
             "Move the sunset to {earliest} or later (the conventions ask 90 days for external consumers, 30 for "
             "internal services)."),
    "E025": (checks.Error, f"{SETTINGS_NAME}['VERSION_PATH_REGEX'] = {{value!r}} has no group named 'version'.",
             "Capture the version segment as (?P<version>...), e.g. r'^/(?P<version>v[0-9]+)/'."),
    "E026": (checks.Error, "Version {name!r} can never be requested: VERSION_PATH_REGEX does not read it from "
                           "/{name}/.",
             "Name versions like the regex expects (v1, v2 ...), or change VERSION_PATH_REGEX."),
    "E027": (checks.Error, "Version {name!r} is newer than the current {current!r} but not current itself.",
             "List VERSIONS oldest first: retired and deprecated versions before the current one, none after."),
    "W028": (checks.Warning, "Version {name!r} is marked retired but its sunset, {sunset}, is still ahead: "
                             "it answers 410 before the date its clients were promised.",
             "Mark it 'deprecated' until its sunset; it turns into 410 on that day on its own."),
    "W001": (checks.Warning,
             "REST_FRAMEWORK['EXCEPTION_HANDLER'] is {value!r}: DRF errors will not be problem details.",
             f"Set REST_FRAMEWORK['EXCEPTION_HANDLER'] = '{PACKAGE}.exception_handler.problem_exception_handler'."),
    "W002": (checks.Warning, "{middleware} is not in MIDDLEWARE.",
             "Add it near the top of MIDDLEWARE: TraceIdMiddleware, ProblemDetailsMiddleware, "
             "MaintenanceModeMiddleware, then Django's."),
    "W003": (checks.Warning, "{middleware} must come before {other} in MIDDLEWARE.",
             "Order: TraceIdMiddleware, ProblemDetailsMiddleware, MaintenanceModeMiddleware, then the rest."),
    "W004": (checks.Warning, "The root URLconf's {handler} is {value!r}: some errors will lose their precise problem.",
             f"Set {{handler}} = '{PACKAGE}.handlers.{{view}}' in your root URLconf."),
    "W005": (checks.Warning, "CSRF_FAILURE_VIEW is {value!r}: CSRF failures will not be problem details.",
             f"Set CSRF_FAILURE_VIEW = '{PACKAGE}.handlers.csrf_failure'."),
    "W006": (checks.Warning, "DRF's JSONParser is in DEFAULT_PARSER_CLASSES: deeply nested JSON raises a 500 there.",
             f"Use '{PACKAGE}.parsers.StrictJSONParser' instead."),
    "W007": (checks.Warning, "The maintenance switch lives in the {backend} cache {value!r}, which other processes "
                             "and hosts do not share: a switch written there would not reach them, so "
                             "`manage.py maintenance` refuses to run.",
             f"Use a shared cache (Redis) or {SETTINGS_NAME}['MAINTENANCE_SWITCH_STORE'] = 'database'."),
    "W009": (checks.Warning, "IdempotencyMiddleware is not the last entry of MIDDLEWARE: it runs the view itself, "
                             "so the process_view of the middleware after it would be skipped.",
             "Move 'django_api_conventions.idempotency.IdempotencyMiddleware' to the end of MIDDLEWARE."),
    "W010": (checks.Warning, "{view} pages {model} by {ordering} but no index of {model} matches that ordering: "
                             "deep pages will scan.",
             "Add to {model}.Meta.indexes: models.Index(fields={fields!r}, name=...)."),
    "E013": (checks.Error, "{view} cannot be keyset-paginated: {error}",
             "Order by fields whose values a cursor can hold (numbers, text, dates, UUIDs)."),
    "W020": (checks.Warning, f"{SETTINGS_NAME}['VERSIONS'] is set but VersionLifecycleMiddleware is not in "
                             "MIDDLEWARE: deprecations are not announced and sunsets pass unnoticed.",
             f"Add '{PACKAGE}.versioning.middleware.VersionLifecycleMiddleware' right after TraceIdMiddleware."),
    "W021": (checks.Warning, "VersionLifecycleMiddleware is out of place in MIDDLEWARE: {other}.",
             "Order: TraceIdMiddleware, VersionLifecycleMiddleware, ProblemDetailsMiddleware, "
             "MaintenanceModeMiddleware, then the rest; IdempotencyMiddleware last."),
    "W022": (checks.Warning, "REST_FRAMEWORK['DEFAULT_VERSIONING_CLASS'] is {value!r}: DRF views see "
                             "request.version None and reverse() drops the version.",
             f"Set REST_FRAMEWORK['DEFAULT_VERSIONING_CLASS'] = '{PACKAGE}.versioning.drf.LifecycleVersioning'."),
    "W023": (checks.Warning, "The route {route} has the verb {segment!r} as a path segment.",
             "Make the action a sub-resource that is created, e.g. {suggestion}, or use the HTTP method. "
             f"To keep it, add a pattern of the route to {SETTINGS_NAME}['URL_CONVENTION_SILENCED']."),
    "W024": (checks.Warning, "The route {route} names the collection {segment!r} in the singular.",
             "Name collections with plural nouns: {suggestion}. "
             f"To keep it, add a pattern of the route to {SETTINGS_NAME}['URL_CONVENTION_SILENCED']."),
    "W025": (checks.Warning, "The route {route} nests {depth} collections; the conventions allow two levels.",
             "Address the last collection at the root and filter it: {suggestion}. "
             f"To keep it, add a pattern of the route to {SETTINGS_NAME}['URL_CONVENTION_SILENCED']."),
    "W026": (checks.Warning, "versioned_urls() is in the URLconf but VERSIONS is empty: every /v<n>/ prefix serves "
                             "the API.",
             f"List the versions in {SETTINGS_NAME}['VERSIONS'] (see docs/versioning.md)."),
    "W027": (checks.Warning, "Version {name}, the one before the current {current}, passed its sunset on {sunset}: "
                             "only the current version is still supported.",
             "Mark it 'retired' and move the next sunset so that two versions are always served."),
    "W030": (checks.Warning, "drf-spectacular is installed but REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] is {value!r}: "
                             "the schema will not show idempotency keys, problem responses or deprecations.",
             f"Set REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] = '{PACKAGE}.contrib.spectacular.ProblemAutoSchema' "
             "(or a subclass of it)."),
    "W031": (checks.Warning, "SPECTACULAR_SETTINGS['COMPONENT_SPLIT_REQUEST'] is not True: request bodies are "
                             "documented with the response's read-only fields, and generated clients send them.",
             "Set SPECTACULAR_SETTINGS = {{'COMPONENT_SPLIT_REQUEST': True, ...}}."),
    "W008": (checks.Warning, f"{SETTINGS_NAME}['IDEMPOTENCY_RETENTION_SECONDS'] is shorter than the lease: a key "
                             "could expire while its request still runs.",
             "Keep the retention (default 24 h) well above IDEMPOTENCY_LEASE_SECONDS."),
}

#: Setting -> (accepted types, their description).
SETTING_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "PROBLEM_BASE_URL": ((str, type(None)), "a URL string or None"),
    "TRACE_ID_HEADER": ((str,), "a header name"),
    "TRUST_INCOMING_TRACE_ID": ((bool,), "True or False"),
    "CLIENT_ID_RESOLVER": ((str,), "a dotted path"),
    "CLIENT_ID_HEADER": ((str,), "a header name"),
    "JSON_MAX_DEPTH": ((int,), "a positive integer"),
    "MAINTENANCE_MODE": ((bool,), "True or False"),
    "MAINTENANCE_SWITCH_STORE": ((str,), "'cache' or 'database'"),
    "MAINTENANCE_SWITCH_CACHE": ((str,), "a cache alias"),
    "MAINTENANCE_SWITCH_POLL_SECONDS": ((int, float), "a number of seconds, 0 or more"),
    "MAINTENANCE_RETRY_AFTER": ((int,), "a positive number of seconds"),
    "MAINTENANCE_EXEMPT_PATHS": ((list, tuple), "a list of regular expressions"),
    "DATABASE_UNAVAILABLE_RETRY_AFTER": ((int,), "a positive number of seconds"),
    "IDEMPOTENCY_STORE": ((str,), "'database', 'redis' or the dotted path of a store class"),
    "IDEMPOTENCY_DATABASE": ((str,), "a database alias"),
    "IDEMPOTENCY_CACHE": ((str,), "a cache alias"),
    "IDEMPOTENCY_HEADER": ((str,), "a header name"),
    "IDEMPOTENCY_LEASE_SECONDS": ((int, float), "a positive number of seconds"),
    "IDEMPOTENCY_RETENTION_SECONDS": ((int,), "a positive number of seconds"),
    "IDEMPOTENCY_REPLAYED_HEADERS": ((list, tuple), "a list of header names"),
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": ((int, type(None)), "a positive number of bytes, or None for no limit"),
    "IDEMPOTENCY_SCOPE_RESOLVER": ((str,), "a dotted path"),
    "IDEMPOTENCY_PATHS": ((list, tuple), "a list of regular expressions"),
    "IDEMPOTENCY_REQUIRED": ((bool,), "True or False"),
    "IDEMPOTENCY_STORE_UNAVAILABLE_RETRY_AFTER": ((int,), "a positive number of seconds"),
    "IDEMPOTENCY_STORE_UNAVAILABLE": ((str,), "'fail-closed' or 'fail-open'"),
    "PAGINATION_DEFAULT_LIMIT": ((int,), "a positive integer"),
    "PAGINATION_MAX_LIMIT": ((int,), "a positive integer"),
    "CURSOR_SALT": ((str,), "a non-empty string"),
    "VERSIONS": ((list, tuple), "a list of version dicts, oldest first"),
    "VERSION_PATH_REGEX": ((str,), "a regular expression with a 'version' group"),
    "MIN_SUPPORT_DAYS": ((int,), "a positive number of days"),
    "URL_CONVENTION_CHECKS": ((bool,), "True or False"),
    "URL_CONVENTION_SILENCED": ((list, tuple), "a list of regular expressions"),
    "SCHEMA_BASELINE_DIR": ((str, os.PathLike), "a directory path"),
}

#: Extra constraints on values that have the right type.
_VALID_VALUES: dict[str, Callable[[Any], bool]] = {
    "JSON_MAX_DEPTH": lambda v: v > 0,
    "MAINTENANCE_SWITCH_STORE": lambda v: v in ("cache", "database"),
    "MAINTENANCE_SWITCH_POLL_SECONDS": lambda v: v >= 0,
    "MAINTENANCE_RETRY_AFTER": lambda v: v > 0,
    "DATABASE_UNAVAILABLE_RETRY_AFTER": lambda v: v > 0,
    "IDEMPOTENCY_LEASE_SECONDS": lambda v: v > 0,
    "IDEMPOTENCY_RETENTION_SECONDS": lambda v: v > 0,
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": lambda v: v is None or v > 0,
    "IDEMPOTENCY_STORE_UNAVAILABLE_RETRY_AFTER": lambda v: v > 0,
    "IDEMPOTENCY_STORE_UNAVAILABLE": lambda v: v in ("fail-closed", "fail-open"),
    "PAGINATION_DEFAULT_LIMIT": lambda v: v > 0,
    "PAGINATION_MAX_LIMIT": lambda v: v > 0,
    "CURSOR_SALT": lambda v: bool(v),
    "IDEMPOTENCY_REPLAYED_HEADERS": lambda v: "set-cookie" not in {str(h).lower() for h in v},
    "MIN_SUPPORT_DAYS": lambda v: v > 0,
}

MIDDLEWARE_ORDER = [
    f"{PACKAGE}.middleware.TraceIdMiddleware",
    f"{PACKAGE}.middleware.ProblemDetailsMiddleware",
    f"{PACKAGE}.middleware.MaintenanceModeMiddleware",
]

ERROR_HANDLERS = {
    "handler400": "bad_request",
    "handler403": "permission_denied",
    "handler404": "page_not_found",
    "handler500": "server_error",
}


def message(check_id: str, obj: Any = None, **values: Any) -> checks.CheckMessage:
    level, text, hint = MESSAGES[check_id]
    return level(text.format(**values), hint=hint.format(**values), obj=obj, id=f"{PACKAGE}.{check_id}")


def check_settings(**kwargs: Any) -> list[checks.CheckMessage]:
    user_settings = getattr(settings, SETTINGS_NAME, {})
    if not isinstance(user_settings, dict):
        return [message("E001", type=type(user_settings).__name__)]
    errors = []
    for key, value in user_settings.items():
        if key not in DEFAULTS:
            close = difflib.get_close_matches(key, DEFAULTS, n=1)
            suggestion = f"Did you mean {close[0]!r}?" if close else f"Known keys: {', '.join(sorted(DEFAULTS))}."
            errors.append(message("E002", key=key, suggestion=suggestion))
            continue
        errors.extend(_check_value(key, value))
    return errors


def _check_value(key: str, value: Any) -> list[checks.CheckMessage]:
    types, expected = SETTING_TYPES[key]
    is_bool_for_number = isinstance(value, bool) and bool not in types
    if not isinstance(value, types) or is_bool_for_number or not _VALID_VALUES.get(key, _any)(value):
        return [message("E003", key=key, expected=expected, value=value)]
    if key in IMPORT_STRINGS:
        try:
            import_string(value)
        except ImportError as exc:
            return [message("E004", key=key, value=value, error=exc)]
    if key == "PROBLEM_BASE_URL" and value is not None and not re.match(r"https?://[^/\s]+", value):
        return [message("E005", value=value)]
    if key == "VERSION_PATH_REGEX":
        try:
            if "version" not in re.compile(value).groupindex:
                return [message("E025", value=value)]
        except re.error as exc:
            return [message("E006", key=key, value=value, error=exc)]
    if key == "VERSIONS":
        try:
            load_versions(value)
        except ImproperlyConfigured as exc:
            return [message("E020", error=exc)]
    if key in ("MAINTENANCE_EXEMPT_PATHS", "IDEMPOTENCY_PATHS", "URL_CONVENTION_SILENCED"):
        for pattern in value:
            try:
                re.compile(pattern)
            except (re.error, TypeError) as exc:
                return [message("E006", key=key, value=pattern, error=exc)]
    if key == "MAINTENANCE_SWITCH_CACHE" and value not in settings.CACHES:
        return [message("E007", value=value)]
    if key == "IDEMPOTENCY_DATABASE" and value not in settings.DATABASES:
        return [message("E010", value=value)]
    return []


def check_shared_state(**kwargs: Any) -> list[checks.CheckMessage]:
    """Run-time state that every worker must share really is shared."""
    if check_settings():
        return []  # the settings themselves are wrong: that is reported on its own
    errors = []
    local_cache = unshared_switch_cache()
    if local_cache is not None:
        errors.append(message("W007", backend=local_cache, value=api_settings.MAINTENANCE_SWITCH_CACHE))
    try:
        store = load_store_class()
    except (ImportError, ImproperlyConfigured) as exc:
        return [*errors, message("E009", value=api_settings.IDEMPOTENCY_STORE, error=exc)]
    if getattr(store, "needs_redis_cache", False):
        alias = api_settings.IDEMPOTENCY_CACHE
        if settings.CACHES.get(alias, {}).get("BACKEND") != "django_redis.cache.RedisCache":
            errors.append(message("E011", value=alias))
    if api_settings.IDEMPOTENCY_RETENTION_SECONDS < api_settings.IDEMPOTENCY_LEASE_SECONDS:
        errors.append(message("W008"))
    return errors


def _any(value: Any) -> bool:
    return True


def check_drf_settings(**kwargs: Any) -> list[checks.CheckMessage]:
    drf = getattr(settings, "REST_FRAMEWORK", {})
    if not isinstance(drf, dict):
        return []  # DRF reports that itself
    errors = []
    handler = drf.get("EXCEPTION_HANDLER", "rest_framework.views.exception_handler")
    if handler != f"{PACKAGE}.exception_handler.problem_exception_handler":
        errors.append(message("W001", value=handler))
    throttles = drf.get("DEFAULT_THROTTLE_CLASSES", [])
    if f"{PACKAGE}.throttling.ClientRateThrottle" in throttles and "client" not in drf.get(
        "DEFAULT_THROTTLE_RATES", {}
    ):
        errors.append(message("E012"))
    parsers = drf.get("DEFAULT_PARSER_CLASSES", ["rest_framework.parsers.JSONParser"])
    if "rest_framework.parsers.JSONParser" in parsers:
        errors.append(message("W006"))
    return errors


def check_openapi_schema(**kwargs: Any) -> list[checks.CheckMessage]:
    if not apps.is_installed("drf_spectacular"):
        return []
    from .contrib.spectacular import ProblemAutoSchema

    drf = getattr(settings, "REST_FRAMEWORK", {})
    value = drf.get("DEFAULT_SCHEMA_CLASS") if isinstance(drf, dict) else None

    try:
        schema_class = import_string(value) if isinstance(value, str) else value
    except ImportError:
        schema_class = None  # DRF reports an unimportable class itself
    errors = []
    if not (isinstance(schema_class, type) and issubclass(schema_class, ProblemAutoSchema)):
        errors.append(message("W030", value=value))
    if not getattr(settings, "SPECTACULAR_SETTINGS", {}).get("COMPONENT_SPLIT_REQUEST"):
        errors.append(message("W031"))
    return errors


def check_middleware(**kwargs: Any) -> list[checks.CheckMessage]:
    middleware = list(settings.MIDDLEWARE)
    errors = [message("W002", middleware=name) for name in MIDDLEWARE_ORDER if name not in middleware]
    idempotency = f"{PACKAGE}.idempotency.IdempotencyMiddleware"
    if idempotency in middleware and middleware[-1] != idempotency:
        errors.append(message("W009"))
    if any(error.id.endswith("W002") for error in errors):
        return errors
    positions = [middleware.index(name) for name in MIDDLEWARE_ORDER]
    for index, (earlier, later) in enumerate(itertools.pairwise(positions)):
        if earlier > later:
            errors.append(message("W003", middleware=MIDDLEWARE_ORDER[index], other=MIDDLEWARE_ORDER[index + 1]))
    return errors


def check_error_views(**kwargs: Any) -> list[checks.CheckMessage]:
    errors = []
    urlconf = get_resolver().urlconf_module
    for handler, view in ERROR_HANDLERS.items():
        value = getattr(urlconf, handler, None)
        expected = f"{PACKAGE}.handlers.{view}"
        if value != expected and getattr(value, "__module__", None) != f"{PACKAGE}.handlers":
            errors.append(message("W004", handler=handler, view=view, value=value))
    if f"{PACKAGE}.handlers.csrf_failure" != settings.CSRF_FAILURE_VIEW:
        errors.append(message("W005", value=settings.CSRF_FAILURE_VIEW))
    user_settings = getattr(settings, SETTINGS_NAME, {})
    if isinstance(user_settings, dict) and not user_settings.get("PROBLEM_BASE_URL"):
        try:
            reverse("api_conventions:problem-type", kwargs={"slug": "not-found"})
        except NoReverseMatch:
            errors.append(message("E008"))
    return errors


def check_paginated_orderings(**kwargs: Any) -> list[checks.CheckMessage]:
    """Every keyset-paginated view of the URLconf has an index matching its ordering."""
    from .pagination import KeysetPagination

    warnings = []
    for view_class in _view_classes(get_resolver().url_patterns):
        pagination_class = getattr(view_class, "pagination_class", None)
        queryset = getattr(view_class, "queryset", None)
        if not (isinstance(pagination_class, type) and issubclass(pagination_class, KeysetPagination)):
            continue
        if queryset is None:
            continue
        model = queryset.model
        try:
            ordering = pagination_class().get_ordering(model)
        except ImproperlyConfigured as exc:
            warnings.append(message("E013", view=view_class.__name__, error=exc))
            continue
        if not _has_matching_index(model, ordering):
            fields = [_column_name(model, name) for name in ordering]
            warnings.append(message("W010", view=view_class.__name__, model=model.__name__,
                                    ordering=", ".join(ordering), fields=fields))
    return warnings


def _view_classes(patterns: Any) -> Any:
    seen = set()
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            yield from _view_classes(pattern.url_patterns)
            continue
        view_class = getattr(pattern.callback, "cls", None) or getattr(pattern.callback, "view_class", None)
        if view_class is not None and view_class not in seen:
            seen.add(view_class)
            yield view_class


def _column_name(model: Any, name: str) -> str:
    bare = name.lstrip("-")
    field = model._meta.pk if bare == "pk" else model._meta.get_field(bare)
    return ("-" if name.startswith("-") else "") + field.name


def _has_matching_index(model: Any, ordering: tuple[str, ...]) -> bool:
    wanted = [_column_name(model, name) for name in ordering]
    flipped = [name[1:] if name.startswith("-") else f"-{name}" for name in wanted]
    bare = [name.lstrip("-") for name in wanted]
    if bare == [model._meta.pk.name]:
        return True
    first = model._meta.get_field(bare[0])
    if (first.unique or first.db_index) and bare[1:] in ([], [model._meta.pk.name]):
        return True  # a single-column index: unique or db_index
    return any(list(index.fields)[:len(wanted)] in (wanted, flipped) for index in model._meta.indexes)
VERSION_MIDDLEWARE = f"{PACKAGE}.versioning.middleware.VersionLifecycleMiddleware"
VERSIONING_CLASS = f"{PACKAGE}.versioning.drf.LifecycleVersioning"


def check_versions(**kwargs: Any) -> list[checks.CheckMessage]:
    """The version table keeps the conventions, and the pieces that serve it are installed."""
    if check_settings():
        return []
    table = get_version_table()
    if not table:
        return []
    errors = []
    now = timezone.now()
    for version in table.versions:
        if version_in_path(f"/{version.name}/") != version.name:
            errors.append(message("E026", name=version.name))
        if version.status == "retired" and version.sunset is not None and version.sunset > now:
            errors.append(message("W028", name=version.name, sunset=f"{version.sunset:%Y-%m-%d}"))
    current = [v for v in table.versions if v.status == "current"]
    if len(current) != 1:
        errors.append(message("E022", count=len(current)))
    else:
        newer = table.versions[table.versions.index(current[0]) + 1:]
        errors.extend(message("E027", name=v.name, current=current[0].name) for v in newer)
        index = table.versions.index(current[0])
        previous = table.versions[index - 1] if index > 0 else None
        if previous is not None and previous.status == "retired":
            errors.append(message("E023", name=previous.name, current=current[0].name))
        elif previous is not None and previous.is_retired():
            errors.append(message("W027", name=previous.name, current=current[0].name,
                                  sunset=f"{previous.sunset:%Y-%m-%d}"))
    middleware = list(settings.MIDDLEWARE)
    if VERSION_MIDDLEWARE not in middleware:
        errors.append(message("W020"))
    else:
        position = middleware.index(VERSION_MIDDLEWARE)
        trace = f"{PACKAGE}.middleware.TraceIdMiddleware"
        if trace in middleware and middleware.index(trace) > position:
            errors.append(message("W021", other="it must come after TraceIdMiddleware"))
        later = (
            f"{PACKAGE}.middleware.ProblemDetailsMiddleware",
            f"{PACKAGE}.middleware.MaintenanceModeMiddleware",
            f"{PACKAGE}.idempotency.IdempotencyMiddleware",
        )
        for other in later:
            if other in middleware and middleware.index(other) < position:
                errors.append(message("W021", other=f"it must come before {other.rsplit('.', 1)[-1]}"))
    drf = getattr(settings, "REST_FRAMEWORK", {})
    versioning_class = drf.get("DEFAULT_VERSIONING_CLASS") if isinstance(drf, dict) else None
    if versioning_class != VERSIONING_CLASS:
        errors.append(message("W022", value=versioning_class))
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


def check_deprecation_dates(**kwargs: Any) -> list[checks.CheckMessage]:
    """Every deprecation (versions, endpoints, field renames) gives clients the support window."""
    if check_settings():
        return []
    errors = []
    minimum = api_settings.MIN_SUPPORT_DAYS
    for deprecation in _deprecations_to_check(list(iter_routes())):
        if deprecation.deprecation is None or deprecation.sunset is None:
            continue
        values = {"subject": deprecation.subject[:1].upper() + deprecation.subject[1:],
                  "deprecation": f"{deprecation.deprecation:%Y-%m-%d}", "sunset": f"{deprecation.sunset:%Y-%m-%d}"}
        days = deprecation.support_days() or 0
        if days < 0:
            errors.append(message("E021", **values))
        elif days < minimum:
            earliest = deprecation.deprecation + datetime.timedelta(days=minimum)
            errors.append(message("E024", **values, days=math.floor(days), minimum=minimum,
                                  earliest=f"{earliest:%Y-%m-%d}"))
    return errors


def _uses_versioned_urls(resolver: URLResolver | None = None) -> bool:
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, VersionedURLResolver) or (isinstance(entry, URLResolver) and _uses_versioned_urls(entry)):
            return True
    return False


def check_url_conventions(**kwargs: Any) -> list[checks.CheckMessage]:
    """Part 2 of the conventions over the routes of DRF views: no verbs, plural collections, two levels."""
    if check_settings():
        return []
    errors = []
    if not get_version_table() and _uses_versioned_urls():
        errors.append(message("W026"))
    if not api_settings.URL_CONVENTION_CHECKS:
        return errors
    silenced = [re.compile(pattern) for pattern in api_settings.URL_CONVENTION_SILENCED]
    seen: set[tuple[str, str]] = set()
    for route in iter_routes():
        if not is_drf_view(route.callback) or any(p.search(route.display) for p in silenced):
            continue
        for finding in find_naming_problems(route):
            if (finding.check_id, finding.route) not in seen:
                seen.add((finding.check_id, finding.route))
                errors.append(message(finding.check_id, obj=finding.route, route=finding.route, **finding.values))
    return errors


def register_all() -> None:
    checks.register(check_settings, checks.Tags.compatibility)
    checks.register(check_drf_settings, checks.Tags.compatibility)
    checks.register(check_openapi_schema, checks.Tags.compatibility)
    checks.register(check_middleware, checks.Tags.compatibility)
    checks.register(check_error_views, checks.Tags.urls)
    checks.register(check_shared_state, checks.Tags.caches)
    checks.register(check_paginated_orderings, checks.Tags.models)
    checks.register(check_versions, checks.Tags.compatibility)
    checks.register(check_deprecation_dates, checks.Tags.urls)
    checks.register(check_url_conventions, checks.Tags.urls)
