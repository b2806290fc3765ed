"""An unreachable Redis, in process: a real refused connection (port 1), no mock.

``IDEMPOTENCY_STORE_UNAVAILABLE = "fail-open"`` runs keyed requests without their key; a Django
cache that is down lets throttled requests through and reads the maintenance switch as off.
The same faults against real gunicorn workers and a killed redis-server: test_faults_redis_outage.py.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from testproject.billing.models import Customer

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

UNREACHABLE = {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5},
}


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "acme"})


def create_user(client: APIClient, email: str, key: str | None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return client.generic(
        "POST", "/v2/users", json.dumps({"email": email, "name": "U"}), content_type="application/json", headers=headers
    )


def redis_store_down(settings: Any, policy: str | None) -> None:
    settings.CACHES = {**settings.CACHES, "unreachable": UNREACHABLE}
    policy_setting = {"IDEMPOTENCY_STORE_UNAVAILABLE": policy} if policy else {}
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "IDEMPOTENCY_STORE": "redis",
        "IDEMPOTENCY_CACHE": "unreachable",
        **policy_setting,
    }


def test_fail_open_runs_the_request_without_its_key(
    client: APIClient, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    redis_store_down(settings, "fail-open")
    email, key = f"{uuid.uuid4().hex}@example.com", uuid.uuid4().hex
    with caplog.at_level(logging.WARNING, logger="django_api_conventions.idempotency"):
        response = create_user(client, email, key)
    assert response.status_code == 201 and "X-Cache-Lookup" not in response
    assert Customer.objects.filter(email=email).count() == 1
    assert "request run without its key (fail-open)" in caplog.text
    assert key not in caplog.text, "raw keys are never logged"
    again = create_user(client, email, key)
    assert again.status_code == 422, "nothing was stored: the retry runs again (here the e-mail is unique)"


def test_fail_closed_is_the_default(client: APIClient, settings: Any) -> None:
    redis_store_down(settings, None)
    email = f"{uuid.uuid4().hex}@example.com"
    response = create_user(client, email, uuid.uuid4().hex)
    assert response.status_code == 503 and response.json()["type"].endswith("/idempotency-store-unavailable")
    assert response["Content-Type"] == "application/problem+json" and response["Retry-After"] == "5"
    assert not Customer.objects.filter(email=email).exists()


@pytest.mark.parametrize("policy", ["fail-open", "fail-closed"])
def test_store_unavailable_is_signalled(client: APIClient, settings: Any, policy: str) -> None:
    from django_api_conventions.idempotency import signals

    redis_store_down(settings, policy)
    received: list[dict[str, Any]] = []
    signals.store_unavailable.connect(lambda **kw: received.append(kw), weak=False, dispatch_uid="t-unavailable")
    try:
        key = uuid.uuid4().hex
        response = create_user(client, f"{uuid.uuid4().hex}@example.com", key)
    finally:
        signals.store_unavailable.disconnect(dispatch_uid="t-unavailable")
    assert response.status_code == (201 if policy == "fail-open" else 503)
    (event,) = received
    assert event["fail_open"] is (policy == "fail-open") and event["scope"] == "client:acme"
    assert isinstance(event["error"], Exception) and key not in event["key_hash"]


#: Each kind of client the Redis store takes, pointed at a port where nothing listens.
UNREACHABLE_CLIENTS = {
    "django-redis": {"IDEMPOTENCY_CACHE": "unreachable"},
    "django-cache": {"IDEMPOTENCY_CACHE": "unreachable-django"},
    "django-valkey": {"IDEMPOTENCY_CACHE": "unreachable-valkey"},
    "url": {"IDEMPOTENCY_REDIS_URL": "redis://127.0.0.1:1/0?socket_connect_timeout=0.5"},
    "url-sentinel": {"IDEMPOTENCY_REDIS_URL": "redis+sentinel://127.0.0.1:1,127.0.0.1:2/mymaster"},
    "url-cluster": {"IDEMPOTENCY_REDIS_URL": "redis+cluster://127.0.0.1:1,127.0.0.1:2?socket_connect_timeout=0.5"},
}


@pytest.mark.parametrize("kind", UNREACHABLE_CLIENTS)
def test_every_client_that_cannot_reach_redis_is_a_503(client: APIClient, settings: Any, kind: str) -> None:
    if kind == "django-valkey":
        pytest.importorskip("django_valkey", reason="django-valkey is not installed")
    settings.CACHES = {
        **settings.CACHES,
        "unreachable": UNREACHABLE,
        "unreachable-django": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        },
        "unreachable-valkey": {"BACKEND": "django_valkey.cache.ValkeyCache", "LOCATION": "valkey://127.0.0.1:1/0"},
    }
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "redis", **UNREACHABLE_CLIENTS[kind]}
    email = f"{uuid.uuid4().hex}@example.com"
    response = create_user(client, email, uuid.uuid4().hex)
    assert response.status_code == 503 and response.json()["type"].endswith("/idempotency-store-unavailable")
    assert not Customer.objects.filter(email=email).exists()


def test_a_cache_that_is_down_lets_throttled_requests_through(
    client: APIClient, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.CACHES = {**settings.CACHES, "default": UNREACHABLE}
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_SWITCH_STORE": "cache"}
    with caplog.at_level(logging.WARNING):
        listing = client.get("/v2/users")
        once = client.get("/faults/throttled")
        twice = client.get("/faults/throttled")
    assert listing.status_code == 200
    assert (once.status_code, twice.status_code) == (200, 200), "no counter to read: the throttle lets them through"
    assert "Throttle cache unavailable, request let through" in caplog.text
    assert "Maintenance switch unreadable, treated as off" in caplog.text


#: A Sentinel's port named as if it were a Redis server (its answer to the store: "ERR unknown
#: command"): in IDEMPOTENCY_REDIS_URL, and in the default cache (the example service's REDIS_URL).
SENTINEL_PORT_AS_SERVER = {
    "url": lambda port: ({}, {"IDEMPOTENCY_REDIS_URL": f"redis://127.0.0.1:{port}/0"}),
    "default-cache": lambda port: (
        {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": f"redis://127.0.0.1:{port}/0"}},
        {},
    ),
}


@pytest.mark.redis_topologies
@pytest.mark.parametrize("kind", SENTINEL_PORT_AS_SERVER)
def test_a_sentinel_s_port_as_the_store_is_a_503(
    client: APIClient,
    settings: Any,
    redis_sentinel_topology: Any,
    caplog: pytest.LogCaptureFixture,
    kind: str,
) -> None:
    caches, store = SENTINEL_PORT_AS_SERVER[kind](redis_sentinel_topology.sentinels[0].port)
    settings.CACHES = {**settings.CACHES, **caches}
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "redis", **store}
    email = f"{uuid.uuid4().hex}@example.com"
    with caplog.at_level(logging.ERROR, logger="django_api_conventions.idempotency"):
        response = create_user(client, email, uuid.uuid4().hex)
    assert response.status_code == 503 and response.json()["type"].endswith("/idempotency-store-unavailable")
    assert response["Content-Type"] == "application/problem+json" and response["Retry-After"] == "5"
    assert not Customer.objects.filter(email=email).exists()
    assert "cannot run its commands (responseerror: unknown command 'evalsha'" in caplog.text.lower()
    assert "redis+sentinel://" in caplog.text, "the log names the URL form of a Sentinel set-up"


@pytest.mark.redis_topologies
def test_an_error_reply_to_the_store_s_own_script_is_a_refusal(
    redis_sentinel_topology: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """An error reply is never parsed: whatever its text, the store cannot run its commands."""
    import redis

    from django_api_conventions.idempotency.stores.redis import KEY_PREFIX, Script
    from django_api_conventions.redis import UNAVAILABLE_ERRORS, CommandsRefused

    broken = Script("return redis.call('HSET', KEYS[1])")  # too few arguments
    client = redis.Redis(port=redis_sentinel_topology.master_port())
    with (
        caplog.at_level(logging.ERROR, logger="django_api_conventions.idempotency"),
        pytest.raises(CommandsRefused) as raised,
    ):
        broken([KEY_PREFIX + "broken"], [], client=client)
    assert isinstance(raised.value, UNAVAILABLE_ERRORS) and isinstance(raised.value.__cause__, redis.ResponseError)
    assert "cannot run its commands (ResponseError: Wrong number of args" in caplog.text
