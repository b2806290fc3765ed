"""The example's OpenAPI documents: the command writes what /openapi.json serves, each version's
own ``info.version``, and a size that grows by references, not copies."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from drf_spectacular.settings import patched_settings

from django_api_conventions.contrib.spectacular import hooks

pytestmark = [pytest.mark.urls("testproject.urls"), pytest.mark.django_db]

GENERATOR = "django_api_conventions.contrib.spectacular.generators.SchemaGenerator"
#: The example's 10 paths in at most this many bytes, in each served version.
MAX_DOCUMENT_BYTES = 100_000


def served(query: str = "") -> bytes:
    response = Client().get(f"/openapi.json{query}")
    assert response.status_code == 200, response.content
    return bytes(response.content)


def written(*arguments: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", *arguments, stdout=out)
    return dict(json.loads(out.getvalue()))


@pytest.mark.parametrize(
    ("arguments", "query"),
    [((), ""), (("--api-version", "v2"), ""), (("--api-version", "v1"), "?version=v1")],
)
def test_the_spectacular_command_writes_what_openapi_json_serves(arguments: tuple[str, ...], query: str) -> None:
    assert written(*arguments) == json.loads(served(query))


def test_the_package_generator_writes_it_without_the_hook_in_the_settings() -> None:
    # The tutorial's settings: drf-spectacular's generator and hooks, named on the command line.
    with patched_settings({"POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums"]}):
        plain = written("--generator-class", "drf_spectacular.generators.SchemaGenerator", "--api-version", "v2")
        document = written("--generator-class", GENERATOR, "--api-version", "v2")
    assert plain["info"]["version"] == "2 (v2)"  # what the package's generator is for
    assert document == json.loads(served())


@pytest.mark.parametrize(("query", "version"), [("", "2.0.0"), ("?version=v1", "1.0.0")])
def test_each_version_document_carries_its_own_version(query: str, version: str) -> None:
    info = json.loads(served(query))["info"]
    assert info["version"] == version
    assert info["x-api-version"] == f"v{version[0]}"


@pytest.mark.parametrize(
    ("configured", "api_version", "expected"),
    [
        ("2", "v1", "1.0.0"),
        ("2", "v2", "2.0.0"),
        ("2.3", "v2", "2.3.0"),
        ("2.3", "v3", "3.0.0"),
        ("2.0.0-rc.1", "v2", "2.0.0-rc.1"),
        ("2.0.0-rc.1", "v1", "1.0.0"),
        ("20", "v2", "2.0.0"),
        ("2", "beta", "2.0.0"),
        ("2", None, "2.0.0"),
        ("", "v1", "1.0.0"),
        ("", None, None),
    ],
)
def test_document_version(configured: str, api_version: str | None, expected: str | None) -> None:
    with patched_settings({"VERSION": configured}):
        assert hooks.document_version(api_version) == expected


@pytest.mark.parametrize("query", ["", "?version=v1"])
def test_each_document_of_the_example_is_at_most_100_kb(query: str) -> None:
    body = served(query)
    assert len(body) <= MAX_DOCUMENT_BYTES, len(body)
    document = json.loads(body)
    # The package's headers are defined once, in components/headers, and referred to.
    for header in ("X-Request-ID", "Retry-After", "Idempotent-Replayed"):
        assert body.count(f'"{header}":{{"description"'.encode()) == 1, header
        assert "description" in document["components"]["headers"][header]


def test_an_indented_document_is_there_for_who_asks() -> None:
    response = Client().get("/openapi.json", headers={"Accept": "application/json; indent=2"})
    assert response.content.startswith(b'{\n  "openapi"')
