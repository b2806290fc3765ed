"""The example service's own pages: the index at ``/``, and the targets of its ``Link`` headers."""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import urlsplit

import pytest
import time_machine
from django.conf import settings
from rest_framework.test import APIClient

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testproject.urls")]

TESTSERVER = "http://testserver"


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "pages"})


@pytest.fixture(autouse=True)
def before_the_sunset_of_v1() -> Any:
    with time_machine.travel("2026-11-22T12:00:00Z", tick=False):
        yield


def link_targets(header: str | None) -> list[str]:
    return re.findall(r"<([^>]*)>", header or "")


def follow(client: APIClient, url: str) -> Any:
    """GET ``url`` from the service itself: a link elsewhere does not answer here."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    assert origin in ("", TESTSERVER, settings.PUBLIC_URL), f"{url} leaves the service"
    return client.get(f"{parts.path}?{parts.query}" if parts.query else parts.path)


def test_each_link_target_of_the_example_answers(client: APIClient) -> None:
    user = client.post("/v2/users", {"email": "pages@example.com", "name": "P"}, format="json").json()
    renamed = client.post("/v2/invoices", {"user_id": user["id"], "total": 5, "currency": "eur"}, format="json")
    assert renamed.status_code == 201, renamed.content
    client.post("/v2/invoices", {"user_id": user["id"], "amount_due": 6, "currency": "eur"}, format="json")
    answers = [
        client.get("/v1/invoices", {"limit": 1}),  # the version's deprecation, and rel="next"
        client.get("/v0/invoices"),  # the retired version's 410
        renamed,  # the deprecated field's name
    ]
    links = {target for answer in answers for target in link_targets(answer.get("Link"))}
    links.add(answers[1].json()["migration_guide"])
    assert any("#amount-due" in link for link in links) and any("cursor=" in link for link in links)
    for link in links:
        page = follow(client, link)
        assert page.status_code == 200, (link, page.status_code)
        fragment = urlsplit(link).fragment
        if fragment:
            assert f'id="{fragment}"' in page.content.decode(), link


def test_the_migration_guide_is_a_page_of_the_service(client: APIClient) -> None:
    guide = urlsplit(settings.MIGRATION_GUIDE)
    assert f"{guide.scheme}://{guide.netloc}" == settings.PUBLIC_URL
    page = client.get(guide.path)
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert "2027-06-01" in html and 'id="v1"' in html and 'id="v0"' in html


def test_the_index_names_each_version_and_the_docs(client: APIClient) -> None:
    answer = client.get("/")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    index = answer.json()
    assert index["current_version"] == "v2"
    versions = {version["name"]: version for version in index["versions"]}
    assert {name: version["status"] for name, version in versions.items()} == {
        "v0": "retired",
        "v1": "deprecated",
        "v2": "current",
    }
    assert {name: version["url"] for name, version in versions.items()} == {
        name: f"{TESTSERVER}/{name}" for name in versions
    }
    assert versions["v1"]["sunset"] == "2027-06-01" and "openapi" not in versions["v0"]
    for name in ("v1", "v2"):
        assert follow(client, f"{versions[name]['url']}/invoices").status_code == 200
        assert follow(client, versions[name]["openapi"]).json()["info"]["x-api-version"] == name
    assert follow(client, f"{versions['v0']['url']}/invoices").status_code == 410
    assert set(index["docs"]) == {"docs", "openapi", "problems"}
    for url in index["docs"].values():
        assert follow(client, url).status_code == 200, url


def test_the_index_after_the_sunset_of_v1(client: APIClient) -> None:
    with time_machine.travel("2027-06-02T00:00:00Z", tick=False):
        versions = {version["name"]: version for version in client.get("/").json()["versions"]}
    assert versions["v1"]["status"] == "retired" and "openapi" not in versions["v1"]


def test_the_index_refuses_what_it_does_not_take(client: APIClient) -> None:
    assert client.get("/", {"colour": "red"}).status_code == 400
    refused = client.post("/", {}, format="json", headers={"Idempotency-Key": uuid.uuid4().hex})
    assert refused.status_code == 405 and refused["Content-Type"] == "application/problem+json"


def test_the_index_and_the_guide_answer_during_maintenance(client: APIClient, settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_MODE": True}
    assert client.get("/v2/users").status_code == 503
    assert client.get("/").status_code == 200
    assert client.get(urlsplit(settings.MIGRATION_GUIDE).path).status_code == 200
