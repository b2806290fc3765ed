"""Faults: the Redis server of the Redis store (and of the Django cache: throttling and the
maintenance switch) is killed while gunicorn serves, then started again.

Keyed requests answer 503 problems with ``Retry-After`` (``IDEMPOTENCY_STORE_UNAVAILABLE =
"fail-closed"``, the default) or run without their key (``"fail-open"``); unkeyed reads keep
working; once Redis is back, keyed requests work again without restarting anything.
"""

from __future__ import annotations

import json
import time
import uuid

import pytest

from testproject.billing.models import Customer

from .figures import report
from .http import HTTPResult, send
from .private_services import private_redis
from .servers import gunicorn

pytestmark = [pytest.mark.faults, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def create_user(url: str, client_id: str, email: str, key: str | None) -> HTTPResult:
    headers = {"Content-Type": "application/json", "X-Client-ID": client_id}
    if key:
        headers["Idempotency-Key"] = key
    return send(url, "POST", "/v2/users", body=json.dumps({"email": email, "name": "Redis outage"}), headers=headers)


def new_email() -> str:
    return f"{uuid.uuid4().hex}@example.com"


@pytest.mark.parametrize("policy", ["fail-closed", "fail-open"])
def test_redis_killed_and_restarted_under_the_redis_store(policy: str) -> None:
    client_id = f"redis-outage-{uuid.uuid4().hex[:12]}"
    with (
        private_redis() as redis,
        gunicorn(
            2, preload=True, REDIS_URL=redis.url, IDEMPOTENCY_STORE="redis", IDEMPOTENCY_STORE_UNAVAILABLE=policy
        ) as server,
    ):
        before = create_user(server.url, client_id, email := new_email(), key := uuid.uuid4().hex)
        assert before.status == 201 and before.header("X-Cache-Lookup") == "MISS"
        assert create_user(server.url, client_id, email, key).header("X-Cache-Lookup") == "HIT"

        redis.stop()
        during = [create_user(server.url, client_id, new_email(), uuid.uuid4().hex) for _ in range(5)]
        replay_during = create_user(server.url, client_id, email, key)
        reads = [send(server.url, "GET", "/v2/users?limit=5", headers={"X-Client-ID": client_id}) for _ in range(5)]
        users_after_outage = Customer.objects.filter(name="Redis outage").count()

        redis.start()  # the same port, empty: no restart of gunicorn
        after = [_until_not_503(server.url, client_id) for _ in range(3)]

    assert all(read.status == 200 for read in reads), [read.status for read in reads]
    if policy == "fail-closed":
        for answer in [*during, replay_during]:
            assert answer.status == 503, answer.body
            assert answer.header("Content-Type") == "application/problem+json"
            assert answer.json()["type"].endswith("/idempotency-store-unavailable")
            assert answer.header("Retry-After") == "5"
        assert users_after_outage == 1, "nothing ran during the outage"
    else:
        # The view ran once per request, without idempotency: no key was claimed or stored.
        assert [answer.status for answer in during] == [201] * 5
        assert all(answer.header("X-Cache-Lookup") is None for answer in during)
        # Run again without its stored answer: here the unique e-mail refuses the second user.
        assert replay_during.status == 422 and replay_during.header("Content-Type") == "application/problem+json"
        assert users_after_outage == 1 + 5
    for first, replay in after:
        assert first.status == 201 and first.header("X-Cache-Lookup") == "MISS"
        assert replay.header("X-Cache-Lookup") == "HIT" and replay.body == first.body
    report(
        f"faults-redis-outage-{policy}",
        {
            "policy": policy,
            "keyed_during_outage": sorted({answer.status for answer in during}),
            "replay_during_outage": replay_during.status,
            "unkeyed_reads_during_outage": [r.status for r in reads],
            "keyed_after_restart": [first.status for first, _ in after],
        },
    )


def _until_not_503(url: str, client_id: str) -> tuple[HTTPResult, HTTPResult]:
    """A new keyed request and its replay, once the connection pool has found Redis again."""
    email, key = new_email(), uuid.uuid4().hex
    deadline = time.monotonic() + 15
    while (first := create_user(url, client_id, email, key)).status == 503:
        assert time.monotonic() < deadline, "keyed requests did not resume after Redis came back"
        time.sleep(0.2)
    return first, create_user(url, client_id, email, key)
