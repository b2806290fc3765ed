"""The reverse-proxy recipe (deploy/nginx/, docs/deployment.md) end to end.

The example service under gunicorn (2 sync workers, deploy/gunicorn.conf.py) behind nginx
rendered from the template, both on loopback ports. Every answer nginx gives itself is a
problem with a trace id; what gunicorn alone answers in HTML (a request line over 4,094
bytes, more than 100 headers) reaches the application; what gunicorn still refuses (a control
character in a header value, two Content-Type headers) becomes nginx's problem; a slow or
short body never holds a worker. Raw sockets send what no HTTP client would.
"""

from __future__ import annotations

import http.client
import importlib
import json
import re
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import global_settings

from django_api_conventions.problems.types import problem_types
from django_api_conventions.tracing.trace_ids import _REQUEST_ID

from .example_service import Service, example_service
from .http import HTTPResult, send, send_raw
from .problem_assertions import assert_problem
from .reverse_proxy import API_TEMPLATE, GUNICORN_CONFIG, NO_DEPRECATIONS, Nginx, nginx_front, render
from .servers import free_port

NGINX_ID = re.compile(r"[0-9a-f]{32}")  # nginx's $request_id
CLIENT_TIMEOUT = 1.0  # seconds: the rendered client_body_timeout
HOST = b"Host: 127.0.0.1\r\n"


# -- The template itself: no nginx needed ------------------------------------------------------


def _template_problems() -> dict[int, dict[str, object]]:
    text = render(
        API_TEMPLATE.read_text(),
        listen="127.0.0.1:1",
        upstream="127.0.0.1:2",
        access_log="off",
        problem_base_url="https://api.example.com/problems",
        client_timeout="10s",
        upstream_timeout="60s",
        **NO_DEPRECATIONS,
    )
    bodies = re.findall(r"location = /_api_problem/(\d+) \{.*?return \1 '(.*?)\\n';", text, re.S)
    return {int(status): json.loads(body.replace("$api_trace_id", "0" * 32)) for status, body in bodies}


def test_every_problem_of_the_template_is_a_registered_type_with_its_title() -> None:
    problems = _template_problems()
    text = API_TEMPLATE.read_text()
    assert sorted(problems) == [400, 403, 404, 405, 411, 413, 414, 431, 500, 501, 502, 503, 504, 505]
    for status, body in problems.items():
        slug = str(body["type"]).removeprefix("https://api.example.com/problems/")
        registered = problem_types[slug]
        assert (body["title"], body["status"]) == (registered.title, status) and registered.status == status, slug
        assert body["instance"] == f"urn:request:{'0' * 32}" and body["trace_id"] == "0" * 32
        sent_for = "494 =431" if status == 431 else str(status)
        assert f"error_page {sent_for} /_api_problem/{status};" in text


def test_every_problem_of_the_template_says_its_language() -> None:
    text = API_TEMPLATE.read_text()
    locations = re.findall(r"location = /_api_problem/\d+ \{(.*?)\n    \}", text, re.S)
    assert len(locations) == len(_template_problems())
    assert all("add_header Content-Language en always;" in location for location in locations)


def test_the_400_details_are_json_strings_and_gunicorn_names_one_of_them() -> None:
    text = API_TEMPLATE.read_text()
    [block] = re.findall(r"map \$args \$api_bad_request_detail \{\n(.*?)\n\}", text, re.S)
    details = dict(re.findall(r'^\s*(\S+) "(.*)";$', block, re.M))
    assert set(details) == {"refused=target", "refused=method", "refused=service", "default"}
    for detail in details.values():
        assert json.loads(f'"{detail}"') == detail and "$" not in detail
    # The refusal kinds location / sends, and the one gunicorn sends back with X-Accel-Redirect.
    assert {f"refused={kind}" for kind in re.findall(r"^\s+\S+ (target|method);$", text, re.M)} == {
        "refused=target",
        "refused=method",
    }
    assert "X-Accel-Redirect: /_api_problem/400?refused=service\\r\\n" in GUNICORN_CONFIG.read_text()


def test_the_template_limits_and_trace_id_pattern_are_the_applications() -> None:
    text = API_TEMPLATE.read_text()
    example = importlib.import_module("testproject.settings")
    limit = getattr(example, "DATA_UPLOAD_MAX_MEMORY_SIZE", global_settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    assert f"client_max_body_size {limit};" in text
    assert _template_problems()[413]["limit_bytes"] == limit
    # The caller's X-Request-ID is kept exactly when the application would keep it.
    [pattern] = re.findall(r'map \$http_x_request_id \$api_trace_id \{\s*"~\^(.*?)\$"', text)
    assert pattern == _REQUEST_ID.pattern


# -- nginx in front of gunicorn --------------------------------------------------------------


@dataclass
class Front:
    service: Service
    nginx: Nginx

    @property
    def url(self) -> str:
        return self.nginx.url

    def log_line(self, trace_id: str) -> str:
        for _ in range(50):  # nginx writes the line once the response is sent
            lines = [line for line in self.nginx.log_lines() if f"trace_id={trace_id} " in line]
            if lines:
                return lines[-1]
            time.sleep(0.02)
        raise AssertionError(f"no access log line for {trace_id}")


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    folder = tmp_path_factory.mktemp("nginx-front")
    with example_service("sqlite", folder, gunicorn_options=["-c", str(GUNICORN_CONFIG)]) as service:
        upstream = service.url.removeprefix("http://")
        maps = json.loads(service.manage("deprecations", "--nginx"))
        with nginx_front(
            upstream, folder / "nginx", client_timeout=f"{CLIENT_TIMEOUT:g}s", deprecation_maps=maps
        ) as nginx:
            yield Front(service, nginx)


def _line(target: bytes, length: int) -> bytes:
    """A GET request line of exactly ``length`` bytes (without CR LF) with ``target`` padded by digits."""
    padding = length - len(b"GET  HTTP/1.1") - len(target)
    return b"GET " + target + b"1" * padding + b" HTTP/1.1"


def _nginx_problem(front: Front, result: HTTPResult, status: int, slug: str) -> dict[str, object]:
    """A problem nginx answered itself: no request reached the application."""
    body = assert_problem(result, status, slug)
    assert result.header("Content-Language") == "en"  # its text is English whatever the client asks
    assert NGINX_ID.fullmatch(str(body["trace_id"])), body["trace_id"]
    assert " upstream_status=- " in front.log_line(str(body["trace_id"]))
    return body


NGINX_CASES = {
    "request-line-over-nginx-limit": (_line(b"/v2/users?limit=", 8191) + b"\r\n" + HOST + b"\r\n", 414, "uri-too-long"),
    "header-line-of-9000-bytes": (
        b"GET /v2/users HTTP/1.1\r\n" + HOST + b"X-Big: " + b"a" * 9000 + b"\r\n\r\n",
        431,
        "request-headers-too-large",
    ),
    "headers-over-32-kib": (
        b"GET /v2/users HTTP/1.1\r\n"
        + HOST
        + b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(400))
        + b"\r\n",
        431,
        "request-headers-too-large",
    ),
    "nul-in-a-header": (b"GET /v2/users HTTP/1.1\r\n" + HOST + b"X-Note: a\x00b\r\n\r\n", 400, "bad-request"),
    "bad-content-length": (
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b"Content-Length: 12abc\r\n\r\n",
        400,
        "bad-request",
    ),
    "two-content-lengths": (
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        400,
        "bad-request",
    ),
    "lower-case-method": (b"get /v2/users HTTP/1.1\r\n" + HOST + b"\r\n", 400, "bad-request"),
    "garbage-request-line": (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n", 400, "bad-request"),
    "trace-method": (b"TRACE /v2/users HTTP/1.1\r\n" + HOST + b"\r\n", 405, "method-not-allowed"),
    "body-over-the-limit": (
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\nContent-Length: 2621441\r\n\r\n",
        413,
        "request-too-large",
    ),
    "unknown-transfer-coding": (
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: gzip\r\n\r\n",
        501,
        "http-501",
    ),
    "http-2-request-line": (b"GET /v2/users HTTP/2.0\r\n" + HOST + b"\r\n", 505, "http-505"),
    "an-error-page-asked-for": (b"GET /_api_problem/502 HTTP/1.1\r\n" + HOST + b"\r\n", 404, "not-found"),
}


@pytest.mark.nginx
@pytest.mark.parametrize("case", sorted(NGINX_CASES))
def test_what_nginx_refuses_is_a_problem_with_a_trace_id(front: Front, case: str) -> None:
    request, status, slug = NGINX_CASES[case]
    body = _nginx_problem(front, send_raw(front.url, request), status, slug)
    if status == 413:
        assert body["limit_bytes"] == 2621440
    if status == 400:
        assert str(body["detail"]).startswith("The proxy in front of the service could not parse the request")
    # Its type is a page the service serves.
    assert send(front.url, "GET", "/" + str(body["type"]).split("/", 3)[3]).status == 200


@pytest.mark.nginx
@pytest.mark.parametrize("length", [4095, 5040, 8190])
def test_a_long_query_reaches_the_application_which_names_the_parameter(front: Front, length: int) -> None:
    # gunicorn alone answers a request line over 4,094 bytes with an HTML 414. Behind nginx,
    # up to nginx's 8,190, the application answers, and names the parameter.
    result = send_raw(front.url, _line(b"/v2/users?limit=", length) + b"\r\n" + HOST + b"\r\n")
    body = assert_problem(result, 400, "invalid-parameters")
    assert body["errors"][0]["parameter"] == "limit"
    assert " upstream_status=400 " in front.log_line(str(body["trace_id"]))


@pytest.mark.nginx
def test_more_headers_than_gunicorn_allows_by_default_reach_the_application(front: Front) -> None:
    headers = b"".join(b"X-H%d: v\r\n" % i for i in range(150))  # gunicorn's default limit: 100
    result = send_raw(front.url, b"GET /v2/users?limit=1 HTTP/1.1\r\n" + HOST + headers + b"Connection: close\r\n\r\n")
    assert result.status == 200, result.body[:300]
    assert len(result.json()["data"]) == 1


@pytest.mark.nginx
def test_nginx_request_id_is_the_applications_trace_id(front: Front) -> None:
    result = send(front.url, "GET", "/no-such-path")
    body = assert_problem(result, 404, "not-found")
    assert NGINX_ID.fullmatch(body["trace_id"])
    line = front.log_line(body["trace_id"])
    assert f"request_id={body['trace_id']} " in line and " upstream_status=404 " in line  # the application's 404


@pytest.mark.nginx
def test_the_callers_trace_id_is_honoured_by_nginx_and_by_the_application(front: Front) -> None:
    theirs = {"X-Request-ID": "client-42.a:b"}
    missing = send(front.url, "GET", "/no-such-path", headers=theirs)
    assert assert_problem(missing, 404, "not-found")["trace_id"] == "client-42.a:b"
    big = send_raw(
        front.url,
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b"X-Request-ID: client-42.a:b\r\nContent-Length: 9999999\r\n\r\n",
    )
    assert assert_problem(big, 413, "request-too-large")["trace_id"] == "client-42.a:b"
    traceparent = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
    traced = send(front.url, "GET", "/no-such-path", headers=traceparent)
    assert traced.header("X-Request-ID") == "0af7651916cd43dd8448eb211c80319c"
    # An id the application would not take is replaced, so it cannot break the JSON nginx writes.
    forged = send_raw(
        front.url,
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b'X-Request-ID: a","status":200,"x":"\r\n'
        b"Content-Length: 9999999\r\n\r\n",
    )
    assert NGINX_ID.fullmatch(assert_problem(forged, 413, "request-too-large")["trace_id"])


@pytest.mark.nginx
def test_the_admin_and_a_chunked_body_work_through_nginx(front: Front) -> None:
    admin = send(front.url, "GET", "/admin/login/", headers={"Accept": "text/html"})
    assert admin.status == 200 and admin.header("Content-Type").startswith("text/html")
    # nginx reads a chunked body whole and passes it on with a Content-Length.
    body = b'{"email": "chunked@example.com", "name": "Chunked"}'
    created = send_raw(
        front.url,
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
        b"Idempotency-Key: nginx-chunked-1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + b"%x\r\n" % len(body)
        + body
        + b"\r\n0\r\n\r\n",
    )
    assert created.status == 201, created.body[:300]


def _stall(url: str, *, declared: int = 1000, sent: int = 500) -> socket.socket:
    """A connection that sends half of its body, then nothing (a keyed POST: its view reads the body)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.sendall(
        b"POST /v2/users HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
        b"Idempotency-Key: stalled-%s\r\n"
        % uuid.uuid4().hex.encode()
        + b"Content-Length: %d\r\n\r\n" % declared
        + b" " * sent
    )
    return sock


@pytest.mark.nginx
def test_a_body_shorter_than_its_content_length_is_dropped_after_the_client_timeout(front: Front) -> None:
    # nginx never sends a 408: on client_body_timeout it closes the connection, and logs 408
    # with the trace id. No worker was held meanwhile (nothing reached the application).
    sock = _stall(front.url)
    started = time.monotonic()
    with sock:
        assert sock.recv(65536) == b""  # closed by nginx, nothing sent
    assert CLIENT_TIMEOUT * 0.9 <= time.monotonic() - started < CLIENT_TIMEOUT + 2
    lines = [line for line in front.nginx.log_lines() if '"POST /v2/users HTTP/1.1" 408 ' in line]
    assert lines and " upstream_status=- " in lines[-1]
    assert re.search(r" trace_id=[0-9a-f]{32} ", lines[-1])


def _timed_get(url: str, timeout: float) -> float:
    """Seconds until GET /v2/users?limit=1 answers 200; raises TimeoutError past ``timeout``."""
    host, port = url.removeprefix("http://").split(":")
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request("GET", "/v2/users?limit=1", headers={"Accept": "application/json"})
        assert connection.getresponse().status == 200
    finally:
        connection.close()
    return time.monotonic() - started


@pytest.mark.nginx
def test_stalled_bodies_hold_no_worker_behind_nginx(front: Front) -> None:
    stalled = [_stall(front.url) for _ in range(4)]  # twice gunicorn's 2 workers
    try:
        time.sleep(0.2)  # they have all reached nginx
        assert _timed_get(front.url, timeout=2) < 2
    finally:
        for sock in stalled:
            sock.close()
    # Without nginx, the same stalled bodies hold both sync workers: the request waits.
    stalled = [_stall(front.service.url) for _ in range(4)]
    try:
        time.sleep(0.2)
        with pytest.raises(TimeoutError):
            _timed_get(front.service.url, timeout=1.5)
    finally:
        for sock in stalled:
            sock.close()
    assert _timed_get(front.service.url, timeout=10) < 10  # the workers are free again


@pytest.mark.nginx
def test_an_application_down_or_silent_is_a_502_or_504_problem(front: Front, tmp_path: Path) -> None:
    nothing = f"127.0.0.1:{free_port()}"  # no one listens there
    with nginx_front(nothing, tmp_path / "down") as nginx:
        down = send(nginx.url, "POST", "/v2/orders", json_body={})
    body = assert_problem(down, 502, "bad-gateway")
    assert NGINX_ID.fullmatch(body["trace_id"]) and down.header("Retry-After") == "5"
    # A listening socket that never accepts: nginx connects, sends, and waits for an answer.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        upstream = f"127.0.0.1:{silent.getsockname()[1]}"
        with nginx_front(upstream, tmp_path / "silent", upstream_timeout="1s") as nginx:
            started = time.monotonic()
            late = send(nginx.url, "GET", "/v2/users")
            assert time.monotonic() - started < 5
    assert NGINX_ID.fullmatch(assert_problem(late, 504, "gateway-timeout")["trace_id"])


# -- What gunicorn would refuse with its own HTML page ----------------------------------------

FRONT_REFUSES = {
    # gunicorn refuses a target with a byte outside printable ASCII; nginx passes UTF-8 on.
    "non-ascii-path": b"GET /v2/us\xc3\xa9rs HTTP/1.1\r\n" + HOST + b"\r\n",
    "non-ascii-query": b"GET /v2/users?limit=\xc3\xa9 HTTP/1.1\r\n" + HOST + b"\r\n",
    # gunicorn refuses a method outside 3 to 20 characters; nginx takes any length.
    "method-of-21-characters": b"ABCDEFGHIJKLMNOPQRSTU /v2/users HTTP/1.1\r\n" + HOST + b"\r\n",
    "method-of-2-characters": b"AB /v2/users HTTP/1.1\r\n" + HOST + b"\r\n",
}
_POST = b"POST /v2/users HTTP/1.1\r\n" + HOST + b"Content-Length: 2\r\n"
SERVICE_REFUSES = {
    # nginx refuses only NUL and a bare CR in a header value; gunicorn refuses every control
    # character but tab, in any header, which nginx (without a module) cannot list.
    "control-character-0x01": b"GET /v2/users HTTP/1.1\r\n" + HOST + b"X-Note: a\x01b\r\n\r\n",
    "control-character-0x1f": b"GET /v2/users HTTP/1.1\r\n" + HOST + b"X-Note: a\x1fb\r\n\r\n",
    "control-character-0x7f": b"GET /v2/users HTTP/1.1\r\n" + HOST + b"X-Note: a\x7fb\r\n\r\n",
    "control-character-in-idempotency-key": _POST + b"Content-Type: application/json\r\n"
    b"Idempotency-Key: key\x01one\r\n\r\n{}",
    "control-character-in-a-repeated-idempotency-key": _POST + b"Content-Type: application/json\r\n"
    b"Idempotency-Key: fine\r\nIdempotency-Key: k\x1f\r\n\r\n{}",
    # nginx 1.22 keeps the first of two Content-Type headers; gunicorn refuses the pair.
    "two-content-types": _POST + b"Content-Type: application/json\r\nContent-Type: text/plain\r\n\r\n{}",
}


@pytest.mark.nginx
@pytest.mark.parametrize("case", sorted(FRONT_REFUSES))
def test_what_gunicorn_would_refuse_nginx_refuses_as_a_problem(front: Front, case: str) -> None:
    result = send_raw(front.url, FRONT_REFUSES[case])
    body = _nginx_problem(front, result, 400, "bad-request")
    assert ("percent-encode" if "ascii" in case else "method") in str(body["detail"])


@pytest.mark.nginx
@pytest.mark.parametrize("case", sorted(SERVICE_REFUSES))
def test_what_gunicorn_refuses_behind_nginx_is_nginx_problem(front: Front, case: str) -> None:
    # gunicorn's own refusal is handed back to nginx, which answers its problem: the trace id
    # is the one nginx logged and sent to gunicorn, never an HTML page.
    result = send_raw(front.url, SERVICE_REFUSES[case])
    body = assert_problem(result, 400, "bad-request")
    assert result.header("Content-Language") == "en"
    assert NGINX_ID.fullmatch(str(body["trace_id"])), body["trace_id"]
    assert "control character" in str(body["detail"]) and "Content-Type" in str(body["detail"])
    assert " upstream_status=400 " in front.log_line(str(body["trace_id"]))
    # The caller's own trace id is kept the same way.
    traced = send_raw(front.url, SERVICE_REFUSES[case].replace(HOST, HOST + b"X-Request-ID: caller-7\r\n"))
    assert assert_problem(traced, 400, "bad-request")["trace_id"] == "caller-7"


@pytest.mark.nginx
def test_without_nginx_gunicorns_own_refusal_is_still_a_problem(front: Front) -> None:
    result = send_raw(front.service.url, SERVICE_REFUSES["control-character-0x01"])
    assert result.status == 400 and result.header("Content-Type") == "application/problem+json"
    body = result.json()
    assert body.keys() >= {"type", "title", "status", "detail", "instance", "trace_id"} and body["status"] == 400
    assert NGINX_ID.fullmatch(body["trace_id"]) and body["trace_id"] == result.header("X-Request-ID")
    assert body["instance"] == f"urn:request:{body['trace_id']}" and result.header("Content-Language") == "en"


@pytest.mark.nginx
@pytest.mark.parametrize("header", [b"X-Forwarded-Ssl: on", b"X-Forwarded-Protocol: ssl"])
def test_a_clients_scheme_header_neither_breaks_nor_fools_the_service(front: Front, header: bytes) -> None:
    # gunicorn trusts the scheme headers of the proxy (loopback) and refuses contradictory
    # ones: nginx sets X-Forwarded-Proto and drops the others a client sends.
    missing = send_raw(front.url, b"GET /no-such-path HTTP/1.1\r\n" + HOST + header + b"\r\n\r\n")
    body = assert_problem(missing, 404, "not-found")
    assert str(body["type"]).startswith("http://"), body["type"]  # not taken for HTTPS
    assert " upstream_status=404 " in front.log_line(str(body["trace_id"]))
    listed = send_raw(
        front.url, b"GET /v2/users?limit=1 HTTP/1.1\r\n" + HOST + header + b"\r\nConnection: close\r\n\r\n"
    )
    assert listed.status == 200, listed.body[:300]


# -- Deprecation headers, long queries, read-only pages through nginx ----------------------------

DEPRECATION_HEADERS = ("Deprecation", "Sunset", "Link")
NGINX_ANSWERS_UNDER_V1 = {
    413: b"POST /v1/users HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\nContent-Length: 2621441\r\n\r\n",
    # Not 414: nginx answers it before it has read the whole target, so it cannot tell the
    # version (docs/deployment.md).
    431: b"GET /v1/users HTTP/1.1\r\n" + HOST + b"X-Big: " + b"a" * 9000 + b"\r\n\r\n",
    405: b"TRACE /v1/users HTTP/1.1\r\n" + HOST + b"\r\n",
}


def _v1_headers(url: str) -> dict[str, str | None]:
    """The deprecation headers the service itself sends on v1."""
    answer = send(url, "GET", "/v1")  # the version's root: no pagination link beside them
    assert answer.status == 200 and answer.header("Deprecation"), answer.body[:300]
    return {name: answer.header(name) for name in DEPRECATION_HEADERS}


@pytest.mark.nginx
@pytest.mark.parametrize("status", sorted(NGINX_ANSWERS_UNDER_V1))
def test_nginx_own_answers_under_v1_carry_its_deprecation_headers(front: Front, status: int) -> None:
    answer = send_raw(front.url, NGINX_ANSWERS_UNDER_V1[status])
    assert answer.status == status and " upstream_status=- " in front.log_line(str(answer.json()["trace_id"]))
    assert {name: answer.header(name) for name in DEPRECATION_HEADERS} == _v1_headers(front.url)
    # Under the current version, nothing is deprecated.
    current = send_raw(front.url, NGINX_ANSWERS_UNDER_V1[status].replace(b"/v1/", b"/v2/", 1))
    assert current.status == status and all(current.header(name) is None for name in DEPRECATION_HEADERS)


@pytest.mark.nginx
def test_nginx_502_and_504_under_v1_carry_its_deprecation_headers(front: Front, tmp_path: Path) -> None:
    maps = json.loads(front.service.manage("deprecations", "--nginx"))
    expected = _v1_headers(front.url)
    nothing = f"127.0.0.1:{free_port()}"
    with nginx_front(nothing, tmp_path / "down", deprecation_maps=maps) as nginx:
        down = send(nginx.url, "GET", "/v1/users")
    assert down.status == 502 and {name: down.header(name) for name in DEPRECATION_HEADERS} == expected
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        upstream = f"127.0.0.1:{silent.getsockname()[1]}"
        with nginx_front(upstream, tmp_path / "silent", upstream_timeout="1s", deprecation_maps=maps) as nginx:
            late = send(nginx.url, "GET", "/v1")
    assert late.status == 504 and {name: late.header(name) for name in DEPRECATION_HEADERS} == expected


def _long_list_target(path: bytes, length: int) -> bytes:
    """``path`` with an ordinary status filter repeated (``status=open,open,...``) for a request
    line of exactly ``length`` bytes: a `,` the service re-encodes as `%2C` in its Link."""
    target = path + b"&status=open"
    room = length - len(b"GET  HTTP/1.1") - len(target)
    units, extra = divmod(room, 5)
    assert units >= extra
    return target + b",draft" * extra + b",open" * (units - extra)


@pytest.mark.nginx
@pytest.mark.parametrize("version", [b"v1", b"v2"])
def test_a_list_query_as_long_as_nginx_accepts_gets_the_services_answer(front: Front, version: bytes) -> None:
    def get(url: str, target: bytes) -> HTTPResult:
        return send_raw(url, b"GET " + target + b" HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")

    # The first page's cursor, for the same filters; the cursor of the second page is as long.
    cursor = b"x" * 300
    filters = _long_list_target(b"/" + version + b"/invoices?limit=1&cursor=" + cursor, 8190)
    filters = filters.split(b"&", 2)[2]  # limit=1&cursor=... off: the filters alone
    first = get(front.url, b"/" + version + b"/invoices?limit=1&" + filters)
    assert first.status == 200, first.body[:300]
    cursor = first.json()["pagination"]["next_cursor"].encode()
    target = b"/" + version + b"/invoices?limit=1&cursor=" + cursor + b"&" + filters
    assert len(b"GET  HTTP/1.1") + len(target) <= 8190
    # A second page: its Link has next and prev, each repeating the whole query, re-encoded.
    answer = get(front.url, target)
    assert answer.status == 200, answer.body[:300]
    link = answer.header("Link") or ""
    assert 'rel="next"' in link and 'rel="prev"' in link and len(link) > 2 * 8000, len(link)
    # gunicorn alone answers the same.
    assert get(front.service.url, target).status == 200


READ_ONLY_PAGES = [
    "/docs",
    "/docs/assets/swagger-ui-dist/swagger-ui.css",
    "/problems/not-found",
    "/guides/migrating-to-v2",
]


@pytest.mark.nginx
@pytest.mark.parametrize("where", ["nginx", "gunicorn"])
@pytest.mark.parametrize("path", READ_ONLY_PAGES)
def test_the_read_only_pages_answer_each_method_with_allow(front: Front, path: str, where: str) -> None:
    url = front.url if where == "nginx" else front.service.url
    options = send(url, "OPTIONS", path)
    assert options.status in (200, 204) and options.header("Allow") == "GET, HEAD, OPTIONS", (
        options.status,
        options.body[:200],
    )
    for method in ("POST", "PUT", "PATCH", "DELETE", "PROPFIND", "TRACE"):
        refused = send_raw(
            url, f"{method} {path} HTTP/1.1\r\n".encode() + HOST + b"Content-Length: 0\r\nConnection: close\r\n\r\n"
        )
        assert_problem(refused, 405, "method-not-allowed")
        assert refused.header("Allow") == "GET, HEAD, OPTIONS", (method, refused.header("Allow"))
