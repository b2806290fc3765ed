"""The OpenAPI document: what ProblemAutoSchema adds, and /openapi.json and /docs as served."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from django_api_conventions.contrib.spectacular.checks import check_openapi_set_up
from django_api_conventions.contrib.spectacular.components import (
    ERROR_ITEM_SCHEMA,
    IDEMPOTENCY_KEY_MAX_LENGTH,
    IDEMPOTENCY_KEY_PATTERN,
    JSON_POINTER_PATTERN,
    PROBLEM_SCHEMA,
)
from django_api_conventions.idempotency.keys import read_idempotency_key
from django_api_conventions.pagination.filtersets import StrictFilters
from django_api_conventions.problems import ProblemException
from testproject.billing.models import Invoice
from testproject.billing.views import InvoiceFilters

jsonschema = pytest.importorskip("jsonschema")

pytestmark = pytest.mark.urls("testproject.urls")


@pytest.fixture(scope="module")
def schemas() -> dict[str, dict[str, Any]]:
    """The documents ``manage.py spectacular --api-version`` writes: the configured generator's."""
    from drf_spectacular.settings import spectacular_settings

    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS
    return {
        version: generator(urlconf="testproject.urls", api_version=version).get_schema(request=None, public=True)
        for version in ("v1", "v2")
    }


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, operation) for path, item in schema["paths"].items() for method, operation in item.items()]


def responses_of(schema: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    """The operation's responses by status, shared response components followed."""
    shared = schema["components"].get("responses", {})
    return {
        status: shared[response["$ref"].rsplit("/", 1)[-1]] if "$ref" in response else response
        for status, response in operation["responses"].items()
    }


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_each_version_validates_without_a_warning(version: str, capsys: Any) -> None:
    from openapi_spec_validator import validate

    call_command("spectacular", "--validate", "--fail-on-warn", "--api-version", version, "--format", "openapi-json")
    document = json.loads(capsys.readouterr().out)
    assert document["openapi"].startswith("3.")
    # drf-spectacular's --validate reads the OpenAPI 3.0 schema, which lets an enum repeat a
    # value; openapi-spec-validator refuses it, as client generators do.
    validate(document)


def test_the_idempotency_key_header_is_required_where_the_view_requires_it(schemas: Any) -> None:
    paths = schemas["v2"]["paths"]
    payment = {p["name"]: p for p in paths["/v2/invoices/{invoice_id}/payments"]["post"]["parameters"]}
    user = {p["name"]: p for p in paths["/v2/users"]["post"]["parameters"]}
    assert payment["Idempotency-Key"]["required"] is True and payment["Idempotency-Key"]["in"] == "header"
    assert user["Idempotency-Key"]["required"] is False
    assert "Idempotency-Key" not in {p["name"] for p in paths["/v2/users"]["get"]["parameters"]}
    assert "Idempotency-Key" not in {p["name"] for p in paths["/v2/invoices/{id}"]["delete"]["parameters"]}


def test_keyed_operations_document_replays_and_their_problems(schemas: Any) -> None:
    responses = responses_of(schemas["v2"], schemas["v2"]["paths"]["/v2/invoices/{invoice_id}/payments"]["post"])
    assert {"Idempotent-Replayed", "X-Cache-Lookup", "X-Request-ID"} <= set(responses["201"]["headers"])
    assert {"idempotency-key-invalid", "idempotency-key-missing"} <= set(responses["400"]["x-problem-types"])
    assert {"idempotency-key-in-use", "idempotency-lease-expired"} <= set(responses["409"]["x-problem-types"])
    assert "Retry-After" in responses["409"]["headers"]
    assert {"idempotency-key-reused", "validation-error"} <= set(responses["422"]["x-problem-types"])
    assert "idempotency-store-unavailable" in responses["503"]["x-problem-types"]
    optional = responses_of(schemas["v2"], schemas["v2"]["paths"]["/v2/users"]["post"])["400"]["x-problem-types"]
    assert "idempotency-key-missing" not in optional


def test_every_operation_documents_its_problems_as_problem_json(schemas: Any) -> None:
    for version, schema in schemas.items():
        for path, method, operation in operations(schema):
            responses = responses_of(schema, operation)
            assert {"400", "500", "503"} <= set(responses), (version, path, method)
            for status, response in responses.items():
                assert "X-Request-ID" in response["headers"], (path, method, status)
                if int(status) >= 400:
                    assert response["content"] == {
                        "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
                    }
                    assert response["x-problem-types"], (path, method, status)
            assert ("404" in responses) == ("{" in path), (path, method)
            assert ("429" in responses) is True  # the example service throttles every view


def test_error_items_carry_a_pointer_pattern_not_enumerated_indexes(schemas: Any) -> None:
    item = schemas["v2"]["components"]["schemas"]["ProblemErrorItem"]
    assert item["properties"]["pointer"]["pattern"] == JSON_POINTER_PATTERN
    assert "enum" not in json.dumps(item)
    pointer = re.compile(JSON_POINTER_PATTERN)
    for good in ("", "/amount", "/items/0/amount", "/a~1b", "/~0"):
        assert pointer.fullmatch(good)
    for bad in ("amount", "/~2", "/a~"):
        assert not pointer.fullmatch(bad)


def test_lists_document_typed_filters_and_search_its_body(schemas: Any) -> None:
    paths = schemas["v2"]["paths"]
    parameters = {p["name"]: p["schema"] for p in paths["/v2/invoices"]["get"]["parameters"]}
    assert parameters["created_after"] == {"type": "string", "format": "date-time"}
    assert re.fullmatch(parameters["status"]["pattern"], "open,paid")
    assert not re.fullmatch(parameters["status"]["pattern"], "open,unknown")
    search = paths["/v2/invoices/search"]["post"]
    assert not [p for p in search["parameters"] if p["in"] == "query"]
    body = search["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["any"] and set(body["properties"]) == {"any", "limit", "cursor", "sort"}
    sort = {
        "type": "string",
        "enum": ["-created_at", "created_at", "-amount_due", "amount_due"],
        "default": "-created_at",
    }
    assert {k: v for k, v in body["properties"]["sort"].items() if k != "description"} == sort
    assert parameters["sort"] == sort
    assert set(body["properties"]["any"]["items"]["properties"]) == set(InvoiceFilters.base_filters)
    listed = search["responses"]["200"]["content"]["application/json"]["schema"]
    assert listed == paths["/v2/invoices"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]


@pytest.mark.django_db
def test_filter_schemas_admit_what_the_filters_accept() -> None:
    filters = StrictFilters(InvoiceFilters, queryset=Invoice.objects.all())
    patterned = [parameter for parameter in filters.schema_parameters() if "pattern" in parameter["schema"]]
    assert [parameter["name"] for parameter in patterned] == ["status"]
    sample = ",".join(Invoice.Status.values)
    assert re.fullmatch(patterned[0]["schema"]["pattern"], sample)
    filterset = InvoiceFilters(data={"status": sample}, queryset=Invoice.objects.all())
    assert filterset.is_valid() and filterset.form.cleaned_data["status"] == Invoice.Status.values


@pytest.mark.parametrize(
    "key",
    [
        "a",
        "x" * 255,
        "abc-123_DEF.~!",
        'a"b',
        '"abc"',
        '"a b,c"',
        '"a\\"b"',
        '"' + "x" * 255 + '"',
        '"' + '\\"' * 255 + '"',
    ],
)
def test_every_key_the_pattern_admits_is_accepted(key: str, rf: Any) -> None:
    assert re.fullmatch(IDEMPOTENCY_KEY_PATTERN, key)
    assert len(key) <= IDEMPOTENCY_KEY_MAX_LENGTH
    assert read_idempotency_key(rf.post("/", HTTP_IDEMPOTENCY_KEY=key))


@pytest.mark.parametrize(
    "key", ["", "x" * 256, "a,b", '"quoted', "é", '""', '"' + "x" * 256 + '"', '"a\\b"', '"a"b"', '"é"', '"\t"']
)
def test_the_pattern_refuses_what_the_service_refuses(key: str, rf: Any) -> None:
    assert not re.fullmatch(IDEMPOTENCY_KEY_PATTERN, key)
    with pytest.raises(ProblemException):
        read_idempotency_key(rf.post("/", HTTP_IDEMPOTENCY_KEY=key))


@pytest.mark.django_db(transaction=True)
def test_real_problems_conform_to_the_documented_problem_schema(client: Client) -> None:
    schema = {
        **PROBLEM_SCHEMA,
        "properties": {**PROBLEM_SCHEMA["properties"], "errors": {"type": "array", "items": ERROR_ITEM_SCHEMA}},
    }
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    answers = [
        client.post(
            "/v2/invoices", {"user_id": "nope", "amount_due": -1, "currency": "EURO"}, content_type="application/json"
        ),
        client.get("/v2/invoices?limit=0&unknown=1"),
        client.post("/v2/invoices/1/payments", {}, content_type="application/json"),
        client.get("/v2/users/404"),
    ]
    assert [answer.status_code for answer in answers] == [422, 400, 400, 404]
    for answer in answers:
        assert answer["Content-Type"] == "application/problem+json"
        validator.validate(answer.json())
        assert answer.json()["errors"] if answer.status_code == 422 else True


@pytest.mark.django_db
def test_openapi_json_serves_the_current_version_and_any_served_one(client: Client) -> None:
    current = client.get("/openapi.json")
    assert current.status_code == 200 and current["Content-Type"].startswith("application/json")
    assert "/v2/invoices" in current.json()["paths"]
    older = client.get("/openapi.json?version=v1").json()
    assert "/v1/invoices" in older["paths"] and "/v2/invoices" not in older["paths"]


# SemVer's MAJOR.MINOR.PATCH, which PEP 440 reads too: generated packages install with it.
_VERSION_STRING = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


@pytest.mark.django_db
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_info_version_is_a_version_string_and_the_url_version_is_said_apart(client: Client, version: str) -> None:
    info = client.get(f"/openapi.json?version={version}").json()["info"]
    assert info["version"] == f"{version[1:]}.0.0", info  # each version's own, not "2 (v1)"
    assert _VERSION_STRING.fullmatch(info["version"])
    assert info["x-api-version"] == version
    assert info["description"].endswith(f"This document describes version {version} of the API.")
    assert info["description"].count("This document describes") == 1


@pytest.mark.django_db
def test_info_version_without_the_hook_configured(client: Client, settings: Any) -> None:
    # /openapi.json states it whatever the project's POSTPROCESSING_HOOKS, the generator's too.
    settings.SPECTACULAR_SETTINGS = {
        **settings.SPECTACULAR_SETTINGS,
        "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums"],
    }
    info = client.get("/openapi.json?version=v1").json()["info"]
    assert (info["version"], info["x-api-version"]) == ("1.0.0", "v1")


def test_the_generator_gives_manage_py_spectacular_the_same_info(schemas: Any) -> None:
    # The example service names the package's generator: the command line writes what
    # /openapi.json serves.
    assert [(s["info"]["version"], s["info"]["x-api-version"]) for s in schemas.values()] == [
        ("1.0.0", "v1"),
        ("2.0.0", "v2"),
    ]


@pytest.mark.parametrize("query", ["version=v0", "version=v9", "lang=en", "version=v1&version=v2"])
@pytest.mark.django_db
def test_openapi_json_refuses_unknown_versions_and_parameters(client: Client, query: str) -> None:
    answer = client.get(f"/openapi.json?{query}")
    assert answer.status_code == 400 and answer["Content-Type"] == "application/problem+json"
    assert answer.json()["errors"][0]["parameter"] in {"version", "lang"}


@pytest.mark.django_db
def test_docs_page_fetches_nothing_from_outside_the_service(client: Client) -> None:
    page = client.get("/docs", HTTP_ACCEPT="text/html")
    assert page.status_code == 200
    html = page.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/") for s in sources), sources
    assert "/openapi.json" in html
    for source in sources:
        asset = client.get(source)
        assert asset.status_code == 200, source
    escape = client.get("/docs/assets/../../settings.py")
    assert escape.status_code in (400, 404) and escape["Content-Type"] == "application/problem+json"


def test_checks_warn_when_the_schema_class_or_split_requests_are_missing(settings: Any) -> None:
    assert check_openapi_set_up() == []
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema"}
    settings.SPECTACULAR_SETTINGS = {}
    assert [m.id for m in check_openapi_set_up()] == ["django_api_conventions.W030", "django_api_conventions.W030"]
