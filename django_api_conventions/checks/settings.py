"""Checks of the ``API_CONVENTIONS`` values themselves: types, ranges, patterns, aliases."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from ..check_messages import SETTINGS_TAG, message
from ..conf import DEFAULTS, IMPORT_STRINGS, SETTINGS_NAME
from ..problems.pages import BASE_URL_FORM
from ..versioning.lifecycle import load_versions

#: Setting -> (accepted types, their description).
SETTING_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "PROBLEM_BASE_URL": ((str, type(None)), "a URL string or None"),
    "API_PATHS": ((list, tuple), "a list of regular expressions"),
    "KEEP_ERROR_BODY_PATHS": ((list, tuple), "a list of regular expressions"),
    "HTML_ERROR_HANDLERS": ((dict,), "a dict of Django's error handler names to dotted paths"),
    "PROJECT_EXCEPTION_HANDLER": ((str, type(None)), "a dotted path or None"),
    "TRACE_ID_HEADER": ((str,), "a header name"),
    "TRUST_INCOMING_TRACE_ID": ((bool,), "True or False"),
    "REQUEST_ID_ATTRIBUTE": ((str, type(None)), "an attribute name (not 'trace_id') or None"),
    "CLIENT_ID_RESOLVER": ((str,), "a dotted path"),
    "MAINTENANCE_MODE": ((bool,), "True or False"),
    "MAINTENANCE_SWITCH_STORE": ((str,), "'cache' or 'database'"),
    "MAINTENANCE_RETRY_AFTER": ((int,), "a positive number of seconds"),
    "MAINTENANCE_EXEMPT_PATHS": ((list, tuple), "a list of regular expressions"),
    "IDEMPOTENCY_STORE": ((str,), "'database', 'redis' or the dotted path of a store class"),
    "IDEMPOTENCY_DATABASE": ((str,), "a database alias"),
    "IDEMPOTENCY_CACHE": ((str,), "a cache alias"),
    "IDEMPOTENCY_REDIS_URL": ((str, type(None)), "a Redis URL or None"),
    "IDEMPOTENCY_REDIS_WAIT_REPLICAS": ((int,), "a number of replicas, 0 or more"),
    "IDEMPOTENCY_LEASE_SECONDS": ((int, float), "a positive number of seconds"),
    "IDEMPOTENCY_RETENTION_SECONDS": ((int,), "a positive number of seconds"),
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": ((int, type(None)), "a positive number of bytes, or None for no limit"),
    # Any type: the keys' own check never quotes the value, a secret.
    "IDEMPOTENCY_ENCRYPTION_KEYS": ((object,), "a list of url-safe base64 keys"),
    "IDEMPOTENCY_PATHS": ((list, tuple), "a list of regular expressions"),
    "IDEMPOTENCY_REQUIRED": ((bool,), "True or False"),
    "IDEMPOTENCY_STORE_UNAVAILABLE": ((str,), "'fail-closed' or 'fail-open'"),
    "PAGINATION_DEFAULT_LIMIT": ((int,), "a positive integer"),
    "PAGINATION_MAX_LIMIT": ((int,), "a positive integer"),
    "EXTRA_QUERY_PARAMS": ((list, tuple), "a list of query parameter names, families and dicts"),
    "VERSIONS": ((list, tuple), "a list of version dicts, oldest first"),
    "VERSION_PATH_REGEX": ((str,), "a regular expression with a 'version' group"),
    "URL_CONVENTION_SILENCED": ((list, tuple), "a list of regular expressions"),
    "EXTRA_URLCONFS": ((list, tuple), "a list of dotted module paths"),
}

#: Settings the package does not have, with what a project does instead: E002's hint.
REPLACED_SETTINGS: dict[str, str] = {
    "OPENAPI_EXTENSIBLE_RESPONSE_ENUMS": "subclass ProblemAutoSchema and set extensible_response_enums",
    "OPENAPI_RESPONSE_FIELDS_REQUIRED": "subclass ProblemAutoSchema and set response_fields_required",
    "OPENAPI_REQUEST_DEFAULTS": "subclass ProblemAutoSchema and set request_defaults",
    "OPENAPI_VERSIONLESS_NAMES": "subclass ProblemAutoSchema and set versionless_names",
    "OPENAPI_ANONYMOUS_SECURITY": "subclass ProblemAutoSchema and set anonymous_security",
    "OPENAPI_SEMVER_INFO_VERSION": (
        "set django_api_conventions.contrib.spectacular.hooks.SEMVER_INFO_VERSION = False in your AppConfig.ready()"
    ),
    "OPENTELEMETRY_TRACE_ID": "with opentelemetry-api installed, the current span's trace id is always the request's",
    "OPENTELEMETRY_IDEMPOTENCY": "with opentelemetry-api installed, the idempotency outcomes are always recorded",
    "JSON_MAX_DEPTH": "subclass StrictJSONParser and set max_depth",
    "MAINTENANCE_SWITCH_CACHE": (
        "the run-time switch lives in the 'default' cache; MAINTENANCE_SWITCH_STORE = 'database' "
        "keeps it in the database"
    ),
    "MAINTENANCE_SWITCH_POLL_SECONDS": "each process reads the run-time switch at most once a second",
    "DATABASE_UNAVAILABLE_RETRY_AFTER": "the 503 database-unavailable always sends Retry-After: 5",
    "URL_CONVENTION_CHECKS": "add 'django_api_conventions.W023' to SILENCED_SYSTEM_CHECKS",
    "CLIENT_ID_HEADER": "the client names itself in X-Client-ID; a CLIENT_ID_RESOLVER may read another header",
    "IDEMPOTENCY_HEADER": "the key is read from Idempotency-Key, the header the IETF draft names",
    "IDEMPOTENCY_STORE_UNAVAILABLE_RETRY_AFTER": "the 503 idempotency-store-unavailable always sends Retry-After: 5",
    "IDEMPOTENCY_REDIS_WAIT_TIMEOUT_MS": (
        "subclass RedisStore, set wait_timeout_ms and name the subclass in IDEMPOTENCY_STORE"
    ),
    "IDEMPOTENCY_REPLAYED_HEADERS": (
        "set replayed_headers on the view (IdempotencyMixin) or on a subclass of IdempotencyMiddleware"
    ),
    "IDEMPOTENCY_SCOPE_RESOLVER": (
        "a key's scope is the client id (CLIENT_ID_RESOLVER); a view with IdempotencyMixin may override "
        "get_idempotency_scope(request)"
    ),
    "CURSOR_SALT": "subclass KeysetPagination and set cursor_salt",
    "MIN_SUPPORT_DAYS": (
        "the conventions ask 90 days; an internal service adds 'django_api_conventions.E024' to SILENCED_SYSTEM_CHECKS"
    ),
}

#: Extra constraints on values that have the right type.
_VALID_VALUES: dict[str, Callable[[Any], bool]] = {
    "MAINTENANCE_SWITCH_STORE": lambda v: v in ("cache", "database"),
    "MAINTENANCE_RETRY_AFTER": lambda v: v > 0,
    "IDEMPOTENCY_LEASE_SECONDS": lambda v: v > 0,
    "IDEMPOTENCY_RETENTION_SECONDS": lambda v: v > 0,
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": lambda v: v is None or v > 0,
    "IDEMPOTENCY_REDIS_URL": lambda v: v is None or bool(v),
    # bool is an int: True replicas is a mistake, not 1.
    "IDEMPOTENCY_REDIS_WAIT_REPLICAS": lambda v: not isinstance(v, bool) and v >= 0,
    "IDEMPOTENCY_STORE_UNAVAILABLE": lambda v: v in ("fail-closed", "fail-open"),
    "PAGINATION_DEFAULT_LIMIT": lambda v: v > 0,
    "PAGINATION_MAX_LIMIT": lambda v: v > 0,
    # request.trace_id is the package's own: the project's id is read from another attribute.
    "REQUEST_ID_ATTRIBUTE": lambda v: v is None or (v.isidentifier() and v != "trace_id"),
    "EXTRA_URLCONFS": lambda v: all(isinstance(name, str) and name for name in v),
}


@checks.register(checks.Tags.compatibility, SETTINGS_TAG)
def check_settings(**kwargs: Any) -> list[checks.CheckMessage]:
    user_settings = getattr(settings, SETTINGS_NAME, {})
    if not isinstance(user_settings, dict):
        return [message("settings_not_a_dict", type=type(user_settings).__name__)]
    errors = []
    for key, value in user_settings.items():
        if key not in DEFAULTS:
            errors.append(message("unknown_setting", key=key, suggestion=_unknown_key_hint(key)))
            continue
        errors.extend(_check_value(key, value))
    return errors


def _unknown_key_hint(key: str) -> str:
    if key in REPLACED_SETTINGS:
        return f"{key} is not a setting: {REPLACED_SETTINGS[key]}."
    close = difflib.get_close_matches(key, DEFAULTS, n=1)
    return f"Did you mean {close[0]!r}?" if close else f"Known keys: {', '.join(sorted(DEFAULTS))}."


def _check_value(key: str, value: Any) -> list[checks.CheckMessage]:
    types, expected = SETTING_TYPES[key]
    is_bool_for_number = isinstance(value, bool) and bool not in types
    if not isinstance(value, types) or is_bool_for_number or not _VALID_VALUES.get(key, lambda _: True)(value):
        return [message("wrong_setting", key=key, expected=expected, value=value)]
    if key in IMPORT_STRINGS and isinstance(value, str):  # None: a setting that is off
        try:
            import_string(value)
        except ImportError as exc:
            return [message("not_importable", key=key, value=value, error=exc)]
    value_check = _VALUE_CHECKS.get(key)
    return value_check(key, value) if value_check is not None else []


def _check_problem_base_url(key: str, value: str | None) -> list[checks.CheckMessage]:
    if value is not None and BASE_URL_FORM.fullmatch(value) is None:
        return [message("bad_problem_base_url", value=value)]
    return []


def _check_version_path_regex(key: str, value: str) -> list[checks.CheckMessage]:
    errors = _check_patterns(key, [value])
    if not errors and "version" not in re.compile(value).groupindex:
        return [message("regex_without_version", value=value)]
    return errors


def _check_versions(key: str, value: Any) -> list[checks.CheckMessage]:
    try:
        load_versions(value)
    except ImproperlyConfigured as exc:
        return [message("versions_invalid", error=exc)]
    return []


def _check_patterns(key: str, value: Any) -> list[checks.CheckMessage]:
    for pattern in value:
        try:
            re.compile(pattern)
        except (re.error, TypeError) as exc:
            return [message("bad_pattern", key=key, value=pattern, error=exc)]
    return []


def _check_extra_query_params(key: str, value: Any) -> list[checks.CheckMessage]:
    # Imported here: the pagination package imports DRF, which reads its settings on import.
    from ..pagination.extra_parameters import SHAPES, extra_parameter

    for entry in value:
        try:
            extra_parameter(entry)
        except ValueError as exc:
            expected = f"a list whose entries are each {SHAPES} ({exc})"
            return [message("wrong_setting", key=key, expected=expected, value=entry)]
    return []


def _check_encryption_keys(key: str, value: Any) -> list[checks.CheckMessage]:
    from ..idempotency.encryption import keys_error

    error = keys_error(value)
    return [] if error is None else [message("bad_encryption_keys", error=error)]


def _check_database_alias(key: str, value: str) -> list[checks.CheckMessage]:
    return [] if value in settings.DATABASES else [message("unknown_database", value=value)]


#: Setting -> the check of a value that has the right type.
_VALUE_CHECKS: dict[str, Callable[[str, Any], list[checks.CheckMessage]]] = {
    "PROBLEM_BASE_URL": _check_problem_base_url,
    "VERSION_PATH_REGEX": _check_version_path_regex,
    "VERSIONS": _check_versions,
    "IDEMPOTENCY_ENCRYPTION_KEYS": _check_encryption_keys,
    "API_PATHS": _check_patterns,
    "KEEP_ERROR_BODY_PATHS": _check_patterns,
    "MAINTENANCE_EXEMPT_PATHS": _check_patterns,
    "IDEMPOTENCY_PATHS": _check_patterns,
    "URL_CONVENTION_SILENCED": _check_patterns,
    "IDEMPOTENCY_DATABASE": _check_database_alias,
    "EXTRA_QUERY_PARAMS": _check_extra_query_params,
}
