"""A keyed request whose view opens ``transaction.atomic(durable=True)``.

The database store keeps a key's answer in the transaction around the view, which a durable
block refuses to nest in: the request is a clear 501 problem, nothing changes and the key stays
free, never a 500. The Redis store, outside the transaction, runs it. Tested without a test
transaction (``transaction=True``), as a real server runs, and on a real gunicorn.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from django_api_conventions.idempotency.transactions import is_durable_nesting
from testproject.billing.models import Customer

from .http import send
from .servers import gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

PATH = "/idempotency/durable"


@pytest.fixture
def without_atomic_requests(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project without ATOMIC_REQUESTS, where a durable block in a view is allowed at all."""
    for config in settings.DATABASES.values():
        monkeypatch.setitem(config, "ATOMIC_REQUESTS", False)


def post(key: str | None = None) -> Any:
    headers = {"X-Client-ID": "durable"} | ({"Idempotency-Key": key} if key else {})
    return APIClient().post(PATH, json.dumps({"name": "D"}), content_type="application/json", headers=headers)


def test_djangos_refusal_is_recognised() -> None:
    """By where Django raises it (django.db.transaction, on Django 5.2 and 6.1): this fails on a
    Django that moves it elsewhere or gives it a class of its own, to be recognised by then."""
    with transaction.atomic(), pytest.raises(RuntimeError) as raised, transaction.atomic(durable=True):
        pass
    assert type(raised.value) is RuntimeError
    assert is_durable_nesting(raised.value)
    assert not is_durable_nesting(RuntimeError("something else"))


def test_a_view_raising_the_same_words_is_not_djangos_refusal() -> None:
    """Recognised by where it was raised, never by its text: the view's own RuntimeError stays
    a failure (a 500 and a failed key), whatever it says."""
    with transaction.atomic(), pytest.raises(RuntimeError) as djangos, transaction.atomic(durable=True):
        pass
    with pytest.raises(RuntimeError) as the_views:
        raise RuntimeError(*djangos.value.args)
    assert not is_durable_nesting(the_views.value)


@pytest.mark.usefixtures("without_atomic_requests")
def test_on_the_database_store_a_keyed_request_is_a_clear_problem(store_name: str) -> None:
    if store_name != "database":
        pytest.skip("the Redis store is outside the transaction: see the next test")
    key = uuid.uuid4().hex
    first, again = post(key), post(key)
    for response in (first, again):  # the key stays free: the same answer, not a 409 or a replay
        assert response.status_code == 501, response.content
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["type"].endswith("/idempotency-not-supported")
    assert Customer.objects.filter(name="D").count() == 0
    assert post().status_code == 204  # without a key the view runs
    assert Customer.objects.filter(name="D").count() == 1


@pytest.mark.usefixtures("without_atomic_requests")
def test_on_a_store_outside_the_transaction_a_keyed_request_runs_once(store_name: str) -> None:
    if store_name == "database":
        pytest.skip("the database store joins the transaction: see the previous test")
    key = uuid.uuid4().hex
    first, replay = post(key), post(key)
    assert (first.status_code, replay.status_code) == (204, 204)
    assert replay["X-Cache-Lookup"] == "HIT"
    assert Customer.objects.filter(name="D").count() == 1


@pytest.mark.postgres
def test_a_real_server_answers_the_problem_never_a_500() -> None:
    with gunicorn(1, DJANGO_SETTINGS_MODULE="tests.settings", IDEMPOTENCY_STORE="database") as server:
        result = send(
            server.url,
            "POST",
            PATH,
            json_body={"name": "D"},
            headers={"Idempotency-Key": uuid.uuid4().hex, "X-Client-ID": "durable"},
        )
    assert result.status == 501, result.body[:300]
    assert result.headers["Content-Type"] == "application/problem+json"
    assert json.loads(result.body)["type"].endswith("/idempotency-not-supported")
    assert Customer.objects.filter(name="D").count() == 0
