"""The example service's whole public contract, walked over real HTTP.

Each backend gets a service of its own, started the way a user starts it: ``python -m
testproject migrate`` and ``seed_demo``, then gunicorn with two workers. SQLite always; PostgreSQL
with the Redis cache and idempotency store when both are set; PostgreSQL through PgBouncer in
transaction pooling mode, with the database store, when pgbouncer is installed too. Every test
calls as its own client (``X-Client-ID``), so throttling and idempotency scopes never leak
between tests.
"""

from __future__ import annotations

import base64
import email.utils
import re
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from .example_service import Service, example_service
from .http import HTTPResult, send

THROTTLE_PER_MINUTE = 120
GATEWAY_DELAY_MS = 400


@pytest.fixture(
    scope="module",
    params=[
        "sqlite",
        pytest.param("postgres+redis", marks=[pytest.mark.postgres, pytest.mark.redis]),
        pytest.param("postgres+pgbouncer", marks=[pytest.mark.postgres, pytest.mark.pgbouncer]),
    ],
)
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with example_service(
        request.param,
        tmp_path_factory.mktemp("e2e"),
        THROTTLE_RATE=f"{THROTTLE_PER_MINUTE}/min",
        PAYMENT_GATEWAY_DELAY_MS=str(GATEWAY_DELAY_MS),
    ) as running:
        yield running


class Caller:
    """One client of the service: its own X-Client-ID on every request."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.client_id = f"e2e-{uuid.uuid4().hex[:10]}"

    def __call__(
        self, method: str, path: str, *, key: str | None = None, headers: dict[str, str] | None = None, **options: Any
    ) -> HTTPResult:
        all_headers = {"X-Client-ID": self.client_id, **(headers or {})}
        if key is not None:
            all_headers["Idempotency-Key"] = key
        return send(self.service.url, method, path, headers=all_headers, **options)

    def create(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        answer = self("POST", path, json_body=payload, key=uuid.uuid4().hex)
        assert answer.status == 201, answer.body
        return dict(answer.json())


@pytest.fixture
def call(service: Service) -> Caller:
    return Caller(service)


def assert_problem(answer: HTTPResult, status: int, slug: str | None = None) -> dict[str, Any]:
    assert answer.status == status, answer.body
    assert answer.header("Content-Type") == "application/problem+json"
    body = answer.json()
    assert {"type", "title", "status", "detail", "instance", "trace_id"} <= set(body)
    assert body["status"] == status and body["trace_id"] == answer.header("X-Request-ID")
    if slug is not None:
        assert body["type"].endswith(f"/problems/{slug}"), body["type"]
    return dict(body)


def walk(call: Caller, path: str, limit: int = 7) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cursor: str | None = None
    separator = "&" if "?" in path else "?"
    while True:
        page = call("GET", f"{path}{separator}limit={limit}" + (f"&cursor={quote(cursor)}" if cursor else ""))
        assert page.status == 200, page.body
        body = page.json()
        assert set(body) == {"data", "pagination"} and body["pagination"]["limit"] == limit
        rows += body["data"]
        cursor = body["pagination"]["next_cursor"]
        assert body["pagination"]["has_next"] is (cursor is not None)
        if cursor is None:
            return rows


# --- resources and lists ------------------------------------------------------------------------


def test_seeded_lists_walk_newest_first_without_duplicates_or_skips(call: Caller) -> None:
    first = call("GET", "/v2/invoices").json()
    assert first["pagination"]["limit"] == 20 and len(first["data"]) == 20
    rows = walk(call, "/v2/invoices")
    assert len(rows) == len({row["id"] for row in rows}) >= 48
    keys = [(row["created_at"], row["id"]) for row in rows]
    assert keys == sorted(keys, reverse=True)
    assert walk(call, "/v2/invoices", limit=100) == rows


def test_resources_are_created_with_location_and_read_back(call: Caller) -> None:
    user = call.create("/v2/users", {"email": f"{call.client_id}@example.com", "name": "Ada"})
    assert set(user) == {"id", "email", "name", "created_at"}
    assert call("GET", f"/v2/users/{user['id']}").json() == user
    invoice = call.create("/v2/invoices", {"user_id": user["id"], "amount_due": 1200, "currency": "eur"})
    assert invoice["status"] == "open" and invoice["amount_due"] == invoice["total"] == 1200
    order = call.create("/v2/orders", {"user_id": user["id"]})
    assert order["status"] == "pending" and call("GET", f"/v2/orders/{order['id']}").json() == order
    created = call("POST", "/v2/orders", json_body={"user_id": user["id"]}, key=uuid.uuid4().hex)
    assert created.header("Location") == f"{call.service.url}/v2/orders/{created.json()['id']}"


def test_broken_rules_are_422_with_pointers(call: Caller) -> None:
    unknown_user = call("POST", "/v2/invoices", json_body={"user_id": "usr_nope", "amount_due": 5, "currency": "eur"})
    problem = assert_problem(unknown_user, 422, "validation-error")
    assert [item["pointer"] for item in problem["errors"]] == ["/user_id"]
    taken = call("GET", "/v2/users?limit=1").json()["data"][0]["email"]
    duplicate = call("POST", "/v2/users", json_body={"email": taken, "name": "Again"})
    assert assert_problem(duplicate, 422)["errors"][0]["pointer"] == "/email"


def test_filters_are_strict_and_cursors_bound_to_them(call: Caller) -> None:
    paid = walk(call, "/v2/invoices?status=paid,void")
    assert paid and {row["status"] for row in paid} == {"paid", "void"}
    user_id = paid[0]["user_id"]
    assert {row["user_id"] for row in walk(call, f"/v2/invoices?user_id={user_id}")} == {user_id}
    middle = paid[len(paid) // 2]["created_at"]
    after = walk(call, f"/v2/invoices?status=paid,void&created_after={quote(middle)}")
    assert after and all(row["created_at"] > middle for row in after)
    unknown = assert_problem(call("GET", "/v2/invoices?colour=red"), 400, "invalid-parameters")
    assert unknown["errors"][0]["parameter"] == "colour"
    for limit in ("0", "101", "ten"):
        assert_problem(call("GET", f"/v2/invoices?limit={limit}"), 400, "invalid-parameters")
    assert_problem(call("GET", "/v2/invoices?status=lost"), 400, "invalid-parameters")
    cursor = call("GET", "/v2/invoices?status=paid&limit=1").json()["pagination"]["next_cursor"]
    assert_problem(call("GET", f"/v2/invoices?status=void&limit=1&cursor={quote(cursor)}"), 400, "invalid-cursor")
    forged = cursor[:-4] + ("AAAA" if not cursor.endswith("AAAA") else "BBBB")
    assert_problem(call("GET", f"/v2/invoices?status=paid&limit=1&cursor={quote(forged)}"), 400, "invalid-cursor")
    assert_problem(call("GET", f"/v2/orders?limit=1&cursor={quote(cursor)}"), 400, "invalid-cursor")


def test_search_ors_filter_objects_and_pages_through_its_body(call: Caller) -> None:
    body: dict[str, Any] = {"any": [{"status": "paid"}, {"status": "draft"}], "limit": 5}
    found = []
    while True:
        page = call("POST", "/v2/invoices/search", json_body=body)
        assert page.status == 200, page.body
        found += page.json()["data"]
        body["cursor"] = page.json()["pagination"]["next_cursor"]
        if body["cursor"] is None:
            break
    assert found and {row["status"] for row in found} == {"paid", "draft"}
    assert len(found) == len(walk(call, "/v2/invoices?status=paid,draft"))
    wrong = call("POST", "/v2/invoices/search", json_body={"any": [{"colour": "red"}]})
    assert assert_problem(wrong, 422)["errors"][0]["pointer"] == "/any/0/colour"


@pytest.mark.parametrize("sort", [None, "-created_at", "created_at", "-amount_due", "amount_due"])
def test_invoices_walk_back_through_the_same_pages_in_every_declared_sort(service: Service, sort: str | None) -> None:
    call = Caller(service)  # a client per sort: these walks are many requests
    query = f"&sort={quote(sort)}" if sort else ""

    def page(cursor: str | None = None) -> tuple[dict[str, Any], HTTPResult]:
        answer = call("GET", f"/v2/invoices?limit=9{query}" + (f"&cursor={quote(cursor)}" if cursor else ""))
        assert answer.status == 200, answer.body
        return answer.json(), answer

    forward = [page()]
    while forward[-1][0]["pagination"]["next_cursor"]:
        forward.append(page(forward[-1][0]["pagination"]["next_cursor"]))
    rows = [row for body, _ in forward for row in body["data"]]
    field = (sort or "-created_at").lstrip("-")
    keys = [(row[field], row["id"]) for row in rows]
    assert keys == sorted(keys, reverse=(sort or "-created_at").startswith("-")) and len(rows) >= 48
    assert len(forward) >= 3
    back = [forward[-1]]
    while back[-1][0]["pagination"]["previous_cursor"]:
        back.append(page(back[-1][0]["pagination"]["previous_cursor"]))
    assert [body["data"] for body, _ in reversed(back)] == [body["data"] for body, _ in forward]
    for first, _ in (forward[0], back[-1]):
        assert first["pagination"]["previous_cursor"] is None and first["pagination"]["has_previous"] is False
    middle, answer = forward[1]
    assert middle["pagination"]["has_previous"] is True and middle["pagination"]["has_next"] is True
    assert re.findall(r'rel="(next|prev)"', answer.header("Link")) == ["next", "prev"]
    assert 'rel="prev"' not in (forward[0][1].header("Link") or "")
    assert 'rel="next"' not in (forward[-1][1].header("Link") or "")


def test_an_undeclared_sort_or_a_cursor_of_another_sort_is_400(call: Caller) -> None:
    problem = assert_problem(call("GET", "/v2/invoices?sort=status"), 400, "invalid-parameters")
    assert [item["parameter"] for item in problem["errors"]] == ["sort"]
    assert "-created_at, created_at, -amount_due, amount_due" in problem["errors"][0]["detail"]
    cursor = call("GET", "/v2/invoices?limit=2&sort=amount_due").json()["pagination"]["next_cursor"]
    assert_problem(call("GET", f"/v2/invoices?limit=2&sort=-amount_due&cursor={quote(cursor)}"), 400, "invalid-cursor")
    assert_problem(call("GET", f"/v2/invoices?limit=2&cursor={quote(cursor)}"), 400, "invalid-cursor")
    assert_problem(call("GET", "/v2/orders?sort=created_at"), 400, "invalid-parameters")
    search = call("POST", "/v2/invoices/search", json_body={"any": [{"status": "paid"}], "sort": "amount_due"})
    amounts = [row["amount_due"] for row in search.json()["data"]]
    assert search.status == 200 and amounts == sorted(amounts)
    wrong = call("POST", "/v2/invoices/search", json_body={"any": [{"status": "paid"}], "sort": "status"})
    assert assert_problem(wrong, 422)["errors"][0]["pointer"] == "/sort"


def test_soft_deleted_invoices_vanish_and_delete_is_repeatable(call: Caller) -> None:
    user = call("GET", "/v2/users?limit=1").json()["data"][0]
    invoice = call.create("/v2/invoices", {"user_id": user["id"], "amount_due": 10, "currency": "eur"})
    assert call("DELETE", f"/v2/invoices/{invoice['id']}").status == 204
    assert call("DELETE", f"/v2/invoices/{invoice['id']}").status == 204
    assert_problem(call("GET", f"/v2/invoices/{invoice['id']}"), 404, "not-found")
    assert invoice["id"] not in {row["id"] for row in walk(call, f"/v2/invoices?user_id={user['id']}")}


# --- idempotency --------------------------------------------------------------------------------


def new_invoice(call: Caller, amount: int = 1000) -> dict[str, Any]:
    user = call("GET", "/v2/users?limit=1").json()["data"][0]
    return call.create("/v2/invoices", {"user_id": user["id"], "amount_due": amount, "currency": "eur"})


def test_a_payment_runs_once_per_key_and_replays_byte_for_byte(call: Caller) -> None:
    invoice = new_invoice(call)
    path = f"/v2/invoices/{invoice['id']}/payments"
    assert_problem(call("POST", path, json_body={"amount": 400, "currency": "eur"}), 400, "idempotency-key-missing")
    key = uuid.uuid4().hex
    first = call("POST", path, json_body={"amount": 400, "currency": "eur"}, key=key)
    assert first.status == 201 and first.header("X-Cache-Lookup") == "MISS"
    assert first.header("Idempotency-Retention") == "86400"
    assert first.header("Location").endswith(f"{path}/{first.json()['payment_id']}")
    again = call(
        "POST",
        path,
        body='{ "currency": "eur",  "amount": 400 }',
        key=f'"{key}"',
        headers={"Content-Type": "application/json"},
    )
    assert (again.status, again.body, again.header("Location")) == (201, first.body, first.header("Location"))
    assert again.header("X-Cache-Lookup") == "HIT" and again.header("Idempotent-Replayed") == "true"
    assert 86300 < int(again.header("Idempotency-Retention")) <= 86400
    other_body = call("POST", path, json_body={"amount": 401, "currency": "eur"}, key=key)
    assert_problem(other_body, 422, "idempotency-key-reused")
    other_path = call(
        "POST",
        f"/v2/invoices/{new_invoice(call)['id']}/payments",
        json_body={"amount": 400, "currency": "eur"},
        key=key,
    )
    assert_problem(other_path, 422, "idempotency-key-reused")
    assert len(walk(call, path)) == 1
    # Another client's identical key is its own: it runs.
    stranger = Caller(call.service)
    assert stranger("POST", path, json_body={"amount": 600, "currency": "eur"}, key=key).status == 201
    assert len(walk(call, path)) == 2
    assert call("GET", f"/v2/invoices/{invoice['id']}").json()["status"] == "paid"
    for bad_key in ("", "x" * 256, "caf\u00e9".encode().decode("latin-1")):
        answer = call("POST", path, json_body={"amount": 1, "currency": "eur"}, key=bad_key)
        assert_problem(answer, 400, "idempotency-key-invalid")
    mismatch = call("POST", path, json_body={"amount": 1, "currency": "usd"}, key=uuid.uuid4().hex)
    assert_problem(mismatch, 422, "validation-error")


def test_a_key_still_running_answers_409_with_retry_after(call: Caller) -> None:
    path = f"/v2/invoices/{new_invoice(call)['id']}/payments"
    key, answers = uuid.uuid4().hex, []

    def pay() -> None:
        answers.append(call("POST", path, json_body={"amount": 5, "currency": "eur"}, key=key))

    first = threading.Thread(target=pay)
    first.start()
    time.sleep(GATEWAY_DELAY_MS / 4000)
    pay()
    first.join()
    statuses = sorted(answer.status for answer in answers)
    # SQLite too: the duplicate reads the claim without waiting for the first request's write
    # lock (tests/test_idempotency_sqlite_in_flight.py).
    assert statuses == [201, 409], statuses
    busy = next(answer for answer in answers if answer.status == 409)
    assert_problem(busy, 409, "idempotency-key-in-use")
    assert int(busy.header("Retry-After")) >= 1
    assert call("POST", path, json_body={"amount": 5, "currency": "eur"}, key=key).header("X-Cache-Lookup") == "HIT"
    assert len(walk(call, path)) == 1


# --- errors -------------------------------------------------------------------------------------


def test_every_layer_answers_problems_whose_type_documents_itself(call: Caller) -> None:
    routing = assert_problem(call("GET", "/nowhere"), 404, "not-found")
    assert send(call.service.url, "GET", urlsplit(routing["type"]).path).status == 200
    method = assert_problem(call("PUT", "/v2/users", json_body={}), 405, "method-not-allowed")
    assert method and "POST" in call("PUT", "/v2/users", json_body={}).header("Allow")
    assert_problem(call("POST", "/v2/users", body="{nope", headers={"Content-Type": "application/json"}), 400)
    assert_problem(call("POST", "/v2/users", body="a=b", headers={"Content-Type": "text/plain"}), 415)
    huge = '{"name": "' + "x" * (3 * 1024 * 1024) + '"}'
    assert_problem(call("POST", "/v2/users", body=huge, headers={"Content-Type": "application/json"}), 413)
    for status, slug in ((409, "idempotency-key-in-use"), (422, "validation-error"), (429, "rate-limited")):
        assert send(call.service.url, "GET", f"/problems/{slug}").status == 200, status


def test_a_client_over_its_rate_gets_429_with_retry_after(call: Caller) -> None:
    # Without Redis the throttle counts in each worker's own memory: up to two rates pass.
    workers_sharing = 1 if "REDIS_URL" in call.service.environment else 2
    answers = []
    for _ in range(workers_sharing * THROTTLE_PER_MINUTE + 1):
        answers.append(call("GET", "/v2/orders?limit=1"))
        if answers[-1].status != 200:
            break
    assert len(answers) > THROTTLE_PER_MINUTE
    assert_problem(answers[-1], 429, "rate-limited")
    assert int(answers[-1].header("Retry-After")) >= 1
    assert Caller(call.service)("GET", "/v2/orders?limit=1").status == 200


def test_trace_ids_are_echoed_and_honoured(call: Caller) -> None:
    assert call("GET", "/v2/users", headers={"X-Request-ID": "my-trace-1"}).header("X-Request-ID") == "my-trace-1"
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    problem = assert_problem(call("GET", "/v2/users/nope", headers={"traceparent": parent}), 404)
    assert problem["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert re.fullmatch(r"[0-9a-f]{32}", call("GET", "/v2/users").header("X-Request-ID"))


def test_what_the_service_refuses_rather_than_guesses(call: Caller) -> None:
    """The contract's list of refusals (the hardening issue's cases), on every backend: never a
    500, never a value reinterpreted, never a request altered to fit."""
    invoice = new_invoice(call)
    pay = f"/v2/invoices/{invoice['id']}/payments"
    json_type = {"Content-Type": "application/json"}
    # An undeclared query parameter, on a POST too: nothing is created.
    email = f"refused-{uuid.uuid4().hex[:8]}@example.com"
    unknown = assert_problem(
        call("POST", "/v2/users?foo=1", json_body={"email": email, "name": "R"}, key=uuid.uuid4().hex),
        400,
        "invalid-parameters",
    )
    assert [item["parameter"] for item in unknown["errors"]] == ["foo"]
    assert call("POST", "/v2/users", json_body={"email": email, "name": "R"}).status == 201
    # A format the service does not speak: 400 or 406, never the 404 of a list that exists.
    for fmt in ("xml", "api", "yaml"):
        assert call("GET", f"/v2/invoices?format={fmt}").status in (400, 406), fmt
    # A wildcard Content-Type on a keyed POST: 415, and the key stays free.
    key = uuid.uuid4().hex
    for wildcard in ("*/*", "application/*"):
        answer = call("POST", pay, body='{"amount": 1, "currency": "eur"}', key=key, headers={"Content-Type": wildcard})
        assert_problem(answer, 415)
    # An integer that is not exactly one, or digits spelt otherwise: 422, never rounded.
    for amount in ("9.9999999999999999999", "399.5", '"1_000"', '"\u0661\u0662"'):
        answer = call(
            "POST", pay, body=f'{{"amount": {amount}, "currency": "eur"}}', key=uuid.uuid4().hex, headers=json_type
        )
        problem = assert_problem(answer, 422)
        assert [item["pointer"] for item in problem["errors"]] == ["/amount"], amount
    assert walk(call, pay) == []
    # A currency is not trimmed into a valid one.
    user_id = invoice["user_id"]
    for currency in (" eur ", "eur\n"):
        answer = call("POST", "/v2/invoices", json_body={"user_id": user_id, "amount_due": 1, "currency": currency})
        assert_problem(answer, 422)
    # Emails are unique without regard to case: 409 or 422, never a second user.
    shouted = call("POST", "/v2/users", json_body={"email": email.upper(), "name": "R"})
    assert shouted.status in (409, 422) and shouted.header("Content-Type") == "application/problem+json"
    # Credentials that cannot be valid: 400 or 401, never 500.
    nul = base64.b64encode(b"ad\x00min:secret").decode()
    assert call("GET", "/v2/users", headers={"Authorization": f"Basic {nul}"}).status in (400, 401)
    # A Host whose port is not 1..65535: 400, the port echoed nowhere.
    for port in ("0", "65536", "99999999999999999999"):
        host = f"127.0.0.1:{port}"
        answer = call("GET", "/v2/invoices", headers={"Host": host})
        assert_problem(answer, 400)
        # The whole host is searched for: a bare ":0" also occurs in a random trace id ("urn:request:0…").
        assert host not in answer.body.decode() and host not in (answer.header("Location") or "")
    # Lenient spellings of parameters: 400 naming the parameter.
    for query, name in (
        ("limit=%205", "limit"),
        ("limit=05", "limit"),
        ("limit=5%09", "limit"),
        ("created_after=2020-W01", "created_after"),
        ("created_after=%D9%A2%D9%A0%D9%A2%D9%A0-01-01", "created_after"),
    ):
        problem = assert_problem(call("GET", f"/v2/invoices?{query}"), 400, "invalid-parameters")
        assert [item["parameter"] for item in problem["errors"]] == [name], query
    search = call(
        "POST", "/v2/invoices/search", json_body={"any": [{"status": "open"}], "limit": "5"}, key=uuid.uuid4().hex
    )
    assert search.status in (400, 422) and search.header("Content-Type") == "application/problem+json"
    # The version roots follow the lifecycle.
    assert_problem(call("GET", "/v0"), 410)
    assert call("GET", "/v1").header("Deprecation") is not None
    # The replay of a request that used the deprecated name keeps its Deprecation and Link.
    key = uuid.uuid4().hex
    body = {"user_id": user_id, "total": 300, "currency": "eur"}
    first, replay = (call("POST", "/v2/invoices", json_body=body, key=key) for _ in range(2))
    assert first.status == replay.status == 201 and replay.header("X-Cache-Lookup") == "HIT"
    assert first.header("Deprecation") and replay.header("Deprecation") == first.header("Deprecation")
    assert replay.header("Link") == first.header("Link")


# --- versions -----------------------------------------------------------------------------------


def test_v1_is_served_deprecated_v0_is_gone_v9_unknown(call: Caller) -> None:
    old = call("GET", "/v1/invoices?limit=1")
    assert old.status == 200
    assert re.fullmatch(r"@\d+", old.header("Deprecation"))
    sunset = email.utils.parsedate_to_datetime(old.header("Sunset"))
    assert sunset.timestamp() > time.time()
    assert 'rel="deprecation"' in old.header("Link") and 'rel="sunset"' in old.header("Link")
    assert call("GET", "/v2/invoices?limit=1").header("Deprecation") is None
    retired = call("GET", "/v0/invoices")
    assert_problem(retired, 410, "version-retired")
    guide = retired.json()["migration_guide"]
    assert guide.startswith(f"{call.service.url}/") and guide in retired.body.decode()
    assert_problem(call("GET", "/v9/invoices"), 404)
    # Every link the versions send answers, on the service itself.
    for target in {*link_targets(old.header("Link")), *link_targets(retired.header("Link")), guide}:
        assert target.startswith(f"{call.service.url}/"), target
        page = call("GET", target.removeprefix(call.service.url))
        assert page.status == 200, target  # the guide, and the list's rel="next"
    assert call("GET", guide.removeprefix(call.service.url)).header("Content-Type").startswith("text/html")


def link_targets(header: str | None) -> list[str]:
    """The URLs of a ``Link`` header's link-values."""
    return re.findall(r"<([^>]*)>", header or "")


def test_the_total_to_amount_due_rename(call: Caller) -> None:
    user = call("GET", "/v2/users?limit=1").json()["data"][0]
    old_name = call(
        "POST", "/v2/invoices", json_body={"user_id": user["id"], "total": 700, "currency": "eur"}, key=uuid.uuid4().hex
    )
    assert old_name.status == 201 and old_name.json()["amount_due"] == 700 and old_name.header("Deprecation")
    both = call(
        "POST", "/v2/invoices", json_body={"user_id": user["id"], "total": 1, "amount_due": 2, "currency": "eur"}
    )
    assert_problem(both, 422)


# --- also served ----------------------------------------------------------------------------------


def test_openapi_json_docs_and_problem_pages(call: Caller) -> None:
    schema = call("GET", "/openapi.json").json()
    payments = schema["paths"]["/v2/invoices/{invoice_id}/payments"]["post"]
    assert any(p["name"] == "Idempotency-Key" and p["required"] for p in payments["parameters"])
    rejected = payments["responses"]["422"]  # a shared response component
    rejected = schema["components"]["responses"][rejected["$ref"].rsplit("/", 1)[-1]]
    assert "application/problem+json" in rejected["content"]
    assert "/v1/invoices" in call("GET", "/openapi.json?version=v1").json()["paths"]
    docs = call("GET", "/docs", headers={"Accept": "text/html"})
    assert docs.status == 200
    for asset in re.findall(r'(?:src|href)="([^"]+)"', docs.body.decode()):
        assert asset.startswith("/") and call("GET", asset).status == 200, asset


def test_maintenance_mode_switched_by_the_command_reaches_every_worker(call: Caller) -> None:
    call.service.manage("maintenance", "on")
    try:
        for _ in range(4):  # two workers: each must see the switch
            down = call("GET", "/v2/users")
            if down.status == 200:  # a worker may read the switch a moment later
                time.sleep(1)
                down = call("GET", "/v2/users")
            assert_problem(down, 503)
            assert int(down.header("Retry-After")) >= 1
        assert call("GET", "/problems/").status == 200 and call("GET", "/openapi.json").status == 200
    finally:
        call.service.manage("maintenance", "off")
    deadline = time.monotonic() + 10
    while call("GET", "/v2/users").status != 200:
        assert time.monotonic() < deadline, "maintenance did not end"
        time.sleep(0.2)


def test_every_answer_of_this_walk_was_json_or_problem_json(call: Caller) -> None:
    for path in ("/v2/users", "/v2/users/nope", "/v2/nowhere", "/v0/users", "/problems/not-found"):
        content_type = call("GET", path).header("Content-Type") or ""
        assert content_type.split(";")[0] in {"application/json", "application/problem+json", "text/html"}, path
        assert "text/html" not in content_type or path.startswith("/problems/")
