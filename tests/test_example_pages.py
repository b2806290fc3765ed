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


def listed_urls(value: Any) -> list[str]:
    """Every absolute URL anywhere in a JSON document."""
    if isinstance(value, dict):
        return [url for item in value.values() for url in listed_urls(item)]
    if isinstance(value, list):
        return [url for item in value for url in listed_urls(item)]
    return [value] if isinstance(value, str) and value.startswith(("http://", "https://")) else []


def test_every_url_the_index_lists_answers(client: APIClient) -> None:
    index = client.get("/").json()
    retired = {f"{TESTSERVER}/{version['name']}" for version in index["versions"] if version["status"] == "retired"}
    urls = listed_urls(index)
    assert {f"{TESTSERVER}/v0", f"{TESTSERVER}/v1", f"{TESTSERVER}/v2"} <= set(urls)
    for url in urls:
        assert follow(client, url).status_code == (410 if url in retired else 200), url


@pytest.mark.parametrize("name", ["v1", "v2"])
def test_a_version_root_is_the_index_of_its_collections(client: APIClient, name: str) -> None:
    answer = client.get(f"/{name}")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json", answer.content
    root = answer.json()
    assert (root["version"], root["status"]) == (name, "current" if name == "v2" else "deprecated")
    assert root["collections"] == {
        collection: f"{TESTSERVER}/{name}/{collection}" for collection in ("users", "invoices", "orders")
    }
    for url in listed_urls(root):
        assert follow(client, url).status_code == 200, url
    # Like every response of a deprecated version, its root's announces the deprecation.
    assert ("Deprecation" in answer, "Sunset" in answer) == ((name == "v1"),) * 2
    assert client.get(f"/{name}", {"colour": "red"}).status_code == 400


def test_the_root_of_a_retired_or_unknown_version(client: APIClient) -> None:
    retired = client.get("/v0")
    assert retired.status_code == 410 and retired.json()["migration_guide"] == settings.MIGRATION_GUIDE
    assert client.get("/v9").status_code == 404
    with time_machine.travel("2027-06-02T00:00:00Z", tick=False):
        assert client.get("/v1").status_code == 410


#: The read-only pages: the package's problem pages and its docs page and assets, the guide.
READ_ONLY_PAGES = [
    "/docs",
    "/docs/assets/swagger-ui-dist/swagger-ui.css",
    "/problems",
    "/problems/",
    "/problems/not-found",
    "/problems/style.css",
    "/guides/migrating-to-v2",
]


def allowed(answer: Any) -> set[str]:
    return {method.strip() for method in (answer.get("Allow") or "").split(",") if method.strip()}


@pytest.mark.parametrize("path", READ_ONLY_PAGES)
def test_a_read_only_page_answers_options_with_allow(path: str) -> None:
    answer = APIClient().options(path)
    assert answer.status_code in (200, 204), (path, answer.status_code, answer.content[:200])
    assert allowed(answer) == {"GET", "HEAD", "OPTIONS"}
    assert APIClient().get(path).status_code in (200, 301)


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "PROPFIND", "TRACE", "MKCOL"])
@pytest.mark.parametrize("path", READ_ONLY_PAGES)
def test_a_read_only_page_refuses_other_methods_with_allow(method: str, path: str) -> None:
    # CSRF enforced as for a browser: a page's 405 comes before any CSRF 403.
    answer = APIClient(enforce_csrf_checks=True).generic(method, path, "{}", content_type="application/json")
    assert answer.status_code == 405, (path, method, answer.status_code, answer.content[:200])
    assert answer["Content-Type"] == "application/problem+json"
    assert answer.json()["type"].endswith("/problems/method-not-allowed")
    assert allowed(answer) == {"GET", "HEAD", "OPTIONS"}
