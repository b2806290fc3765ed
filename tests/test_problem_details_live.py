"""Every error source, over real HTTP against the example service, answers a problem.

Each case runs with DEBUG off and on, and with ``Accept: application/json`` and ``text/html``.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.conf import settings as django_settings

from django_api_conventions.maintenance.switches import write_switch

from .faults import SECRET
from .http import send
from .problem_assertions import assert_problem

pytestmark = pytest.mark.django_db(transaction=True)

JSON = {"Content-Type": "application/json"}
DEEP_JSON = "[" * 10_000 + "]" * 10_000
TOO_MANY_FIELDS = "/v2/users?" + "&".join(f"f{i}=1" for i in range(1_001))


def _too_large_body() -> bytes:
    return b"{" + b" " * django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b"}"


# (id, method, path, send keyword arguments, status, problem type slug, headers that must be set)
CASES: list[tuple[str, str, str, dict[str, Any], int, str, tuple[str, ...]]] = [
    ("unknown-route", "GET", "/no/such/route", {}, 404, "not-found", ()),
    ("drf-not-found", "GET", "/v2/users/usr_missing", {}, 404, "not-found", ()),
    ("django-http404", "GET", "/faults/django-not-found", {}, 404, "not-found", ()),
    ("django-permission-denied", "GET", "/faults/django-permission-denied", {}, 403, "permission-denied", ()),
    ("django-validation-error", "GET", "/faults/django-validation-error", {}, 422, "validation-error", ()),
    ("drf-validation-error", "POST", "/v2/users", {"json_body": {"email": "no"}}, 422, "validation-error", ()),
    # One parser error stands for the others: tests/test_hostile_input.py sends each hostile body.
    ("deeply-nested-json", "POST", "/v2/users", {"body": DEEP_JSON, "headers": JSON}, 400, "malformed-request", ()),
    (
        "unsupported-media-type",
        "POST",
        "/v2/users",
        {"body": "email=a", "headers": {"Content-Type": "text/plain"}},
        415,
        "unsupported-media-type",
        (),
    ),
    ("drf-method-not-allowed", "DELETE", "/v2/users", {}, 405, "method-not-allowed", ("Allow",)),
    ("django-method-not-allowed", "GET", "/faults/post-only", {}, 405, "method-not-allowed", ("Allow",)),
    ("authentication-required", "GET", "/faults/protected", {}, 401, "authentication-required", ("WWW-Authenticate",)),
    (
        "csrf-failure",
        "POST",
        "/faults/csrf",
        {"body": "a=1", "headers": {"Content-Type": "application/x-www-form-urlencoded"}},
        403,
        "csrf-failed",
        (),
    ),
    ("disallowed-host", "GET", "/v2/users", {"headers": {"Host": "evil.example"}}, 400, "invalid-host", ()),
    (
        "request-too-large",
        "POST",
        "/v2/users",
        {"body": _too_large_body(), "headers": JSON},
        413,
        "request-too-large",
        (),
    ),
    ("too-many-fields", "GET", TOO_MANY_FIELDS, {}, 400, "too-many-fields", ()),
    ("view-crash", "GET", "/faults/crash", {}, 500, "internal-error", ()),
    ("middleware-crash", "GET", "/faults/middleware/crash", {}, 500, "internal-error", ()),
    ("middleware-suspicious-operation", "GET", "/faults/middleware/suspicious", {}, 400, "bad-request", ()),
    ("database-down-django-view", "GET", "/faults/database-down", {}, 503, "database-unavailable", ("Retry-After",)),
    ("database-down-drf-view", "GET", "/faults/drf-database-down", {}, 503, "database-unavailable", ("Retry-After",)),
    (
        "database-down-middleware",
        "GET",
        "/faults/middleware/database",
        {},
        503,
        "database-unavailable",
        ("Retry-After",),
    ),
    ("own-problem-type", "POST", "/faults/own-problem", {}, 409, "invoice-already-paid", ()),
    ("differently-shaped-json-error", "GET", "/faults/own-json-error", {}, 409, "conflict", ()),
]


@pytest.fixture(params=[False, True], ids=["debug-off", "debug-on"])
def debug(request: pytest.FixtureRequest, settings: Any) -> bool:
    settings.DEBUG = request.param
    return bool(request.param)


@pytest.fixture(params=["application/json", "text/html"], ids=["accept-json", "accept-html"])
def accept(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize(
    ("method", "path", "options", "status", "slug", "required_headers"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_every_error_source_answers_a_problem(
    live_server: Any,
    debug: bool,
    accept: str,
    method: str,
    path: str,
    options: dict[str, Any],
    status: int,
    slug: str,
    required_headers: tuple[str, ...],
) -> None:
    headers = {"Accept": accept, **options.get("headers", {})}
    result = send(live_server.url, method, path, **{**options, "headers": headers})
    assert_problem(result, status, slug, secret=SECRET)
    for name in required_headers:
        assert result.header(name), f"{name} missing"


def test_method_not_allowed_lists_the_allowed_methods(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/faults/post-only")
    assert result.header("Allow") == "POST"


def test_unauthenticated_request_is_told_how_to_authenticate(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/faults/protected")
    assert result.header("WWW-Authenticate") == 'Basic realm="api"'


def test_too_large_body_states_the_limit(live_server: Any) -> None:
    result = send(live_server.url, "POST", "/v2/users", body=_too_large_body(), headers=JSON)
    body = assert_problem(result, 413, "request-too-large")
    assert body["limit_bytes"] == django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert str(django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE) in body["detail"]


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"], indirect=True)
def test_throttled_client_gets_429_with_retry_after(live_server: Any, debug: bool) -> None:
    client = {"X-Client-ID": "throttled-client"}
    assert send(live_server.url, "GET", "/faults/throttled", headers=client).status == 200
    result = send(live_server.url, "GET", "/faults/throttled", headers={**client, "Accept": "text/html"})
    assert_problem(result, 429, "rate-limited")
    assert 3000 < int(result.header("Retry-After") or 0) <= 3600
    # Another client has its own allowance.
    assert send(live_server.url, "GET", "/faults/throttled", headers={"X-Client-ID": "other"}).status == 200


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"], indirect=True)
def test_maintenance_mode_answers_503_with_retry_after(live_server: Any, debug: bool) -> None:
    write_switch(True, retry_after=120)
    result = send(live_server.url, "GET", "/v2/users", headers={"Accept": "text/html"})
    assert_problem(result, 503, "service-unavailable")
    assert result.header("Retry-After") == "120"
    assert send(live_server.url, "GET", "/problems/not-found").status == 200
    write_switch(False)
    assert send(live_server.url, "GET", "/v2/users").status == 200


def test_field_errors_are_json_pointers(live_server: Any) -> None:
    result = send(live_server.url, "POST", "/v2/users", json_body={"email": "no"})
    body = assert_problem(result, 422, "validation-error")
    assert {"pointer": "/email", "detail": "Enter a valid email address.", "code": "invalid"} in body["errors"]
    assert {"pointer": "/name", "detail": "This field is required.", "code": "required"} in body["errors"]


def test_fields_named_like_problem_members_keep_their_errors(live_server: Any) -> None:
    payload = {
        "type": "c",
        "title": "far too long",
        "status": "x",
        "detail": "object-level",
        "lines": [{"sku": "a", "quantity": 1}, {"sku": "", "quantity": 0}],
        "tags": ["ok", "toolong"],
        "address": {"a/b": "x"},
    }
    result = send(live_server.url, "POST", "/faults/reserved-names", json_body=payload)
    body = assert_problem(result, 422, "validation-error")
    assert body["title"] == "Validation failed"
    assert body["status"] == 422
    pointers = {item["pointer"]: item for item in body["errors"]}
    assert pointers["/type"]["code"] == "invalid_choice"
    assert pointers["/title"]["code"] == "max_length"
    assert pointers["/status"]["code"] == "invalid"
    assert pointers["/lines/1/sku"]["code"] == "blank"
    assert pointers["/lines/1/quantity"]["code"] == "min_value"
    assert "/lines/0/sku" not in pointers
    assert pointers["/tags/1"]["code"] == "max_length"
    assert pointers["/address/a~1b"]["code"] == "invalid"


def test_object_level_errors_point_at_the_object(live_server: Any) -> None:
    payload = {"type": "a", "title": "ok", "status": 1, "detail": "object-level", "lines": []}
    body = send(live_server.url, "POST", "/faults/reserved-names", json_body=payload).json()
    assert body["errors"] == [{"pointer": "", "detail": "The object as a whole is wrong.", "code": "invalid"}]


def test_django_validation_error_fields_keep_their_names(live_server: Any) -> None:
    body = send(live_server.url, "GET", "/faults/django-validation-error").json()
    assert {item["pointer"] for item in body["errors"]} == {"/title", "/status"}


def test_problem_type_url_resolves_to_its_documentation(live_server: Any) -> None:
    body = send(live_server.url, "GET", "/no/such/route").json()
    page = send(live_server.url, "GET", body["type"].removeprefix(live_server.url), headers={"Accept": "text/html"})
    assert page.status == 200
    assert page.header("Content-Type") == "text/html; charset=utf-8"
    assert b"Not found" in page.body


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"], indirect=True)
def test_crash_is_logged_with_its_trace_id_and_never_leaks(
    live_server: Any, debug: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="django_api_conventions.problems"):
        result = send(live_server.url, "GET", "/faults/crash", headers={"X-Request-ID": "support-ticket-42"})
    body = assert_problem(result, 500, "internal-error", secret=SECRET)
    assert body["trace_id"] == "support-ticket-42"
    records = [r for r in caplog.records if r.name == "django_api_conventions.problems"]
    assert records and records[0].trace_id == "support-ticket-42"
    assert records[0].exc_info and SECRET in str(records[0].exc_info[1])


def test_incoming_traceparent_becomes_the_trace_id(live_server: Any) -> None:
    traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    result = send(live_server.url, "GET", "/no/such/route", headers={"traceparent": traceparent})
    assert result.json()["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert result.header("X-Request-ID") == "4bf92f3577b34da6a3ce929d0e0e4736"


def test_successful_responses_carry_the_trace_id_too(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/v2/users", headers={"X-Request-ID": "abc-123"})
    assert result.status == 200
    assert result.header("X-Request-ID") == "abc-123"


def test_own_problem_types_carry_their_extensions(live_server: Any) -> None:
    body = send(live_server.url, "POST", "/faults/own-problem").json()
    assert body["invoice_id"] == "inv_1" and body["title"] == "Invoice already paid"
