"""``SchemaGenerator``: the document ``/openapi.json`` serves, from ``manage.py spectacular`` too.

``SPECTACULAR_SETTINGS["DEFAULT_GENERATOR_CLASS"] =
"django_api_conventions.contrib.spectacular.generators.SchemaGenerator"`` (or
``--generator-class``): the current version's document unless ``--api-version`` names another.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular import generators

from ...versioning.lifecycle import get_version_table
from .hooks import finish_schema

__all__ = ["SchemaGenerator"]


def current_version() -> str | None:
    """The name of the current version of ``API_CONVENTIONS["VERSIONS"]``, if any."""
    current = get_version_table().current
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
