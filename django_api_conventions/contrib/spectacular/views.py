"""``/openapi.json`` and ``/docs``: the schema of one version, and Swagger UI with its own assets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponseBase
from django.urls import reverse
from django.utils.translation import gettext
from django.views.static import serve
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from ...http import header_names
from ...http.read_only import read_only
from ...maintenance.middleware import maintenance_exempt
from ...problems.parameters import invalid_parameters, parameter_error
from ...versioning.lifecycle import APIVersion, get_version_table
from .generators import current_version
from .hooks import finish_schema

__all__ = ["OpenAPIDocsView", "OpenAPISchemaView"]


def _requested_version(request: Request) -> str | None:
    """The ``?version=`` asked for (a served version), else the current one; else a 400 problem."""
    table = get_version_table()
    errors = _parameter_errors(request.query_params, table.served())
    if errors:
        raise invalid_parameters(errors)
    return request.query_params.get("version") or current_version()


def _parameter_errors(query: Any, served: list[str]) -> list[Any]:
    accepted = gettext("Unknown parameter. Accepted: {names}.").format(names="version")
    errors = [parameter_error(name, accepted, "unknown") for name in query if name != "version"]
    if len(query.getlist("version")) > 1:
        errors.append(parameter_error("version", gettext("Give it once."), "repeated"))
    elif query.get("version") not in (None, *served):
        detail = gettext("No served version is called {name}. Served: {served}.").format(
            name=repr(query["version"]), served=", ".join(served) or gettext("none")
        )
        errors.append(parameter_error("version", detail, "invalid"))
    return errors


class _CompactOpenApiJsonRenderer(OpenApiJsonRenderer):
    """drf-spectacular's renderer without its default indentation (half the bytes); an
    ``Accept`` with ``indent=4`` still indents."""

    def get_indent(self, accepted_media_type: str, renderer_context: Any) -> int | None:
        indent: int | None = JSONRenderer.get_indent(self, accepted_media_type, renderer_context)
        return indent


class _CompactOpenApiJsonRenderer2(_CompactOpenApiJsonRenderer):  # as application/json
    media_type = OpenApiJsonRenderer2.media_type


# The schema and its docs page keep answering during maintenance: they touch no database.
@maintenance_exempt
class OpenAPISchemaView(SpectacularAPIView):
    """The OpenAPI 3 document of one version as JSON: the current one, or ``?version=v1``."""

    renderer_classes = [_CompactOpenApiJsonRenderer2, _CompactOpenApiJsonRenderer]
    # The path carries no version: the schema's version is a query parameter.
    versioning_class = None

    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if self.api_version is None:
            self.api_version = _requested_version(request)
        response: Response = super().get(request, *args, **kwargs)
        # "2 (v1)" is no version string, and response enums are named, whatever the hooks.
        finish_schema(response.data, self.api_version)
        return response


@maintenance_exempt
class OpenAPIDocsView(SpectacularSwaggerView):
    """Swagger UI for ``/openapi.json``, every asset served by this service (no CDN). With
    ``VERSIONS`` set, its top bar switches between the documents of the served versions.
    ``SPECTACULAR_SETTINGS["SWAGGER_UI_SETTINGS"]`` applies over these defaults."""

    url_name = "api_conventions_openapi:schema"

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        # A page, not an API resource: DRF's OPTIONS would render its metadata through the
        # page's template renderer (a 500); read_only answers OPTIONS and 405 with Allow.
        return read_only(super().as_view(**initkwargs))

    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        primary = _requested_version(request)
        response: Response = super().get(request, *args, **kwargs)
        assert isinstance(response.data, dict)
        for key, filename in _SWAGGER_UI_ASSETS.items():
            response.data[key] = reverse(
                "api_conventions_openapi:asset", kwargs={"path": f"swagger-ui-dist/{filename}"}
            )
        if primary is not None:  # a version table is set
            served = [version for version in get_version_table().versions if not version.is_retired()]
            response.data["settings"] = _version_switch(
                reverse(self.url_name), served, primary, response.data["settings"]
            )
        return response


_SWAGGER_UI_ASSETS = {
    "swagger_ui_css": "swagger-ui.css",
    "swagger_ui_bundle": "swagger-ui-bundle.js",
    "swagger_ui_standalone": "swagger-ui-standalone-preset.js",
    "favicon_href": "favicon-32x32.png",
}


@maintenance_exempt
@read_only  # django.views.static.serve answers any method with the file
def docs_asset(request: HttpRequest, path: str) -> HttpResponseBase:
    """A file of drf-spectacular-sidecar's Swagger UI, whatever the static files set-up."""
    import drf_spectacular_sidecar

    root = Path(drf_spectacular_sidecar.__file__).parent / "static" / "drf_spectacular_sidecar"
    response = serve(request, path, document_root=str(root))
    response[header_names.CACHE_CONTROL] = "public, max-age=86400"
    return response


def _version_switch(schema_path: str, served: list[APIVersion], primary: str, settings: str) -> str:
    # Swagger UI's settings with one ``urls`` entry per served version: a JavaScript expression,
    # as the top bar's StandaloneLayout preset is an object. No validator badge: an outside image.
    labels = {version.name: _version_label(version) for version in served}
    defaults = {
        "urls": [
            {"url": f"{schema_path}?{urlencode({'version': name})}", "name": label} for name, label in labels.items()
        ],
        "urls.primaryName": labels[primary],
        "layout": "StandaloneLayout",
        "validatorUrl": None,
    }
    return (
        f"Object.assign({_script_json(defaults)}, "
        "{presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset]}, "
        f"{settings})"
    )


def _version_label(version: APIVersion) -> str:
    # A served version is current or deprecated (before its sunset).
    if version.is_deprecated():
        return gettext("{name} (deprecated)").format(name=version.name)
    return gettext("{name} (current)").format(name=version.name)


def _script_json(value: object) -> str:
    # Inside a <script>: "</script>" or "<!--" in a label must not end or hide it.
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
