"""Hostile input over real HTTP: a 4xx problem with a precise detail, logged, never a 500, never stored.

Every case goes through the live server (Django's threaded WSGI server) against the example
service's URLs (and, for the keys, the tests' function and middleware-protected views), on each
idempotency store. What only a production server shows (gunicorn de-chunking a body, keeping an
absolute-form target, refusing bare CR) runs against a real gunicorn on PostgreSQL at the end.

The parsers' and cursors' own unit tests (tests/test_parsers.py, tests/test_pagination_cursors.py)
cover the byte-level variants; here each kind of attack is sent once, end to end.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from django_api_conventions.conf import api_settings
from django_api_conventions.idempotency import IdempotencyMixin
from django_api_conventions.idempotency.stores.redis import KEY_PREFIX, RedisStore
from django_api_conventions.models import IdempotencyRecord
from testproject.billing.models import Customer, Invoice, Order, Payment

from .http import HTTPResult, send, send_raw
from .problem_assertions import assert_problem
from .servers import gunicorn

pytestmark = [pytest.mark.hostile, pytest.mark.django_db(transaction=True)]

CLIENT = "hostile"
KEY = "hostile-key-7c0e5b8e"
PROBLEM_LOGGER = "django_api_conventions.problems"
PAY = "/v2/invoices/{invoice}/payments"
MAX_BODY = 2_621_440  # Django's default DATA_UPLOAD_MAX_MEMORY_SIZE, which tests/settings.py keeps


@dataclass(frozen=True)
class Case:
    """One hostile request and the problem it must get."""

    id: str
    method: str
    path: str
    status: int
    slug: str
    detail: str  # the exact detail, or a part of it when it ends with "..."
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None  # sent byte for byte instead (request line and headers included)


def _raw(method: str, target: str, headers: list[str], body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", "Connection: close", f"X-Client-ID: {CLIENT}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _chunked(body: bytes, chunk: int = 65_536) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(body[i : i + chunk]), body[i : i + chunk]) for i in range(0, len(body), chunk)]
    return b"".join(parts) + b"0\r\n\r\n"


JSON = {"Content-Type": "application/json", "Idempotency-Key": KEY}
PAYMENT = b'{"amount": 100, "currency": "eur"}'
HOST = "Host: 127.0.0.1"
CSRF_TOKEN = "c" * 32

BODY_CASES = [
    Case(
        "malformed-json",
        "POST",
        PAY,
        400,
        "malformed-request",
        "Malformed JSON: Expecting property name enclosed in double quotes at line 1, column 2.",
        body=b"{'amount': 100}",
        headers=JSON,
    ),
    Case(
        "truncated-json",
        "POST",
        PAY,
        400,
        "malformed-request",
        "Malformed JSON: Unterminated string starting at at line 1, column 17.",
        body=b'{"amount": 100, "curr',
        headers=JSON,
    ),
    Case(
        "invalid-utf8",
        "POST",
        PAY,
        400,
        "malformed-request",
        "The body is not valid UTF-8: byte 29 is invalid.",
        body=b'{"amount": 100, "currency": "\xff\xfe"}',
        headers=JSON,
    ),
    Case(
        "nested-10000-deep",
        "POST",
        PAY,
        400,
        "malformed-request",
        "The JSON body is nested deeper than 64 levels.",
        body=b'{"amount": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
        headers=JSON,
    ),
    Case(
        "number-over-a-float",
        "POST",
        PAY,
        400,
        "malformed-request",
        "Malformed JSON: the number 1e999999 is too large.",
        body=b'{"amount": 1e999999, "currency": "eur"}',
        headers=JSON,
    ),
    Case(
        "exponent-over-a-decimal",
        "POST",
        PAY,
        400,
        "malformed-request",
        "Malformed JSON: the number 1e999999999999999999... (33 characters) is too large.",
        body=b'{"amount": 1e9999999999999999999999999999999, "currency": "eur"}',
        headers=JSON,
    ),
    Case(
        "integer-of-5001-digits",
        "POST",
        PAY,
        400,
        "malformed-request",
        "Malformed JSON: an integer has 5001 digits, more than the 4300 accepted.",
        body=b'{"amount": 1' + b"0" * 5000 + b', "currency": "eur"}',
        headers=JSON,
    ),
    Case(
        "duplicate-keys",
        "POST",
        PAY,
        400,
        "malformed-request",
        "Malformed JSON: duplicate object key 'amount'.",
        body=b'{"amount": 1, "currency": "eur", "amount": 100000}',
        headers=JSON,
    ),
    Case(
        "nul-character",
        "POST",
        PAY,
        400,
        "malformed-request",
        "A string of the body holds a NUL character (\\u0000).",
        body=b'{"amount": 100, "currency": "e\\u0000r"}',
        headers=JSON,
    ),
    Case(
        "body-over-the-limit",
        "POST",
        PAY,
        413,
        "request-too-large",
        f"The request body exceeds the limit of {MAX_BODY} bytes.",
        body=b"[" + b"1," * (MAX_BODY // 2) + b"1]",
        headers=JSON,
    ),
    Case(
        "chunked-over-the-limit",
        "POST",
        PAY,
        411,
        "length-required",
        "Send the body with a Content-Length header: this service does not accept chunked request bodies.",
        raw=_raw(
            "POST",
            PAY,
            [HOST, "Content-Type: application/json", f"Idempotency-Key: {KEY}", "Transfer-Encoding: chunked"],
            _chunked(b" " * (MAX_BODY + 1) + PAYMENT),
        ),
    ),
    Case(
        "chunked-small",
        "POST",
        PAY,
        411,
        "length-required",
        "Send the body with a Content-Length header...",
        raw=_raw(
            "POST",
            PAY,
            [HOST, "Content-Type: application/json", f"Idempotency-Key: {KEY}", "Transfer-Encoding: chunked"],
            _chunked(PAYMENT),
        ),
    ),
]


def _key_cases(path: str, prefix: str) -> list[Case]:
    def invalid(reason: str) -> str:
        return f"The Idempotency-Key header is invalid: {reason}."

    def with_key(*lines: str) -> bytes:
        # Plain Django views are CSRF-protected: a double-submitted token gets past that check.
        csrf = [f"Cookie: csrftoken={CSRF_TOKEN}", f"X-CSRFToken: {CSRF_TOKEN}"]
        return _raw(
            "POST",
            path,
            [HOST, "Content-Type: application/json", *csrf, *lines, f"Content-Length: {len(PAYMENT)}"],
            PAYMENT,
        )

    return [
        Case(
            f"{prefix}-empty-key",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it is empty"),
            raw=with_key("Idempotency-Key: "),
        ),
        Case(
            f"{prefix}-256-character-key",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it is longer than 255 characters"),
            raw=with_key("Idempotency-Key: " + "k" * 256),
        ),
        Case(
            f"{prefix}-latin-1-key",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it holds characters other than visible ASCII"),
            raw=with_key("Idempotency-Key: na\xefve"),
        ),
        Case(
            f"{prefix}-utf-8-key",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it holds characters other than visible ASCII"),
            raw=with_key("Idempotency-Key: " + "ключ".encode().decode("latin-1")),
        ),
        Case(
            f"{prefix}-folded-key-crlf",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it holds characters other than visible ASCII"),
            raw=with_key("Idempotency-Key: abc\r\n def"),
        ),
        Case(
            f"{prefix}-key-with-tab-inside",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it holds characters other than visible ASCII"),
            raw=with_key("Idempotency-Key: abc\tdef"),
        ),
        Case(
            f"{prefix}-repeated-key-headers",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it appears more than once or holds a comma"),
            raw=with_key("Idempotency-Key: first", "Idempotency-Key: second"),
        ),
        Case(
            f"{prefix}-repeated-identical-key-headers",
            "POST",
            path,
            400,
            "idempotency-key-invalid",
            invalid("it appears more than once or holds a comma"),
            raw=with_key(f"Idempotency-Key: {KEY}", f"Idempotency-Key: {KEY}"),
        ),
    ]


KEY_CASES = [
    *_key_cases(PAY, "drf-view"),
    *_key_cases("/idempotency/sync-function", "function-view"),
    *_key_cases("/idempotency/plain", "middleware"),
]

QUERY_CASES = [
    Case(
        "unknown-parameter",
        "GET",
        "/v2/invoices?expand=user",
        400,
        "invalid-parameters",
        "Invalid query parameters: expand.",
    ),
    Case(
        "repeated-limit",
        "GET",
        "/v2/invoices?limit=1&limit=2",
        400,
        "invalid-parameters",
        "Invalid query parameters: limit.",
    ),
    Case(
        "repeated-cursor",
        "GET",
        "/v2/invoices?cursor=a&cursor=b",
        400,
        "invalid-parameters",
        "Invalid query parameters: cursor.",
    ),
    Case(
        "forged-cursor",
        "GET",
        "/v2/invoices?cursor=eyJ2IjoxfQ:1:forged",
        400,
        "invalid-cursor",
        "The cursor was not issued by this service or was altered.",
    ),
    Case(
        "limit-of-5000-digits",
        "GET",
        "/v2/invoices?limit=" + "9" * 5000,
        400,
        "invalid-parameters",
        "Invalid query parameters: limit.",
    ),
]

HOST_CASES = [
    Case(
        "unknown-host",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The Host header names a host this service does not serve.",
        raw=_raw("GET", "/v2/invoices", ["Host: evil.example"]),
    ),
    Case(
        "host-with-a-path",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The Host header names a host this service does not serve.",
        raw=_raw("GET", "/v2/invoices", ["Host: 127.0.0.1/evil"]),
    ),
    Case(
        "host-with-port-junk",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The Host header names a host this service does not serve.",
        raw=_raw("GET", "/v2/invoices", ["Host: 127.0.0.1:80:evil"]),
    ),
    Case(
        "host-with-user-info",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The Host header names a host this service does not serve.",
        raw=_raw("GET", "/v2/invoices", ["Host: evil.example@127.0.0.1"]),
    ),
    Case(
        "empty-host",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The Host header names a host this service does not serve.",
        raw=_raw("GET", "/v2/invoices", ["Host: "]),
    ),
    Case(
        "two-host-headers",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The Host header names a host this service does not serve.",
        raw=_raw("GET", "/v2/invoices", [HOST, "Host: evil.example"]),
    ),
    # Django checks the name and that the port is digits; the package, that it is a TCP port.
    Case(
        "host-port-of-20-digits",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The port of the Host header must be a number from 1 to 65535.",
        raw=_raw("GET", "/v2/invoices", ["Host: 127.0.0.1:99999999999999999999"]),
    ),
    Case(
        "host-port-0",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The port of the Host header must be a number from 1 to 65535.",
        raw=_raw("GET", "/v2/invoices", ["Host: 127.0.0.1:0"]),
    ),
    Case(
        "host-port-65536-keyed-payment",
        "POST",
        PAY,
        400,
        "invalid-host",
        "The port of the Host header must be a number from 1 to 65535.",
        raw=_raw(
            "POST",
            PAY,
            [
                "Host: 127.0.0.1:65536",
                "Content-Type: application/json",
                f"Idempotency-Key: {KEY}",
                f"Content-Length: {len(PAYMENT)}",
            ],
            PAYMENT,
        ),
    ),
    Case(
        "host-port-with-a-leading-zero",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The port of the Host header must be written without leading zeros.",
        raw=_raw("GET", "/v2/invoices", ["Host: 127.0.0.1:080"]),
    ),
    # Django's development server takes the whole absolute-form target as the path.
    Case(
        "absolute-form-target",
        "GET",
        "/v2/invoices",
        404,
        "not-found",
        "No resource matches GET /http:/evil.example/v2/invoices.",
        raw=_raw("GET", "http://evil.example/v2/invoices", [HOST]),
    ),
]


def _stored_records() -> int:
    """Idempotency records of any client, in whichever store is configured."""
    if api_settings.IDEMPOTENCY_STORE == "redis":
        return len(RedisStore().client.keys(KEY_PREFIX + "*"))
    return IdempotencyRecord.objects.count()


def _business_rows() -> tuple[int, int, int, int]:
    return Customer.objects.count(), Invoice.objects.count(), Payment.objects.count(), Order.objects.count()


@pytest.fixture
def invoice() -> Invoice:
    customer = Customer.objects.create(email="payer@example.com", name="Payer")
    return Invoice.objects.create(user=customer, amount_due=10_000, currency="eur")


@pytest.fixture
def problem_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.INFO, logger=PROBLEM_LOGGER):
        yield caplog


def _send(base_url: str, case: Case, invoice: Invoice) -> HTTPResult:
    path = case.path.format(invoice=invoice.pk)
    if case.raw is not None:
        return send_raw(base_url, case.raw.replace(b"{invoice}", invoice.pk.encode()))
    headers = {"X-Client-ID": CLIENT, "Accept": "text/html", **case.headers}
    return send(base_url, case.method, path, body=case.body, headers=headers)


def assert_rejected(result: HTTPResult, case: Case, log: pytest.LogCaptureFixture, before: tuple[int, ...]) -> None:
    body = assert_problem(result, case.status, case.slug)
    if case.detail.endswith("..."):
        assert body["detail"].startswith(case.detail[:-3]), body["detail"]
    else:
        assert body["detail"] == case.detail
    # Logged: one line naming what was answered, with the trace id; nothing the client sent.
    rejections = [r for r in log.records if r.name == PROBLEM_LOGGER and getattr(r, "trace_id", "") == body["trace_id"]]
    assert [(r.levelno, r.problem_type, r.status_code) for r in rejections] == [  # type: ignore[attr-defined]
        (logging.INFO, case.slug, case.status)
    ]
    assert not [r for r in log.records if r.levelno >= logging.ERROR], "a hostile request is no server error"
    for record in log.records:
        message = record.getMessage()
        assert KEY not in message and "k" * 256 not in message, message
    # Never stored: no idempotency record, no business row.
    assert _stored_records() == 0
    assert _business_rows() == before


@pytest.mark.usefixtures("store_name")
@pytest.mark.parametrize("case", BODY_CASES + KEY_CASES, ids=lambda case: case.id)
def test_hostile_bodies_and_keys_are_rejected_logged_and_not_stored(
    live_server: Any, invoice: Invoice, problem_log: pytest.LogCaptureFixture, case: Case
) -> None:
    before = _business_rows()
    result = _send(live_server.url, case, invoice)
    assert_rejected(result, case, problem_log, before)
    # The key is still free: the corrected request runs, once.
    if case in BODY_CASES:
        fixed = send(
            live_server.url,
            "POST",
            PAY.format(invoice=invoice.pk),
            body=PAYMENT,
            headers={**JSON, "X-Client-ID": CLIENT},
        )
        assert fixed.status == 201 and fixed.header("X-Cache-Lookup") == "MISS"


@pytest.mark.parametrize("case", QUERY_CASES + HOST_CASES, ids=lambda case: case.id)
def test_hostile_urls_and_hosts_are_rejected_and_logged(
    live_server: Any, invoice: Invoice, problem_log: pytest.LogCaptureFixture, case: Case
) -> None:
    result = _send(live_server.url, case, invoice)
    assert_rejected(result, case, problem_log, _business_rows())
    if case.id.startswith("host-port") and case.raw is not None:  # echoed nowhere, the type URL included
        host = case.raw.split(b"Host: ")[1].split(b"\r\n")[0]
        assert host not in result.body and host.decode() not in str(result.headers)


def _cursor(live_server: Any, path: str) -> str:
    result = send(live_server.url, "GET", path, headers={"X-Client-ID": CLIENT})
    cursor = result.json()["pagination"]["next_cursor"]
    assert cursor, result.body
    return str(cursor)


@pytest.fixture
def listed(invoice: Invoice) -> None:
    for number in range(3):
        Invoice.objects.create(user=invoice.user, amount_due=100 + number, currency="eur")
        Customer.objects.create(email=f"listed-{number}@example.com", name="Listed")
        Order.objects.create(user=invoice.user)
        Order.objects.create(user=invoice.user)


@pytest.mark.usefixtures("listed")
def test_stolen_cursors_are_rejected_and_logged(
    live_server: Any, invoice: Invoice, problem_log: pytest.LogCaptureFixture
) -> None:
    cursor = _cursor(live_server, "/v2/invoices?limit=1")
    body = cursor.split(".")[0]
    # The same payload, its MAC made with another secret.
    resigned = (
        body
        + "."
        + base64.urlsafe_b64encode(hmac.new(b"not-the-secret", body.encode(), hashlib.sha256).digest())
        .rstrip(b"=")
        .decode()
    )
    not_issued = "The cursor was not issued by this service or was altered."
    cases = [
        ("truncated", f"/v2/invoices?limit=1&cursor={cursor[:-7]}", not_issued),
        ("re-signed-with-another-secret", f"/v2/invoices?limit=1&cursor={resigned}", not_issued),
        ("another-endpoint", f"/v2/orders?limit=1&cursor={cursor}", "The cursor was issued for another list."),
        ("another-version", f"/v1/invoices?limit=1&cursor={cursor}", "The cursor was issued for another list."),
        (
            "other-filters",
            f"/v2/invoices?limit=1&status=open&cursor={cursor}",
            "The cursor was issued for other filters: send the same filters as for the page before.",
        ),
        (
            "search-cursor-on-the-list",
            "/v2/invoices?limit=1&cursor="
            + send(
                live_server.url,
                "POST",
                "/v2/invoices/search",
                json_body={"any": [{"status": "open"}], "limit": 1},
            ).json()["pagination"]["next_cursor"],
            "The cursor was issued for another list.",
        ),
    ]
    before = _business_rows()
    for name, path, detail in cases:
        case = Case(name, "GET", path, 400, "invalid-cursor", detail)
        assert_rejected(_send(live_server.url, case, invoice), case, problem_log, before)
    # The genuine cursor still works where it was issued.
    assert send(live_server.url, "GET", f"/v2/invoices?limit=1&cursor={cursor}").status == 200


def test_forwarded_host_is_ignored_unless_trusted(
    live_server: Any, invoice: Invoice, problem_log: pytest.LogCaptureFixture, settings: Any
) -> None:
    forwarded = {"X-Forwarded-Host": "evil.example", "X-Client-ID": CLIENT}
    created = send(
        live_server.url, "POST", "/v2/users", json_body={"email": "x@example.com", "name": "X"}, headers=forwarded
    )
    assert created.status == 201 and "evil" not in (created.header("Location") or "")
    listed = send(live_server.url, "GET", "/v2/invoices?limit=1", headers=forwarded)
    assert listed.status == 200 and b"evil" not in listed.body and "evil" not in str(listed.headers)
    settings.USE_X_FORWARDED_HOST = True
    case = Case(
        "trusted-forwarded-host",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The Host header names a host this service does not serve.",
        headers=forwarded,
    )
    assert_rejected(_send(live_server.url, case, invoice), case, problem_log, _business_rows())


GUNICORN_CASES = [
    # Django's development server would wait for the body to drain it; gunicorn answers at once.
    Case(
        "content-length-over-the-limit-body-never-sent",
        "POST",
        PAY,
        413,
        "request-too-large",
        f"The request body exceeds the limit of {MAX_BODY} bytes.",
        raw=_raw(
            "POST",
            PAY,
            [HOST, "Content-Type: application/json", f"Idempotency-Key: {KEY}", f"Content-Length: {10 * MAX_BODY}"],
        ),
    ),
    # gunicorn de-chunks the body but sets no CONTENT_LENGTH: Django would read it as empty.
    *[c for c in BODY_CASES if c.id.startswith("chunked")],
    Case(
        "absolute-form-target",
        "GET",
        "/v2/invoices",
        400,
        "invalid-host",
        "The absolute-form request target names another host than the Host header.",
        raw=_raw("GET", "http://evil.example/v2/invoices", [HOST]),
    ),
    Case(
        "absolute-form-target-keyed-payment",
        "POST",
        PAY,
        400,
        "invalid-host",
        "The absolute-form request target names another host than the Host header.",
        raw=_raw(
            "POST",
            f"http://evil.example{PAY}",
            [HOST, "Content-Type: application/json", f"Idempotency-Key: {KEY}", f"Content-Length: {len(PAYMENT)}"],
            PAYMENT,
        ),
    ),
    *[c for c in KEY_CASES if c.id.startswith("drf-view") and "folded" not in c.id],
    *[c for c in HOST_CASES if c.id not in ("absolute-form-target", "two-host-headers")],
]

# gunicorn itself refuses these with its own 400 page, before any application code runs.
GUNICORN_REFUSED = {
    "bare-cr-in-key": _raw(
        "POST",
        PAY,
        [HOST, "Content-Type: application/json", "Idempotency-Key: abc\rdef", f"Content-Length: {len(PAYMENT)}"],
        PAYMENT,
    ),
    "folded-key": _raw(
        "POST",
        PAY,
        [HOST, "Content-Type: application/json", "Idempotency-Key: abc\r\n def", f"Content-Length: {len(PAYMENT)}"],
        PAYMENT,
    ),
    "two-host-headers": _raw("GET", "/v2/invoices", [HOST, "Host: evil.example"]),
    "content-length-and-chunked": _raw(
        "POST",
        PAY,
        [
            HOST,
            "Content-Type: application/json",
            f"Idempotency-Key: {KEY}",
            "Transfer-Encoding: chunked",
            "Content-Length: 5",
        ],
        _chunked(PAYMENT),
    ),
}


@pytest.mark.postgres
def test_what_only_gunicorn_shows(invoice: Invoice) -> None:
    before = _business_rows()
    with gunicorn(workers=1) as server:
        failures = []
        for case in GUNICORN_CASES:
            result = _send(server.url, case, invoice)
            body = assert_problem(result, case.status, case.slug)
            if not (
                body["detail"] == case.detail
                or (case.detail.endswith("...") and body["detail"].startswith(case.detail[:-3]))
            ):
                failures.append((case.id, body["detail"]))
        for name, request in GUNICORN_REFUSED.items():
            result = send_raw(server.url, request.replace(b"{invoice}", invoice.pk.encode()))
            if result.status != 400:
                failures.append((name, result.status, result.body[:200]))
        assert not failures, failures
        # The corrected request with the same key runs once: nothing above claimed it.
        fixed = send(
            server.url, "POST", PAY.format(invoice=invoice.pk), body=PAYMENT, headers={**JSON, "X-Client-ID": CLIENT}
        )
        assert fixed.status == 201 and fixed.header("X-Cache-Lookup") == "MISS", fixed.body
    assert IdempotencyRecord.objects.count() == 1
    customers, invoices, payments, orders = _business_rows()
    assert (customers, invoices, payments - 1, orders) == before


def test_the_rejection_log_line_names_no_request_content(
    live_server: Any, invoice: Invoice, problem_log: pytest.LogCaptureFixture
) -> None:
    # A path cannot forge a second log line.
    result = send(live_server.url, "GET", "/v2/%0d%0aFORGED%20line%00?x=" + "secret-query")
    body = result.json()
    line = next(
        r for r in problem_log.records if getattr(r, "trace_id", "") == body["trace_id"] and r.name == PROBLEM_LOGGER
    )
    message = line.getMessage()
    assert "\r" not in message and "\n" not in message and "\x00" not in message
    assert "secret-query" not in message
    assert message.startswith("Rejected GET /v2/\\r\\nFORGED line\\x00: 400 ")


def test_a_json_body_is_parsed_before_the_view_only_when_keyed(live_server: Any) -> None:
    # Without a key the view parses its body itself, as DRF always does.
    result = send(live_server.url, "POST", "/v2/users", body=b"{", headers={"Content-Type": "application/json"})
    assert_problem(result, 400, "malformed-request")
    assert json.loads(result.body)["detail"].startswith("Malformed JSON")
    assert not Customer.objects.exists()


class FormCreateView(IdempotencyMixin, APIView):
    parser_classes = [FormParser, MultiPartParser]
    runs = 0

    def post(self, request: Any) -> Response:
        FormCreateView.runs += 1
        return Response({"fields": sorted(request.data), "files": sorted(request.FILES)}, status=201)


@pytest.mark.parametrize("form", ["urlencoded", "multipart"])
def test_keyed_form_bodies_are_parsed_before_the_view_and_still_fingerprinted(form: str) -> None:
    # Form bodies are not read into memory before DRF parses them (a multipart upload streams to
    # disk): the fingerprint reads request.POST and request.FILES, which DRF fills.
    factory = APIRequestFactory()
    view = FormCreateView.as_view()
    FormCreateView.runs = 0

    def post(name: str) -> Any:
        if form == "multipart":
            upload = SimpleUploadedFile("a.txt", name.encode())
            request = factory.post("/forms", {"name": name, "file": upload}, format="multipart")
        else:
            request = factory.post("/forms", f"name={name}", content_type="application/x-www-form-urlencoded")
        request.META["HTTP_IDEMPOTENCY_KEY"] = KEY
        return view(request)

    first, again, other = post("a"), post("a"), post("b")
    assert (first.status_code, again.status_code, other.status_code) == (201, 201, 422)
    assert again["X-Cache-Lookup"] == "HIT" and FormCreateView.runs == 1


class CountingJSONParser(JSONParser):
    parsed = 0

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        CountingJSONParser.parsed += 1
        return super().parse(stream, media_type, parser_context)


class JSONCreateView(IdempotencyMixin, APIView):
    parser_classes = [CountingJSONParser]

    def post(self, request: Any) -> Response:
        return Response({"name": request.data["name"]}, status=201)


def test_a_keyed_body_is_parsed_once_its_key_is_claimed_and_a_replay_never_parses() -> None:
    view, factory = JSONCreateView.as_view(), APIRequestFactory()
    CountingJSONParser.parsed = 0

    def post(body: bytes, key: str) -> Any:
        request = factory.post("/json", body, content_type="application/json")
        request.META["HTTP_IDEMPOTENCY_KEY"] = key
        return view(request)

    malformed = post(b'{"name": ', KEY)
    assert malformed.status_code == 400 and CountingJSONParser.parsed == 1
    first = post(b'{"name": "a"}', KEY)  # the refused body left the key free
    assert (first.status_code, first["X-Cache-Lookup"], CountingJSONParser.parsed) == (201, "MISS", 2)
    replay = post(b'{ "name" : "a" }', KEY)
    assert (replay.status_code, replay["X-Cache-Lookup"], CountingJSONParser.parsed) == (201, "HIT", 2)
    assert replay.content == first.content
    assert post(b'{"name": ', KEY).status_code == 422  # another body than the key's: reused, not parsed
    assert CountingJSONParser.parsed == 2


# A wildcard is no media type: DRF's negotiation matched */* and application/* with the JSON
# parser and charged the payment (201).
@pytest.mark.parametrize("content_type", ["text/plain", "*/*", "application/*", "*/json", "*/*; charset=utf-8"])
def test_a_keyed_body_of_another_media_type_is_415_and_not_stored(
    live_server: Any, invoice: Invoice, problem_log: pytest.LogCaptureFixture, content_type: str
) -> None:
    case = Case(
        "other-media-type-body",
        "POST",
        PAY,
        415,
        "unsupported-media-type",
        f'Unsupported media type "{content_type}" in request. Accepted: application/json, any type ending in +json.',
        body=PAYMENT,
        headers={**JSON, "Content-Type": content_type},
    )
    assert_rejected(_send(live_server.url, case, invoice), case, problem_log, _business_rows())
    # The key was not consumed: the same key with the body's real type is charged once.
    answer = send(
        live_server.url, "POST", PAY.format(invoice=invoice.pk), body=PAYMENT, headers={"X-Client-ID": CLIENT, **JSON}
    )
    assert answer.status == 201 and answer.header("X-Cache-Lookup") == "MISS"


@pytest.mark.parametrize(
    ("variable", "target", "status"),
    [
        ("RAW_URI", "http://evil.example/v2/invoices", 400),  # gunicorn
        ("REQUEST_URI", "http://user@evil.example:80/v2/invoices", 400),  # uWSGI
        ("RAW_URI", "http://TestServer:8000/v2/invoices", 200),  # the Host header's own host
        ("RAW_URI", "/v2/invoices", 200),
        ("RAW_URI", "*", 200),
    ],
)
def test_an_absolute_form_target_must_name_the_host_header_host(variable: str, target: str, status: int) -> None:
    # The same check as the gunicorn test above, in process, for the servers' two spellings.
    response = Client().get("/v2/invoices", **{variable: target})
    assert response.status_code == status
    if status == 400:
        assert response.json()["detail"] == (
            "The absolute-form request target names another host than the Host header."
        )
