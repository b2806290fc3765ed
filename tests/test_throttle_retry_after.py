"""Every 429 of the client throttle says when to retry: when the next slot frees.

DRF's ``SimpleRateThrottle.wait()`` returns ``None`` when a client's recorded history holds
more requests than its rate (a rate lowered while the history lives on, or two services with
different rates on one cache): the 429 then had no ``Retry-After``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from django_api_conventions.clients.throttling import ClientRateThrottle

pytestmark = pytest.mark.django_db(transaction=True)
START = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)


def rate(settings: Any, value: str) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"client": value}}


def get_users(client: APIClient, traveller: Any, at_second: float) -> Any:
    traveller.move_to(START + dt.timedelta(seconds=at_second))
    return client.get("/v2/users")


def test_after_the_rate_is_lowered_the_429_says_when_the_next_slot_frees(settings: Any) -> None:
    client = APIClient(headers={"X-Client-ID": "lowered"})
    rate(settings, "5/min")
    with time_machine.travel(START, tick=False) as traveller:
        for second in (0, 10, 20, 30, 40):
            assert get_users(client, traveller, second).status_code == 200
        rate(settings, "2/min")
        # Five requests within the minute, two allowed: the newest must be alone in it, so the
        # one at second 30 must expire, at second 90.
        throttled = get_users(client, traveller, 45)
        assert throttled.status_code == 429
        assert throttled["Retry-After"] == "45"
        assert get_users(client, traveller, 89).status_code == 429
        assert get_users(client, traveller, 90.5).status_code == 200


def test_at_the_rate_the_wait_is_until_the_oldest_request_expires(settings: Any) -> None:
    client = APIClient(headers={"X-Client-ID": "at-rate"})
    rate(settings, "2/min")
    with time_machine.travel(START, tick=False) as traveller:
        assert get_users(client, traveller, 0).status_code == 200
        assert get_users(client, traveller, 20).status_code == 200
        throttled = get_users(client, traveller, 30)
        assert throttled.status_code == 429 and throttled["Retry-After"] == "30"


def test_a_rate_of_zero_asks_again_after_a_window(settings: Any) -> None:
    rate(settings, "0/min")
    throttled = APIClient(headers={"X-Client-ID": "zero"}).get("/v2/users")
    assert throttled.status_code == 429 and throttled["Retry-After"] == "60"


def test_wait_when_a_slot_is_free(settings: Any) -> None:
    rate(settings, "2/min")
    throttle = ClientRateThrottle()
    throttle.slots, throttle.now = [[100.0, 1]], 110.0
    assert throttle.wait() == 0.0
