"""Settings of the example service: a billing API built from the package's public pieces."""

import importlib.util
import os

from .environment import (
    cache_from_url,
    comma_separated,
    database_from_url,
    flag,
    idempotency_redis_url,
    integer,
    shared_cache,
    with_brownouts,
)

SECRET_KEY = os.environ.get("SECRET_KEY", "example-service-not-secret")
DEBUG = flag("DEBUG")
ALLOWED_HOSTS = os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # WhiteNoise serves the static files under runserver too, as under gunicorn.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_api_conventions",
    "testproject.billing",
]
# manage.py api_compat checks the documents against testproject/openapi/: the repository's second
# distribution (api-compat/), which ./dev installs beside the package.
if importlib.util.find_spec("django_api_compat") is not None:
    INSTALLED_APPS.append("django_api_compat")

MIDDLEWARE = [
    # The admin's stylesheets and scripts, before anything else; a missing one is outside
    # API_PATHS, so it gets Django's own 404 page.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # First: the problems the package's middleware answer before any view (a 413, a 503 for
    # maintenance, a 410 for a retired version) are then in the client's language too.
    "django.middleware.locale.LocaleMiddleware",
    "django_api_conventions.middleware.TraceIdMiddleware",
    "django_api_conventions.versioning.middleware.VersionLifecycleMiddleware",
    "django_api_conventions.middleware.ProblemDetailsMiddleware",
    "django_api_conventions.middleware.MaintenanceModeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "testproject.urls"
WSGI_APPLICATION = "testproject.wsgi.application"
CSRF_FAILURE_VIEW = "django_api_conventions.problems.django_handlers.csrf_failure"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {"default": {**database_from_url(os.environ.get("DATABASE_URL")), "ATOMIC_REQUESTS": True}}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and flag("DATABASE_POOL", default=True):
    # Each worker keeps its PostgreSQL connections open in a pool (psycopg_pool, Django 5.1+)
    # instead of connecting for every request; CONN_MAX_AGE stays 0, as the pool requires. The
    # health check replaces a connection a database restart broke before a request gets it.
    # Straight to PostgreSQL, the package's claim is prepared on each connection (planned once).
    # Behind PgBouncer in transaction mode, DATABASE_POOL=0: it pools the server connections
    # already, and loses prepared statements between transactions.
    DATABASES["default"]["OPTIONS"] = {"pool": {"min_size": 1, "max_size": 4, "timeout": 10}, "prepare_threshold": 5}
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
CACHES = {"default": cache_from_url(os.environ.get("REDIS_URL"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The demo takes keyed POSTs from anyone, without credentials: callers that also send no
# X-Client-ID share the scope "anonymous" (docs/idempotency.md). A real service requires
# authentication on those views rather than silencing this warning.
SILENCED_SYSTEM_CHECKS = ["django_api_conventions.W013"]
USE_TZ = True
TIME_ZONE = "UTC"
# Problems speak the client's language (Accept-Language): English by default, or German.
USE_I18N = True
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
STATIC_URL = "static/"
# Served by WhiteNoise straight from the apps' static folders: no collectstatic step, so that
# `./dev serve` and gunicorn show a styled admin as they are. A production site sets STATIC_ROOT,
# runs collectstatic and drops this line (docs/example-service.md).
WHITENOISE_USE_FINDERS = True

REST_FRAMEWORK = {
    "EXCEPTION_HANDLER": "django_api_conventions.problems.drf_handler.problem_exception_handler",
    "DEFAULT_PARSER_CLASSES": ["django_api_conventions.content.StrictJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "django_api_conventions.content.FallbackContentNegotiation",
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.BasicAuthentication"],
    "DEFAULT_THROTTLE_CLASSES": ["django_api_conventions.clients.ClientRateThrottle"],
    "DEFAULT_FILTER_BACKENDS": ["django_api_conventions.pagination.StrictFilterBackend"],
    "DEFAULT_THROTTLE_RATES": {"client": os.environ.get("THROTTLE_RATE", "10000/min")},
    "DEFAULT_VERSIONING_CLASS": "django_api_conventions.versioning.drf.LifecycleVersioning",
    "DEFAULT_SCHEMA_CLASS": "django_api_conventions.contrib.spectacular.ProblemAutoSchema",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Billing API (django-api-conventions example service)",
    "DESCRIPTION": "Users, invoices, payments and orders. Every error is `application/problem+json`; "
    "every POST takes an `Idempotency-Key`; lists are cursor-paginated.",
    "VERSION": "2",
    "SERVE_INCLUDE_SCHEMA": False,
    # Read-only fields (id, created_at) are left out of request bodies.
    "COMPONENT_SPLIT_REQUEST": True,
    # `manage.py spectacular` writes what /openapi.json serves: info.version "1.0.0" and
    # x-api-version "v1" rather than drf-spectacular's "2 (v1)", named extensible enums, and
    # the current version's document when no --api-version is given.
    "DEFAULT_GENERATOR_CLASS": "django_api_conventions.contrib.spectacular.generators.SchemaGenerator",
}

# Where clients reach the service: the absolute links it sends (the migration guide of its
# deprecation Link headers and of its 410s) point there. Set it behind a proxy or another host.
PUBLIC_URL = (os.environ.get("PUBLIC_URL") or f"http://127.0.0.1:{os.environ.get('PORT') or 8000}").rstrip("/")
# Served by the example itself (testproject/pages.py).
MIGRATION_GUIDE = f"{PUBLIC_URL}/guides/migrating-to-v2"

API_CONVENTIONS = {
    # Every path is API but the admin's, which keeps Django's own error pages and CSRF page. The
    # package's HTML pages (/problems/..., /docs) are API paths: a page that does not exist
    # there is a 404 problem like any other.
    "API_PATHS": [r"^/(?!admin/|static/)"],
    "MAINTENANCE_MODE": flag("MAINTENANCE_MODE"),
    # The package's own pages (/problems/, /openapi.json, /docs) answer during maintenance on
    # their own; the admin is the site's to exempt.
    "MAINTENANCE_EXEMPT_PATHS": [r"^/admin/"],
    # The run-time switch must reach every worker: the Redis cache when there is one, else the
    # database (a Redis Cluster serves the idempotency store only).
    "MAINTENANCE_SWITCH_STORE": "cache" if shared_cache(os.environ.get("REDIS_URL")) else "database",
    "IDEMPOTENCY_STORE": os.environ.get("IDEMPOTENCY_STORE", "database"),
    # The Redis store uses the default cache's connection, or its own client for a Cluster.
    "IDEMPOTENCY_REDIS_URL": idempotency_redis_url(os.environ.get("REDIS_URL")),
    "IDEMPOTENCY_LEASE_SECONDS": integer("IDEMPOTENCY_LEASE_SECONDS", 60),
    "IDEMPOTENCY_STORE_UNAVAILABLE": os.environ.get("IDEMPOTENCY_STORE_UNAVAILABLE", "fail-closed"),
    # Stored answers encrypted; the first key encrypts, all decrypt (put a new key first to rotate).
    "IDEMPOTENCY_ENCRYPTION_KEYS": comma_separated("IDEMPOTENCY_ENCRYPTION_KEYS"),
    # Oldest first: v0 is gone (410), v1 is still served until its sunset, v2 is current.
    "VERSIONS": [
        {
            "name": "v0",
            "status": "retired",
            "deprecation": "2025-06-01",
            "sunset": "2026-01-01",
            "migration_guide": MIGRATION_GUIDE,
        },
        {
            "name": "v1",
            "status": "deprecated",
            "deprecation": "2026-06-01",
            "sunset": "2027-06-01",
            "migration_guide": MIGRATION_GUIDE,
        },
        {"name": "v2", "status": "current"},
    ],
}
# BROWNOUTS plans windows before v1's sunset in which it answers 410: v1=2026-12-08T10:00:00Z/PT15M;v1=...
API_CONVENTIONS["VERSIONS"] = with_brownouts(API_CONVENTIONS["VERSIONS"], os.environ.get("BROWNOUTS"))

# Example-service knobs.
PAYMENT_GATEWAY_DELAY_MS = integer("PAYMENT_GATEWAY_DELAY_MS", 0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"trace_id": {"()": "django_api_conventions.tracing.TraceIdFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s trace_id=%(trace_id)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["trace_id"], "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # Django's console handler (DEBUG=1) would write each django.* record a second time.
    "loggers": {"django": {"handlers": []}},
}
