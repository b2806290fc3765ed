"""``SchemaGenerator``: the document ``/openapi.json`` serves, from ``manage.py spectacular`` too.

drf-spectacular's own generator leaves ``info.version`` as ``"2 (v1)"`` and response enums
inline unless the package's hook is listed in ``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``,
and without ``--api-version`` it documents no versioned path at all (``LifecycleVersioning`` has
no default version). This generator finishes the document as ``/openapi.json`` does
(:func:`.hooks.finish_schema`) and, without a version asked for, describes the current one.
Name it in the settings, or on the command line::

    SPECTACULAR_SETTINGS = {
        "DEFAULT_GENERATOR_CLASS": "django_api_conventions.contrib.spectacular.generators.SchemaGenerator",
    }

    python manage.py spectacular --generator-class \\
        django_api_conventions.contrib.spectacular.generators.SchemaGenerator --file openapi.yaml
"""

from __future__ import annotations

from typing import Any

from drf_spectacular import generators

from ...versioning.lifecycle import get_version_table
from .hooks import finish_schema

__all__ = ["SchemaGenerator"]


def current_version() -> str | None:
    """The name of the current version of ``API_CONVENTIONS["VERSIONS"]``, if any."""
    table = get_version_table()
    current = table.current if table else None
    return current.name if current else None


class SchemaGenerator(generators.SchemaGenerator):
    """drf-spectacular's generator, writing the document ``/openapi.json`` serves for the same
    version: the current version when none is given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.api_version is None:
            self.api_version = current_version()

    def get_schema(self, request: Any = None, public: bool = False) -> dict[str, Any]:
        schema: dict[str, Any] = super().get_schema(request=request, public=public)
        return finish_schema(schema, self.api_version or getattr(request, "version", None), registry=self.registry)
