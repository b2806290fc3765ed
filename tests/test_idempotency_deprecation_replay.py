"""The idempotent replay of a request that used a renamed field's old name announces it too.

The example service renames invoice ``total`` to ``amount_due``; a request that sends ``total``
gets ``Deprecation`` and a ``Link`` (``rel="deprecation"``) naming the field. A replay never
runs the view, so these were lost on it; now both answers carry them, on both stores.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from testproject.billing.models import Customer, Invoice

pytestmark = pytest.mark.django_db(transaction=True)

FIELD_DEPRECATION = "@1793491200"  # 2026-11-01, the rename's deprecation
V1_DEPRECATION = "@1780272000"  # 2026-06-01
ANNOUNCING = ("Deprecation", "Sunset", "Link", "Cache-Control")


@pytest.fixture(autouse=True)
def _before_the_sunset() -> Iterator[None]:
    with time_machine.travel(dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC), tick=False):
        yield


def post_invoice(version: str, body: dict[str, Any], key: str) -> Any:
    client = APIClient(headers={"X-Client-ID": "renames"})
    return client.post(
        f"/{version}/invoices", json.dumps(body), content_type="application/json", headers={"Idempotency-Key": key}
    )


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_the_replay_of_a_request_with_total_carries_deprecation_and_link(store_name: str, version: str) -> None:
    user = Customer.objects.create(email="renames@example.com", name="R")
    key = uuid.uuid4().hex
    body = {"user_id": user.pk, "total": 700, "currency": "eur"}
    first = post_invoice(version, body, key)
    replay = post_invoice(version, body, key)
    assert (first.status_code, replay.status_code) == (201, 201), first.content
    assert replay["X-Cache-Lookup"] == "HIT" and replay.content == first.content
    assert first["Deprecation"] == (FIELD_DEPRECATION if version == "v2" else V1_DEPRECATION)
    assert 'rel="deprecation"' in first["Link"] and "field total is deprecated" in first["Link"]
    for name in ANNOUNCING:
        assert replay.get(name) == first.get(name), name
    assert not any(name.startswith(":") for name in replay.headers), "no stored pseudo-header is sent"
    assert Invoice.objects.count() == 1


def test_a_replay_without_the_old_name_announces_nothing(store_name: str) -> None:
    user = Customer.objects.create(email="new-name@example.com", name="N")
    key = uuid.uuid4().hex
    body = {"user_id": user.pk, "amount_due": 700, "currency": "eur"}
    first = post_invoice("v2", body, key)
    replay = post_invoice("v2", body, key)
    assert replay["X-Cache-Lookup"] == "HIT"
    for response in (first, replay):
        assert "Deprecation" not in response and "Link" not in response
