"""The package's postprocessing of a whole document: ``info.version``, and named extensible enums.

drf-spectacular writes ``info.version`` as ``"<VERSION> (<api version>)"``, ``"2 (v1)"``, when it
builds the document of one URL version: neither PEP 440 nor SemVer, so tools that parse it
(client generators, whose generated package then does not install; registries) choke. Here
``info.version`` is the URL version's own number (``v1`` gives ``"1.0.0"``), or else
``SPECTACULAR_SETTINGS["VERSION"]``, written as SemVer's ``MAJOR.MINOR.PATCH`` (``"2"`` becomes
``"2.0.0"``, which PEP 440 reads too; off with :data:`SEMVER_INFO_VERSION`), and the URL version
is said apart: ``info["x-api-version"]`` and a line of ``info.description``. Response enums made
extensible by ``ProblemAutoSchema`` get their names (:mod:`.enums`).

``/openapi.json`` and django-api-compat's ``api_compat`` apply it on their own. For ``manage.py spectacular`` to
write the same, name the package's generator (:mod:`.generators`, which also documents the
current version when no ``--api-version`` is given), or list the hook after drf-spectacular's
default one::

    SPECTACULAR_SETTINGS = {
        "POSTPROCESSING_HOOKS": [
            "drf_spectacular.hooks.postprocess_schema_enums",
            "django_api_conventions.contrib.spectacular.hooks.postprocess_schema",
        ],
    }
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.settings import spectacular_settings

from .enums import name_extensible_enums

__all__ = ["SEMVER_INFO_VERSION", "finish_schema", "postprocess_schema", "with_api_version"]

#: The member of ``info`` that names the URL version the document describes.
API_VERSION_MEMBER = "x-api-version"
_NUMERIC_VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")
#: A URL version that carries a number: ``v1``, ``V2``, ``v2.1``, ``3``.
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
    """``schema`` with :func:`with_api_version` and its extensible enums named; idempotent."""
    name_extensible_enums(schema, spectacular_settings.ENUM_SUFFIX, registry)
    return with_api_version(schema, api_version)


def document_version(api_version: str | None = None) -> str | None:
    """The ``info.version`` of the document of ``api_version``.

    A URL version with a number (``v1``, ``v2.1``) gives its own: ``"1.0.0"`` for ``v1``, so that
    each version's document (and the client generated from it) carries its own version, unless
    ``SPECTACULAR_SETTINGS["VERSION"]`` has the same major number and says more (``"2.3"`` or
    ``"2.0.0-rc.1"`` for ``v2``). Else ``SPECTACULAR_SETTINGS["VERSION"]``. Written as ``MAJOR.MINOR.PATCH`` when it is
    1 to 3 numbers and :data:`SEMVER_INFO_VERSION` is on; ``None`` when there is none."""
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
    """The leading number of ``version``: ``"2"`` for ``"2.1.0-rc.1"``, ``None`` for ``"beta"``."""
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
    info[API_VERSION_MEMBER] = api_version
    line = f"This document describes version {api_version} of the API."
    description = info.get("description") or ""
    if line not in description:
        info["description"] = f"{description}\n\n{line}" if description else line
    return schema
