"""The breaking-change rules of django_api_compat, each with its breaking and its compatible variant."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from django_api_compat import (
    BREAKING,
    COMPATIBLE,
    Finding,
    breaking_changes,
    compare_openapi,
)
from django_api_compat.rules import RULES


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


BASELINE: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Billing", "version": "v2"},
    "paths": {
        "/v2/invoices": {
            "get": {
                "parameters": [
                    {"in": "query", "name": "status", "required": False, "schema": ref("StatusEnum")},
                    {"in": "query", "name": "limit", "required": False, "schema": {"type": "integer", "maximum": 100}},
                ],
                "responses": {
                    "200": {"description": "", "content": json_body(ref("InvoiceList"))},
                    "400": {"description": "", "content": {"application/problem+json": {"schema": {"type": "object"}}}},
                },
            },
            "post": {
                "requestBody": {"required": True, "content": json_body(ref("Invoice"))},
                "responses": {
                    "201": {
                        "description": "",
                        "headers": {"Location": {"schema": {"type": "string"}}},
                        "content": json_body(ref("Invoice")),
                    },
                },
            },
        },
        "/v2/invoices/{id}": {
            "parameters": [{"in": "path", "name": "id", "required": True, "schema": {"type": "string"}}],
            "get": {"responses": {"200": {"description": "", "content": json_body(ref("Invoice"))}}},
            "delete": {"responses": {"204": {"description": ""}}},
        },
    },
    "components": {
        "schemas": {
            "StatusEnum": {"type": "string", "enum": ["draft", "open", "void"]},
            "Invoice": {
                "type": "object",
                "required": ["id", "amount_due", "status"],
                "properties": {
                    "id": {"type": "string", "readOnly": True},
                    "amount_due": {"type": "integer"},
                    "status": ref("StatusEnum"),
                    "memo": {"type": "string", "maxLength": 200},
                    "issued_at": {"type": "string", "format": "date-time", "readOnly": True},
                },
            },
            "InvoiceList": {
                "type": "object",
                "required": ["data", "next_cursor"],
                "properties": {
                    "data": {"type": "array", "items": ref("Invoice")},
                    "next_cursor": {"type": "string", "nullable": True},
                },
            },
        }
    },
}


def changed(edit: Callable[[dict[str, Any]], Any]) -> list[Finding]:
    """The findings between the baseline and a copy of it edited by ``edit``."""
    new = copy.deepcopy(BASELINE)
    edit(new)
    return compare_openapi(BASELINE, new)


def texts(findings: list[Finding], severity: str | None = None) -> set[str]:
    return {str(f) for f in findings if severity is None or f.severity == severity}


def schemas(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["components"]["schemas"]


def invoice(doc: dict[str, Any]) -> dict[str, Any]:
    return schemas(doc)["Invoice"]


def operation(doc: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    return doc["paths"][path][method]


def test_every_rule_is_registered_once_and_says_which_change_it_detects() -> None:
    assert len(RULES) > 30
    assert len({(each.kind, each.event, each.check) for each in RULES}) == len(RULES)
    assert all(each.check.__doc__ for each in RULES), [each.check.__name__ for each in RULES if not each.check.__doc__]


def test_identical_documents_have_no_findings() -> None:
    assert compare_openapi(BASELINE, copy.deepcopy(BASELINE)) == []


def test_a_finding_reads_as_its_location_and_message() -> None:
    finding = Finding(BREAKING, "GET /v2/invoices 200 data[].status", "enum value 'void' removed")
    assert str(finding) == "GET /v2/invoices 200 data[].status: enum value 'void' removed"
    assert finding.breaking and not Finding(COMPATIBLE, "x", "y").breaking


# -- paths and methods ------------------------------------------------------------------------------


def test_a_removed_path_breaks_an_added_one_does_not() -> None:
    assert texts(changed(lambda d: d["paths"].pop("/v2/invoices/{id}"))) == {"/v2/invoices/{id}: path removed"}
    added = changed(lambda d: d["paths"].__setitem__("/v2/orders", {"get": {"responses": {}}}))
    assert texts(added, COMPATIBLE) == {"/v2/orders: path added"} and not breaking_changes(BASELINE, BASELINE)
    assert not [f for f in added if f.breaking]


def test_renaming_a_path_parameter_changes_nothing_a_client_sees() -> None:
    def rename(doc: dict[str, Any]) -> None:
        item = doc["paths"].pop("/v2/invoices/{id}")
        item["parameters"][0]["name"] = "invoice_id"
        doc["paths"]["/v2/invoices/{invoice_id}"] = item

    assert changed(rename) == []


def test_a_removed_method_breaks_an_added_one_does_not() -> None:
    assert texts(changed(lambda d: d["paths"]["/v2/invoices/{id}"].pop("delete"))) == {
        "DELETE /v2/invoices/{id}: method removed"
    }
    added = changed(lambda d: d["paths"]["/v2/invoices/{id}"].__setitem__("patch", {"responses": {}}))
    assert texts(added) == {"PATCH /v2/invoices/{id}: method added"} and not added[0].breaking


def test_a_changed_operation_id_breaks_generated_call_sites() -> None:
    old = copy.deepcopy(BASELINE)
    operation(old, "/v2/invoices", "get")["operationId"] = "invoices_list"
    renamed = copy.deepcopy(old)
    operation(renamed, "/v2/invoices", "get")["operationId"] = "v2_invoices_list"
    assert texts(compare_openapi(old, renamed), BREAKING) == {
        "GET /v2/invoices: operationId changed from 'invoices_list' to 'v2_invoices_list'"
    }
    assert texts(compare_openapi(old, BASELINE), BREAKING) == {"GET /v2/invoices: operationId 'invoices_list' removed"}
    # A first operationId names nothing a client already calls.
    assert compare_openapi(BASELINE, old) == []


def test_deprecating_an_operation_is_compatible() -> None:
    findings = changed(lambda d: operation(d, "/v2/invoices", "get").__setitem__("deprecated", True))
    assert texts(findings, COMPATIBLE) == {"GET /v2/invoices: operation deprecated"}
    assert not [f for f in findings if f.breaking]


# -- response fields --------------------------------------------------------------------------------


def test_a_removed_response_field_breaks_everywhere_it_is_read() -> None:
    breaking = texts(changed(lambda d: invoice(d)["properties"].pop("issued_at")), BREAKING)
    assert breaking == {
        "GET /v2/invoices 200 data[].issued_at: field removed",
        "POST /v2/invoices 201 issued_at: field removed",
        "GET /v2/invoices/{id} 200 issued_at: field removed",
    }  # read-only: never sent, so the request body did not lose it


def test_an_added_response_field_is_compatible() -> None:
    findings = changed(lambda d: invoice(d)["properties"].__setitem__("paid_at", {"type": "string", "readOnly": True}))
    assert "GET /v2/invoices 200 data[].paid_at: field added" in texts(findings, COMPATIBLE)
    assert not [f for f in findings if f.breaking]


def test_a_response_field_no_longer_required_breaks_clients_that_read_it() -> None:
    findings = changed(lambda d: invoice(d)["required"].remove("id"))
    assert texts(findings, BREAKING) == {
        "GET /v2/invoices 200 data[].id: field no longer required (may be absent)",
        "POST /v2/invoices 201 id: field no longer required (may be absent)",
        "GET /v2/invoices/{id} 200 id: field no longer required (may be absent)",
    }


def test_a_response_field_that_may_now_be_null_breaks_one_no_longer_null_does_not() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["issued_at"].__setitem__("nullable", True))
    assert "GET /v2/invoices/{id} 200 issued_at: may now be null" in texts(findings, BREAKING)
    findings = changed(lambda d: schemas(d)["InvoiceList"]["properties"]["next_cursor"].pop("nullable"))
    assert texts(findings) == {"GET /v2/invoices 200 next_cursor: no longer null"}
    assert not findings[0].breaking


def test_a_response_field_that_becomes_write_only_is_removed_for_readers() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["memo"].__setitem__("writeOnly", True))
    assert "GET /v2/invoices/{id} 200 memo: field now write-only" in texts(findings, BREAKING)
    assert not any("request body" in text for text in texts(findings))


# -- enums ------------------------------------------------------------------------------------------


def test_a_removed_enum_value_breaks_in_responses_and_requests() -> None:
    breaking = texts(changed(lambda d: schemas(d)["StatusEnum"]["enum"].remove("void")), BREAKING)
    assert "GET /v2/invoices 200 data[].status: enum value 'void' removed" in breaking
    assert "POST /v2/invoices request body status: enum value 'void' removed" in breaking
    assert "GET /v2/invoices query parameter 'status': enum value 'void' removed" in breaking


def test_an_added_enum_value_is_compatible_even_in_responses_enums_are_open() -> None:
    findings = changed(lambda d: schemas(d)["StatusEnum"]["enum"].append("paid"))
    assert "GET /v2/invoices 200 data[].status: enum value 'paid' added" in texts(findings, COMPATIBLE)
    assert not [f for f in findings if f.breaking]


def test_an_enum_imposed_on_a_request_field_breaks_on_a_response_field_does_not() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["memo"].__setitem__("enum", ["a", "b"]))
    assert texts(findings, BREAKING) == {"POST /v2/invoices request body memo: now restricted to the values 'a', 'b'"}
    assert "GET /v2/invoices/{id} 200 memo: now restricted to the values 'a', 'b'" in texts(findings, COMPATIBLE)
    lifted = changed(lambda d: schemas(d)["StatusEnum"].pop("enum"))
    assert not [f for f in lifted if f.breaking]
    assert "GET /v2/invoices 200 data[].status: no longer restricted to enum values" in texts(lifted)


def extensible_status(doc: dict[str, Any]) -> None:
    """The status as ProblemAutoSchema writes a response enum: its values, or any other string."""
    invoice(doc)["properties"]["status"] = {
        "anyOf": [ref("StatusEnum"), {"type": "string"}],
        "x-extensible-enum": ["draft", "open", "void"],
    }


def test_an_enum_made_extensible_is_compatible_both_ways() -> None:
    findings = changed(extensible_status)
    assert not [f for f in findings if f.breaking], findings
    assert "GET /v2/invoices/{id} 200 status: enum made extensible: values it does not list are accepted too" in texts(
        findings, COMPATIBLE
    )
    assert "POST /v2/invoices request body status: enum made extensible: values it does not list are accepted too" in (
        texts(findings, COMPATIBLE)
    )


def test_an_extensible_enum_closed_breaks_requests_not_responses() -> None:
    old = copy.deepcopy(BASELINE)
    extensible_status(old)
    findings = compare_openapi(old, copy.deepcopy(BASELINE))
    assert texts(findings, BREAKING) == {
        "POST /v2/invoices request body status: enum no longer extensible: only the values it lists"
    }
    assert "GET /v2/invoices/{id} 200 status: enum no longer extensible: only the values it lists" in texts(
        findings, COMPATIBLE
    )


def test_a_value_removed_from_an_extensible_enum_still_breaks() -> None:
    old = copy.deepcopy(BASELINE)
    extensible_status(old)
    new = copy.deepcopy(old)
    schemas(new)["StatusEnum"]["enum"].remove("void")
    assert "GET /v2/invoices/{id} 200 status: enum value 'void' removed" in texts(compare_openapi(old, new), BREAKING)


def test_a_plain_string_that_lists_its_known_values_is_compatible() -> None:
    old = copy.deepcopy(BASELINE)
    invoice(old)["properties"]["status"] = {"type": "string", "x-extensible-enum": ["draft", "open", "void"]}
    new = copy.deepcopy(BASELINE)
    extensible_status(new)
    findings = compare_openapi(old, new)
    assert not [f for f in findings if f.breaking], findings
    assert "GET /v2/invoices/{id} 200 status: known values listed: 'draft', 'open', 'void'" in texts(findings)


def test_choice_fields_with_blank_and_null_are_one_enum() -> None:
    """drf-spectacular's ``oneOf: [StatusEnum, BlankEnum, NullEnum]`` for a nullable, blank choice."""

    def blank_and_null(doc: dict[str, Any]) -> None:
        schemas(doc)["BlankEnum"] = {"enum": [""]}
        schemas(doc)["NullEnum"] = {"enum": [None]}
        invoice(doc)["properties"]["status"] = {"oneOf": [ref("StatusEnum"), ref("BlankEnum"), ref("NullEnum")]}

    findings = changed(blank_and_null)
    assert "GET /v2/invoices/{id} 200 status: enum value '' added" in texts(findings, COMPATIBLE)
    assert "GET /v2/invoices/{id} 200 status: may now be null" in texts(findings, BREAKING)
    with_void_removed = copy.deepcopy(BASELINE)
    blank_and_null(with_void_removed)
    new = copy.deepcopy(with_void_removed)
    schemas(new)["StatusEnum"]["enum"].remove("void")
    assert texts(breaking_changes(with_void_removed, new)) >= {
        "GET /v2/invoices/{id} 200 status: enum value 'void' removed"
    }


# -- types and formats ------------------------------------------------------------------------------


def test_a_changed_type_breaks_and_says_from_what_to_what() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["amount_due"].__setitem__("type", "string"))
    assert "GET /v2/invoices/{id} 200 amount_due: type changed from integer to string" in texts(findings, BREAKING)
    assert "POST /v2/invoices request body amount_due: type changed from integer to string" in texts(findings, BREAKING)


def test_widening_an_integer_to_a_number_is_fine_for_requests_not_for_responses() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["amount_due"].__setitem__("type", "number"))
    assert "POST /v2/invoices request body amount_due: type changed from integer to number" in texts(
        findings, COMPATIBLE
    )
    assert "GET /v2/invoices/{id} 200 amount_due: type changed from integer to number" in texts(findings, BREAKING)


def test_a_type_no_longer_given_breaks_responses() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["issued_at"].pop("type"))
    assert "GET /v2/invoices/{id} 200 issued_at: type changed from string to any" in texts(findings, BREAKING)


def test_openapi_3_1_null_types_mean_the_same_as_3_0_nullable() -> None:
    def as_3_1(doc: dict[str, Any]) -> None:
        cursor = schemas(doc)["InvoiceList"]["properties"]["next_cursor"]
        cursor.pop("nullable")
        cursor["type"] = ["string", "null"]

    assert changed(as_3_1) == []


def test_a_changed_format_breaks_responses_an_added_one_does_not() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["issued_at"].__setitem__("format", "date"))
    assert "GET /v2/invoices/{id} 200 issued_at: format changed from date-time to date" in texts(findings, BREAKING)
    findings = changed(lambda d: invoice(d)["properties"]["memo"].__setitem__("format", "email"))
    assert "GET /v2/invoices/{id} 200 memo: format changed from none to email" in texts(findings, COMPATIBLE)
    assert "POST /v2/invoices request body memo: format changed from none to email" in texts(findings, BREAKING)


def test_a_wrapped_reference_is_the_same_schema() -> None:
    """drf-spectacular wraps a reference that carries its own keywords in a one-member allOf."""
    findings = changed(
        lambda d: invoice(d)["properties"].__setitem__(
            "status", {"allOf": [ref("StatusEnum")], "description": "Where the invoice is."}
        )
    )
    assert findings == []


def test_an_all_of_merges_the_properties_of_its_members() -> None:
    def split(doc: dict[str, Any]) -> None:
        whole = invoice(doc)
        schemas(doc)["Money"] = {
            "type": "object",
            "required": ["amount_due"],
            "properties": {"amount_due": whole["properties"].pop("amount_due")},
        }
        whole["required"].remove("amount_due")
        schemas(doc)["Invoice"] = {"allOf": [whole, ref("Money")]}

    assert changed(split) == []

    def split_and_drop(doc: dict[str, Any]) -> None:
        split(doc)
        schemas(doc)["Money"]["properties"].pop("amount_due")

    assert "GET /v2/invoices/{id} 200 amount_due: field removed" in texts(changed(split_and_drop), BREAKING)


# -- request bodies and parameters -------------------------------------------------------------------


def test_a_request_field_made_required_breaks_one_made_optional_does_not() -> None:
    findings = changed(lambda d: invoice(d)["required"].append("memo"))
    assert texts(findings, BREAKING) == {"POST /v2/invoices request body memo: field made required"}
    findings = changed(lambda d: invoice(d)["required"].remove("amount_due"))
    assert "POST /v2/invoices request body amount_due" not in " ".join(texts(findings, BREAKING))


def test_a_new_required_request_field_breaks_a_new_optional_one_does_not() -> None:
    def add(required: bool) -> Callable[[dict[str, Any]], None]:
        def edit(doc: dict[str, Any]) -> None:
            invoice(doc)["properties"]["customer"] = {"type": "string"}
            if required:
                invoice(doc)["required"].append("customer")

        return edit

    assert "POST /v2/invoices request body customer: required field added" in texts(changed(add(True)), BREAKING)
    optional = changed(add(False))
    assert "POST /v2/invoices request body customer: optional field added" in texts(optional, COMPATIBLE)
    assert not [f for f in optional if f.breaking]


def test_a_request_field_removed_or_made_read_only_is_no_longer_accepted() -> None:
    assert "POST /v2/invoices request body memo: field removed" in texts(
        changed(lambda d: invoice(d)["properties"].pop("memo")), BREAKING
    )
    assert texts(changed(lambda d: invoice(d)["properties"]["memo"].__setitem__("readOnly", True)), BREAKING) == {
        "POST /v2/invoices request body memo: field now read-only"
    }


def test_a_request_field_that_no_longer_accepts_null_breaks() -> None:
    def nullable_memo(doc: dict[str, Any]) -> None:
        invoice(doc)["properties"]["memo"]["nullable"] = True

    before = copy.deepcopy(BASELINE)
    nullable_memo(before)
    assert "POST /v2/invoices request body memo: null no longer accepted" in texts(breaking_changes(before, BASELINE))
    assert "POST /v2/invoices request body memo: null now accepted" in texts(changed(nullable_memo), COMPATIBLE)


def test_tightened_request_constraints_break_loosened_ones_do_not() -> None:
    lowered = changed(lambda d: invoice(d)["properties"]["memo"].__setitem__("maxLength", 100))
    assert texts(lowered) == {"POST /v2/invoices request body memo: maxLength changed from 200 to 100"}
    assert lowered[0].breaking  # responses may shrink: no finding for them
    raised = changed(lambda d: invoice(d)["properties"]["memo"].__setitem__("maxLength", 500))
    assert texts(raised, COMPATIBLE) == {"POST /v2/invoices request body memo: maxLength changed from 200 to 500"}
    minimum = changed(lambda d: invoice(d)["properties"]["amount_due"].__setitem__("minimum", 1))
    assert texts(minimum, BREAKING) == {"POST /v2/invoices request body amount_due: minimum 1 added"}
    pattern = changed(lambda d: invoice(d)["properties"]["memo"].__setitem__("pattern", "^[a-z]*$"))
    assert texts(pattern, BREAKING) == {"POST /v2/invoices request body memo: pattern '^[a-z]*$' added"}
    limit = changed(lambda d: operation(d, "/v2/invoices", "get")["parameters"][1]["schema"].__setitem__("maximum", 50))
    assert texts(limit, BREAKING) == {"GET /v2/invoices query parameter 'limit': maximum changed from 100 to 50"}


def test_a_request_body_made_required_or_added_as_required_breaks() -> None:
    findings = changed(lambda d: operation(d, "/v2/invoices", "post")["requestBody"].pop("required"))
    assert findings == []
    optional = copy.deepcopy(BASELINE)
    operation(optional, "/v2/invoices", "post")["requestBody"].pop("required")
    assert texts(breaking_changes(optional, BASELINE)) == {"POST /v2/invoices: request body made required"}
    body = {"required": True, "content": json_body({"type": "object"})}
    assert texts(changed(lambda d: operation(d, "/v2/invoices/{id}", "delete").__setitem__("requestBody", body))) == {
        "DELETE /v2/invoices/{id}: required request body added"
    }
    assert texts(
        changed(
            lambda d: operation(d, "/v2/invoices/{id}", "delete").__setitem__(
                "requestBody", {**body, "required": False}
            )
        ),
        COMPATIBLE,
    ) == {"DELETE /v2/invoices/{id}: optional request body added"}
    assert texts(changed(lambda d: operation(d, "/v2/invoices", "post").pop("requestBody")), BREAKING) == {
        "POST /v2/invoices: request body removed"
    }


def test_a_request_media_type_removed_breaks_one_added_does_not() -> None:
    def form_too(doc: dict[str, Any]) -> None:
        operation(doc, "/v2/invoices", "post")["requestBody"]["content"]["multipart/form-data"] = {
            "schema": ref("Invoice")
        }

    findings = changed(form_too)
    assert texts(findings) == {"POST /v2/invoices request body: media type 'multipart/form-data' added"}
    before = copy.deepcopy(BASELINE)
    form_too(before)
    assert texts(breaking_changes(before, BASELINE)) == {
        "POST /v2/invoices request body: media type 'multipart/form-data' removed"
    }


def test_a_required_parameter_added_breaks_an_optional_one_does_not() -> None:
    def add(required: bool) -> Callable[[dict[str, Any]], None]:
        return lambda d: operation(d, "/v2/invoices", "get")["parameters"].append(
            {"in": "query", "name": "customer", "required": required, "schema": {"type": "string"}}
        )

    assert texts(changed(add(True))) == {"GET /v2/invoices: required query parameter 'customer' added"}
    optional = changed(add(False))
    assert texts(optional) == {"GET /v2/invoices: optional query parameter 'customer' added"}
    assert not optional[0].breaking


def test_a_parameter_made_required_or_removed_breaks() -> None:
    required = changed(lambda d: operation(d, "/v2/invoices", "get")["parameters"][0].__setitem__("required", True))
    assert texts(required, BREAKING) == {"GET /v2/invoices: query parameter 'status' made required"}
    removed = changed(lambda d: operation(d, "/v2/invoices", "get")["parameters"].pop(0))
    assert texts(removed, BREAKING) == {"GET /v2/invoices: query parameter 'status' removed"}


def test_a_parameter_made_optional_is_compatible() -> None:
    before = copy.deepcopy(BASELINE)
    operation(before, "/v2/invoices", "get")["parameters"][0]["required"] = True
    assert texts(compare_openapi(before, BASELINE), COMPATIBLE) == {
        "GET /v2/invoices: query parameter 'status' made optional"
    }


def test_header_parameters_match_whatever_their_case() -> None:
    def key_header(name: str) -> Callable[[dict[str, Any]], None]:
        return lambda d: operation(d, "/v2/invoices", "post").__setitem__(
            "parameters", [{"in": "header", "name": name, "required": False, "schema": {"type": "string"}}]
        )

    before = copy.deepcopy(BASELINE)
    key_header("Idempotency-Key")(before)
    after = copy.deepcopy(BASELINE)
    key_header("idempotency-key")(after)
    assert compare_openapi(before, after) == []


def test_a_parameter_described_by_content_is_compared_too() -> None:
    def filter_param(kind: str) -> Callable[[dict[str, Any]], None]:
        return lambda d: operation(d, "/v2/invoices", "get")["parameters"].append(
            {"in": "query", "name": "where", "content": json_body({"type": kind})}
        )

    before = copy.deepcopy(BASELINE)
    filter_param("object")(before)
    after = copy.deepcopy(BASELINE)
    filter_param("string")(after)
    assert texts(breaking_changes(before, after)) == {
        "GET /v2/invoices query parameter 'where': type changed from object to string"
    }


# -- responses ---------------------------------------------------------------------------------------


def test_a_removed_success_status_breaks_a_removed_error_status_does_not() -> None:
    def created_as_200(doc: dict[str, Any]) -> None:
        responses = operation(doc, "/v2/invoices", "post")["responses"]
        responses["200"] = responses.pop("201")

    assert texts(changed(created_as_200), BREAKING) == {"POST /v2/invoices: success status 201 removed"}
    assert "POST /v2/invoices: status 200 added" in texts(changed(created_as_200), COMPATIBLE)
    undocumented = changed(lambda d: operation(d, "/v2/invoices", "get")["responses"].pop("400"))
    assert texts(undocumented) == {"GET /v2/invoices: status 400 no longer documented"}
    assert not undocumented[0].breaking


def test_a_removed_response_header_breaks_an_added_one_does_not() -> None:
    created = ("/v2/invoices", "post")
    removed = changed(lambda d: operation(d, *created)["responses"]["201"].pop("headers"))
    assert texts(removed, BREAKING) == {"POST /v2/invoices 201: response header 'Location' removed"}
    added = changed(
        lambda d: operation(d, *created)["responses"]["201"]["headers"].__setitem__(
            "Idempotent-Replayed", {"schema": {"type": "string"}}
        )
    )
    assert texts(added) == {"POST /v2/invoices 201: response header 'Idempotent-Replayed' added"}
    assert not added[0].breaking
    retyped = changed(
        lambda d: operation(d, *created)["responses"]["201"]["headers"]["Location"].__setitem__(
            "schema", {"type": "integer"}
        )
    )
    assert texts(retyped, BREAKING) == {"POST /v2/invoices 201 header 'Location': type changed from string to integer"}


def test_a_removed_response_media_type_or_schema_breaks() -> None:
    removed = changed(lambda d: operation(d, "/v2/invoices/{id}", "get")["responses"]["200"].pop("content"))
    assert texts(removed, BREAKING) == {"GET /v2/invoices/{id} 200: media type 'application/json' removed"}
    no_schema = changed(
        lambda d: operation(d, "/v2/invoices/{id}", "get")["responses"]["200"]["content"]["application/json"].pop(
            "schema"
        )
    )
    assert texts(no_schema, BREAKING) == {"GET /v2/invoices/{id} 200: schema removed"}
    problem = changed(
        lambda d: operation(d, "/v2/invoices/{id}", "get")["responses"].__setitem__(
            "404", {"content": {"application/problem+json": {"schema": {"type": "object"}}}}
        )
    )
    assert texts(problem) == {"GET /v2/invoices/{id}: status 404 added"}


def test_a_response_with_several_media_types_names_the_one_that_changed() -> None:
    def also_csv(doc: dict[str, Any]) -> None:
        content = operation(doc, "/v2/invoices", "get")["responses"]["200"]["content"]
        content["text/csv"] = {"schema": {"type": "string"}}

    before = copy.deepcopy(BASELINE)
    also_csv(before)
    after = copy.deepcopy(before)
    operation(after, "/v2/invoices", "get")["responses"]["200"]["content"]["text/csv"]["schema"]["type"] = "integer"
    assert texts(breaking_changes(before, after)) == {
        "GET /v2/invoices 200 (text/csv): type changed from string to integer"
    }


# -- variants, maps, recursion and references ----------------------------------------------------------


def with_payment_method(doc: dict[str, Any], variants: list[str]) -> None:
    schemas(doc)["Card"] = {"type": "object", "properties": {"last4": {"type": "string"}}}
    schemas(doc)["Transfer"] = {"type": "object", "properties": {"iban": {"type": "string"}}}
    schemas(doc)["Wallet"] = {"type": "object", "properties": {"provider": {"type": "string"}}}
    invoice(doc)["properties"]["method"] = {"oneOf": [ref(name) for name in variants]}


def test_a_removed_variant_breaks_an_added_one_does_not() -> None:
    before = copy.deepcopy(BASELINE)
    with_payment_method(before, ["Card", "Transfer"])
    fewer = copy.deepcopy(BASELINE)
    with_payment_method(fewer, ["Card"])
    more = copy.deepcopy(BASELINE)
    with_payment_method(more, ["Card", "Transfer", "Wallet"])
    assert "GET /v2/invoices/{id} 200 method: variant Transfer removed" in texts(breaking_changes(before, fewer))
    added = compare_openapi(before, more)
    assert "GET /v2/invoices/{id} 200 method: variant Wallet added" in texts(added, COMPATIBLE)
    assert not [f for f in added if f.breaking]
    changed_variant = copy.deepcopy(before)
    schemas(changed_variant)["Card"]["properties"].pop("last4")
    assert "GET /v2/invoices/{id} 200 method.last4: field removed" in texts(breaking_changes(before, changed_variant))


def test_a_component_that_becomes_one_variant_of_a_union_keeps_its_comparison() -> None:
    before = copy.deepcopy(BASELINE)
    with_payment_method(before, ["Card"])
    invoice(before)["properties"]["method"] = ref("Card")
    after = copy.deepcopy(BASELINE)
    with_payment_method(after, ["Card", "Wallet"])
    findings = compare_openapi(before, after)
    assert "GET /v2/invoices/{id} 200 method: variant Wallet added" in texts(findings, COMPATIBLE)
    assert not [f for f in findings if f.breaking]
    assert "GET /v2/invoices/{id} 200 method: variant Wallet removed" in texts(breaking_changes(after, before))


def test_a_schema_that_becomes_a_union_breaks() -> None:
    before = copy.deepcopy(BASELINE)
    with_payment_method(before, ["Card", "Transfer"])
    single = copy.deepcopy(before)
    invoice(single)["properties"]["method"] = {"type": "object", "properties": {}}
    assert "GET /v2/invoices/{id} 200 method: no longer a oneOf/anyOf" in texts(breaking_changes(before, single))
    assert "GET /v2/invoices/{id} 200 method: changed to a oneOf/anyOf" in texts(breaking_changes(single, before))


def test_map_values_are_compared() -> None:
    def metadata(kind: str) -> Callable[[dict[str, Any]], None]:
        return lambda d: invoice(d)["properties"].__setitem__(
            "metadata", {"type": "object", "additionalProperties": {"type": kind}}
        )

    before = copy.deepcopy(BASELINE)
    metadata("string")(before)
    after = copy.deepcopy(BASELINE)
    metadata("integer")(after)
    assert "GET /v2/invoices/{id} 200 metadata{*}: type changed from string to integer" in texts(
        breaking_changes(before, after)
    )


def tree(doc: dict[str, Any], *, label: bool) -> dict[str, Any]:
    node = {"type": "object", "properties": {"children": {"type": "array", "items": ref("Node")}}}
    if label:
        node["properties"]["label"] = {"type": "string"}
    schemas(doc)["Node"] = node
    operation(doc, "/v2/invoices/{id}", "get")["responses"]["200"]["content"] = json_body(ref("Node"))
    return doc


def test_recursive_components_are_compared_once_and_terminate() -> None:
    before = tree(copy.deepcopy(BASELINE), label=True)
    assert compare_openapi(before, copy.deepcopy(before)) == []
    after = tree(copy.deepcopy(BASELINE), label=False)
    assert texts(breaking_changes(before, after)) == {"GET /v2/invoices/{id} 200 label: field removed"}


def test_a_component_that_is_its_own_all_of_member_terminates() -> None:
    doc = copy.deepcopy(BASELINE)
    schemas(doc)["Loop"] = {"allOf": [ref("Loop")], "type": "object"}
    operation(doc, "/v2/invoices/{id}", "get")["responses"]["200"]["content"] = json_body(ref("Loop"))
    assert compare_openapi(doc, copy.deepcopy(doc)) == []


def test_references_are_followed_through_chains_and_escaped_names() -> None:
    doc = copy.deepcopy(BASELINE)
    schemas(doc)["a/b"] = ref("Invoice")
    operation(doc, "/v2/invoices/{id}", "get")["responses"]["200"]["content"] = json_body(
        {"$ref": "#/components/schemas/a~1b"}
    )
    after = copy.deepcopy(doc)
    invoice(after)["properties"].pop("memo")
    assert "GET /v2/invoices/{id} 200 memo: field removed" in texts(breaking_changes(doc, after))


@pytest.mark.parametrize("target", ["#/components/schemas/Missing", "other.json#/Invoice"])
def test_an_unresolvable_reference_is_an_error_that_names_it(target: str) -> None:
    doc = copy.deepcopy(BASELINE)
    operation(doc, "/v2/invoices/{id}", "get")["responses"]["200"]["content"] = json_body({"$ref": target})
    with pytest.raises(ValueError, match=f"cannot resolve \\$ref '{target}'"):
        compare_openapi(doc, doc)


def test_circular_references_are_an_error() -> None:
    doc = copy.deepcopy(BASELINE)
    schemas(doc)["Self"] = ref("Self")
    operation(doc, "/v2/invoices/{id}", "get")["responses"]["200"]["content"] = json_body(ref("Self"))
    with pytest.raises(ValueError, match="circular"):
        compare_openapi(doc, doc)


def test_a_union_that_may_now_be_null_breaks_readers_one_that_accepts_null_does_not() -> None:
    before = copy.deepcopy(BASELINE)
    with_payment_method(before, ["Card", "Transfer"])
    after = copy.deepcopy(before)
    invoice(after)["properties"]["method"]["oneOf"].append({"type": "null"})
    findings = compare_openapi(before, after)
    assert "GET /v2/invoices/{id} 200 method: may now be null" in texts(findings, BREAKING)
    assert "POST /v2/invoices request body method: null now accepted" in texts(findings, COMPATIBLE)


def test_a_union_with_every_variant_replaced_breaks_and_is_not_compared_further() -> None:
    before = copy.deepcopy(BASELINE)
    with_payment_method(before, ["Card", "Transfer"])
    after = copy.deepcopy(before)
    invoice(after)["properties"]["method"] = {"oneOf": [ref("Wallet"), {"type": "object"}]}
    breaking = texts(breaking_changes(before, after))
    assert "GET /v2/invoices/{id} 200 method: every variant replaced" in breaking
    assert not [text for text in breaking if "variant Card removed" in text]


def test_a_changed_type_is_not_compared_further() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["memo"].update(type="integer", maxLength=100))
    assert "POST /v2/invoices request body memo: type changed from string to integer" in texts(findings)
    assert not [text for text in texts(findings) if "maxLength" in text]


def test_a_request_field_made_read_only_is_not_compared_further() -> None:
    findings = changed(lambda d: invoice(d)["properties"]["memo"].update(readOnly=True, maxLength=100))
    assert texts(findings) == {"POST /v2/invoices request body memo: field now read-only"}
