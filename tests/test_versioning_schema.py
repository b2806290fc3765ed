"""One drf-spectacular schema per version, with deprecations flagged and their headers documented."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("drf_spectacular")


@pytest.fixture
def schema_of(settings: Any) -> Any:
    from drf_spectacular.generators import SchemaGenerator

    def build(version: str) -> dict[str, Any]:
        return SchemaGenerator(urlconf="testproject.urls", api_version=version).get_schema(request=None, public=True)

    return build


def test_one_schema_per_version(schema_of: Any) -> None:
    v1, v2 = schema_of("v1"), schema_of("v2")
    assert "/v1/invoices" in v1["paths"] and not any(p.startswith("/v2/") for p in v1["paths"])
    assert "/v2/invoices" in v2["paths"] and not any(p.startswith("/v1/") for p in v2["paths"])


def test_operations_of_a_deprecated_version_are_flagged_with_their_headers(schema_of: Any) -> None:
    old = schema_of("v1")["paths"]["/v1/invoices"]["get"]
    assert old["deprecated"] is True
    assert {"Deprecation", "Sunset", "Link"} <= set(old["responses"]["200"]["headers"])
    current = schema_of("v2")["paths"]["/v2/invoices"]["get"]
    assert not current.get("deprecated") and "Deprecation" not in current["responses"]["200"]["headers"]


def test_a_renamed_field_is_deprecated_and_read_only(schema_of: Any) -> None:
    schema = schema_of("v2")
    invoice = schema["components"]["schemas"]["Invoice"]["properties"]
    assert invoice["total"]["deprecated"] is True and invoice["total"]["readOnly"] is True
    assert invoice["total"]["type"] == invoice["amount_due"]["type"] == "integer"
    assert not invoice["amount_due"].get("deprecated")


def test_a_deprecated_method_is_flagged_alone(settings: Any, schema_of: Any) -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator(urlconf="tests.test_versioning_live", api_version="v2").get_schema(
        request=None, public=True
    )
    searches = schema["paths"]["/v2/probe-searches"]
    assert searches["post"]["deprecated"] is True and "Sunset" in searches["post"]["responses"]["200"]["headers"]
    assert not searches["get"].get("deprecated")
