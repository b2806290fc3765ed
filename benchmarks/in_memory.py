"""Django configured in a throwaway process of one benchmark: the package and DRF on an
in-memory SQLite, the benchmark's own module as the URLconf."""

from __future__ import annotations

import django
from django.conf import settings


def configure(urlconf: str) -> None:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="in-memory-benchmark",  # noqa: S106 -- a throwaway process that signs nothing
        ALLOWED_HOSTS=["testserver"],
        ROOT_URLCONF=urlconf,
        INSTALLED_APPS=[
            "django.contrib.contenttypes",
            "django.contrib.auth",
            "rest_framework",
            "django_api_conventions",
        ],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        REST_FRAMEWORK={"UNAUTHENTICATED_USER": None},
        USE_TZ=True,
    )
    django.setup()
