"""The schema's ``info`` for one API version: ``version`` stays a version string.

drf-spectacular writes ``info.version`` as ``"<VERSION> (<api version>)"``, ``"2 (v1)"``, when it
builds the document of one URL version: neither PEP 440 nor SemVer, so tools that parse it
(client generators, registries) choke. Here ``info.version`` is ``SPECTACULAR_SETTINGS["VERSION"]``
as configured, and the URL version is said apart: ``info["x-api-version"]`` and a line of
``info.description``.

``/openapi.json`` and ``api_compat`` apply it on their own. For ``manage.py spectacular`` to
write the same, list the hook after drf-spectacular's default one::

    SPECTACULAR_SETTINGS = {
        "POSTPROCESSING_HOOKS": [
            "drf_spectacular.hooks.postprocess_schema_enums",
            "django_api_conventions.contrib.spectacular.hooks.api_version_info",
        ],
    }
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.settings import spectacular_settings

#: The member of ``info`` that names the URL version the document describes.
API_VERSION_MEMBER = "x-api-version"


def api_version_info(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: :func:`with_api_version` for the generator's version."""
    return with_api_version(result, generator.api_version or getattr(request, "version", None))


def with_api_version(schema: dict[str, Any], api_version: str | None) -> dict[str, Any]:
    """``schema`` with ``info.version`` the configured document version and ``api_version``
    stated in ``info["x-api-version"]`` and ``info.description``; applying it twice changes
    nothing."""
    if not api_version:
        return schema
    info = schema.setdefault("info", {})
    if spectacular_settings.VERSION:
        info["version"] = str(spectacular_settings.VERSION)
    info[API_VERSION_MEMBER] = api_version
    line = f"This document describes version {api_version} of the API."
    description = info.get("description") or ""
    if line not in description:
        info["description"] = f"{description}\n\n{line}" if description else line
    return schema
