"""Brownouts: planned windows before v1's sunset in which it answers as on that day.

Inside a window every ``/v1/...`` request is the 410 ``version-retired`` of the sunset day, with
the usual deprecation headers and ``Retry-After`` to the window's end, a signal and one log
line; outside, v1 serves as usual. Time is moved with time-machine.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import uuid
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import AsyncClient, Client, override_settings
from rest_framework.test import APIClient

from django_api_conventions import checks
from django_api_conventions.versioning.brownouts import Brownout, parse_brownouts
from django_api_conventions.versioning.signals import deprecated_version_used, version_brownout_refused
from testproject.billing.models import Customer, Invoice
from testproject.environment import with_brownouts
from testproject.settings import API_CONVENTIONS as EXAMPLE_SETTINGS
from testproject.settings import MIGRATION_GUIDE

pytestmark = pytest.mark.django_db(transaction=True)

UTC = dt.UTC
WINDOWS = ["2026-12-08T10:00:00Z/PT15M", "2026-12-09T10:00:00Z/2026-12-09T11:00:00Z"]
FIRST = Brownout(dt.datetime(2026, 12, 8, 10, tzinfo=UTC), dt.datetime(2026, 12, 8, 10, 15, tzinfo=UTC))
SECOND = Brownout(dt.datetime(2026, 12, 9, 10, tzinfo=UTC), dt.datetime(2026, 12, 9, 11, tzinfo=UTC))
INSIDE = dt.datetime(2026, 12, 8, 10, 5, 30, tzinfo=UTC)  # 570 seconds before the first window ends
SUNSET = dt.datetime(2027, 6, 1, tzinfo=UTC)
V1_DEPRECATION = "@1780272000"  # 2026-06-01
V1_SUNSET = "Tue, 01 Jun 2027 00:00:00 GMT"
V1_LINK = (
    f'<{MIGRATION_GUIDE}>; rel="deprecation"; type="text/html", <{MIGRATION_GUIDE}>; rel="sunset"; type="text/html"'
)
LOGGER = "django_api_conventions.deprecation"


def versions_with(windows: Any, name: str = "v1") -> list[dict[str, Any]]:
    return [{**v, "brownouts": windows} if v["name"] == name else v for v in EXAMPLE_SETTINGS["VERSIONS"]]


@pytest.fixture(autouse=True)
def _planned(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSIONS": versions_with(WINDOWS)}


def at(moment: dt.datetime) -> Any:
    return time_machine.travel(moment, tick=False)


def get(path: str, **headers: str) -> Any:
    return Client(headers={"X-Client-ID": "acme-billing", **headers}).get(path)


# -- inside and outside a window ---------------------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("path", ["/v1/users", "/v1", "/v1/invoices/inv_1/payments", "/v1/no-such-thing"])
def test_inside_a_window_v1_answers_the_410_of_its_sunset_day_with_retry_after(method: str, path: str) -> None:
    with at(SUNSET):
        sunset_day = Client().generic(method, path, "{}", content_type="application/json")
    with at(INSIDE):
        response = Client().generic(method, path, "{}", content_type="application/json")
    assert (sunset_day.status_code, response.status_code) == (410, 410)
    assert response["Content-Type"] == "application/problem+json"
    body, retired = response.json(), sunset_day.json()
    for member in ("type", "title", "status", "version", "migration_guide"):
        assert body[member] == retired[member], member
    assert body["type"].endswith("/problems/version-retired") and body["migration_guide"] == MIGRATION_GUIDE
    assert "until 2026-12-08T10:15:00Z" in body["detail"] and "2027-06-01" in body["detail"]
    assert response["Retry-After"] == "570"
    assert "Retry-After" not in sunset_day
    assert (response["Sunset"], response["Link"]) == (sunset_day["Sunset"], sunset_day["Link"]) == (V1_SUNSET, V1_LINK)
    assert response["Deprecation"] == V1_DEPRECATION  # still a deprecated version, announced as usual
    assert "Location" not in response


@pytest.mark.parametrize(
    ("moment", "retry_after"),
    [
        (FIRST.start, "900"),
        (FIRST.end - dt.timedelta(seconds=0.5), "1"),  # whole seconds, rounded up
        (SECOND.start + dt.timedelta(minutes=59, seconds=1), "59"),
    ],
)
def test_retry_after_is_the_whole_seconds_to_the_end_of_the_window(moment: dt.datetime, retry_after: str) -> None:
    with at(moment):
        response = get("/v1/users")
    assert (response.status_code, response["Retry-After"]) == (410, retry_after)


@pytest.mark.parametrize(
    "moment",
    [FIRST.start - dt.timedelta(seconds=1), FIRST.end, SECOND.start - dt.timedelta(hours=12), SECOND.end],
    ids=["just-before", "at-the-end", "between", "after-the-last"],
)
def test_outside_the_windows_v1_serves_as_usual(moment: dt.datetime) -> None:
    with at(moment):
        response = get("/v1/users")
    assert response.status_code == 200, response.content[:300]
    assert (response["Deprecation"], response["Sunset"]) == (V1_DEPRECATION, V1_SUNSET)
    assert "Retry-After" not in response


def test_other_versions_serve_during_a_brownout_of_v1() -> None:
    with at(INSIDE):
        assert get("/v2/users").status_code == 200
        assert get("/v0/users").status_code == 410 and "Retry-After" not in get("/v0/users")
        assert get("/openapi.json?version=v1").status_code == 200


def test_after_the_sunset_a_past_window_changes_nothing() -> None:
    with at(SUNSET + dt.timedelta(days=1)):
        response = get("/v1/users")
    assert response.status_code == 410 and "Retry-After" not in response


def test_the_brownout_holds_under_asgi() -> None:
    with at(INSIDE):
        response = async_get("/v1/users")
    assert (response.status_code, response["Retry-After"]) == (410, "570")
    assert response["Deprecation"] == V1_DEPRECATION


def async_get(path: str) -> Any:
    from asgiref.sync import async_to_sync

    return async_to_sync(AsyncClient(headers={"X-Client-ID": "acme-billing"}).get)(path)


# -- who was refused ---------------------------------------------------------------------------


def test_each_refused_call_sends_the_signal_and_logs_one_line(caplog: pytest.LogCaptureFixture) -> None:
    received: list[tuple[Any, dict[str, Any]]] = []

    def receiver(signal: Any, sender: Any, **kwargs: Any) -> None:
        received.append((signal, kwargs))

    for signal in (version_brownout_refused, deprecated_version_used):
        signal.connect(receiver, weak=False)
    caplog.set_level(logging.INFO, logger=LOGGER)
    try:
        with at(INSIDE):
            get("/v1/users")
            get("/v1/invoices")
        with at(FIRST.end):
            get("/v1/users")
    finally:
        for signal in (version_brownout_refused, deprecated_version_used):
            signal.disconnect(receiver)
    assert [signal for signal, _ in received] == [
        version_brownout_refused,
        version_brownout_refused,
        deprecated_version_used,
    ]
    refused = received[0][1]
    assert (refused["version"], refused["brownout"], refused["client_id"]) == ("v1", FIRST, "client:acme-billing")
    assert refused["deprecation"].subject == "version v1"
    records = [record for record in caplog.records if record.name == LOGGER]
    assert [record.getMessage() for record in records] == [
        "Brownout of version v1 refused client:acme-billing: GET /v1/users (until 2026-12-08T10:15:00+00:00)",
        "Brownout of version v1 refused client:acme-billing: GET /v1/invoices (until 2026-12-08T10:15:00+00:00)",
        "Deprecated version v1 used by client:acme-billing: GET /v1/users (sunset 2027-06-01T00:00:00+00:00)",
    ]
    assert [record.levelno for record in records] == [logging.WARNING, logging.WARNING, logging.INFO]
    assert records[0].brownout == str(FIRST) == "2026-12-08T10:00:00Z/2026-12-08T10:15:00Z"  # type: ignore[attr-defined]


# -- idempotent requests -----------------------------------------------------------------------


def post_invoice(body: dict[str, Any], key: str) -> Any:
    client = APIClient(headers={"X-Client-ID": "brownouts"})
    return client.post(
        "/v1/invoices", json.dumps(body), content_type="application/json", headers={"Idempotency-Key": key}
    )


def test_a_keyed_post_inside_a_window_gets_the_410_and_stores_nothing(store_name: str) -> None:
    user = Customer.objects.create(email="brownout@example.com", name="B")
    key, body = uuid.uuid4().hex, {"user_id": user.pk, "amount_due": 700, "currency": "eur"}
    with at(INSIDE):
        refused = post_invoice(body, key)
        again = post_invoice(body, key)
    assert (refused.status_code, again.status_code) == (410, 410)
    assert refused["Retry-After"] == "570" and "X-Cache-Lookup" not in again
    assert Invoice.objects.count() == 0
    with at(FIRST.end):
        created = post_invoice(body, key)  # the key was never recorded: a first execution
        replay = post_invoice(body, key)
    assert (created.status_code, created["X-Cache-Lookup"]) == (201, "MISS"), created.content[:300]
    assert (replay["X-Cache-Lookup"], replay.content) == ("HIT", created.content)
    assert Invoice.objects.count() == 1


# -- the schedule: the command and the OpenAPI document ----------------------------------------


def test_the_deprecations_command_lists_each_window_and_its_state() -> None:
    output = io.StringIO()
    with at(INSIDE):
        call_command("deprecations", stdout=output)
    assert output.getvalue().splitlines()[-2:] == [
        "version v1: brownout 2026-12-08T10:00:00Z/2026-12-08T10:15:00Z, now",
        "version v1: brownout 2026-12-09T10:00:00Z/2026-12-09T11:00:00Z, planned",
    ]
    output = io.StringIO()
    with at(SECOND.end):
        call_command("deprecations", stdout=output)
    assert output.getvalue().count(", past\n") == 2


def test_without_brownouts_the_command_lists_none(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSIONS": EXAMPLE_SETTINGS["VERSIONS"]}
    output = io.StringIO()
    call_command("deprecations", stdout=output)
    assert "brownout" not in output.getvalue()


def test_the_openapi_documents_state_the_schedule(settings: Any) -> None:
    schedule = {
        "v1": [
            {"start": "2026-12-08T10:00:00Z", "end": "2026-12-08T10:15:00Z"},
            {"start": "2026-12-09T10:00:00Z", "end": "2026-12-09T11:00:00Z"},
        ]
    }
    line = (
        "During its planned brownouts version v1 answers 410 with Retry-After: "
        "2026-12-08T10:00:00Z to 2026-12-08T10:15:00Z; 2026-12-09T10:00:00Z to 2026-12-09T11:00:00Z."
    )
    v1, v2 = (get(f"/openapi.json?version={name}").json()["info"] for name in ("v1", "v2"))
    assert v1["x-brownouts"] == v2["x-brownouts"] == schedule
    assert v1["description"].count(line) == 1 and "brownout" not in v2.get("description", "")
    output = io.StringIO()
    call_command("spectacular", "--api-version", "v1", "--format", "openapi-json", stdout=output)
    assert json.loads(output.getvalue())["info"]["x-brownouts"] == schedule
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSIONS": EXAMPLE_SETTINGS["VERSIONS"]}
    assert "x-brownouts" not in get("/openapi.json?version=v1").json()["info"]


# -- the configuration -------------------------------------------------------------------------


def test_each_form_of_a_window_gives_the_same_schedule() -> None:
    forms = [
        "2026-12-08T10:00:00Z/PT15M",
        "2026-12-08T10:00:00+00:00/2026-12-08T10:15:00Z",
        "2026-12-08T11:00:00+01:00/PT900S",
        {"start": "2026-12-08T10:00:00Z", "duration": "PT0.25H"},
        {"start": dt.datetime(2026, 12, 8, 10, tzinfo=UTC), "duration": dt.timedelta(minutes=15)},
        {"start": "2026-12-08T10:00:00Z", "end": dt.datetime(2026, 12, 8, 10, 15, tzinfo=UTC)},
    ]
    for form in forms:
        assert parse_brownouts([form], name="v1", sunset=SUNSET) == (FIRST,), form


def test_windows_in_the_past_or_end_to_end_are_fine() -> None:
    windows = ["2026-01-05T10:00:00Z/PT1H", "2026-01-05T11:00:00Z/PT1H", "2027-05-31T23:00:00Z/2027-06-01T00:00:00Z"]
    assert len(parse_brownouts(windows, name="v1", sunset=SUNSET)) == 3


@pytest.mark.parametrize(
    ("windows", "error"),
    [
        ("2026-12-08T10:00:00Z/PT15M", "v1: 'brownouts' must be a list of windows"),
        (["2026-12-08T10:00:00Z"], "is not an interval start/duration or start/end"),
        (["2026-12-08T10:00:00/PT15M"], "'2026-12-08T10:00:00' is not an ISO 8601 date-time with its UTC offset"),
        (["2026-12-08/PT15M"], "'2026-12-08' is not an ISO 8601 date-time with its UTC offset"),
        (["next monday/PT15M"], "'next monday' is not an ISO 8601 date-time"),
        (["2026-12-08T10:00:00Z/P1M"], "'P1M' is not an ISO 8601 duration in days, hours, minutes or seconds"),
        (["2026-12-08T10:00:00Z/15:00"], "'15:00' is not an ISO 8601 date-time"),
        (["2026-12-08T10:00:00Z/PT0S"], "does not end after it starts"),
        (["2026-12-08T10:00:00Z/2026-12-08T09:00:00Z"], "does not end after it starts"),
        ([{"start": "2026-12-08T10:00:00Z", "end": "2026-12-08T11:00:00Z", "duration": "PT1H"}], "must be a string"),
        ([["2026-12-08T10:00:00Z", "PT1H"]], "must be a string such as '2026-12-08T10:00:00Z/PT15M'"),
        (
            ["2026-12-08T10:00:00Z/PT2H", "2026-12-08T11:00:00Z/PT15M"],
            "v1: the brownouts 2026-12-08T10:00:00Z/2026-12-08T12:00:00Z and "
            "2026-12-08T11:00:00Z/2026-12-08T11:15:00Z overlap",
        ),
        (
            ["2027-05-31T23:50:00Z/PT15M"],
            "v1: the brownout 2027-05-31T23:50:00Z/2027-06-01T00:05:00Z ends after the sunset 2027-06-01T00:00:00Z",
        ),
    ],
)
def test_a_wrong_window_is_refused_at_start_up_with_e020(windows: Any, error: str) -> None:
    with pytest.raises(ImproperlyConfigured) as raised:
        parse_brownouts(windows, name="v1", sunset=SUNSET)
    assert error in str(raised.value)
    with override_settings(API_CONVENTIONS={**EXAMPLE_SETTINGS, "VERSIONS": versions_with(windows)}):
        [message] = checks.settings.check_settings()
    assert message.id == "django_api_conventions.E020" and error in message.msg


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        ({"name": "v2", "status": "current"}, "v2: brownouts come before a sunset; give the version its 'sunset'"),
        ({"name": "v2", "status": "current", "sunset": "2028-01-01"}, "v2: the current version has no brownouts"),
    ],
)
def test_a_version_without_a_sunset_ahead_has_no_brownouts(entry: dict[str, Any], error: str) -> None:
    versions = [*EXAMPLE_SETTINGS["VERSIONS"][:2], {**entry, "brownouts": ["2026-12-08T10:00:00Z/PT15M"]}]
    with override_settings(API_CONVENTIONS={**EXAMPLE_SETTINGS, "VERSIONS": versions}):
        messages = checks.settings.check_settings()
    assert [message.id for message in messages] == ["django_api_conventions.E020"]
    assert error in messages[0].msg


def test_the_example_reads_brownouts_from_its_environment() -> None:
    versions = [{"name": "v1", "status": "deprecated"}, {"name": "v2", "status": "current"}]
    assert with_brownouts(versions, None) == versions
    assert with_brownouts(versions, "v1=2026-12-08T10:00:00Z/PT15M; v1=2026-12-09T10:00:00Z/PT1H;") == [
        {
            "name": "v1",
            "status": "deprecated",
            "brownouts": ["2026-12-08T10:00:00Z/PT15M", "2026-12-09T10:00:00Z/PT1H"],
        },
        {"name": "v2", "status": "current"},
    ]
    with pytest.raises(ValueError, match=r"BROWNOUTS names unknown version\(s\) v9; the versions are v1, v2"):
        with_brownouts(versions, "v9=2026-12-08T10:00:00Z/PT15M")
    with pytest.raises(ValueError, match="BROWNOUTS item '2026-12-08T10:00:00Z/PT15M' is not version=start/duration"):
        with_brownouts(versions, "2026-12-08T10:00:00Z/PT15M")
