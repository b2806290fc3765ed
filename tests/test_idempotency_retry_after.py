"""Every 409 of the idempotency layer says when to retry, from what is known of the first request.

- in flight: half of what the first request has run so far (1 s during its first 2 s), never
  beyond the end of its lease; it was the whole lease (``Retry-After: 60`` for a request that
  finishes in milliseconds);
- lease expired (the late worker lost its key to a newer attempt): 1 s; it had none.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from django_api_conventions.idempotency import IdempotencyOptions, get_store, run_idempotently
from django_api_conventions.idempotency.waiting import in_flight_retry_after
from django_api_conventions.problems import ProblemException

pytestmark = pytest.mark.django_db(transaction=True)

factory = RequestFactory()


def keyed_request() -> HttpRequest:
    return factory.post(
        "/idempotency/probe",
        b'{"a": 1}',
        content_type="application/json",
        headers={"Idempotency-Key": uuid.uuid4().hex, "X-Client-ID": "retry-after"},
    )


def twin_while_running(options: IdempotencyOptions, before_twin: Callable[[], None] = lambda: None) -> ProblemException:
    """The problem a twin of a keyed request gets while the first one runs (after ``before_twin``)."""
    request = keyed_request()
    answers: list[ProblemException] = []

    def first_view() -> HttpResponse:
        before_twin()
        with pytest.raises(ProblemException) as twin:
            run_idempotently(request, options, lambda: HttpResponse(status=201))
        answers.append(twin.value)
        return HttpResponse(status=201)

    assert run_idempotently(request, options, first_view).status_code == 201
    return answers[0]


@pytest.mark.parametrize(
    ("lease", "remaining", "expected"),
    [
        (60, 59.99, 1),  # just started: most requests finish in milliseconds
        (60, 58.5, 1),  # ran 1.5 s
        (60, 57.5, 2),  # ran 2.5 s
        (60, 40, 10),  # ran 20 s: half of it
        (60, 3.5, 4),  # ran 56.5 s: never beyond the lease
        (60, 0.2, 1),  # the lease ends now: at least a second
        (10, 30, 1),  # renewed for longer than this view's lease
    ],
)
def test_in_flight_estimate(lease: float, remaining: float, expected: int) -> None:
    assert in_flight_retry_after(lease, remaining) == expected


def test_a_twin_of_a_request_just_started_retries_after_1_second_not_the_lease(store_name: str) -> None:
    problem = twin_while_running(IdempotencyOptions(lease_seconds=60))
    assert problem.problem_type.slug == "idempotency-key-in-use"
    assert problem.headers["Retry-After"] == "1"


def test_a_twin_of_a_longer_request_waits_half_its_run_time(store_name: str) -> None:
    problem = twin_while_running(IdempotencyOptions(lease_seconds=60), lambda: time.sleep(2.2))
    assert problem.headers["Retry-After"] == "2"


def test_the_wait_never_passes_the_end_of_the_lease(store_name: str) -> None:
    problem = twin_while_running(IdempotencyOptions(lease_seconds=3), lambda: time.sleep(2.2))
    assert problem.headers["Retry-After"] == "1"


def test_a_request_that_lost_its_lease_retries_after_1_second(store_name: str) -> None:
    request = keyed_request()

    def lose_the_lease() -> HttpResponse:
        keyed: Any = request.idempotency  # type: ignore[attr-defined]
        # Another attempt took the key over: the lease belongs to a new owner.
        assert get_store().release(keyed.scope, keyed.key, keyed.owner)
        claim = get_store().claim(keyed.scope, keyed.key, "another request", 60, 60)
        assert claim.owner
        keyed.renew_lease()
        return HttpResponse(status=201)

    with pytest.raises(ProblemException) as lost:
        run_idempotently(request, IdempotencyOptions(), lose_the_lease)
    assert lost.value.problem_type.slug == "idempotency-lease-expired" and lost.value.status_code == 409
    assert lost.value.headers["Retry-After"] == "1"
