"""The project's settings before and after adoption, as ``override_settings`` arguments.

After: what ``docs/adopting.md`` says, its section "A large existing project" included:
``LocaleMiddleware`` first, the package's middleware before Django's, the project's own
middleware kept; the exception handler; ``StrictJSONParser`` first and ``MultiPartParser``
kept; ``StrictFilterBackend`` in place of ``DjangoFilterBackend``, ``OrderingFilter`` kept;
the project's pagination kept; ``brief``/``fields``/``omit`` named; the project's request id;
its error views; its schema class behind ``ProblemSchemaMixin``; idempotency records in the
project's Redis cache (the database without one).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

PROJECT = "tests.netbox_shaped.project"

_DJANGO_MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    f"{PROJECT}.CoreMiddleware",
]

_PROJECT_REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": [],
    "DEFAULT_VERSIONING_CLASS": None,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": f"{PROJECT}.OptionalLimitOffsetPagination",
    "UNAUTHENTICATED_USER": None,
}


def before() -> dict[str, Any]:
    return {
        "ROOT_URLCONF": "tests.netbox_shaped.urls_before",
        "MIDDLEWARE": _DJANGO_MIDDLEWARE,
        "REST_FRAMEWORK": {
            **_PROJECT_REST_FRAMEWORK,
            "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser", "rest_framework.parsers.MultiPartParser"],
            "DEFAULT_FILTER_BACKENDS": [
                "django_filters.rest_framework.DjangoFilterBackend",
                "rest_framework.filters.OrderingFilter",
            ],
            "DEFAULT_SCHEMA_CLASS": f"{PROJECT}.NetBoxAutoSchema",
        },
    }


def after() -> dict[str, Any]:
    redis = bool(os.environ.get("REDIS_URL"))
    return {
        "ROOT_URLCONF": "tests.netbox_shaped.urls_after",
        "MIDDLEWARE": [
            "django.middleware.locale.LocaleMiddleware",
            "django_api_conventions.middleware.TraceIdMiddleware",
            "django_api_conventions.middleware.ProblemDetailsMiddleware",
            "django_api_conventions.middleware.MaintenanceModeMiddleware",
            *_DJANGO_MIDDLEWARE,
        ],
        "CSRF_FAILURE_VIEW": "django_api_conventions.problems.django_handlers.csrf_failure",
        "REST_FRAMEWORK": {
            **_PROJECT_REST_FRAMEWORK,
            "EXCEPTION_HANDLER": "django_api_conventions.problems.drf_handler.problem_exception_handler",
            "DEFAULT_PARSER_CLASSES": [
                "django_api_conventions.content.StrictJSONParser",
                "rest_framework.parsers.MultiPartParser",
            ],
            "DEFAULT_CONTENT_NEGOTIATION_CLASS": "django_api_conventions.content.FallbackContentNegotiation",
            "DEFAULT_FILTER_BACKENDS": [
                "django_api_conventions.pagination.StrictFilterBackend",
                "rest_framework.filters.OrderingFilter",
            ],
            "DEFAULT_SCHEMA_CLASS": "tests.netbox_shaped.urls_after.APISchema",
        },
        "API_CONVENTIONS": {
            **settings.API_CONVENTIONS,
            "API_PATHS": [r"^/api/", r"^/problems"],
            "EXTRA_QUERY_PARAMS": ["brief", "fields", "omit", "exclude", {"name": "expand", "repeatable": True}],
            "REQUEST_ID_ATTRIBUTE": "id",
            "HTML_ERROR_HANDLERS": {"handler404": f"{PROJECT}.handler_404", "handler500": f"{PROJECT}.handler_500"},
            "IDEMPOTENCY_STORE": "redis" if redis else "database",
            "IDEMPOTENCY_CACHE": "default",
            "IDEMPOTENCY_REDIS_URL": None,
            "URL_CONVENTION_SILENCED": [r"^/"],
            "VERSIONS": [],  # one unversioned /api/, as NetBox's
        },
    }
