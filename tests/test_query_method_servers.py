"""QUERY on the example's invoices over real HTTP: gunicorn (deploy/gunicorn.conf.py), uvicorn,
and nginx rendered from the recipe (deploy/nginx/) in front of gunicorn; SQLite, and PostgreSQL
with the Redis store. Each answers the POST search's pages and stores nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .example_service import example_service
from .http import HTTPResult, send
from .problem_assertions import assert_problem
from .reverse_proxy import GUNICORN_CONFIG, nginx_front
from .servers import uvicorn

FRONTS = ["gunicorn", "uvicorn", pytest.param("nginx", marks=pytest.mark.nginx)]
BODY: dict[str, Any] = {"any": [{"status": "paid"}, {"status": "draft"}], "limit": 3}


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("postgres+redis", marks=[pytest.mark.postgres, pytest.mark.redis])],
)
def urls(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Each front's base URL, all serving one database."""
    folder: Path = tmp_path_factory.mktemp("query-method")
    with (
        example_service(request.param, folder, gunicorn_options=["-c", str(GUNICORN_CONFIG)]) as service,
        uvicorn(**service.environment) as asgi,
        nginx_front(service.url.removeprefix("http://"), folder / "nginx") as nginx,
    ):
        yield {"gunicorn": service.url, "uvicorn": asgi.url, "nginx": nginx.url}


def call(url: str, method: str, path: str, body: Any = None, **headers: str) -> HTTPResult:
    return send(url, method, path, json_body=body, headers={"X-Client-ID": f"query-{method}", **headers})


def pages(url: str, method: str, path: str) -> list[Any]:
    found, body = [], dict(BODY)
    while True:
        page = call(url, method, path, body)
        assert page.status == 200, page.body
        assert page.header("Link") is None  # the next page is the same body with the cursor
        found.append(page.json())
        body["cursor"] = page.json()["pagination"]["next_cursor"]
        if body["cursor"] is None:
            return found


@pytest.mark.parametrize("front", FRONTS)
def test_query_answers_the_pages_of_the_post_search(urls: dict[str, str], front: str) -> None:
    by_query = pages(urls[front], "QUERY", "/v2/invoices")
    assert len(by_query) > 1
    assert by_query == pages(urls[front], "POST", "/v2/invoices/search")
    assert {row["status"] for page in by_query for row in page["data"]} == {"paid", "draft"}


@pytest.mark.parametrize("front", FRONTS)
def test_query_is_advertised_and_refused_as_the_search(urls: dict[str, str], front: str) -> None:
    for method in ("GET", "OPTIONS"):
        answer = call(urls[front], method, "/v2/invoices")
        assert answer.status == 200
        assert answer.header("Accept-Query") == "application/json"
        assert "QUERY" in (answer.header("Allow") or "").split(", ")
    refused = assert_problem(call(urls[front], "QUERY", "/v2/invoices?limit=2", BODY), 400, "invalid-parameters")
    assert [error["parameter"] for error in refused["errors"]] == ["limit"]
    wrong = assert_problem(
        call(urls[front], "QUERY", "/v2/invoices", {"any": [{"colour": "red"}]}), 422, "validation-error"
    )
    assert wrong["errors"][0]["pointer"] == "/any/0/colour"
    assert_problem(call(urls[front], "QUERY", "/v2/users", BODY), 405, "method-not-allowed")


@pytest.mark.parametrize("front", FRONTS)
def test_a_key_sent_with_query_is_ignored_and_stays_free(urls: dict[str, str], front: str) -> None:
    key = str(uuid.uuid4())
    for _ in range(2):
        answer = call(urls[front], "QUERY", "/v2/invoices", BODY, **{"Idempotency-Key": key})
        assert answer.status == 200 and answer.header("Idempotent-Replayed") is None
    user = call(urls[front], "GET", "/v2/users?limit=1").json()["data"][0]["id"]
    payload = {"user_id": user, "amount_due": 5, "currency": "eur"}
    created = call(urls[front], "POST", "/v2/invoices", payload, **{"Idempotency-Key": key})
    assert created.status == 201, created.body
    assert created.header("Idempotent-Replayed") == "false"
