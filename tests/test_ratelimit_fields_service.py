"""The example service's RateLimit fields over real HTTP, with ``THROTTLE_RATE`` set: gunicorn
with one worker (so that the local-memory cache counts every request of a client), on SQLite,
and on PostgreSQL with the Redis cache when both are set."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from .example_service import Service, example_service
from .http import HTTPResult, send
from .test_ratelimit_fields import check_limits, check_policies

RATE = 5


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("postgres+redis", marks=[pytest.mark.postgres, pytest.mark.redis])],
)
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with example_service(
        request.param,
        tmp_path_factory.mktemp("ratelimit"),
        gunicorn_options=("--workers", "1"),
        THROTTLE_RATE=f"{RATE}/min",
    ) as running:
        yield running


def figures(answer: HTTPResult) -> tuple[int, int]:
    """``r`` and ``t`` of the one policy, after checking both fields against the draft."""
    assert check_policies(answer.header("RateLimit-Policy") or "") == [("client", {"q": RATE, "w": 60})]
    ((name, limit),) = check_limits(answer.header("RateLimit") or "")
    assert name == "client" and set(limit) == {"r", "t"}
    return limit["r"], limit["t"]


def test_each_answer_says_what_is_left_and_the_429_says_when_to_retry(service: Service) -> None:
    client_id = f"rl-{uuid.uuid4().hex[:10]}"
    answers = [send(service.url, "GET", "/v2/users", headers={"X-Client-ID": client_id}) for _ in range(RATE + 1)]
    assert [answer.status for answer in answers] == [200] * RATE + [429]
    left = [figures(answer) for answer in answers]
    assert [remaining for remaining, _ in left] == [4, 3, 2, 1, 0, 0]
    assert all(1 <= seconds <= 60 for _, seconds in left)
    throttled = answers[-1]
    assert throttled.header("Content-Type") == "application/problem+json"
    assert 1 <= left[-1][1] <= int(throttled.header("Retry-After") or 0)
    assert all(
        client_id not in f"{answer.header('RateLimit')}{answer.header('RateLimit-Policy')}" for answer in answers
    )


def test_a_replay_says_the_quota_left_after_it(service: Service) -> None:
    headers = {"X-Client-ID": f"rl-{uuid.uuid4().hex[:10]}", "Idempotency-Key": uuid.uuid4().hex}
    payload = {"email": f"{uuid.uuid4().hex}@example.com", "name": "Ada"}
    first, again = (send(service.url, "POST", "/v2/users", headers=headers, json_body=payload) for _ in range(2))
    assert first.status == again.status == 201 and again.header("Idempotent-Replayed") == "true"
    assert (figures(first)[0], figures(again)[0]) == (RATE - 1, RATE - 2)
