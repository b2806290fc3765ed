"""The example service's settings plus the throwaway pagination views of the benchmarks.

On PostgreSQL every server and in-process task of the benchmarks, the plain POST of the baselines
as much as the package's scenarios, keeps its connections open in Django's pool (psycopg_pool), as a
service in production does: a figure then holds no connection set-up that production never pays."""

from typing import Any

from testproject.settings import *  # noqa: F403
from testproject.settings import DATABASES

ROOT_URLCONF = "benchmarks.urls"

#: The pool of each process: the purge's load threads each hold a connection while they run.
POOL_OPTIONS: dict[str, Any] = {"min_size": 2, "max_size": 16, "timeout": 30}


def pooled(database: dict[str, Any]) -> dict[str, Any]:
    """``database`` with Django's connection pool on PostgreSQL (CONN_MAX_AGE 0, as a pool requires)."""
    if database["ENGINE"] != "django.db.backends.postgresql":
        return database
    options = {**database.get("OPTIONS", {}), "pool": dict(POOL_OPTIONS)}
    return {**database, "OPTIONS": options, "CONN_MAX_AGE": 0, "CONN_HEALTH_CHECKS": False}


DATABASES = {**DATABASES, "default": pooled(DATABASES["default"])}
