"""The OpenAPI document as client generators read it: extensible response enums, required
response fields, a version string, stable operationIds, public descriptions, 401s, security."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import django_api_conventions
from django_api_conventions.contrib.spectacular import ProblemSchemaMixin, hooks
from django_api_conventions.contrib.spectacular.components import IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN
from django_api_conventions.contrib.spectacular.enums import EXTENSIBLE_ENUM
from django_api_conventions.contrib.spectacular.hooks import finish_schema
from django_api_conventions.idempotency.keys import read_idempotency_key
from django_api_conventions.problems import ProblemException

pytest.importorskip("drf_spectacular")

VERSIONS = ("v1", "v2")


def build(urlconf: str = "testproject.urls", version: str = "v2", **spectacular: Any) -> dict[str, Any]:
    """The document of ``version``; ``spectacular``: SPECTACULAR_SETTINGS to patch meanwhile
    (drf-spectacular reads its settings once: override_settings does not reach them)."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.settings import patched_settings

    with patched_settings(spectacular):
        schema = SchemaGenerator(urlconf=urlconf, api_version=version).get_schema(request=None, public=True)
        return finish_schema(schema, version)


def closed_enum_of(schema: dict[str, Any], node: dict[str, Any]) -> list[Any]:
    """The values of a request field's closed enum (a reference, wrapped in allOf with a default)."""
    target = resolve(schema, node["allOf"][0] if "allOf" in node else node)
    assert "anyOf" not in target
    return list(target["enum"])


@pytest.fixture(scope="module")
def documents() -> dict[str, dict[str, Any]]:
    return {version: build(version=version) for version in VERSIONS}


def operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for route, item in schema["paths"].items():
        for method, operation in item.items():
            yield route, method, operation


def resolve(schema: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        kind, name = node["$ref"].split("/")[-2:]
        node = schema["components"][kind][name]
    return node


def closed_enums(schema: dict[str, Any], node: Any, where: str, seen: set[str]) -> Iterator[str]:
    """Every closed ``enum`` a client reading ``node`` meets (an extensible one is not closed)."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from closed_enums(schema, item, f"{where}[{index}]", seen)
        return
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        if node["$ref"] not in seen:
            seen.add(node["$ref"])
            yield from closed_enums(schema, resolve(schema, node), node["$ref"], seen)
        return
    if "enum" in node:
        yield where
    variants = node.get("anyOf") or []
    if EXTENSIBLE_ENUM in node and variants:
        variants = []  # the enum variant is the list of known values, not a restriction
    for key, value in node.items():
        if key in ("anyOf",):
            yield from closed_enums(schema, variants, f"{where}.anyOf", seen)
        elif key in ("properties",):
            for name, member in value.items():
                yield from closed_enums(schema, member, f"{where}.{name}", seen)
        elif key in ("items", "additionalProperties", "allOf", "oneOf"):
            yield from closed_enums(schema, value, f"{where}.{key}", seen)


# --- enums ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_no_response_body_of_the_example_has_a_closed_enum(documents: Any, version: str) -> None:
    schema = documents[version]
    found = [
        problem
        for route, method, operation in operations(schema)
        for status, response in operation["responses"].items()
        for media in (response.get("content") or {}).values()
        for problem in closed_enums(schema, media["schema"], f"{method.upper()} {route} {status}", set())
    ]
    assert found == []


@pytest.mark.parametrize("version", VERSIONS)
def test_no_response_header_of_the_example_has_a_closed_enum(documents: Any, version: str) -> None:
    schema = documents[version]
    headers = [
        (f"{method.upper()} {route} {status} {name}", resolve(schema, header)["schema"])
        for route, method, operation in operations(schema)
        for status, response in operation["responses"].items()
        for name, header in (resolve(schema, response).get("headers") or {}).items()
    ]
    assert any(name.endswith(" X-Cache-Lookup") for name, _ in headers)  # the replay headers are there
    assert [problem for where, node in headers for problem in closed_enums(schema, node, where, set())] == []


def test_request_enums_stay_closed(documents: Any) -> None:
    schemas = documents["v2"]["components"]["schemas"]
    assert closed_enum_of(documents["v2"], schemas["OrderRequest"]["properties"]["status"]) == [
        "pending",
        "shipped",
        "cancelled",
    ]
    assert closed_enum_of(documents["v2"], schemas["InvoiceRequest"]["properties"]["status"]) == ["draft", "open"]


def test_a_response_enum_names_its_known_values_and_accepts_any_other(documents: Any) -> None:
    schema = documents["v2"]
    status = schema["components"]["schemas"]["Order"]["properties"]["status"]
    known, other = status["anyOf"]
    assert known == {"$ref": "#/components/schemas/OrderStatusEnum"} and other == {"type": "string"}
    assert status[EXTENSIBLE_ENUM] == ["pending", "shipped", "cancelled"]
    # The same named enum as the request's: one OrderStatusEnum class in a generated client.
    assert schema["components"]["schemas"]["OrderRequest"]["properties"]["status"] == known
    invoice = schema["components"]["schemas"]["Invoice"]["properties"]["status"]
    assert resolve(schema, invoice["anyOf"][0])["enum"] == ["draft", "open", "paid", "void"]


def test_a_users_choice_fields_get_extensible_response_enums() -> None:
    schema = build("tests.urls_openapi_consumers")
    components = schema["components"]["schemas"]
    shipment = components["Shipment"]["properties"]
    assert shipment["carrier"]["anyOf"][1] == {"type": "string"}
    assert resolve(schema, shipment["carrier"]["anyOf"][0])["enum"] == ["dhl", "ups"]
    assert shipment["checkpoint"]["nullable"] is True and shipment["checkpoint"][EXTENSIBLE_ENUM] == ["hub", "depot"]
    assert shipment["tags"]["items"]["anyOf"][1] == {"type": "string"}
    # The request component keeps the closed enum the server enforces.
    request = components["ShipmentRequest"]["properties"]
    assert closed_enum_of(schema, request["carrier"]) == ["dhl", "ups"]
    assert list(closed_enums(schema, {"$ref": "#/components/schemas/Shipment"}, "Shipment", set())) == []
    for node in components.values():  # every reference resolves
        for ref in re.findall(r"'\$ref': '#/components/schemas/(\w+)'", repr(node)):
            assert ref in components


def test_the_enums_are_named_without_drf_spectacular_s_enum_hook() -> None:
    schema = build(POSTPROCESSING_HOOKS=[])
    status = schema["components"]["schemas"]["Order"]["properties"]["status"]
    assert resolve(schema, status["anyOf"][0])["enum"] == ["pending", "shipped", "cancelled"]


def test_the_hook_listed_before_drf_spectacular_s_keeps_every_reference() -> None:
    schema = build(
        POSTPROCESSING_HOOKS=[
            "django_api_conventions.contrib.spectacular.hooks.postprocess_schema",
            "drf_spectacular.hooks.postprocess_schema_enums",
        ]
    )
    components = schema["components"]["schemas"]
    refs = set(re.findall(r"#/components/schemas/(\w+)", repr(schema)))
    assert refs <= set(components), refs - set(components)


def test_closed_response_enums_when_the_schema_class_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ProblemSchemaMixin, "extensible_response_enums", False)
    status = build()["components"]["schemas"]["Order"]["properties"]["status"]
    assert "anyOf" not in status and EXTENSIBLE_ENUM not in status


# --- required fields ---------------------------------------------------------------------------------


def test_fields_every_response_carries_are_required(documents: Any) -> None:
    schemas = documents["v2"]["components"]["schemas"]
    assert set(schemas["Invoice"]["required"]) == {"id", "user_id", "status", "amount_due", "currency", "created_at"}
    assert set(schemas["Order"]["required"]) == {"id", "user_id", "status", "created_at"}
    # A renamed field's old name goes away at its sunset: not required, so clients do not need it.
    assert "total" not in schemas["Invoice"]["required"] and "total" in schemas["Invoice"]["properties"]
    # Requests keep what the server requires.
    assert "status" not in schemas["InvoiceRequest"].get("required", [])
    user_fields = build("tests.urls_openapi_consumers")["components"]["schemas"]["Shipment"]
    assert set(user_fields["required"]) == {"id", "carrier", "state", "checkpoint", "tags", "note"}


def test_response_fields_as_drf_spectacular_marks_them_when_the_schema_class_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ProblemSchemaMixin, "response_fields_required", False)
    assert "status" not in build()["components"]["schemas"]["Invoice"]["required"]


def test_request_defaults_are_said_in_words_so_typescript_clients_need_not_send_them(documents: Any) -> None:
    status = documents["v2"]["components"]["schemas"]["InvoiceRequest"]["properties"]["status"]
    assert "default" not in status and status["description"].endswith('Default: `"open"`.')


def test_request_defaults_as_default_when_the_schema_class_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ProblemSchemaMixin, "request_defaults", True)
    assert build()["components"]["schemas"]["InvoiceRequest"]["properties"]["status"]["default"] == "open"


# --- info.version and operationIds -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("configured", "written"), [("2", "2.0.0"), ("2.1", "2.1.0"), ("2.1.3", "2.1.3"), ("2.0.0-rc.1", "2.0.0-rc.1")]
)
def test_info_version_is_semver_and_pep_440(configured: str, written: str) -> None:
    info = build(version="v2", VERSION=configured)["info"]
    assert (info["version"], info["x-api-version"]) == (written, "v2")
    # The document of another version carries that version's number.
    assert build(version="v1", VERSION=configured)["info"]["version"] == "1.0.0"


def test_info_version_as_configured_when_the_hook_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooks, "SEMVER_INFO_VERSION", False)
    assert build()["info"]["version"] == "2"


def test_operation_ids_name_resource_and_action_the_same_in_every_version(documents: Any) -> None:
    ids = {
        version: {
            (re.sub(r"^/v[0-9]+", "", route), method): operation["operationId"]
            for route, method, operation in operations(schema)
        }
        for version, schema in documents.items()
    }
    assert ids["v1"] == ids["v2"]
    assert set(ids["v2"].values()) == {
        "users_list",
        "users_create",
        "users_retrieve",
        "invoices_list",
        "invoices_create",
        "invoices_retrieve",
        "invoices_destroy",
        "invoices_search",
        "invoices_payments_list",
        "invoices_payments_create",
        "invoices_payments_retrieve",
        "invoices_async_payments_create",
        "orders_list",
        "orders_create",
        "orders_retrieve",
    }
    # Generated clients group their modules by tag: by resource, not by version.
    tags = {
        version: {tag for _, _, operation in operations(schema) for tag in operation["tags"]}
        for version, schema in documents.items()
    }
    assert tags["v1"] == tags["v2"] == {"users", "invoices", "orders"}


def test_operation_ids_with_the_version_when_the_schema_class_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ProblemSchemaMixin, "versionless_names", False)
    search = build()["paths"]["/v2/invoices/search"]["post"]
    assert (search["operationId"], search["tags"]) == ("v2_invoices_search_create", ["v2"])


# --- descriptions and summaries ----------------------------------------------------------------------


def package_docstrings() -> set[str]:
    found = set()
    for module in list(__import__("sys").modules.values()):
        if not getattr(module, "__name__", "").startswith(django_api_conventions.__name__):
            continue
        for _, member in inspect.getmembers(module):
            for obj in (member, *vars(member).values()) if inspect.isclass(member) else (member,):
                doc = getattr(obj, "__doc__", None)
                module = getattr(obj, "__module__", None) or ""
                if isinstance(doc, str) and len(doc.strip()) > 20 and module.startswith("django_api_conventions"):
                    found.add(inspect.cleandoc(doc).strip())
    return found


@pytest.mark.parametrize("urlconf", ["testproject.urls", "tests.urls_openapi_consumers"])
def test_no_description_is_a_package_docstring_and_every_operation_has_a_summary(urlconf: str) -> None:
    schema = build(urlconf)
    internals = package_docstrings()
    assert len(internals) > 50
    described = [
        (f"{method} {route}", operation.get("description", "")) for route, method, operation in operations(schema)
    ]
    described += [
        (name, component.get("description", "")) for name, component in schema["components"]["schemas"].items()
    ]
    assert [where for where, text in described if text.strip() and text.strip() in internals] == []
    assert all(operation.get("summary") for _, _, operation in operations(schema))


def test_summaries_and_descriptions_come_from_the_public_docs(documents: Any) -> None:
    paths = documents["v2"]["paths"]
    assert paths["/v2/invoices"]["get"]["summary"] == "List invoices"
    assert paths["/v2/users"]["post"]["summary"] == "Create a user"
    assert paths["/v2/invoices/search"]["post"]["summary"] == "Search invoices"
    assert paths["/v2/invoices/{invoice_id}/payments"]["post"]["summary"] == "Create a payment of an invoice"
    assert paths["/v2/invoices"]["get"]["description"].startswith("Invoices: DELETE is a soft delete")
    # UserViewSet has no docstring: no description, rather than a mixin's.
    assert "description" not in paths["/v2/users"]["get"]
    user = build("tests.urls_openapi_consumers")
    detail = user["paths"]["/v2/shipments/{id}"]["get"]
    assert (detail["summary"], detail["description"]) == (
        "Read one shipment.",
        "Read one shipment.\n\nThe carrier's last report, as it came.",
    )
    assert user["components"]["schemas"]["Shipment"]["description"] == "A shipment as the carrier reports it."


# --- authentication --------------------------------------------------------------------------------


def test_401_is_documented_wherever_an_authenticator_is_declared(documents: Any) -> None:
    for route, method, operation in operations(documents["v2"]):
        unauthorized = resolve(documents["v2"], operation["responses"].get("401"))
        assert unauthorized, f"{method} {route}"
        assert unauthorized["x-problem-types"] == ["authentication-required"]
        assert "WWW-Authenticate" in unauthorized["headers"]


def test_operations_anonymous_callers_may_use_declare_no_security(documents: Any) -> None:
    schema = documents["v2"]
    assert all("security" not in operation for _, _, operation in operations(schema))
    assert schema["components"]["securitySchemes"] == {"basicAuth": {"type": "http", "scheme": "basic"}}
    user = build("tests.urls_openapi_consumers")
    detail = user["paths"]["/v2/shipments/{id}"]["get"]
    assert detail["security"] == [{"basicAuth": []}]
    assert resolve(user, detail["responses"]["403"])["x-problem-types"] == ["permission-denied"]
    assert "security" not in user["paths"]["/v2/shipments"]["post"]


def test_optional_security_when_the_schema_class_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ProblemSchemaMixin, "anonymous_security", "optional")
    assert build()["paths"]["/v2/users"]["get"]["security"] == [{"basicAuth": []}, {}]


# --- Idempotency-Key -------------------------------------------------------------------------------


def server_accepts(key: str, rf: Any) -> bool:
    try:
        return read_idempotency_key(rf.post("/", HTTP_IDEMPOTENCY_KEY=key)) is not None
    except ProblemException:
        return False


# Header values as they reach the server: no surrounding white space (HTTP strips it).
header_values = st.one_of(
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=300),
    st.builds(lambda s: f'"{s}"', st.text(st.characters(min_codepoint=0x1F, max_codepoint=0x7F), max_size=260)),
    st.text(max_size=20),
).filter(lambda value: value == value.strip(" \t"))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header_values)
@example('"' + "x" * 255 + '"')
@example('"' + "x" * 256 + '"')
@example('"' + '\\"' * 255 + '"')
@example("x" * 255)
@example('a"b')
@example('"a\\b"')
def test_the_key_schema_accepts_exactly_what_the_server_accepts(rf: Any, value: str) -> None:
    documented = bool(re.fullmatch(IDEMPOTENCY_KEY_PATTERN, value)) and 1 <= len(value) <= IDEMPOTENCY_KEY_MAX_LENGTH
    assert documented == server_accepts(value, rf)
