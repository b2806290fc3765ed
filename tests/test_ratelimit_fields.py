"""``RateLimit-Policy`` and ``RateLimit`` (draft-ietf-httpapi-ratelimit-headers-11) on every
answer the client throttle governs: read with a Structured Fields parser, held to the shapes of
the draft's own examples. On the local-memory cache, and on Redis with ``REDIS_URL``."""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import uuid
from types import SimpleNamespace
from typing import Any

import pytest
import time_machine
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from django_api_conventions.clients import ClientRateThrottle
from testproject.billing.models import Customer, Invoice

pytestmark = pytest.mark.django_db(transaction=True)
START = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)

# Sections 3.2, 4.2, 6 and 7 of the draft.
DRAFT_POLICIES = [
    '"burst";q=100;w=60,"daily";q=1000;w=86400',
    '"default";q=100;w=10',
    '"permin";q=50;w=60,"perhr";q=1000;w=3600',
    '"peruser";q=100;w=60;pk=:cHsdsRa894==:',
    '"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:',
]
DRAFT_LIMITS = [
    '"default";r=50;t=30',
    '"default";r=999;pk=:dHJpYWwxMjEzMjM=:',
    '"default";r=300000000;t=60;pk=:QXBwLTk5OQ==:',
    '"problemPolicy";r=0;t=10',
    '"default";r=1;t=7',
]

Item = tuple[Any, dict[str, Any]]
_BARE = r'"(?:[^"\\]|\\["\\])*"|-?\d{1,15}(?!\.)|:[A-Za-z0-9+/=]*:|[A-Za-z*][\w:/!#$%&\'*+.^`|~-]*'
_ITEM = re.compile(rf"({_BARE})((?:;[a-z*][a-z0-9_.*-]*(?:=(?:{_BARE}))?)*)")
_PARAM = re.compile(rf";([a-z*][a-z0-9_.*-]*)(?:=({_BARE}))?")


def _bare(text: str) -> Any:
    if text.startswith('"'):
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    if text.startswith(":"):
        return base64.b64decode(text[1:-1], validate=True)
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return ("token", text)


def parse_list(field: str) -> list[Item]:
    """A Structured Fields List of Items with Parameters; ValueError when it is not one."""
    items, rest = [], field.strip(" ")
    while True:
        match = _ITEM.match(rest)
        if match is None:
            raise ValueError(f"not an item: {rest!r}")
        params = {key: True if value is None else _bare(value) for key, value in _PARAM.findall(match[2])}
        items.append((_bare(match[1]), params))
        rest = rest[match.end() :].lstrip(" \t")
        if not rest:
            return items
        if not rest.startswith(","):
            raise ValueError(f"no comma before {rest!r}")
        rest = rest[1:].lstrip(" \t")


def _is_int(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def check_policies(field: str) -> list[Item]:
    """Section 3: String items; ``q`` required, ``w`` a positive Integer, ``qu`` a String, ``pk`` bytes."""
    items = parse_list(field)
    for name, params in items:
        assert isinstance(name, str), name
        assert _is_int(params.get("q"), 0), params
        assert "w" not in params or _is_int(params["w"], 1), params
        assert isinstance(params.get("qu", ""), str) and isinstance(params.get("pk", b""), bytes), params
    return items


def check_limits(field: str) -> list[Item]:
    """Section 4: String items; ``r`` required, ``t`` a non-negative Integer, ``pk`` bytes."""
    items = parse_list(field)
    for name, params in items:
        assert isinstance(name, str), name
        assert _is_int(params.get("r"), 0), params
        assert "t" not in params or _is_int(params["t"], 0), params
        assert isinstance(params.get("pk", b""), bytes), params
    return items


def fields(response: Any) -> tuple[list[Item], list[Item]]:
    return check_policies(response["RateLimit-Policy"]), check_limits(response["RateLimit"])


def rate(settings: Any, value: str | None) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"client": value}}


@pytest.mark.parametrize("field", DRAFT_POLICIES)
def test_the_drafts_policy_examples_pass_the_check(field: str) -> None:
    assert check_policies(field)


@pytest.mark.parametrize("field", DRAFT_LIMITS)
def test_the_drafts_limit_examples_pass_the_check(field: str) -> None:
    assert check_limits(field)


@pytest.mark.parametrize(
    ("check", "field"),
    [
        (check_policies, "default;q=100;w=10"),  # a Token, not a String
        (check_policies, '"default";w=10'),  # no quota
        (check_policies, '"default";q=100;w=0'),
        (check_policies, '"default";q=1.5'),
        (check_limits, '"default";t=30'),  # nothing left said
        (check_limits, '"default";r=-1'),
        (check_limits, '"default";r=5 "other";r=1'),
    ],
)
def test_the_check_refuses_what_the_draft_does_not_allow(check: Any, field: str) -> None:
    with pytest.raises((AssertionError, ValueError)):
        check(field)


def test_answers_say_the_policy_and_what_is_left_until_a_429_with_retry_after(settings: Any) -> None:
    rate(settings, "3/min")
    client = APIClient(headers={"X-Client-ID": "fields-acme-7"})
    seen = []
    with time_machine.travel(START, tick=False) as traveller:
        for second in (0, 10, 20, 30):
            traveller.move_to(START + dt.timedelta(seconds=second))
            response = client.get("/v2/users")
            policies, limits = fields(response)
            assert policies == [("client", {"q": 3, "w": 60})]
            seen.append((response.status_code, limits))
            assert "fields-acme-7" not in response["RateLimit"] + response["RateLimit-Policy"]
    # Left after each request, and the seconds until the request at second 0 leaves the window.
    assert seen[:3] == [
        (200, [("client", {"r": 2, "t": 60})]),
        (200, [("client", {"r": 1, "t": 50})]),
        (200, [("client", {"r": 0, "t": 40})]),
    ]
    assert seen[3] == (429, [("client", {"r": 0, "t": 30})])
    assert response["Content-Type"] == "application/problem+json" and response["Retry-After"] == "30"


def test_after_the_rate_is_lowered_the_429s_window_ends_with_retry_after(settings: Any) -> None:
    rate(settings, "5/min")
    client = APIClient(headers={"X-Client-ID": "fields-lowered"})
    with time_machine.travel(START, tick=False) as traveller:
        for second in (0, 10, 20, 30, 40):
            traveller.move_to(START + dt.timedelta(seconds=second))
            assert client.get("/v2/users").status_code == 200
        rate(settings, "2/min")
        traveller.move_to(START + dt.timedelta(seconds=45))
        throttled = client.get("/v2/users")
    assert throttled.status_code == 429 and throttled["Retry-After"] == "45"
    assert fields(throttled) == ([("client", {"q": 2, "w": 60})], [("client", {"r": 0, "t": 45})])


@pytest.mark.parametrize("view", ["payments", "async-payments"])
def test_a_replay_carries_the_current_quota_not_the_stored_one(settings: Any, view: str) -> None:
    rate(settings, "10/min")
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    invoice = Invoice.objects.create(user=user, amount_due=10_000, currency="eur")
    client = APIClient(headers={"X-Client-ID": "fields-replay", "Idempotency-Key": uuid.uuid4().hex})
    body = json.dumps({"amount": 100, "currency": "eur"})
    with time_machine.travel(START, tick=False):
        first, again = (
            client.generic("POST", f"/v2/invoices/{invoice.pk}/{view}", body, content_type="application/json")
            for _ in range(2)
        )
        assert first.status_code == again.status_code == 201
        assert again["Idempotent-Replayed"] == "true" and again.content == first.content
        assert fields(first)[1] == [("client", {"r": 9, "t": 60})]
        assert fields(again)[1] == [("client", {"r": 8, "t": 60})]


def test_without_a_rate_no_fields_are_sent(settings: Any) -> None:
    rate(settings, None)
    response = APIClient().get("/v2/users")
    assert response.status_code == 200
    assert "RateLimit" not in response and "RateLimit-Policy" not in response


def test_two_scopes_on_one_view_list_both_policies(settings: Any) -> None:
    class BurstThrottle(ClientRateThrottle):
        scope = "burst"

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"client": "100/hour", "burst": "5/sec"},
    }
    view = SimpleNamespace(headers={}, http_method_names=["get"], get=None)
    request = Request(APIRequestFactory().get("/v2/users", HTTP_X_CLIENT_ID="fields-scopes"))
    with time_machine.travel(START, tick=False):
        assert ClientRateThrottle().allow_request(request, view)
        assert BurstThrottle().allow_request(request, view)
    assert fields(view.headers) == (
        [("client", {"q": 100, "w": 3600}), ("burst", {"q": 5, "w": 1})],
        [("client", {"r": 99, "t": 3600}), ("burst", {"r": 4, "t": 1})],
    )
