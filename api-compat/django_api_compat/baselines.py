"""The committed OpenAPI baseline of each served version, and the live schema to compare with it.

A baseline is the schema of one version as drf-spectacular wrote it when the version's contract
was last accepted: ``<baseline directory>/<version>.json`` (``openapi.json`` for an API without
``VERSIONS``), committed with the code. ``manage.py api_compat`` compares each served version's
schema with its baseline (see :mod:`django_api_compat`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.renderers import OpenApiJsonRenderer
from drf_spectacular.settings import spectacular_settings
from rest_framework.settings import api_settings as drf_settings

from django_api_conventions.contrib.spectacular.hooks import finish_schema
from django_api_conventions.versioning import get_version_table

#: File stem of the baseline of an API without ``VERSIONS``.
UNVERSIONED = "openapi"


class SchemaUnavailable(Exception):
    """The schema cannot be built: drf-spectacular's AutoSchema is not the schema class."""


def versions_to_check(now: Any = None) -> list[str | None]:
    """The versions whose contract holds: every version not retired (``None``: no ``VERSIONS``)."""
    table = get_version_table()
    if not table:
        return [None]
    return list(table.served(now or timezone.now()))


def baseline_path(directory: Path, version: str | None) -> Path:
    return directory / f"{version or UNVERSIONED}.json"


def build_schema(version: str | None, urlconf: str | None = None) -> dict[str, Any]:
    """The OpenAPI schema of ``version`` as drf-spectacular generates it, as plain JSON data."""
    schema_class: object = drf_settings.DEFAULT_SCHEMA_CLASS  # a class, whatever the stubs say
    if not (isinstance(schema_class, type) and issubclass(schema_class, AutoSchema)):
        raise SchemaUnavailable(
            f"REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] is {schema_class!r}, not a drf-spectacular AutoSchema: set it to "
            "'django_api_conventions.contrib.spectacular.ProblemAutoSchema'"
        )
    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS(urlconf=urlconf, api_version=version)
    schema = finish_schema(generator.get_schema(request=None, public=True), version)
    # Through the JSON renderer: the baseline and the live schema are compared as the same JSON.
    data: dict[str, Any] = json.loads(OpenApiJsonRenderer().render(schema))
    return data


def dump_schema(schema: dict[str, Any]) -> str:
    """A stable text for a baseline file: sorted keys, so a diff shows only real changes."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
