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

#: Every setting with its default. The docs' settings reference is generated from this table: the
#: comment above each entry, in Markdown, is its "Change it when" (docs/settings_reference.py holds
#: its type and meaning). What no project needs to change is a class attribute or a constant of the
#: module that uses it.
DEFAULTS: dict[str, Any] = {
    # The problem type pages should live on your public docs site rather than on this service, or a route of
    # your own already uses `/problems`.
    "PROBLEM_BASE_URL": None,
    # The site serves HTML pages (Django's admin, a front end) beside the API.
    "API_PATHS": [r"^/"],
    # A third-party app under the API prefix answers error bodies its clients read.
    "KEEP_ERROR_BODY_PATHS": [],
    # The project has error views of its own for its HTML pages.
    "HTML_ERROR_HANDLERS": {},
    # The project already has a DRF exception handler whose answers must stay.
    "PROJECT_EXCEPTION_HANDLER": None,
    # A gateway or your clients already use another request id header.
    "TRACE_ID_HEADER": header_names.REQUEST_ID,
    # Callers must not choose the ids in your logs: a public API with no gateway in front.
    "TRUST_INCOMING_TRACE_ID": True,
    # Your own middleware already gives each request an id.
    "REQUEST_ID_ATTRIBUTE": None,
    # Clients are told apart otherwise than by user, credential or `X-Client-ID`: by address, by a gateway's
    # header.
    "CLIENT_ID_RESOLVER": "django_api_conventions.clients.default_client_id_resolver",
    # A deployment or a migration during which the API must not be used, decided before the processes start.
    "MAINTENANCE_MODE": False,
    # The `default` cache is not shared by every worker (local memory): keep the switch in the database.
    "MAINTENANCE_SWITCH_STORE": "cache",
    # Your maintenances usually last more or less than five minutes.
    "MAINTENANCE_RETRY_AFTER": 300,
    # Health checks or the admin must keep answering during maintenance.
    "MAINTENANCE_EXEMPT_PATHS": [],
    # Redis is at hand and keyed requests are many, or the records belong in a store of your own.
    "IDEMPOTENCY_STORE": "database",
    # The project has several databases, and the records belong in one the routers would not pick.
    "IDEMPOTENCY_DATABASE": "default",
    # The Redis store should use a Redis cache other than `default`.
    "IDEMPOTENCY_CACHE": "default",
    # Idempotency needs a Redis apart from the cache: Sentinel, Cluster or another server.
    "IDEMPOTENCY_REDIS_URL": None,
    # An operation must run at most once even across a Redis failover: payments.
    "IDEMPOTENCY_REDIS_WAIT_REPLICAS": 0,
    # Keyed views run longer than a minute.
    "IDEMPOTENCY_LEASE_SECONDS": 60,
    # Clients retry later than a day after, or the store should keep less.
    "IDEMPOTENCY_RETENTION_SECONDS": 24 * 60 * 60,
    # Keyed views answer bodies larger than 1 MiB, or the store should hold less.
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": 1024 * 1024,
    # Stored answers must not be readable in the database or Redis: personal or payment data.
    "IDEMPOTENCY_ENCRYPTION_KEYS": [],
    # Views you cannot edit (a third-party app's) should honour keys.
    "IDEMPOTENCY_PATHS": [],
    # Those paths must refuse a request without a key.
    "IDEMPOTENCY_REQUIRED": False,
    # Availability matters more than running at most once while the store is down.
    "IDEMPOTENCY_STORE_UNAVAILABLE": "fail-closed",
    # Your clients want larger or smaller pages when they do not say.
    "PAGINATION_DEFAULT_LIMIT": 20,
    # A page of 100 costs your database too much, or clients need more at once.
    "PAGINATION_MAX_LIMIT": 100,
    # Your serializers or views read query parameters of their own on any request (NetBox's `brief`).
    "EXTRA_QUERY_PARAMS": [],
    # The API has versions in its URLs.
    "VERSIONS": [],
    # Your versions are named otherwise than `/v1/`.
    "VERSION_PATH_REGEX": r"^/(?P<version>v[0-9]+)/",
    # Some routes cannot follow the conventions: an existing API's, kept for its clients.
    "URL_CONVENTION_SILENCED": [],
    # The project serves URLconfs besides `ROOT_URLCONF`: per host, or set by a middleware.
    "EXTRA_URLCONFS": [],
}

#: Settings holding dotted paths, imported on first access.
IMPORT_STRINGS = frozenset({"CLIENT_ID_RESOLVER", "PROJECT_EXCEPTION_HANDLER"})


class APIConventionsSettings:
    """Attribute access to ``settings.API_CONVENTIONS`` merged over :data:`DEFAULTS`."""

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
        setattr(self, name, value)
        return value

    def reload(self) -> None:
        for name in DEFAULTS:
            self.__dict__.pop(name, None)


api_settings = APIConventionsSettings()


def _reload_on_change(*, setting: str, **kwargs: Any) -> None:
    if setting == SETTINGS_NAME:
        api_settings.reload()


setting_changed.connect(_reload_on_change)
