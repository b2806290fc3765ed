"""``/docs``: Swagger UI with a switch over the documents of every served version."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from django_api_conventions.contrib.spectacular.views import _script_json

pytestmark = pytest.mark.django_db


def swagger_settings(page: bytes) -> tuple[dict[str, Any], str]:
    """The JSON defaults the page gives Swagger UI, and the whole settings expression."""
    [expression] = re.findall(r"const swaggerSettings = (Object\.assign\(.*?\));\n", page.decode(), re.S)
    [defaults] = re.findall(r"Object\.assign\((\{.*?\}), \{presets", expression, re.S)
    return json.loads(defaults), expression


def test_the_docs_switch_between_every_served_version() -> None:
    answer = Client().get("/docs")
    assert answer.status_code == 200
    defaults, expression = swagger_settings(answer.content)
    assert defaults["urls"] == [
        {"url": "/openapi.json?version=v1", "name": "v1 (deprecated)"},
        {"url": "/openapi.json?version=v2", "name": "v2 (current)"},
    ]
    assert defaults["urls.primaryName"] == "v2 (current)"
    # The switch is in the top bar of the standalone layout; no validator badge from outside.
    assert defaults["layout"] == "StandaloneLayout" and defaults["validatorUrl"] is None
    assert "SwaggerUIStandalonePreset" in expression
    # SPECTACULAR_SETTINGS["SWAGGER_UI_SETTINGS"] (drf-spectacular's deepLinking) still applies, last.
    assert expression.rstrip(")").endswith('"deepLinking": true\n}')


def test_the_docs_open_on_the_version_asked_for() -> None:
    defaults, _ = swagger_settings(Client().get("/docs?version=v1").content)
    assert defaults["urls.primaryName"] == "v1 (deprecated)"


@pytest.mark.parametrize("query", ["version=v0", "version=v9", "colour=red"])
def test_the_docs_refuse_what_the_schema_refuses(query: str) -> None:
    answer = Client().get(f"/docs?{query}")
    assert answer.status_code == 400 and answer["Content-Type"] == "application/problem+json"
    assert answer.json()["type"].endswith("/invalid-parameters")


def test_without_versions_the_docs_show_one_document(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSIONS": []}
    page = Client().get("/docs").content.decode()
    assert "urls.primaryName" not in page and 'url: "/openapi.json"' in page


def test_labels_cannot_end_the_script() -> None:
    assert _script_json({"name": "</script><!--&"}) == '{"name": "\\u003c/script\\u003e\\u003c!--\\u0026"}'


def test_the_labels_speak_the_request_language() -> None:
    from django.utils import translation

    try:
        defaults, _ = swagger_settings(Client().get("/docs", headers={"Accept-Language": "de"}).content)
    finally:
        translation.activate("en")
    assert [entry["name"] for entry in defaults["urls"]] == ["v1 (veraltet)", "v2 (aktuell)"]
