"""drf-spectacular integration: the schema class, its field extensions, the schema and docs views.

``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "django_api_conventions.contrib.spectacular.ProblemAutoSchema"``
(or a class of the project's with ``ProblemSchemaMixin`` before its own ``AutoSchema`` subclass) and
``path("", include("django_api_conventions.contrib.spectacular.urls"))`` for ``/openapi.json`` and
``/docs``. The package's app config imports this module when drf-spectacular is installed, so
the extensions and checks are registered, and drf-spectacular describes the filters the strict filter
backend cannot type, without further set-up.
"""

from . import checks, filters  # noqa: F401 -- importing registers the set-up checks, the filter backend's extension
from .components import ERROR_ITEM_SCHEMA, PROBLEM_SCHEMA
from .extensions import RenamedFieldExtension
from .schema import DEPRECATION_HEADERS, ProblemAutoSchema, ProblemSchemaMixin

__all__ = [
    "DEPRECATION_HEADERS",
    "ERROR_ITEM_SCHEMA",
    "PROBLEM_SCHEMA",
    "ProblemAutoSchema",
    "ProblemSchemaMixin",
    "RenamedFieldExtension",
]
