"""The list envelope and the list parameters as drf-spectacular sees them."""

from __future__ import annotations

from typing import Any

import pytest

spectacular = pytest.importorskip("drf_spectacular")


@pytest.fixture
def schema(settings: Any) -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator(urlconf="testproject.urls", api_version="v2").get_schema(request=None, public=True)


def test_list_parameters_and_envelope(schema: dict[str, Any]) -> None:
    operation = schema["paths"]["/v2/invoices"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert {"cursor", "limit", "status", "user_id", "created_after", "created_before"} <= set(parameters)
    assert parameters["limit"]["schema"]["maximum"] == 100
    response = operation["responses"]["200"]["content"]["application/json"]["schema"]
    if "$ref" in response:
        response = schema["components"]["schemas"][response["$ref"].rsplit("/", 1)[-1]]
    assert response["required"] == ["data", "pagination"]
    pagination = response["properties"]["pagination"]
    assert set(pagination["properties"]) == {"next_cursor", "has_next", "previous_cursor", "has_previous", "limit"}
    assert pagination["required"] == ["next_cursor", "has_next", "previous_cursor", "has_previous", "limit"]
    assert pagination["properties"]["previous_cursor"]["nullable"] is True
    assert parameters["sort"]["schema"] == {
        "type": "string",
        "enum": ["-created_at", "created_at", "-amount_due", "amount_due"],
        "default": "-created_at",
    }
    assert "sort" not in {p["name"] for p in schema["paths"]["/v2/orders"]["get"]["parameters"]}


def test_a_counting_paginator_documents_its_total() -> None:
    from tests.urls_lists import CappedCount

    envelope = CappedCount().get_paginated_response_schema({"type": "array"})["properties"]["pagination"]
    assert {"total", "total_is_lower_bound", "total_is_estimate"} <= set(envelope["properties"])
    assert "total" not in envelope["required"], "on the first page only"


def problem_response(schema: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    """The 400 response of an operation, its shared component followed."""
    response: dict[str, Any] = schema["paths"][path][method]["responses"]["400"]
    return schema["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]] if "$ref" in response else response


def test_lists_document_their_400_problems(schema: dict[str, Any]) -> None:
    response = problem_response(schema, "/v2/invoices", "get")
    assert response["content"]["application/problem+json"]["schema"] == {"$ref": "#/components/schemas/Problem"}
    problem = schema["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "instance", "trace_id"} <= set(problem["required"])
    assert {"invalid-parameters", "invalid-cursor"} <= set(response["x-problem-types"])
    assert "parameter" in schema["components"]["schemas"]["ProblemErrorItem"]["properties"]
    # A detail has no cursor; an undeclared parameter is refused there too (StrictQueryParametersMixin).
    detail_400 = problem_response(schema, "/v2/invoices/{id}", "get")
    assert "invalid-cursor" not in detail_400["x-problem-types"]
    assert "invalid-parameters" in detail_400["x-problem-types"]
    assert "invalid-parameters" in problem_response(schema, "/v2/users", "post")["x-problem-types"]
