"""A brownout of v1 through the reverse-proxy recipe: the example service under gunicorn, started
with ``BROWNOUTS`` naming a window a little ahead, behind nginx. Before the window and after it
v1 serves; inside it, the 410 with ``Retry-After`` reaches the client as the service sent it,
and a keyed POST stores nothing. Real time passes: no clock can be moved in another process.
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from .example_service import Service, example_service
from .http import HTTPResult, send
from .problem_assertions import assert_problem
from .reverse_proxy import GUNICORN_CONFIG, Nginx, nginx_front

#: Seconds from the start of the test to the window: the migrations, the demo data, gunicorn and
#: nginx start within it.
LEAD = 45
WINDOW = 6  # seconds

pytestmark = pytest.mark.nginx


def _utc(moment: dt.datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%SZ}"


def _wait_until(moment: dt.datetime) -> None:
    time.sleep(max(0.0, (moment - dt.datetime.now(dt.UTC)).total_seconds()) + 0.2)


@pytest.fixture(
    params=["sqlite", pytest.param("postgres+redis", marks=[pytest.mark.postgres, pytest.mark.redis])],
)
def planned(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[tuple[Service, Nginx, dt.datetime]]:
    start = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=LEAD)
    brownouts = f"v1={_utc(start)}/PT{WINDOW}S"
    options = ["-c", str(GUNICORN_CONFIG)]
    with example_service(request.param, tmp_path, gunicorn_options=options, BROWNOUTS=brownouts) as service:
        maps = json.loads(service.manage("deprecations", "--nginx"))
        upstream = service.url.removeprefix("http://")
        with nginx_front(upstream, tmp_path / "nginx", upstream_timeout="10s", deprecation_maps=maps) as nginx:
            yield service, nginx, start


def _keyed_invoice(url: str, user_id: Any, key: str) -> HTTPResult:
    body = {"user_id": user_id, "amount_due": 700, "currency": "eur"}
    return send(url, "POST", "/v1/invoices", json_body=body, headers={"Idempotency-Key": key, "X-Client-ID": "brown"})


def test_behind_nginx_a_window_answers_410_with_retry_after_and_v1_serves_outside_it(
    planned: tuple[Service, Nginx, dt.datetime],
) -> None:
    service, nginx, start = planned
    end = start + dt.timedelta(seconds=WINDOW)
    listing = service.manage("deprecations")
    assert f"version v1: brownout {_utc(start)}/{_utc(end)}, planned" in listing
    user = send(nginx.url, "POST", "/v2/users", json_body={"email": f"{uuid.uuid4().hex}@example.com", "name": "B"})
    assert user.status == 201, user.body[:300]

    assert (start - dt.datetime.now(dt.UTC)).total_seconds() > 2, "the service took longer than LEAD to start"
    before = send(nginx.url, "GET", "/v1/users")
    assert before.status == 200 and before.header("Retry-After") is None
    assert before.header("Deprecation") is not None and before.header("Sunset") is not None

    _wait_until(start)
    inside = send(nginx.url, "GET", "/v1/users")
    body = assert_problem(inside, 410, "version-retired")
    assert body["version"] == "v1" and body["migration_guide"] == f"{service.url}/guides/migrating-to-v2"
    assert 1 <= int(inside.header("Retry-After") or 0) <= WINDOW
    assert inside.header("Deprecation") == before.header("Deprecation")
    assert inside.header("Sunset") == before.header("Sunset") and 'rel="sunset"' in (inside.header("Link") or "")
    key = uuid.uuid4().hex
    refused = _keyed_invoice(nginx.url, user.json()["id"], key)
    assert refused.status == 410 and refused.header("Retry-After") is not None
    assert send(nginx.url, "GET", "/v2/users").status == 200

    _wait_until(end)
    after = send(nginx.url, "GET", "/v1/users")
    assert after.status == 200 and after.header("Retry-After") is None
    created = _keyed_invoice(nginx.url, user.json()["id"], key)  # nothing was stored under the key
    assert (created.status, created.header("X-Cache-Lookup")) == (201, "MISS"), created.body[:300]
    assert service.manage("deprecations").count(", past\n") == 1
