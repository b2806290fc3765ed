"""docs/adopting.md, followed to the letter: an existing DRF project (django-filter FilterSets,
the admin, an HTML page, Django's own RedisCache) with the package added as the page says.

The project is built from the page's marked blocks only (as tests/test_tutorial.py builds the
tutorial's), served by ``runserver``, and walked over real HTTP: strict 400s for its
django-filter parameters, each filter feature, cursors bound to the filters, keyed POSTs stored
in Redis through Django's RedisCache, problems on the API paths, Django's HTML on the admin and
the home page, and the admin itself (log in, list the books).
"""

from __future__ import annotations

import http.client
import os
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest

from .test_tutorial import Answer, Project, request, run_command, tutorial_steps

pytestmark = pytest.mark.redis

PAGE = Path(__file__).resolve().parent.parent / "docs" / "adopting.md"
ADMIN_PASSWORD = "adopting-password-1"
GENRES = ["novel", "poetry", "essay"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    project = Project.outside_the_suite(tmp_path_factory.mktemp("adopting"))
    # The project as it was: startproject and startapp wrote the files the page does not replace.
    project.run([sys.executable, "-m", "django", "startproject", "library", "."])
    project.run([sys.executable, "-m", "django", "startapp", "books"])
    try:
        for step in tutorial_steps(PAGE.read_text()):
            if step.path is not None:
                target = project.directory / step.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(step.content)
                continue
            for command in step.commands:
                run_command(project, command)
        project.manage("shell", "-c", "from books.models import Author; [Author.objects.create(name=n) for n in 'AB']")
        project.env.update(DJANGO_SUPERUSER_PASSWORD=ADMIN_PASSWORD)
        project.manage("createsuperuser", "--no-input", "--username", "admin", "--email", "admin@example.com")
        project.start_server()
        yield project
    finally:
        project.stop_server()


@pytest.fixture(scope="module")
def books(project: Project) -> list[dict[str, Any]]:
    """24 books created through the API, each under a key of its own."""
    created = []
    for index in range(24):
        payload = {
            "title": f"Book {index}",
            "author": 1 + index % 2,
            "genre": GENRES[index % 3],
            "pages": 100 + index,
            "published": f"2020-{1 + index % 12:02d}-15",
        }
        answer = project.http("POST", "/api/books", payload, Idempotency_Key=f"create-{uuid.uuid4().hex}")
        assert answer.status == 201, answer.body
        created.append(answer.json())
    return created


def newest_first(rows: list[dict[str, Any]]) -> list[int]:
    return [row["id"] for row in sorted(rows, key=lambda row: (row["created_at"], row["id"]), reverse=True)]


def walk(project: Project, **params: Any) -> list[int]:
    """Every id of the list under ``params``, page after page, 5 a page."""
    ids: list[int] = []
    cursor = None
    while True:
        query = urlencode({**params, "limit": 5, **({"cursor": cursor} if cursor else {})}, doseq=True)
        answer = project.http("GET", f"/api/books?{query}")
        assert answer.status == 200, answer.body
        ids += [row["id"] for row in answer.json()["data"]]
        cursor = answer.json()["pagination"]["next_cursor"]
        if cursor is None:
            return ids


def problem(answer: Answer, status: int, slug: str) -> dict[str, Any]:
    assert answer.status == status, answer.body
    assert answer.headers["Content-Type"] == "application/problem+json"
    body: dict[str, Any] = answer.json()
    assert body["type"].endswith(f"/problems/{slug}") and body["trace_id"] == answer.headers["X-Request-ID"]
    return body


def test_the_page_marks_the_projects_files_and_commands() -> None:
    steps = tutorial_steps(PAGE.read_text())
    files = {step.path for step in steps if step.path}
    assert {
        "library/settings.py",
        "library/urls.py",
        "books/filters.py",
        "books/views.py",
        "books/models.py",
        "books/templates/books/home.html",
    } <= files
    settings = next(step.content for step in steps if step.path == "library/settings.py")
    assert "django.core.cache.backends.redis.RedisCache" in settings and '"IDEMPOTENCY_STORE": "redis"' in settings
    filters = next(step.content for step in steps if step.path == "books/filters.py")
    for feature in (
        "ModelChoiceFilter",
        "MultipleChoiceFilter",
        "DateFromToRangeFilter",
        "method=",
        "exclude=True",
        '"pages": ["gte", "lte"]',
    ):
        assert feature in filters, feature


def test_an_undeclared_parameter_is_a_400_naming_it_and_listing_the_accepted_ones(project: Project) -> None:
    body = problem(project.http("GET", "/api/books?genr=novel"), 400, "invalid-parameters")
    assert [(item["parameter"], item["code"]) for item in body["errors"]] == [("genr", "unknown")]
    accepted = body["errors"][0]["detail"].removeprefix("Unknown parameter. Accepted: ").rstrip(".").split(", ")
    assert {
        "author",
        "genre",
        "published_after",
        "published_before",
        "title",
        "not_genre",
        "pages__gte",
        "pages__lte",
        "cursor",
        "limit",
    } <= set(accepted)


@pytest.mark.parametrize(
    "query",
    [
        "author=9",
        "genre=crime",
        "published_after=2020-02-30",
        "pages__gte=1e3",
        "pages__gte=%20100",
        "title=",
        "author=1&author=2",
    ],
)
def test_a_value_the_filterset_refuses_or_django_would_forgive_is_a_400_naming_it(project: Project, query: str) -> None:
    body = problem(project.http("GET", f"/api/books?{query}"), 400, "invalid-parameters")
    assert [item["parameter"] for item in body["errors"]] == [query.split("=")[0]]


def test_each_django_filter_feature_filters_the_list(project: Project, books: list[dict[str, Any]]) -> None:
    assert walk(project) == newest_first(books)
    assert walk(project, author=2) == newest_first([b for b in books if b["author"] == 2])
    assert walk(project, genre=["novel", "essay"]) == newest_first([b for b in books if b["genre"] != "poetry"])
    assert walk(project, published_after="2020-03-01", published_before="2020-05-31") == newest_first(
        [b for b in books if "2020-03-01" <= b["published"] <= "2020-05-31"]
    )
    assert walk(project, title="ook 1") == newest_first([b for b in books if "ook 1" in b["title"]])
    assert walk(project, not_genre="novel") == newest_first([b for b in books if b["genre"] != "novel"])
    assert walk(project, pages__gte=105, pages__lte=110) == newest_first([b for b in books if 105 <= b["pages"] <= 110])


def test_a_cursor_replayed_under_other_filters_is_a_400(project: Project, books: list[dict[str, Any]]) -> None:
    first = project.http("GET", "/api/books?genre=novel&limit=2").json()
    cursor = quote(first["pagination"]["next_cursor"])
    assert project.http("GET", f"/api/books?genre=novel&limit=2&cursor={cursor}").status == 200
    replayed = problem(project.http("GET", f"/api/books?genre=poetry&limit=2&cursor={cursor}"), 400, "invalid-cursor")
    assert replayed["errors"][0]["parameter"] == "cursor"


def test_a_keyed_post_runs_once_and_its_record_is_in_redis(project: Project) -> None:
    import redis

    from django_api_conventions.idempotency.stores.redis import RedisStore

    key = f"adopting-{uuid.uuid4().hex}"
    payload = {"title": "Keyed", "author": 1, "genre": "essay", "pages": 12, "published": "2024-01-01"}
    first = project.http("POST", "/api/books", payload, Idempotency_Key=key, X_Client_ID="adopting")
    again = project.http("POST", "/api/books", payload, Idempotency_Key=key, X_Client_ID="adopting")
    assert (first.status, first.headers["X-Cache-Lookup"]) == (201, "MISS")
    assert (again.status, again.headers["X-Cache-Lookup"], again.body) == (201, "HIT", first.body)
    problem(
        project.http("POST", "/api/books", {**payload, "pages": 13}, Idempotency_Key=key, X_Client_ID="adopting"),
        422,
        "idempotency-key-reused",
    )
    assert walk(project, title="Keyed") == [first.json()["id"]]
    # Django's RedisCache lent its client to the store: the record is in REDIS_URL's database.
    assert redis.Redis.from_url(os.environ["REDIS_URL"]).exists(RedisStore.record_key("client:adopting", key))


def test_the_api_answers_problems_and_the_html_site_djangos_pages(project: Project) -> None:
    html = {"Accept": "text/html"}
    problem(project.http("GET", "/api/nowhere", Accept="text/html"), 404, "not-found")
    problem(project.http("POST", "/api/books", {"title": "x"}, Accept="text/html"), 422, "validation-error")
    home = request(project.origin, "GET", "/", headers=html)
    assert home.status == 200 and home.headers["Content-Type"].startswith("text/html")
    assert b"<h1>Library</h1>" in home.body
    missing = request(project.origin, "GET", "/nowhere", headers=html)
    assert missing.status == 404 and missing.headers["Content-Type"].startswith("text/html")
    admin_missing = request(project.origin, "GET", "/admin/nowhere/", headers=html)
    assert admin_missing.headers["Content-Type"].startswith("text/html")
    csrf = request(
        project.origin,
        "POST",
        "/admin/login/",
        body=b"username=admin&password=x",
        headers={**html, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert csrf.status == 403 and csrf.headers["Content-Type"].startswith("text/html")
    assert b"CSRF verification failed" in csrf.body


def test_the_admin_works_as_before(project: Project, books: list[dict[str, Any]]) -> None:
    parts = urlsplit(project.origin)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)

    def get(path: str, cookies: dict[str, str]) -> http.client.HTTPResponse:
        connection.request("GET", path, headers={"Accept": "text/html", "Cookie": cookie_header(cookies)})
        return connection.getresponse()

    cookies: dict[str, str] = {}
    try:
        login = get("/admin/login/", cookies)
        page = login.read().decode()
        cookies.update(set_cookies(login))
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert login.status == 200 and token, page[:500]
        form = urlencode(
            {"csrfmiddlewaretoken": token[1], "username": "admin", "password": ADMIN_PASSWORD, "next": "/admin/"}
        )
        connection.request(
            "POST",
            "/admin/login/",
            body=form,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": cookie_header(cookies),
                "Referer": f"{project.origin}/admin/login/",
            },
        )
        logged_in = connection.getresponse()
        logged_in.read()
        assert logged_in.status == 302 and logged_in.headers["Location"] == "/admin/", logged_in.status
        cookies.update(set_cookies(logged_in))
        listing = get("/admin/books/book/", cookies)
        body = listing.read().decode()
        assert listing.status == 200 and listing.headers["Content-Type"].startswith("text/html")
        assert books[0]["title"] in body
    finally:
        connection.close()


def set_cookies(response: http.client.HTTPResponse) -> dict[str, str]:
    cookies = {}
    for header in response.headers.get_all("Set-Cookie") or []:
        name, _, rest = header.partition("=")
        cookies[name] = rest.split(";", 1)[0]
    return cookies


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())
