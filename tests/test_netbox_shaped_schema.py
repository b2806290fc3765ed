"""The NetBox-shaped project's OpenAPI document, once adopted, is a valid document.

NetBox's choice filters all take ``null`` (its ``FILTERS_NULL_CHOICE_LABEL``), which
django-filter lists among the form field's choices: the document must name it once in each
``enum``, as JSON Schema wants the values of an enum unique. An ``@action`` that answers several
methods gives one operationId to each method, each its own.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from django.test import Client, override_settings
from drf_spectacular.drainage import GENERATOR_STATS
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import DuplicateOperationIDError, OpenAPIValidationError

from tests.netbox_shaped import project  # noqa: F401 -- imported before the settings name its classes
from tests.netbox_shaped import settings as project_settings

pytestmark = pytest.mark.django_db

INVOICES = "/api/billing/invoices/"
NOTES = "/api/billing/invoices/{id}/notes/"


def document(adopted: bool = True) -> dict[str, Any]:
    """The project's ``/api/schema/``, before or after adoption."""
    overrides = project_settings.after() if adopted else project_settings.before()
    with override_settings(**overrides):
        response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200, response.content
    found: dict[str, Any] = json.loads(response.content)
    return found


def parameter(schema: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in schema["paths"][INVOICES]["get"]["parameters"] if p["name"] == name)
    return found


def test_the_adopted_document_is_valid() -> None:
    validate(document())


def test_a_choice_filter_that_takes_null_names_it_once() -> None:
    schema = document()
    assert parameter(schema, "currency_or_none")["schema"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["null", "eur", "usd"]},
    }
    # A key filter (ModelMultipleChoiceFilter) that takes null: a key, or null.
    assert parameter(schema, "tenant")["schema"]["items"]["anyOf"][1] == {"type": "string", "enum": ["null"]}


def test_each_method_of_a_multi_method_action_has_its_own_operation_id() -> None:
    GENERATOR_STATS.reset()
    after, before = document(), document(adopted=False)
    # drf-spectacular numbers equal names (`_2`, `_3`) with a warning: `--fail-on-warn` fails.
    collisions = [message for message in GENERATOR_STATS._warn_cache if "operationId" in message]
    assert not collisions, collisions
    notes = {method: operation["operationId"] for method, operation in after["paths"][NOTES].items()}
    assert notes == {
        "get": "billing_invoices_notes_retrieve",
        "post": "billing_invoices_notes_create",
        "delete": "billing_invoices_notes_destroy",
    }
    # The names drf-spectacular gave them before adoption.
    assert notes == {method: operation["operationId"] for method, operation in before["paths"][NOTES].items()}


def test_an_unversioned_api_keeps_the_operation_ids_it_had() -> None:
    """Clients generated from the document before adoption keep their call sites."""

    def operation_ids(schema: dict[str, Any]) -> dict[tuple[str, str], str]:
        return {
            (path, method): operation["operationId"]
            for path, operations in schema["paths"].items()
            for method, operation in operations.items()
        }

    after, before = operation_ids(document()), operation_ids(document(adopted=False))
    assert after == {key: name for key, name in before.items() if key in after}
    assert after[("/api/billing/invoices/{id}/set-status/", "post")] == "billing_invoices_set_status_create"


# The check fails on what it is there to find.


def test_the_check_refuses_an_enum_that_repeats_a_value() -> None:
    schema = copy.deepcopy(document())
    parameter(schema, "currency_or_none")["schema"]["items"]["enum"].append("null")
    with pytest.raises(OpenAPIValidationError):
        validate(schema)


def test_the_check_refuses_an_operation_id_given_twice() -> None:
    schema = copy.deepcopy(document())
    notes = schema["paths"][NOTES]
    notes["post"]["operationId"] = notes["get"]["operationId"]
    with pytest.raises(DuplicateOperationIDError):
        validate(schema)
