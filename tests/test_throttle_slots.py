"""The client throttle counts requests per slot of its period, not one cache entry per request.

DRF's ``SimpleRateThrottle`` keeps a timestamp per request in the cache and reads and writes the
whole list on each request: the cost of a request grew with the rate (at ``10000/min`` a busy
client's list was about 90 kB, pickled and sent twice per request). The window is now at most
``SLOTS_PER_PERIOD + 1`` ``[slot start, count]`` pairs, in the project's real cache.
"""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from typing import Any

import pytest
import time_machine
from django.test import RequestFactory

from django_api_conventions.clients.throttling import SLOTS_PER_PERIOD, ClientRateThrottle, _redis_client_of

from .test_throttle_retry_after import rate

START = dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC)


def ask(client_id: str, traveller: Any, at_second: float) -> ClientRateThrottle:
    """One request of ``client_id`` at ``at_second``, through a throttle as DRF makes one per request."""
    traveller.move_to(START + dt.timedelta(seconds=at_second))
    throttle = ClientRateThrottle()
    throttle.allowed = throttle.allow_request(RequestFactory().get("/", HTTP_X_CLIENT_ID=client_id), None)
    return throttle


def cached_slots(throttle: ClientRateThrottle) -> list[list[float]]:
    """The window as the cache holds it: on Redis a hash of slot counts, elsewhere the list."""
    client = _redis_client_of(throttle.cache)
    if client is None:
        slots: list[list[float]] = throttle.cache.get(throttle.key)
        return slots
    window = client.hgetall(throttle.cache.make_key(throttle.key))
    return sorted(([float(start), int(count)] for start, count in window.items()), reverse=True)


def on_redis() -> bool:
    return _redis_client_of(ClientRateThrottle.cache) is not None


def test_a_busy_clients_window_stays_a_slot_per_second(settings: Any) -> None:
    rate(settings, "1000000/min")
    with time_machine.travel(START, tick=False) as traveller:
        for tenth in range(900):  # ten requests a second for 90 seconds
            throttle = ask("busy", traveller, tenth / 10)
            assert throttle.allowed
        # Read while the clock is still START + 90 s: a local-memory cache expires its entries
        # at an absolute time, which the real clock has long passed.
        slots = cached_slots(throttle)
    assert len(slots) <= SLOTS_PER_PERIOD + 1
    # The last minute's requests, counted: seconds 30 to 89.9 (slot 29 left when second 89 began).
    assert sum(count for _, count in slots) == 600
    assert [start for start, _ in slots] == sorted((start for start, _ in slots), reverse=True)


def test_the_rate_holds_within_a_second(settings: Any) -> None:
    rate(settings, "5/s")  # slots of 1/60 s
    with time_machine.travel(START, tick=False) as traveller:
        answers = [ask("fast", traveller, 0.1 * step).allowed for step in range(8)]
        assert answers == [True] * 5 + [False] * 3
        throttled = ask("fast", traveller, 0.75)
        assert not throttled.allowed
        # The first request left its slot [0, 1/60) and the window at second 1.
        assert throttled.wait() == pytest.approx(0.25)
        assert ask("fast", traveller, 1.0).allowed


def test_a_request_leaves_the_window_a_period_after_its_slot_began(settings: Any) -> None:
    rate(settings, "2/min")
    with time_machine.travel(START, tick=False) as traveller:
        assert ask("slotted", traveller, 0.5).allowed
        assert ask("slotted", traveller, 20.7).allowed
        throttled = ask("slotted", traveller, 30)
        assert not throttled.allowed
        assert throttled.wait() == 30.0  # the slot of second 0 leaves at second 60, not 60.5
        assert not ask("slotted", traveller, 59.9).allowed
        assert ask("slotted", traveller, 60).allowed


def test_a_value_of_another_shape_under_the_key_counts_as_an_empty_window(settings: Any) -> None:
    rate(settings, "1/min")
    with time_machine.travel(START, tick=False) as traveller:
        first = ask("odd", traveller, 0)
        first.cache.set(first.key, "not slots", 60)
        assert ask("odd", traveller, 1).allowed
        assert not ask("odd", traveller, 2).allowed


def test_one_clients_requests_at_the_same_instant_are_each_counted(settings: Any) -> None:
    # On Redis one script reads and counts the window: a read and a later write of the whole
    # window let two requests at once both read 0 and write 1, and the rate let more through.
    if not on_redis():
        pytest.skip("the window is counted by a script on a Redis cache (REDIS_URL)")
    rate(settings, "20/min")
    client_id, threads = f"burst-{uuid.uuid4().hex[:8]}", 40
    barrier = threading.Barrier(threads)
    allowed: list[bool] = []

    def request() -> None:
        barrier.wait(timeout=10)
        throttle = ClientRateThrottle()
        allowed.append(throttle.allow_request(RequestFactory().get("/", HTTP_X_CLIENT_ID=client_id), None))

    workers = [threading.Thread(target=request) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert allowed.count(True) == 20, allowed.count(True)
