"""The OpenAPI document beside a project's own schema class, and its size as operations are added.

A large project has its own drf-spectacular ``AutoSchema`` subclass (NetBox's writes model
defaults such as ``Decimal("0.00")`` into the schema); ``ProblemSchemaMixin`` put before it gives
the package's problem responses, headers and deprecations without replacing it. The problem
responses every operation shares are components, so a document with more operations gets one
more reference per problem status, never another copy of them.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from django.urls import path
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.renderers import OpenApiJsonRenderer
from drf_spectacular.utils import OpenApiParameter
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from django_api_conventions.contrib.spectacular import ProblemAutoSchema, ProblemSchemaMixin
from django_api_conventions.contrib.spectacular.checks import check_openapi_set_up, composes_problem_schema
from django_api_conventions.idempotency.mixins import IdempotencyMixin

PROBLEM_JSON = "application/problem+json"


class ProjectAutoSchema(AutoSchema):
    """A project's own schema class: a decimal field's default as the model has it, a ``Decimal``
    (drf-spectacular would write ``"0.00"``), and a query parameter every operation takes."""

    def _get_serializer_field_meta(self, field: Any, direction: Any) -> dict[str, Any]:
        meta: dict[str, Any] = super()._get_serializer_field_meta(field, direction)
        if isinstance(field, serializers.DecimalField) and "default" in meta:
            meta["default"] = field.default
        return meta

    def get_override_parameters(self) -> list[Any]:
        return [*super().get_override_parameters(), OpenApiParameter("brief", bool)]


class ComposedSchema(ProblemSchemaMixin, ProjectAutoSchema):
    """The project's schema class with the package's additions."""


class MixinAfterSchema(ProjectAutoSchema, ProblemSchemaMixin):
    """The mixin after ``AutoSchema`` in the MRO: its methods are never reached."""


class PriceSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, default=Decimal("0.00"))


class PriceView(IdempotencyMixin, generics.GenericAPIView[Any]):
    serializer_class = PriceSerializer
    versioning_class = None  # not under a URL version: in the document without api_version

    def post(self, request: Request) -> Response:
        return Response(status=201)


def document(schema_class: type[AutoSchema], count: int = 1) -> dict[str, Any]:
    """The document of ``count`` price endpoints documented by ``schema_class``, as served."""
    view = PriceView.as_view(schema=schema_class())
    patterns = [path(f"prices{index}/<int:id>", view) for index in range(count)]
    built = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    rendered: dict[str, Any] = json.loads(OpenApiJsonRenderer().render(built))
    return rendered


def responses_of(schema: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    shared = schema["components"].get("responses", {})
    return {
        status: shared[response["$ref"].rsplit("/", 1)[-1]] if "$ref" in response else response
        for status, response in operation["responses"].items()
    }


def test_the_mixin_composes_with_a_project_schema_class_that_writes_decimal_defaults() -> None:
    schema = document(ComposedSchema)
    operation = schema["paths"]["/prices0/{id}"]["post"]
    parameters = {parameter["name"] for parameter in operation["parameters"]}
    assert {"brief", "Idempotency-Key", "X-Request-ID"} <= parameters  # the project's and the package's
    response_amount = schema["components"]["schemas"]["Price"]["properties"]["amount"]
    assert response_amount["default"] == 0.0  # its Decimal, as the renderer writes it
    request_amount = schema["components"]["schemas"]["PriceRequest"]["properties"]["amount"]
    assert "Default: `0.0`." in request_amount["description"]  # request_defaults off: said in words
    responses = responses_of(schema, operation)
    assert {"400", "404", "409", "422", "500", "503"} <= set(responses)
    assert all(PROBLEM_JSON in responses[status]["content"] for status in responses if int(status) >= 400)
    assert "idempotency-key-reused" in responses["422"]["x-problem-types"]
    assert "Idempotent-Replayed" in responses["200"]["headers"]


def test_problem_auto_schema_itself_takes_a_decimal_default() -> None:
    class DecimalDefaults(ProblemSchemaMixin, ProjectAutoSchema):
        pass

    assert document(ProblemAutoSchema)["components"]["schemas"]["Price"]["properties"]["amount"]["default"] == "0.00"
    assert document(DecimalDefaults)["components"]["schemas"]["Price"]["properties"]["amount"]["default"] == 0.0


@pytest.mark.parametrize(
    ("schema_class", "composes"),
    [
        (ProblemAutoSchema, True),
        (ComposedSchema, True),
        (MixinAfterSchema, False),
        (ProjectAutoSchema, False),
        (ProblemSchemaMixin, False),
    ],
)
def test_check_w030_accepts_a_class_that_composes_the_mixin(schema_class: type, composes: bool, settings: Any) -> None:
    assert composes_problem_schema(schema_class) is composes
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": f"{__name__}.{schema_class.__name__}"}
    found = [message.id for message in check_openapi_set_up()]
    assert ("django_api_conventions.W030" in found) is not composes


def test_the_w030_hint_names_the_mixin(settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": f"{__name__}.ProjectAutoSchema"}
    [warning] = [message for message in check_openapi_set_up() if message.id == "django_api_conventions.W030"]
    assert "ProblemSchemaMixin" in str(warning.hint)


def test_more_operations_add_references_not_copies_of_the_problem_responses() -> None:
    few, many = document(ComposedSchema, 2), document(ComposedSchema, 12)
    assert few["components"]["responses"] == many["components"]["responses"]
    assert few["components"]["schemas"] == many["components"]["schemas"]
    few_text, many_text = json.dumps(few), json.dumps(many)
    for shared in ('"x-problem-types"', "A problem whose `type` ends in one of", '"application/problem+json"'):
        assert few_text.count(shared) == many_text.count(shared), shared
    # An operation more adds its own text, with a reference per problem status: no copy of them.
    per_operation = (len(many_text) - len(few_text)) / 10
    problem_responses = len(json.dumps(few["components"]["responses"]))
    operation = json.dumps(few["paths"]["/prices0/{id}"])
    assert per_operation <= len(operation) + len('"/prices10/{id}": , ')
    assert per_operation < problem_responses
