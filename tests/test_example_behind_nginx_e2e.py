"""What a hostile client sends through the nginx front, on every backend the example runs on.

The example service under gunicorn (deploy/gunicorn.conf.py) behind nginx rendered from the
template, on SQLite and on PostgreSQL, each with the database store and with the Redis store.
Raw sockets send what an HTTP client library would clean up first: client ids and targets in
UTF-8, control characters, a contradictory scheme header. Each answer is the one the example's
contract states, never gunicorn's HTML page and never another client's payment.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from .example_service import example_service
from .http import HTTPResult, send, send_raw
from .problem_assertions import assert_problem
from .reverse_proxy import GUNICORN_CONFIG, MAIN_TEMPLATE, nginx_front
from .test_idempotency_concurrency import all_at_once
from .test_nginx_front import FRONT_REFUSES, HOST, SERVICE_REFUSES, Front

pytestmark = pytest.mark.nginx

#: Client ids the service cannot use: each would once have fallen into the shared scope.
UNUSABLE_CLIENT_IDS = ["Zo\u00eb-x", "Zo\u00e9-x", "x" * 129, "two words", ""]


@pytest.fixture(
    scope="module",
    params=[
        "sqlite",
        pytest.param("sqlite+redis", marks=pytest.mark.redis),
        pytest.param("postgres+redis", marks=[pytest.mark.postgres, pytest.mark.redis]),
        pytest.param("postgres+database", marks=pytest.mark.postgres),
    ],
)
def front(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    folder = tmp_path_factory.mktemp("behind-nginx")
    with example_service(request.param, folder, gunicorn_options=["-c", str(GUNICORN_CONFIG)]) as service:
        upstream = service.url.removeprefix("http://")
        # Long enough for a burst of 200 requests queued behind two sync workers.
        with nginx_front(upstream, folder / "nginx", upstream_timeout="60s") as nginx:
            yield Front(service, nginx)


def post(front: Front, path: str, payload: Any, headers: dict[str, str]) -> HTTPResult:
    return send(
        front.url, "POST", path, body=json.dumps(payload), headers={"Content-Type": "application/json", **headers}
    )


def new_invoice(front: Front, client_id: str) -> str:
    user = send(front.url, "GET", "/v2/users?limit=1", headers={"X-Client-ID": client_id}).json()["data"][0]
    payload = {"user_id": user["id"], "amount_due": 10**6, "currency": "eur"}
    created = post(front, "/v2/invoices", payload, {"X-Client-ID": client_id, "Idempotency-Key": uuid.uuid4().hex})
    assert created.status == 201, created.body
    return str(created.json()["id"])


def raw_payment(front: Front, invoice: str, key: str, client_id: bytes) -> HTTPResult:
    """A keyed payment whose X-Client-ID goes on the wire byte for byte (UTF-8 here)."""
    body = b'{"amount": 100, "currency": "eur"}'
    return send_raw(
        front.url,
        f"POST /v2/invoices/{invoice}/payments HTTP/1.1\r\n".encode()
        + HOST
        + b"Content-Type: application/json\r\nConnection: close\r\n"
        + b"Idempotency-Key: "
        + key.encode()
        + b"\r\nX-Client-ID: "
        + client_id
        + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
        + body,
    )


def payments(front: Front, invoice: str, client_id: str) -> int:
    listed = send(front.url, "GET", f"/v2/invoices/{invoice}/payments?limit=100", headers={"X-Client-ID": client_id})
    assert listed.status == 200, listed.body
    return len(listed.json()["data"])


def test_concurrent_keyed_payments_answer_no_500(front: Front) -> None:
    invoice = new_invoice(front, "burst")
    same_key = uuid.uuid4().hex
    keys = [uuid.uuid4().hex for _ in range(12)] + [same_key] * 12
    results = all_at_once(
        [lambda key=key: raw_payment(front, invoice, key, b"burst") for key in keys], threads=len(keys)
    )
    assert {result.status for result in results} <= {201, 409}, [r.body[:300] for r in results]
    assert all(result.status == 201 for result in results[:12])
    assert payments(front, invoice, "burst") == 13  # twelve keys, and the shared key once


def test_200_concurrent_clients_on_one_key_are_all_answered_and_pay_once(front: Front) -> None:
    # Each client holds a connection to nginx and nginx one to gunicorn: the recipe's
    # worker_connections must hold both for all of them, or nginx closes some (a reset).
    invoice, key = new_invoice(front, "crowd"), uuid.uuid4().hex
    failures: list[str] = []

    def pay() -> HTTPResult | None:
        try:
            return raw_payment(front, invoice, key, b"crowd")
        except OSError as error:  # reset, or closed without an answer
            failures.append(repr(error))
            return None

    results = all_at_once([pay] * 200, threads=200)
    assert not failures, (len(failures), failures[:3])
    answers = [result for result in results if result is not None]
    statuses = {result.status for result in answers}
    assert statuses <= {201, 409}, [r.body[:300] for r in answers if r.status not in (201, 409)][:3]
    created = [result for result in answers if result.status == 201]
    assert sum(result.header("X-Cache-Lookup") == "MISS" for result in created) == 1
    assert payments(front, invoice, "crowd") == 1


@pytest.mark.parametrize("unusable", UNUSABLE_CLIENT_IDS)
def test_an_unusable_client_id_is_a_400_never_another_callers_answer(front: Front, unusable: str) -> None:
    invoice, key = new_invoice(front, "payer"), uuid.uuid4().hex
    assert raw_payment(front, invoice, key, b"Zoe-x").status == 201
    shared = post(
        front, f"/v2/invoices/{invoice}/payments", {"amount": 100, "currency": "eur"}, {"Idempotency-Key": key}
    )
    assert shared.status == 201 and shared.header("X-Cache-Lookup") == "MISS"  # the shared scope's own
    refused = raw_payment(front, invoice, key, unusable.encode())
    body = assert_problem(refused, 400, "bad-request")
    assert [error["header"] for error in body["errors"]] == ["X-Client-ID"], body
    assert refused.header("X-Cache-Lookup") is None
    assert payments(front, invoice, "payer") == 2


def test_the_examples_own_messages_speak_german_unless_german_is_refused(front: Front) -> None:
    email = f"{uuid.uuid4().hex}@example.com"
    assert post(front, "/v2/users", {"email": email, "name": "First"}, {"X-Client-ID": "lang"}).status == 201
    for accept, language, detail in [
        ("de", "de", "Ein Benutzer mit dieser E-Mail-Adresse existiert bereits."),
        ("de;q=0", "en", "A user with this email already exists."),
        ("de;q=0, en;q=0.5", "en", "A user with this email already exists."),
    ]:
        taken = post(
            front, "/v2/users", {"email": email, "name": "Second"}, {"X-Client-ID": "lang", "Accept-Language": accept}
        )
        body = assert_problem(taken, 422, "validation-error")
        assert taken.header("Content-Language") == language, accept
        assert [error["detail"] for error in body["errors"]] == [detail], accept


def test_a_replay_answers_the_stored_body_in_its_stored_language(front: Front) -> None:
    path, key = f"/v2/invoices/{new_invoice(front, 'lang')}/payments", uuid.uuid4().hex
    payload = {"amount": 100, "currency": "usd"}
    first = post(front, path, payload, {"X-Client-ID": "lang", "Idempotency-Key": key, "Accept-Language": "de"})
    body = assert_problem(first, 422, "validation-error")
    assert [error["detail"] for error in body["errors"]] == ["Die Rechnung wird in 'eur' abgerechnet."]
    assert first.header("Content-Language") == "de"
    retry = post(front, path, payload, {"X-Client-ID": "lang", "Idempotency-Key": key, "Accept-Language": "en"})
    assert (retry.status, retry.body, retry.header("Idempotent-Replayed")) == (422, first.body, "true")
    assert retry.header("Content-Language") == "de"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/problems", "/problems/", "/problems/not-found", "/problems/not-found/"])
def test_the_problem_pages_are_read_only(front: Front, method: str, path: str) -> None:
    answer = send(front.url, method, path, body=b"{}", headers={"Content-Type": "application/json"})
    assert_problem(answer, 405, "method-not-allowed")
    assert set((answer.header("Allow") or "").replace(" ", "").split(",")) >= {"GET", "HEAD"}, answer.header("Allow")


@pytest.mark.parametrize("case", sorted(FRONT_REFUSES | SERVICE_REFUSES))
def test_what_gunicorn_refuses_is_a_problem_from_the_front(front: Front, case: str) -> None:
    answer = send_raw(front.url, (FRONT_REFUSES | SERVICE_REFUSES)[case])
    assert_problem(answer, 400, "bad-request")
    assert answer.header("Content-Language") == "en"


@pytest.mark.parametrize("header", [b"X-Forwarded-Ssl: on", b"X-Forwarded-Protocol: ssl"])
def test_a_clients_scheme_header_is_no_error(front: Front, header: bytes) -> None:
    listed = send_raw(
        front.url, b"GET /v2/users?limit=1 HTTP/1.1\r\n" + HOST + header + b"\r\nConnection: close\r\n\r\n"
    )
    assert listed.status == 200, listed.body[:300]


def test_one_nginx_worker_can_hold_200_proxied_clients() -> None:
    # accept_mutex is off: one worker may take every client, each costing it two connections
    # (the client's and gunicorn's); the concurrent test above passes only when they spread.
    text = MAIN_TEMPLATE.read_text()
    [connections] = re.findall(r"^\s*worker_connections (\d+);", text, re.M)
    [files] = re.findall(r"^worker_rlimit_nofile (\d+);", text, re.M)
    assert int(connections) >= 2 * 200 + 100 and int(files) >= int(connections)
