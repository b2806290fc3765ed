"""IDEMPOTENCY_REDIS_WAIT_REPLICAS: a claim held by fewer replicas than asked is given back and
the request answers 503 before its view runs; held by enough, the request runs as usual.

On a plain server (no replica), on the Cluster (one replica per master) and on the Sentinel
set-up (two replicas): real servers, nothing mocked.
"""

from __future__ import annotations

import json
import uuid
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from django_api_conventions.idempotency.stores.redis import RedisStore
from testproject.billing.models import Customer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


@pytest.fixture(autouse=True)
def _short_replica_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    # A missing replica costs the claim its whole wait: 100 ms rather than the default 500.
    monkeypatch.setattr(RedisStore, "wait_timeout_ms", 100)


# Replicas each variant has: a plain server none, a Cluster master one, the Sentinel master two.
REPLICAS = {"redis-url": 0, "redis-cluster": 1, "redis-sentinel": 2}


def create_user(replicas: int, settings: Any, language: str = "en") -> tuple[Any, str, str]:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_REDIS_WAIT_REPLICAS": replicas}
    key, email = uuid.uuid4().hex, f"{uuid.uuid4().hex}@example.com"
    response = APIClient(headers={"X-Client-ID": "acme", "Accept-Language": language}).generic(
        "POST",
        "/v2/users",
        json.dumps({"email": email, "name": "W"}),
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )
    return response, key, email


@pytest.mark.parametrize("store_name", list(REPLICAS), indirect=True)
def test_a_claim_held_by_enough_replicas_runs_the_view(store_name: str, settings: Any) -> None:
    response, _key, email = (
        create_user(max(1, REPLICAS[store_name]), settings)
        if REPLICAS[store_name]
        else (pytest.skip("a plain server has no replica"))
    )
    assert response.status_code == 201 and response["X-Cache-Lookup"] == "MISS"
    assert Customer.objects.filter(email=email).count() == 1


@pytest.mark.parametrize("store_name", list(REPLICAS), indirect=True)
def test_a_claim_held_by_too_few_replicas_is_given_back_and_answers_503(store_name: str, settings: Any) -> None:
    response, key, email = create_user(REPLICAS[store_name] + 1, settings)
    assert response.status_code == 503 and response["Content-Type"] == "application/problem+json"
    assert response.json()["type"].endswith("/idempotency-store-unavailable")
    assert f"to {REPLICAS[store_name] + 1} replicas in time" in response.json()["detail"]
    assert response["Retry-After"] == "5"
    assert not Customer.objects.filter(email=email).exists(), "the view did not run"
    with pytest.raises(CommandError, match="No idempotency record"):  # released: a retry may claim it
        call_command("idempotency_inspect", "client:acme", key, stdout=StringIO())


@pytest.mark.parametrize("store_name", ["redis-url"], indirect=True)
def test_the_503_speaks_german(store_name: str, settings: Any) -> None:
    response, _key, _email = create_user(1, settings, language="de")
    assert response.status_code == 503 and response["Content-Language"] == "de"
    assert "Replikate" in response.json()["detail"]
