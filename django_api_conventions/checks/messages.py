"""The one table of check ids, messages and hints: no id is used twice, every message says the fix."""

from __future__ import annotations

from typing import Any

from django.core import checks

from ..conf import SETTINGS_NAME

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
    "E011": (checks.Error, f"{SETTINGS_NAME}['IDEMPOTENCY_CACHE'] = {{value!r}} cannot lend the Redis store its "
                           "connection: {error}.",
             "Name a CACHES entry whose BACKEND is 'django_redis.cache.RedisCache', "
             "'django.core.cache.backends.redis.RedisCache' or django-valkey's ValkeyCache, "
             f"or give the store its own {SETTINGS_NAME}['IDEMPOTENCY_REDIS_URL']."),
    "E014": (checks.Error, f"{SETTINGS_NAME}['IDEMPOTENCY_REDIS_URL'] = {{value!r}} cannot be used: {{error}}.",
             "Use redis://[[user]:password@]host[:port][/db], "
             "redis+sentinel://host[:port][,host[:port]...]/service_name[/db] or "
             "redis+cluster://host[:port][,host[:port]...] (rediss... for TLS); see docs/idempotency.md."),
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
             f"Set REST_FRAMEWORK['EXCEPTION_HANDLER'] = '{PACKAGE}.problems.drf_handler.problem_exception_handler'."),
    "W002": (checks.Warning, "{middleware} is not in MIDDLEWARE.",
             "Add it near the top of MIDDLEWARE: TraceIdMiddleware, ProblemDetailsMiddleware, "
             "MaintenanceModeMiddleware, then Django's."),
    "W003": (checks.Warning, "{middleware} must come before {other} in MIDDLEWARE.",
             "Order: TraceIdMiddleware, ProblemDetailsMiddleware, MaintenanceModeMiddleware, then the rest."),
    "W004": (checks.Warning, "The root URLconf's {handler} is {value!r}: some errors will lose their precise problem.",
             f"Set {{handler}} = '{PACKAGE}.problems.django_handlers.{{view}}' in your root URLconf."),
    "W005": (checks.Warning, "CSRF_FAILURE_VIEW is {value!r}: CSRF failures will not be problem details.",
             f"Set CSRF_FAILURE_VIEW = '{PACKAGE}.problems.django_handlers.csrf_failure'."),
    "W006": (checks.Warning, "DRF's JSONParser is in DEFAULT_PARSER_CLASSES: deeply nested JSON raises a 500 there.",
             f"Use '{PACKAGE}.parsers.StrictJSONParser' instead."),
    "W007": (checks.Warning, "The maintenance switch lives in the {backend} cache {value!r}, which other processes "
                             "and hosts do not share: a switch written there would not reach them, so "
                             "`manage.py maintenance` refuses to run.",
             f"Use a shared cache (Redis) or {SETTINGS_NAME}['MAINTENANCE_SWITCH_STORE'] = 'database'."),
    "W011": (checks.Warning, f"django.contrib.admin is installed but {SETTINGS_NAME}['API_PATHS'] is unset: every "
                             "path is API, so the admin's errors (a CSRF failure at its login, its 404s) answer "
                             "application/problem+json to browsers.",
             f"Name the API's paths, e.g. {SETTINGS_NAME}['API_PATHS'] = [r'{{pattern}}'] (every path but the "
             "admin's); set it to [r'^/'] to keep the whole site API."),
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


def message(check_id: str, obj: Any = None, **values: Any) -> checks.CheckMessage:
    """The check message ``check_id`` of :data:`MESSAGES`, formatted with ``values``."""
    level, text, hint = MESSAGES[check_id]
    return level(text.format(**values), hint=hint.format(**values), obj=obj, id=f"{PACKAGE}.{check_id}")
