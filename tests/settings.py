"""The example service's settings plus fault-injection views and middleware for the tests."""

from testproject.settings import *  # noqa: F403
from testproject.settings import API_CONVENTIONS, DATABASES, INSTALLED_APPS, MIDDLEWARE

ROOT_URLCONF = "tests.urls"
# The credentials whose clients get scopes of their own: DRF's API tokens and django-oauth-toolkit's
# access tokens (tests/test_idempotency_client_scopes.py).
INSTALLED_APPS = [*INSTALLED_APPS, "rest_framework.authtoken", "oauth2_provider"]
# The fault-injection middleware sits where third-party middleware usually does: inside the
# package's middleware, outside the views.
MIDDLEWARE = [
    *MIDDLEWARE,
    "tests.faults.FaultInjectionMiddleware",
    "django_api_conventions.idempotency.IdempotencyMiddleware",
]
API_CONVENTIONS = {
    **API_CONVENTIONS,
    "IDEMPOTENCY_PATHS": [r"^/idempotency/plain$"],
    # Views that fail on purpose, named for what they do, not resources.
    "URL_CONVENTION_SILENCED": [r"^/faults/", r"^/idempotency/"],
}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGGING = {"version": 1, "disable_existing_loggers": False}
# No connection pool in the test process (the example service under test keeps its own): tests
# point the connection at PgBouncer and back (tests/pgbouncer.py), which a pool opened earlier ignores.
DATABASES = {
    "default": {
        **DATABASES["default"],
        "OPTIONS": {key: value for key, value in DATABASES["default"].get("OPTIONS", {}).items() if key != "pool"},
    }
}
