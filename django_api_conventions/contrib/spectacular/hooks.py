"""The document's postprocessing: a SemVer ``info.version``, named extensible enums, ``x-query``,
the versions' brownouts (``info["x-brownouts"]``).

drf-spectacular writes ``info.version`` as ``"2 (v1)"`` for one URL version, which client
generators and registries cannot parse. ``/openapi.json``, the package's generator and
``api_compat`` apply it on their own; for ``manage.py spectacular``, list
``postprocess_schema`` after ``drf_spectacular.hooks.postprocess_schema_enums`` in
``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.settings import spectacular_settings

from ...versioning.brownouts import utc_text
from ...versioning.lifecycle import get_version_table
from .enums import name_extensible_enums
from .query import describe_query_operations

__all__ = ["SEMVER_INFO_VERSION", "finish_schema", "postprocess_schema", "with_api_version", "with_brownouts"]

_NUMERIC_VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")
_NUMBERED_API_VERSION = re.compile(r"[vV]?([0-9]+(?:\.[0-9]+){0,2})")
#: ``info.version`` as ``MAJOR.MINOR.PATCH`` (``"2"`` -> ``"2.0.0"``), valid SemVer and PEP 440,
#: so that a generated client package installs. ``False``: ``SPECTACULAR_SETTINGS["VERSION"]``
#: as configured (read on each call, so an ``AppConfig.ready()`` may set it).
SEMVER_INFO_VERSION = True


def postprocess_schema(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: everything :func:`finish_schema` does."""
    return finish_schema(
        result,
        generator.api_version or getattr(request, "version", None),
        registry=getattr(generator, "registry", None),
    )


def finish_schema(schema: dict[str, Any], api_version: str | None, registry: Any = None) -> dict[str, Any]:
    """``schema`` with :func:`with_api_version`, :func:`with_brownouts`, its extensible enums
    named and ``x-query`` on each collection that takes ``QUERY``; idempotent."""
    name_extensible_enums(schema, spectacular_settings.ENUM_SUFFIX, registry)
    describe_query_operations(schema)
    return with_brownouts(with_api_version(schema, api_version), api_version)


def document_version(api_version: str | None = None) -> str | None:
    """The ``info.version`` of the document of ``api_version``: its own number (``v1``: ``"1.0.0"``),
    unless ``SPECTACULAR_SETTINGS["VERSION"]`` has the same major and says more; else that
    setting. As ``MAJOR.MINOR.PATCH`` with :data:`SEMVER_INFO_VERSION`."""
    configured = str(spectacular_settings.VERSION or "")
    own = _NUMBERED_API_VERSION.fullmatch(api_version or "")
    version = configured
    if own is not None and _major(configured) != _major(own.group(1)):
        version = own.group(1)
    if not version:
        return None
    if SEMVER_INFO_VERSION and _NUMERIC_VERSION.fullmatch(version):
        parts = version.split(".")
        version = ".".join([*parts, *["0"] * (3 - len(parts))])
    return version


def _major(version: str) -> str | None:
    found = re.match(r"[0-9]+", version)
    return found.group() if found else None


def with_api_version(schema: dict[str, Any], api_version: str | None) -> dict[str, Any]:
    """``schema`` with ``info.version`` the document version of ``api_version``
    (:func:`document_version`) and ``api_version`` stated in ``info["x-api-version"]`` and
    ``info.description``; applying it twice changes nothing."""
    info = schema.setdefault("info", {})
    version = document_version(api_version)
    if version is not None:
        info["version"] = version
    if not api_version:
        return schema
    info["x-api-version"] = api_version
    line = f"This document describes version {api_version} of the API."
    description = info.get("description") or ""
    if line not in description:
        info["description"] = f"{description}\n\n{line}" if description else line
    return schema


def with_brownouts(schema: dict[str, Any], api_version: str | None) -> dict[str, Any]:
    """``schema`` with ``info["x-brownouts"]``, the windows of each version that has some
    (``{"v1": [{"start": "2026-12-08T10:00:00Z", "end": ...}]}``), and those of ``api_version``
    in ``info.description``; applying it twice changes nothing."""
    schedule = {
        version.name: [{"start": utc_text(window.start), "end": utc_text(window.end)} for window in version.brownouts]
        for version in get_version_table().versions
        if version.brownouts
    }
    if not schedule:
        return schema
    info = schema.setdefault("info", {})
    info["x-brownouts"] = schedule
    windows = schedule.get(api_version or "")
    if windows:
        spans = "; ".join(f"{window['start']} to {window['end']}" for window in windows)
        line = f"During its planned brownouts version {api_version} answers 410 with Retry-After: {spans}."
        description = info.get("description") or ""
        if line not in description:
            info["description"] = f"{description}\n\n{line}" if description else line
    return schema
