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

from .http import header_names

__all__ = ["DEFAULTS", "APIConventionsSettings", "api_settings"]

SETTINGS_NAME = "API_CONVENTIONS"

#: Every setting with its default. The docs' settings reference is generated from this table.
#: Each comment says why a project would change the setting; what no project needs to change is a
#: class attribute or a constant of the module that uses it.
DEFAULTS: dict[str, Any] = {
    # Problem type URLs on the public docs site rather than on this service: set an absolute base
    # URL, e.g. "https://api.example.com/problems". A project whose own routes use /problems: a
    # path, e.g. "/api/problem-types", where the package's pages move. None: its own /problems.
    "PROBLEM_BASE_URL": None,
    # A site that serves HTML pages (Django's admin) beside its API: regular expressions searched
    # in request.path naming the API, where every error is a problem; elsewhere Django's error
    # pages and CSRF page answer as usual.
    "API_PATHS": [r"^/"],
    # A third-party app under the API prefix whose clients read its own error bodies (allauth's
    # headless API): regular expressions of its paths, whose error answers keep their body and
    # Content-Type, only the trace id header added. Views a project can edit are marked instead.
    "KEEP_ERROR_BODY_PATHS": [],
    # A project with error views of its own for its HTML pages, by Django's names ("handler400",
    # "handler403", "handler404", "handler500", "CSRF_FAILURE_VIEW"), as dotted paths: they keep
    # answering outside API_PATHS. Unnamed: Django's defaults.
    "HTML_ERROR_HANDLERS": {},
    # A project with a DRF exception handler of its own: its dotted path, run first by the
    # package's, whose answer is converted into a problem. None: the package's mapping alone.
    "PROJECT_EXCEPTION_HANDLER": None,
    # A gateway or clients that already use another request id header: its name, echoed in
    # responses and read on the way in.
    "TRACE_ID_HEADER": header_names.REQUEST_ID,
    # Callers the service must not let choose its trace ids (a public API behind no gateway):
    # False ignores incoming trace id headers and W3C traceparent.
    "TRUST_INCOMING_TRACE_ID": True,
    # A project whose own middleware already assigns request ids (NetBox: "id"): the request
    # attribute holding it, which then is the trace id of problems, log lines and the header.
    "REQUEST_ID_ATTRIBUTE": None,
    # Clients told apart otherwise than by user, credential or X-Client-ID (by address, by a
    # gateway's header): a dotted path of a callable(request) -> str.
    "CLIENT_ID_RESOLVER": "django_api_conventions.clients.default_client_id_resolver",
    # During a deployment or a migration: every non-exempt path answers 503.
    "MAINTENANCE_MODE": False,
    # A default cache that the workers do not share (local memory): "database" keeps the
    # run-time maintenance switch in the database instead of the "default" cache.
    "MAINTENANCE_SWITCH_STORE": "cache",
    # How long a maintenance usually lasts: the Retry-After (seconds) sent meanwhile.
    "MAINTENANCE_RETRY_AFTER": 300,
    # Paths that must keep answering during maintenance (health checks, the admin): regular
    # expressions, besides the views marked maintenance_exempt.
    "MAINTENANCE_EXEMPT_PATHS": [],
    # Where idempotency records live: "database", "redis" (a service with Redis at hand and many
    # keyed requests), or the dotted path of a store class of the project's.
    "IDEMPOTENCY_STORE": "database",
    # A project with several databases: the alias of the one the database store writes to,
    # always this one, whatever the database routers say.
    "IDEMPOTENCY_DATABASE": "default",
    # A Redis cache other than "default": the alias whose connection the Redis store uses
    # (django-redis, Django's RedisCache or django-valkey).
    "IDEMPOTENCY_CACHE": "default",
    # A Redis for idempotency apart from the cache (Sentinel, Cluster, another server): its URL
    # (redis://, rediss://, redis+sentinel://, redis+cluster://), used instead of IDEMPOTENCY_CACHE.
    "IDEMPOTENCY_REDIS_URL": None,
    # Payments and other operations that must run at most once across Redis failovers: N
    # replicas must hold a claim (WAIT) before the view runs. 0: asynchronous replication, and
    # a failover may lose a claim.
    "IDEMPOTENCY_REDIS_WAIT_REPLICAS": 0,
    # Views that run longer than a minute: how long a started (in-flight) key is held before a
    # retry may take it over.
    "IDEMPOTENCY_LEASE_SECONDS": 60,
    # Clients that retry later than a day, or storage to save: how long a resolved key answers
    # replays.
    "IDEMPOTENCY_RETENTION_SECONDS": 24 * 60 * 60,
    # Views that answer large bodies, or a store to keep small: the largest response body stored
    # for replay, in bytes; None: no limit. A larger response is sent, never stored: a retry gets
    # 410 idempotency-response-too-large, never a second run.
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": 1024 * 1024,
    # Views the project cannot edit (a third-party app's): regular expressions of the paths
    # IdempotencyMiddleware protects.
    "IDEMPOTENCY_PATHS": [],
    # Whether those paths require a key (400 without one) or only honour one.
    "IDEMPOTENCY_REQUIRED": False,
    # Operations where availability matters more than at-most-once: "fail-open" runs the view
    # once without idempotency when the store cannot be reached; "fail-closed" answers 503.
    "IDEMPOTENCY_STORE_UNAVAILABLE": "fail-closed",
    # Larger or smaller pages for the project's clients: the page size without a `limit`.
    "PAGINATION_DEFAULT_LIMIT": 20,
    # What one page may cost the database: the largest `limit` a client may ask for.
    "PAGINATION_MAX_LIMIT": 100,
    # Query parameters the project's serializers or views read on any request (NetBox: "brief",
    # "fields", "omit", "exclude"): every strict view accepts them besides its filters and its
    # paginator's.
    "EXTRA_QUERY_PARAMS": [],
    # A versioned API: its versions, oldest first, dicts with "name", "status" ("current",
    # "deprecated" or "retired"), "deprecation" and "sunset" dates and a "migration_guide" URL.
    # Empty: versioning off.
    "VERSIONS": [],
    # Versions named otherwise than /v1/: a regular expression searched in request.path_info
    # whose "version" group names the version.
    "VERSION_PATH_REGEX": r"^/(?P<version>v[0-9]+)/",
    # Routes that cannot follow the URL conventions (an existing API's): regular expressions,
    # as the warnings show the routes, that the URL convention checks skip.
    "URL_CONVENTION_SILENCED": [],
    # A project serving URLconfs besides ROOT_URLCONF (per-host URLconfs, those a middleware sets
    # as request.urlconf): their dotted paths, so that the checks that read URLconfs read them too.
    "EXTRA_URLCONFS": [],
}

#: Settings holding dotted paths, imported on first access.
IMPORT_STRINGS = frozenset({"CLIENT_ID_RESOLVER", "PROJECT_EXCEPTION_HANDLER"})


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
