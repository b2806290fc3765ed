from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.utils import translation

from django_api_conventions.problems import ProblemException
from django_api_conventions.problems.built_in import BUILT_IN
from django_api_conventions.problems.types import (
    ProblemField,
    ProblemType,
    ProblemTypeRegistry,
    problem_types,
    register_problem_type,
)


def test_registry_refuses_a_conflicting_slug() -> None:
    registry = ProblemTypeRegistry()
    registry.register(ProblemType("card-declined", "Card declined", 402, "The card was declined."))
    registry.register(ProblemType("card-declined", "Card declined", 402, "The card was declined."))
    with pytest.raises(ImproperlyConfigured, match="already registered"):
        registry.register(ProblemType("card-declined", "Declined", 402, "Other text."))


@pytest.mark.parametrize(("slug", "status"), [("Bad Slug", 400), ("ok", 302), ("ok", 600)])
def test_problem_types_are_validated(slug: str, status: int) -> None:
    with pytest.raises(ImproperlyConfigured):
        ProblemType(slug, "t", status, "d")


def test_unknown_slug() -> None:
    assert problem_types.get("no-such-type") is None
    with pytest.raises(KeyError):
        problem_types["no-such-type"]


def test_every_error_status_has_a_type() -> None:
    assert problem_types.for_status(404).slug == "not-found"
    assert problem_types.for_status(418).title == "I'm a Teapot"
    assert problem_types.for_status(499).title == "Client error"
    assert problem_types.for_status(599).title == "Server error"


def test_users_register_their_own_types() -> None:
    register_problem_type("order-already-shipped", "Order already shipped", 409, "A shipped order is final.")
    problem = ProblemException("order-already-shipped", "Order ord_1 shipped.", extensions={"order": "ord_1"})
    assert problem.status_code == 409
    assert problem_types["order-already-shipped"].status == 409


def test_extensions_cannot_overwrite_reserved_members() -> None:
    with pytest.raises(ValueError, match="reserved members"):
        ProblemException("conflict", extensions={"status": 200})


def test_documentation_pages() -> None:
    client = Client()
    html = client.get("/problems/rate-limited")
    assert html.status_code == 200 and b"Retry-After" in html.content
    as_json = client.get("/problems/rate-limited", headers={"Accept": "application/json"})
    assert as_json.json()["status"] == 429
    generic = client.get("/problems/http-418", headers={"Accept": "application/json"})
    assert generic.json()["title"] == "I'm a Teapot"
    listing = client.get("/problems/", headers={"Accept": "application/json"})
    assert {"not-found", "validation-error"} <= {t["slug"] for t in listing.json()}
    assert b"<h1>Problem types</h1>" in client.get("/problems/").content


def test_unknown_type_page_is_a_problem() -> None:
    response = Client().get("/problems/no-such-type")
    assert response.status_code == 404 and response["Content-Type"] == "application/problem+json"


def test_documentation_pages_are_read_only() -> None:
    response = Client().post("/problems/not-found")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD, OPTIONS"
    assert response["Content-Type"] == "application/problem+json"
    options = Client().options("/problems/not-found")
    assert options.status_code == 204 and options["Allow"] == "GET, HEAD, OPTIONS"


# -- The pages a developer lands on from a `type` URL -------------------------------------------


def _example_body(page: str) -> dict[str, Any]:
    [example] = re.findall(r'<pre class="example"><code>(.*?)</code></pre>', page, re.S)
    return json.loads(html.unescape(example).split("\n\n", 1)[1])


@pytest.mark.parametrize("slug", [t.slug for t in BUILT_IN])
def test_every_built_in_page_says_what_happened_how_to_fix_it_and_shows_an_example(slug: str) -> None:
    problem_type = problem_types[slug]
    answer = Client().get(f"/problems/{slug}")
    page = answer.content.decode()
    assert answer.status_code == 200 and answer["Content-Language"] == "en"
    assert problem_type.fix and problem_type.example_detail
    assert f'<code class="type-url">http://testserver/problems/{slug}</code>' in page
    assert f"<code>{problem_type.status}</code>" in page
    assert "What happened" in page and "How to fix it" in page and "`" not in page
    body = _example_body(page)
    assert body["type"] == f"http://testserver/problems/{slug}" and body["status"] == problem_type.status
    assert body["title"] == problem_type.title and body["detail"] == problem_type.example_detail
    assert {"instance", "trace_id"} <= set(body)
    for member in problem_type.members:
        assert f"<code>{member.name}</code>" in page and member.name in body
    for header in problem_type.headers:
        assert f"<code>{header.name}</code>" in page and f"\n{header.name}: " in html.unescape(page)
    # Links: the index, the API docs, the other types of its status.
    assert 'href="/problems/"' in page and 'href="/docs"' in page
    for other in problem_types:
        if other.status == problem_type.status and other.slug != slug:
            assert f'href="/problems/{other.slug}"' in page
    assert 'rel="stylesheet" href="/problems/style.css"' in page


def test_the_index_has_a_table_of_contents_of_every_type() -> None:
    page = Client().get("/problems/").content.decode()
    for problem_type in problem_types:
        assert f'<a href="#{problem_type.slug}">' in page and f'id="{problem_type.slug}"' in page
        assert f'<a href="/problems/{problem_type.slug}">' in page
    assert 'href="/docs"' in page


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/problems", "/problems/"),
        ("/problems?lang=de", "/problems/?lang=de"),
        ("/problems/rate-limited/", "/problems/rate-limited"),
        ("/problems/http-418/", "/problems/http-418"),
    ],
)
def test_the_other_spelling_of_a_page_redirects_to_it(path: str, target: str) -> None:
    answer = Client().get(path)
    assert answer.status_code == 301 and answer["Location"] == target


def test_an_unknown_type_with_a_slash_is_a_404_problem() -> None:
    answer = Client().get("/problems/no-such-type/")
    assert answer.status_code == 404 and answer["Content-Type"] == "application/problem+json"


def test_the_pages_speak_the_request_language() -> None:
    try:
        german = Client().get("/problems/idempotency-key-in-use", headers={"Accept-Language": "de"})
        as_json = Client().get(
            "/problems/idempotency-key-in-use", headers={"Accept-Language": "de", "Accept": "application/json"}
        )
    finally:
        translation.activate("en")
    page = german.content.decode()
    assert german["Content-Language"] == "de" and as_json["Content-Language"] == "de"
    assert '<html lang="de">' in page and "Was zu tun ist" in page and "API-Dokumentation" in page
    assert _example_body(page)["title"] == "Anfrage mit diesem Idempotency-Key in Bearbeitung"
    assert as_json.json()["fix"].startswith("Wiederholen Sie die Anfrage")
    # The type URL never changes with the language.
    assert as_json.json()["type"] == "http://testserver/problems/idempotency-key-in-use"


def test_the_json_variant_documents_fix_members_and_headers() -> None:
    answer = Client().get("/problems/request-too-large", headers={"Accept": "application/json"}).json()
    assert answer["fix"].startswith("Send a body of at most `limit_bytes` bytes")
    assert [member["name"] for member in answer["members"]] == ["limit_bytes"]
    rate_limited = Client().get("/problems/rate-limited", headers={"Accept": "application/json"}).json()
    assert [header["name"] for header in rate_limited["headers"]] == ["Retry-After"]


def test_the_stylesheet_is_the_packages_own() -> None:
    answer = Client().get("/problems/style.css")
    assert answer.status_code == 200 and answer["Content-Type"] == "text/css; charset=utf-8"
    css = answer.content.decode()
    assert "font:" in css and "url(" not in css and "@import" not in css  # no external asset


def test_without_the_openapi_urls_the_pages_link_no_docs(settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.urls_without_docs"
    page = Client().get("/problems/not-found").content.decode()
    assert "<h1>Not found</h1>" in page and 'href="/docs"' not in page and 'href="/problems/"' in page


def test_the_pages_touch_no_database(settings: Any) -> None:
    # No django_db mark: any query raises. The maintenance switch is read from the cache.
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_SWITCH_STORE": "cache"}
    client = Client()
    for path in ("/problems/", "/problems/conflict", "/problems/style.css", "/problems", "/problems/gone/"):
        assert client.get(path).status_code in (200, 301), path


def test_users_document_their_own_types() -> None:
    register_problem_type(
        "card-expired",
        "Card expired",
        402,
        "The card's expiry date has passed.",
        fix="Ask the customer for another card.",
        members=[ProblemField("card_last4", "The last four digits of the card.", "4242")],
        headers=[ProblemField("Retry-After", "Never: it will not succeed again.", "86400")],
        example_detail="The card ending in 4242 expired in 2025-12.",
    )
    page = Client().get("/problems/card-expired").content.decode()
    assert "Ask the customer for another card." in page and "<code>card_last4</code>" in page
    assert _example_body(page)["card_last4"] == "4242" and "Retry-After: 86400" in page


def test_an_example_of_a_status_without_a_reason_phrase() -> None:
    register_problem_type("client-closed-request", "Client closed the request", 499, "The client went away.")
    page = Client().get("/problems/client-closed-request").content.decode()
    assert "HTTP/1.1 499\n" in page and _example_body(page)["detail"] == "Client closed the request"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize(
    "path", ["/problems", "/problems/", "/problems/not-found", "/problems/not-found/", "/problems/style.css"]
)
def test_the_pages_are_read_only_resources(method: str, path: str) -> None:
    # A browser-like client: Django's CSRF check is on, and must not answer first.
    response = Client(enforce_csrf_checks=True).generic(method, path, b"{}", content_type="application/json")
    assert response.status_code == 405, response.content[:200]
    assert response["Content-Type"] == "application/problem+json"
    assert response["Allow"] == "GET, HEAD, OPTIONS"
