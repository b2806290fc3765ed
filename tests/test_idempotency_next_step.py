"""The idempotency layer's problems on a keyed request say what to do next: ``retryable`` (the same
request with the same key can still succeed, or cannot) and ``Cache-Control: no-store``.

Replays of stored answers, and the view's own answers, stored or not, are left as they were made.
Each store in process (the ``store_name`` fixture), and through real HTTP: a concurrent duplicate
(409) against the live server on PostgreSQL and gunicorn on SQLite, and an unreachable Redis
store (503) against the live server on either database.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.test import RequestFactory
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from django_api_conventions.idempotency import IdempotencyMixin, IdempotencyOptions, get_store, run_idempotently
from django_api_conventions.idempotency.leases import store_errors
from django_api_conventions.problems import ProblemException, problem_types
from django_api_conventions.problems.built_in import RETRYABLE_WITH_SAME_KEY
from django_api_conventions.problems.details import render_problem

from .example_service import Service, example_service
from .http import HTTPResult, send
from .test_store_unavailable import UNREACHABLE

pytestmark = pytest.mark.django_db(transaction=True)

factory = RequestFactory()


def keyed(body: bytes = b'{"a": 1}', key: str | None = None) -> HttpRequest:
    return factory.post(
        "/idempotency/probe",
        body,
        content_type="application/json",
        headers={"Idempotency-Key": key or uuid.uuid4().hex, "X-Client-ID": "next-step"},
    )


def answered(request: HttpRequest, view: Any, options: IdempotencyOptions | None = None) -> HttpResponse:
    """The response the middleware or ``@idempotent`` sends: the view's, or the rendered problem."""
    try:
        return run_idempotently(request, options or IdempotencyOptions(), view)  # type: ignore[return-value]
    except ProblemException as problem:
        return render_problem(request, problem)


def assert_next_step(response: Any, status: int, slug: str, retryable: bool) -> None:
    """``response``: a Django response or an :class:`HTTPResult`."""
    body = json.loads(response.content if hasattr(response, "content") else response.body)
    headers = response.headers
    assert (response.status_code if hasattr(response, "status_code") else response.status) == status, body
    assert body["type"].endswith(f"/problems/{slug}") and body["retryable"] is retryable, body
    assert headers["Cache-Control"] == "no-store"
    assert headers["Content-Type"] == "application/problem+json"


def assert_as_made(response: Any) -> None:
    """Neither member nor header: a replay, or the view's own answer."""
    content = response.content if hasattr(response, "content") else response.body
    assert response.headers.get("Cache-Control") is None
    assert b'"retryable"' not in content


# In process, each store.


def test_a_twin_in_flight_may_retry_with_the_same_key(store_name: str) -> None:
    request, twins = keyed(), []

    def first() -> HttpResponse:
        twins.append(answered(request, lambda: HttpResponse(status=201)))
        return HttpResponse(status=201)

    assert answered(request, first).status_code == 201
    assert_next_step(twins[0], 409, "idempotency-key-in-use", retryable=True)
    assert twins[0]["Retry-After"] == "1"


def test_a_key_reused_with_another_body_may_not(store_name: str) -> None:
    key = uuid.uuid4().hex
    first = answered(keyed(b'{"a": 1}', key), lambda: JsonResponse({"id": 1}, status=201))
    assert first.status_code == 201
    assert_as_made(first)
    assert_next_step(
        answered(keyed(b'{"a": 2}', key), lambda: HttpResponse(status=201)), 422, "idempotency-key-reused", False
    )


def test_a_request_that_lost_its_lease_may_retry(store_name: str) -> None:
    request = keyed()

    def lose_the_lease() -> HttpResponse:
        lease: Any = request.idempotency  # type: ignore[attr-defined]
        assert get_store().release(lease.scope, lease.key, lease.owner)
        assert get_store().claim(lease.scope, lease.key, "another request", 60, 60).owner
        lease.renew_lease()
        return HttpResponse(status=201)

    assert_next_step(answered(request, lose_the_lease), 409, "idempotency-lease-expired", retryable=True)


def test_a_replay_is_byte_identical_and_says_nothing_more(store_name: str) -> None:
    request = keyed()
    first = answered(request, lambda: JsonResponse({"id": 7}, status=201))
    replay = answered(keyed(key=request.headers["Idempotency-Key"]), lambda: HttpResponse(status=500))
    assert (replay.status_code, replay.content, replay["Idempotent-Replayed"]) == (201, first.content, "true")
    assert_as_made(replay)


def test_a_response_too_large_to_replay_may_not_be_retried(store_name: str, settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_MAX_STORED_BODY_BYTES": 8}
    request = keyed()
    assert answered(request, lambda: JsonResponse({"id": "a long enough body"}, status=201)).status_code == 201
    again = answered(keyed(key=request.headers["Idempotency-Key"]), lambda: HttpResponse(status=500))
    assert_next_step(again, 410, "idempotency-response-too-large", retryable=False)


def test_the_views_own_problems_are_sent_and_replayed_as_made(store_name: str) -> None:
    """A view's 409 (released), 503 (failed) and 422 (stored and replayed) get neither."""
    client = APIClient(headers={"X-Client-ID": "next-step"})
    conflict = client.post(
        "/idempotency/conflict-not-kept",
        {"conflict": True},
        format="json",
        headers={"Idempotency-Key": uuid.uuid4().hex},
    )
    assert conflict.status_code == 409
    assert_as_made(conflict)
    failed = client.post(
        "/idempotency/header-delayed",
        {"name": "x"},
        format="json",
        headers={"Idempotency-Key": uuid.uuid4().hex, "X-Test-Fail": "1"},
    )
    assert failed.status_code == 503
    assert_as_made(failed)
    key, invalid = uuid.uuid4().hex, {"email": "not an address", "name": "x"}
    first = client.post("/v2/users", invalid, format="json", headers={"Idempotency-Key": key})
    replay = client.post("/v2/users", invalid, format="json", headers={"Idempotency-Key": key})
    assert (first.status_code, replay.status_code, replay["Idempotent-Replayed"]) == (422, 422, "true")
    assert replay.content == first.content
    assert_as_made(first)
    assert_as_made(replay)


@pytest.mark.parametrize("path", ["/v2/users", "/idempotency/async/create", "/idempotency/plain"])
def test_mixin_async_view_and_middleware_answer_alike(store_name: str, path: str) -> None:
    client, key = APIClient(headers={"X-Client-ID": "next-step"}), uuid.uuid4().hex
    body = {"email": f"{key}@example.com", "name": "N"}
    first = client.post(path, body, format="json", headers={"Idempotency-Key": key})
    assert first.status_code == 201
    reused = client.post(path, {**body, "name": "M"}, format="json", headers={"Idempotency-Key": key})
    assert_next_step(reused, 422, "idempotency-key-reused", retryable=False)


class StoreLostMidView(IdempotencyMixin, APIView):
    """The store cannot be reached while the view renews its lease: the 503 is raised in the view."""

    def post(self, request: Request) -> Response:
        store = request._request.idempotency.store  # type: ignore[attr-defined]
        with store_errors(store):  # as renew_lease() calls the store
            raise store.unavailable_errors[0]("the store went away")


def test_a_problem_of_the_layer_raised_inside_a_mixin_view(store_name: str) -> None:
    response = StoreLostMidView.as_view()(keyed())
    assert_next_step(response, 503, "idempotency-store-unavailable", retryable=True)


def test_an_invalid_key_is_not_a_keyed_request() -> None:
    response = APIClient().post("/v2/users", {}, format="json", headers={"Idempotency-Key": ""})
    assert response.status_code == 400 and response.json()["type"].endswith("/idempotency-key-invalid")
    assert_as_made(response)


def test_each_type_documents_both_on_its_page() -> None:
    for slug, retryable in RETRYABLE_WITH_SAME_KEY.items():
        problem_type = problem_types[slug]
        (member,) = (m for m in problem_type.members if m.name == "retryable")
        assert member.example is retryable
        assert any(h.name == "Cache-Control" and h.example == "no-store" for h in problem_type.headers)
        page = APIClient().get(f"/problems/{slug}", headers={"Accept": "application/json"}).json()
        assert "retryable" in [m["name"] for m in page["members"]]
        assert "Cache-Control" in [h["name"] for h in page["headers"]]
        assert f"`retryable` is `{str(retryable).lower()}`" in page["fix"] and "no-store" in page["fix"]
        html = unescape(APIClient().get(f"/problems/{slug}", headers={"Accept": "text/html"}).content.decode())
        assert f'"retryable": {str(retryable).lower()}' in html and "Cache-Control: no-store" in html


# Through real HTTP.

DELAYED = "/idempotency/header-delayed"


def post(base_url: str, path: str, key: str, body: Any, **headers: str) -> HTTPResult:
    return send(
        base_url,
        "POST",
        path,
        json_body=body,
        headers={"Idempotency-Key": key, "X-Client-ID": "next-step-live", **headers},
    )


def in_background(call: Any) -> tuple[threading.Thread, list[HTTPResult]]:
    results: list[HTTPResult] = []
    thread = threading.Thread(target=lambda: results.append(call()))
    thread.start()
    return thread, results


@pytest.mark.postgres
def test_a_concurrent_duplicate_through_the_live_server(live_server: Any, store_name: str) -> None:
    key = uuid.uuid4().hex
    thread, first = in_background(lambda: post(live_server.url, DELAYED, key, {"name": "a"}, **{"X-Test-Delay": "2"}))
    deadline = time.monotonic() + 15
    while get_store().inspect("client:next-step-live", key) is None:
        assert time.monotonic() < deadline, "the first request never claimed its key"
        time.sleep(0.01)
    duplicate = post(live_server.url, DELAYED, key, {"name": "a"})
    thread.join()
    assert_next_step(duplicate, 409, "idempotency-key-in-use", retryable=True)
    assert int(duplicate.header("Retry-After") or 0) >= 1
    assert first[0].status == 201, first[0].body
    replay = post(live_server.url, DELAYED, key, {"name": "a"})
    assert (replay.status, replay.body, replay.header("Idempotent-Replayed")) == (201, first[0].body, "true")
    assert_as_made(replay)
    assert_next_step(post(live_server.url, DELAYED, key, {"name": "b"}), 422, "idempotency-key-reused", False)


@pytest.fixture(scope="module", params=["sqlite", pytest.param("sqlite+redis", marks=pytest.mark.redis)])
def sqlite_service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The example service under gunicorn on a SQLite file, with either store; the payment gateway
    takes 1.5 s, and the lock timeout is shorter (a claim must not wait on the running payment)."""
    folder: Path = tmp_path_factory.mktemp("next-step")
    with example_service(request.param, folder, PAYMENT_GATEWAY_DELAY_MS="1500", SQLITE_LOCK_TIMEOUT="1") as running:
        yield running


def test_a_concurrent_duplicate_through_gunicorn_on_sqlite(sqlite_service: Service) -> None:
    url = sqlite_service.url
    user = send(url, "POST", "/v2/users", json_body={"email": f"{uuid.uuid4().hex}@example.com", "name": "A"})
    invoice = send(
        url, "POST", "/v2/invoices", json_body={"user_id": user.json()["id"], "amount_due": 100, "currency": "eur"}
    )
    path, key, payment = (
        f"/v2/invoices/{invoice.json()['id']}/payments",
        uuid.uuid4().hex,
        {"amount": 5, "currency": "eur"},
    )
    thread, first = in_background(lambda: post(url, path, key, payment))
    time.sleep(0.5)  # the first request has claimed its key and waits on the gateway
    duplicate = post(url, path, key, payment)
    thread.join()
    assert_next_step(duplicate, 409, "idempotency-key-in-use", retryable=True)
    assert first[0].status == 201, first[0].body
    replay = post(url, path, key, payment)
    assert (replay.status, replay.body, replay.header("Idempotent-Replayed")) == (201, first[0].body, "true")
    assert_as_made(replay)
    assert_next_step(post(url, path, key, {**payment, "amount": 6}), 422, "idempotency-key-reused", False)


UNREACHABLE_REDIS = {
    "django-redis": {"IDEMPOTENCY_CACHE": "unreachable"},
    "django-cache": {"IDEMPOTENCY_CACHE": "unreachable-django"},
    "url": {"IDEMPOTENCY_REDIS_URL": "redis://127.0.0.1:1/0?socket_connect_timeout=0.5"},
}


@pytest.mark.parametrize("kind", UNREACHABLE_REDIS)
def test_the_store_down_through_the_live_server(live_server: Any, settings: Any, kind: str) -> None:
    """On SQLite and PostgreSQL alike: Redis is not needed to be unreachable."""
    settings.CACHES = {
        **settings.CACHES,
        "unreachable": UNREACHABLE,
        "unreachable-django": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": UNREACHABLE["LOCATION"],
        },
    }
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "redis", **UNREACHABLE_REDIS[kind]}
    body = {"email": f"{uuid.uuid4().hex}@example.com", "name": "U"}
    for path in ("/v2/users", "/idempotency/async/create"):  # a sync and an async view
        answer = post(live_server.url, path, uuid.uuid4().hex, body)
        assert_next_step(answer, 503, "idempotency-store-unavailable", retryable=True)
        assert answer.header("Retry-After") == "5"
    unkeyed = send(live_server.url, "POST", "/v2/users", json_body=body, headers={"X-Client-ID": "next-step-live"})
    assert unkeyed.status == 201
    assert_as_made(unkeyed)
