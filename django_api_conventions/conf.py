"""The ``API_CONVENTIONS`` settings object.

Settings are read live from ``django.conf.settings`` on first access, cached, and
dropped whenever Django's ``setting_changed`` signal names ``API_CONVENTIONS``, so
``override_settings`` works in tests. Nothing here binds a value at import time.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

from . import header_names

SETTINGS_NAME = "API_CONVENTIONS"

#: Every setting with its default. The docs' settings reference is generated from this table.
DEFAULTS: dict[str, Any] = {
    # Absolute base URL of the problem type pages, e.g. "https://api.example.com/problems".
    # None: derived from the request and the package's own problem type view.
    "PROBLEM_BASE_URL": None,
    # Regular expressions searched in request.path naming the API: there every error is a
    # problem; elsewhere (Django's admin) Django's error pages and CSRF page answer as usual.
    "API_PATHS": [r"^/"],
    # The error views that answer outside API_PATHS, by Django's names ("handler400", "handler403",
    # "handler404", "handler500", "CSRF_FAILURE_VIEW"): the project's own (dotted paths). Unnamed:
    # Django's defaults.
    "HTML_ERROR_HANDLERS": {},
    # Dotted path of the project's own DRF exception handler, run first by the package's: its
    # answer is converted into a problem. None: the package's mapping alone.
    "PROJECT_EXCEPTION_HANDLER": None,
    # Response header that carries the trace id (also read on the way in).
    "TRACE_ID_HEADER": header_names.REQUEST_ID,
    # Honour a valid incoming trace id header or W3C traceparent.
    "TRUST_INCOMING_TRACE_ID": True,
    # Name of the request attribute where the project's own middleware puts its request id
    # (NetBox: "id"): once set, it is the trace id of problems, log lines and the response header.
    "REQUEST_ID_ATTRIBUTE": None,
    # With opentelemetry-api installed: the current span's trace id is the request's trace id.
    "OPENTELEMETRY_TRACE_ID": True,
    # With opentelemetry-api installed: idempotency outcomes as span attributes, events and a counter.
    "OPENTELEMETRY_IDEMPOTENCY": True,
    # Callable(request) -> str giving the client id of a request.
    "CLIENT_ID_RESOLVER": "django_api_conventions.clients.default_client_id_resolver",
    # Request header that names the calling client when nothing authenticated it.
    "CLIENT_ID_HEADER": header_names.CLIENT_ID,
    # Deepest JSON nesting the StrictJSONParser accepts.
    "JSON_MAX_DEPTH": 64,
    # Static maintenance switch: every non-exempt path answers 503.
    "MAINTENANCE_MODE": False,
    # Where the run-time maintenance switch lives: "cache" or "database".
    "MAINTENANCE_SWITCH_STORE": "cache",
    # Cache alias used when MAINTENANCE_SWITCH_STORE is "cache".
    "MAINTENANCE_SWITCH_CACHE": "default",
    # How long one process trusts its last reading of the run-time switch.
    "MAINTENANCE_SWITCH_POLL_SECONDS": 1.0,
    # Retry-After (seconds) sent during maintenance.
    "MAINTENANCE_RETRY_AFTER": 300,
    # Regular expressions of paths that keep working during maintenance, besides the views
    # marked maintenance_exempt (the package's problem type pages, OpenAPI schema and docs).
    "MAINTENANCE_EXEMPT_PATHS": [],
    # Retry-After (seconds) sent when the database cannot be reached.
    "DATABASE_UNAVAILABLE_RETRY_AFTER": 5,
    # Where idempotency records live: "database", "redis", or the dotted path of a store class.
    "IDEMPOTENCY_STORE": "database",
    # Database alias of the database store: always this one, whatever the database routers say.
    "IDEMPOTENCY_DATABASE": "default",
    # Cache alias of the Redis store: django-redis, Django's RedisCache or django-valkey.
    "IDEMPOTENCY_CACHE": "default",
    # URL of the Redis store's own client (redis://, rediss://, redis+sentinel://,
    # redis+cluster://); when set it is used instead of IDEMPOTENCY_CACHE.
    "IDEMPOTENCY_REDIS_URL": None,
    # Replicas that must hold a Redis claim (WAIT) before the view runs: 0 (asynchronous
    # replication: a failover may lose a claim) or N (at most once across failovers).
    "IDEMPOTENCY_REDIS_WAIT_REPLICAS": 0,
    # How long the claim waits for those replicas before the request answers 503.
    "IDEMPOTENCY_REDIS_WAIT_TIMEOUT_MS": 500,
    # Request header that carries the key.
    "IDEMPOTENCY_HEADER": header_names.IDEMPOTENCY_KEY,
    # How long a started (in-flight) key is held before a retry may take it over.
    "IDEMPOTENCY_LEASE_SECONDS": 60,
    # How long a resolved key answers replays.
    "IDEMPOTENCY_RETENTION_SECONDS": 24 * 60 * 60,
    # Response headers stored and replayed with the body; no other header is ever stored.
    "IDEMPOTENCY_REPLAYED_HEADERS": ["Content-Type", "Location", "ETag"],
    # Largest response body stored for replay, in bytes; None: no limit. A larger response is
    # sent, never stored: a retry gets 410 idempotency-response-too-large, never a second run.
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": 1024 * 1024,
    # Callable(request) -> str: whose key it is. Default: the client id.
    "IDEMPOTENCY_SCOPE_RESOLVER": "django_api_conventions.clients.get_client_id",
    # Regular expressions of paths IdempotencyMiddleware protects (for views without the mixin).
    "IDEMPOTENCY_PATHS": [],
    # What the middleware asks of those paths: is the key required?
    "IDEMPOTENCY_REQUIRED": False,
    # Retry-After (seconds) sent when the idempotency store cannot be reached.
    "IDEMPOTENCY_STORE_UNAVAILABLE_RETRY_AFTER": 5,
    # When the store cannot be reached for the claim: "fail-closed" (503, the view does not
    # run) or "fail-open" (the view runs once without idempotency, as if no key were sent).
    "IDEMPOTENCY_STORE_UNAVAILABLE": "fail-closed",
    # Page size when the client sends no `limit`.
    "PAGINATION_DEFAULT_LIMIT": 20,
    # Largest `limit` a client may ask for.
    "PAGINATION_MAX_LIMIT": 100,
    # Query parameters every strict view accepts besides its filters and its paginator's: those the
    # project's serializers or views read on any request (NetBox: "brief", "fields", "omit", "exclude").
    "EXTRA_QUERY_PARAMS": [],
    # Salt of the cursor signatures (with SECRET_KEY): change it to invalidate every cursor.
    "CURSOR_SALT": "django_api_conventions.cursor",
    # The API versions, oldest first: dicts with "name", "status" ("current", "deprecated" or
    # "retired"), "deprecation" and "sunset" dates and a "migration_guide" URL. Empty: off.
    "VERSIONS": [],
    # Regular expression searched in request.path_info whose "version" group names the version.
    "VERSION_PATH_REGEX": r"^/(?P<version>v[0-9]+)/",
    # Shortest support window, in days, between a deprecation and its sunset (30 for internal APIs).
    "MIN_SUPPORT_DAYS": 90,
    # Warn about verbs, singular collections and deep nesting in the routes of DRF views.
    "URL_CONVENTION_CHECKS": True,
    # Regular expressions of routes (as the warnings show them) the URL convention checks skip.
    "URL_CONVENTION_SILENCED": [],
    # Dotted paths of the URLconfs the project serves besides ROOT_URLCONF (per-host URLconfs, those
    # a middleware sets as request.urlconf): the checks that read URLconfs read these too.
    "EXTRA_URLCONFS": [],
    # Directory of the committed OpenAPI baselines (one <version>.json each) `api_compat` compares
    # the schemas with; relative paths are relative to the current directory.
    "SCHEMA_BASELINE_DIR": "openapi",
    # OpenAPI (ProblemAutoSchema): response fields with choices as extensible enums (the known
    # values, and any other value accepted); request enums stay closed.
    "OPENAPI_EXTENSIBLE_RESPONSE_ENUMS": True,
    # OpenAPI: every field a response serializer writes is `required` in its response component.
    "OPENAPI_RESPONSE_FIELDS_REQUIRED": True,
    # OpenAPI: request fields' defaults as `default` (True) or in their description (False):
    # openapi-typescript makes a field with a `default` required, in request bodies too.
    "OPENAPI_REQUEST_DEFAULTS": False,
    # OpenAPI: info.version as MAJOR.MINOR.PATCH ("2" -> "2.0.0"), valid SemVer and PEP 440.
    "OPENAPI_SEMVER_INFO_VERSION": True,
    # OpenAPI: operationIds and tags without the URL version (`invoices_list`, not `v2_invoices_list`).
    "OPENAPI_VERSIONLESS_NAMES": True,
    # OpenAPI: how an operation anonymous callers may use declares its security: "omit" (no
    # security requirement; generated clients take a plain client) or "optional" (drf-spectacular's
    # `[{scheme: []}, {}]`).
    "OPENAPI_ANONYMOUS_SECURITY": "omit",
}

#: Settings holding dotted paths, imported on first access.
IMPORT_STRINGS = frozenset({"CLIENT_ID_RESOLVER", "IDEMPOTENCY_SCOPE_RESOLVER", "PROJECT_EXCEPTION_HANDLER"})


class APIConventionsSettings:
    """Attribute access to ``settings.API_CONVENTIONS`` merged over :data:`DEFAULTS`."""

    def __init__(self) -> None:
        self._cache: dict[str, Any] = {}

    @property
    def user_settings(self) -> dict[str, Any]:
        value = getattr(settings, SETTINGS_NAME, None)
        return value if isinstance(value, dict) else {}

    def __getattr__(self, name: str) -> Any:
        # Called only for a setting not read yet since the last reload: the value is then kept as
        # an instance attribute, which Python finds without calling this again (as DRF's
        # api_settings does). The package reads its settings dozens of times a request.
        if name.startswith("_") or name not in DEFAULTS:
            raise AttributeError(f"Invalid {SETTINGS_NAME} setting: {name!r}")
        value = self.user_settings.get(name, DEFAULTS[name])
        if name in IMPORT_STRINGS and isinstance(value, str):
            value = import_string(value)
        self._cache[name] = value
        setattr(self, name, value)
        return value

    def reload(self) -> None:
        for name in list(self._cache):
            self.__dict__.pop(name, None)
        self._cache.clear()


api_settings = APIConventionsSettings()


def _reload_on_change(*, setting: str, **kwargs: Any) -> None:
    if setting == SETTINGS_NAME:
        api_settings.reload()


setting_changed.connect(_reload_on_change)
